"""Logs and shell output: error and warning lines with their context, tracebacks whole, the
command's summary lines (test totals, compiler error counts, make/npm/cargo verdicts), head and tail."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from itertools import accumulate

from .measure import Count
from .select import Body, Scans, scanned, select_lines
from .source import line_chunks

ERROR_RE = re.compile(
    r"(?i:\b(?:error|errors|fatal|failed|failure|failures|exception|panic|panicked|segmentation fault"
    r"|core dumped|abort(?:ed)?|denied|refused|traceback|assert(?:ion)?(?:error)?|undefined reference"
    r"|cannot find|could not|unable to|no such file|not found|timed out|killed)\b)"
    r"|^E\s{2,}|^FAIL\b|npm ERR!|^\s*[✗✖×]\s"
)
WARNING_RE = re.compile(r"(?i:\bwarn(?:ing)?s?\b|\bdeprecat)")
SUMMARY_RE = re.compile(
    r"^=+ .*\b(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|no tests ran)\b.* =+\s*$"
    r"|^=+ (?:short test summary info|FAILURES|ERRORS) =+\s*$"
    r"|\b\d+ (?:passed|failed|errors?|skipped)\b"
    r"|^Ran \d+ tests? in|^(?:OK|FAILED)(?: \(.*\))?\s*$"
    r"|error: could not compile|\b\d+ errors? generated|^make(?:\[\d+\])?: \*\*\*"
    r"|^npm (?:ERR!|error) (?:code|errno)|^test result:|^\s*Finished\b|^BUILD (?:SUCCESS|FAILED|SUCCESSFUL)"
    r"|^(?:Tests|Test Suites|Snapshots):\s+\d|^Found \d+ errors?|^Success: no issues|^All checks passed"
    r"|(?i:\bexit(?:ed)?(?: with)? (?:code|status)\b|process exited|command failed|returned non-zero)"
    r"|^\s*\d+ (?:problems?|errors?|warnings?)\b"
)
TRACEBACK_START = re.compile(r"^\s*Traceback \(most recent call last\):|^(?:goroutine \d+ \[|panic: )|^thread '.*' panicked")
STACKISH = re.compile(r"^\s+(?:at |File \"|-->|\||= |\^|\.\.\.|~)|^\s{2,}\S")

# A cheap literal prefilter over the lowercased text; the precise patterns run only on the
# lines it hits (the precise ones cost ~5 MB/s over whole texts, the prefilter ~60 MB/s).
CANDIDATE_RE = re.compile(
    r"error|fail|fatal|exception|panic|traceback|refused|denied|abort|assert|cannot|could not|unable|no such"
    r"|not found|timed out|killed|segmentation|core dumped|undefined|warn|deprecat|passed|skipped|ran \d"
    r"|finished|exit|non-zero|problem|goroutine|✗|✖|×"
)
# Line-start candidates, found after a newline (a literal prefix the regex engine scans fast).
LINE_START_RE = re.compile(r"\n(?:ok|e\s\s|=+ |make|npm|build |tests?[: ]|test suites|snapshots|found \d|success|all checks)")

def _candidates(lines: list[str]) -> list[int]:
    low = "\n".join(lines).lower()
    if len(low) != sum(len(x) for x in lines) + len(lines) - 1:  # lower() changed lengths (rare scripts)
        return list(range(len(lines)))
    starts = list(accumulate((len(x) + 1 for x in lines), initial=0))
    hits = {bisect_right(starts, m.start()) - 1 for m in CANDIDATE_RE.finditer(low)}
    hits.update(bisect_right(starts, m.start() + 1) - 1 for m in LINE_START_RE.finditer("\n" + low))
    return sorted(hits)


# Levels, most important first (the order lines are kept in at a small budget).
TOP, ERROR, FRAME, CONTEXT, WARNING, EDGE = range(6)
LEVEL_NAMES = {ERROR: "error", WARNING: "warning"}
HEAD_LINES = 3
TAIL_LINES = 400
_MAX_TB = 2000
_MAX_BLOCK = 40


class _Capped:
    """The first items up to half a character cap, then a ring of the latest within the other
    half; counts what fell out between (bounded memory whatever the input)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap // 2
        self.first: list[tuple[int, str]] = []
        self.first_chars = 0
        self.last: deque[tuple[int, str]] = deque()
        self.last_chars = 0
        self.dropped = 0

    def add(self, i: int, line: str) -> None:
        if self.first_chars < self.cap:
            self.first.append((i, line))
            self.first_chars += len(line) + 1
            return
        self.last.append((i, line))
        self.last_chars += len(line) + 1
        while self.last_chars > self.cap and len(self.last) > 1:
            _, old = self.last.popleft()
            self.last_chars -= len(old) + 1
            self.dropped += 1

    def items(self) -> list[tuple[int, str]]:
        return self.first + list(self.last)


class LogScan:
    """What one streaming pass over a log keeps: leveled lines (bounded) and exact counts."""

    def __init__(self, cap_chars: int) -> None:
        self.level: dict[int, int] = {}
        self.text: dict[int, str] = {}
        self.errors = _Capped(cap_chars)
        self.warnings = _Capped(cap_chars)
        self.context = _Capped(cap_chars)
        self.tops: list[tuple[int, str]] = []  # summary lines (capped by count)
        self.top_errors: set[int] = set()  # summary lines that are errors too
        self.last_tb: list[tuple[int, str]] = []
        self.n_error = 0
        self.n_warning = 0
        self.n_traceback = 0
        self.n_summary = 0
        self.total = 0
        self.head: list[tuple[int, str]] = []
        self.tail: deque[tuple[int, str]] = deque(maxlen=TAIL_LINES)

    def scan(self, text: str) -> LogScan:
        tb: list[tuple[int, str]] | None = None
        block_left = 0
        ctx_left = 0
        prev: list[tuple[int, str]] = []
        for first, lines in line_chunks(text):
            if first == 0:
                self.head = [(k, ln) for k, ln in enumerate(lines[:HEAD_LINES])]
            last = lines[-TAIL_LINES:]
            self.tail.extend((first + len(lines) - len(last) + q, ln) for q, ln in enumerate(last))
            cands = _candidates(lines)
            ci = 0
            k = 0
            n = len(lines)
            while k < n:
                if tb is None and not block_left and not ctx_left:
                    while ci < len(cands) and cands[ci] < k:
                        ci += 1
                    if ci >= len(cands):
                        break
                    k = cands[ci]
                i = first + k
                line = lines[k]
                k += 1
                if tb is not None:
                    tb.append((i, line))
                    if (line and not line[0].isspace() and not TRACEBACK_START.search(line)) or len(tb) >= _MAX_TB:
                        self._close_tb(tb)
                        tb = None
                        ctx_left = 2
                    continue
                if block_left:
                    if line.strip() and STACKISH.match(line):
                        self.errors.add(i, line)
                        block_left -= 1
                        continue
                    block_left = 0
                    ctx_left = 2
                if TRACEBACK_START.search(line):
                    tb = [(i, line)]
                    ctx_left = 0
                    continue
                if SUMMARY_RE.search(line):
                    self.n_summary += 1
                    if ERROR_RE.search(line):  # "3 failed", "exit code 2": a summary that is an error
                        self.n_error += 1
                        self.top_errors.add(i)
                    if len(self.tops) < 200:
                        self.tops.append((i, line))
                elif ERROR_RE.search(line):
                    self.n_error += 1
                    self.errors.add(i, line)
                    for j, before in (prev + [(first + q, lines[q]) for q in range(max(0, k - 3), k - 1)])[-2:]:
                        self.context.add(j, before)
                    block_left = _MAX_BLOCK
                    ctx_left = 0
                    continue
                elif WARNING_RE.search(line):
                    self.n_warning += 1
                    self.warnings.add(i, line)
                elif ctx_left:
                    self.context.add(i, line)
                if ctx_left:
                    ctx_left -= 1
            prev = [(first + q, lines[q]) for q in range(max(0, n - 2), n)]
            self.total = first + n
        if tb is not None:
            self._close_tb(tb)
        return self

    def _close_tb(self, tb: list[tuple[int, str]]) -> None:
        self.n_traceback += 1
        if self.last_tb:  # an earlier traceback: its last line is an error line, its frames context
            *frames, (j, exc) = self.last_tb
            self.n_error += 1
            self.errors.add(j, exc)
            for f in frames:
                self.context.add(*f)
        self.last_tb = tb


def scan_log(text: str, budget: int = 4000) -> LogScan:
    return LogScan(max(200_000, budget * 48)).scan(text)


def error_lines(text: str) -> list[int]:
    """Indices of the lines the log clipper treats as errors, traceback lines or summaries."""
    s = scan_log(text)
    idx = {i for i, _ in s.errors.items()} | {i for i, _ in s.tops} | {i for i, _ in s.last_tb}
    return sorted(idx)


LOGISH_RE = re.compile(
    r"\b(?:PASSED|FAILED|ERROR|SKIPPED|INFO|DEBUG|WARN|WARNING|TRACE|Compiling|Downloading|Installing)\b"
    r"|^\d{4}-\d\d-\d\d[ T]\d\d:\d\d|^\[\d\d:\d\d:\d\d"
)


def log_score(lines: list[str]) -> float:
    """How log-like a sample is: share of lines that are errors, warnings, summaries or log records."""
    if not lines:
        return 0.0
    hits = 0
    for i in _candidates(lines):
        ln = lines[i]
        if ERROR_RE.search(ln) or SUMMARY_RE.search(ln) or TRACEBACK_START.search(ln):
            hits += 1
    if not hits:
        hits = sum(1 for ln in lines[:400] if LOGISH_RE.search(ln)) // 4
    return hits / len(lines)


def clip_log(text: str, budget: int, count: Count, *, scans: Scans | None = None) -> Body:
    cap = max(200_000, budget * 48)
    s = scanned(scans, ("log", cap), lambda: LogScan(cap).scan(text))
    n = s.total
    level: dict[int, int] = {}
    lines: dict[int, str] = {}

    def put(items: list[tuple[int, str]] | deque[tuple[int, str]], lv: int) -> None:
        for i, line in items:
            if lv < level.get(i, EDGE + 1):
                level[i] = lv
                lines[i] = line

    put(list(s.tail), EDGE)
    put(s.head, EDGE)
    put(s.warnings.items(), WARNING)
    put(s.context.items(), CONTEXT)
    put(s.errors.items(), ERROR)
    if s.last_tb:
        put(s.last_tb[1:-1], FRAME)
        put([s.last_tb[0], s.last_tb[-1]], TOP if len(s.last_tb) > 1 else ERROR)
    put(s.tops, TOP)
    index = sorted(lines)
    tb_end = s.last_tb[-1][0] if s.last_tb else n

    def key(e: int) -> tuple[int, float]:
        i = index[e]
        lv = level[i]
        if lv == FRAME:
            return (lv, float(tb_end - i))  # the frames nearest the exception first
        if lv == EDGE:
            return (lv, float(n - 1 - i) if i >= HEAD_LINES else -1.0)
        return (lv, float(min(i, (n - 1 - i) * 1.5)))

    order = sorted(range(len(index)), key=key)
    kinds = [level[i] for i in index]
    errs = {i for i, _ in s.errors.items()} | s.top_errors
    is_err = [i in errs for i in index]

    tb_entries = {e for e, i in enumerate(index) if s.last_tb and s.last_tb[0][0] <= i <= tb_end}

    def footer(kept: set[int]) -> str:
        k_err = sum(1 for e in kept if is_err[e])
        k_warn = sum(1 for e in kept if kinds[e] == WARNING)
        parts = [f"{n:,} lines"]
        parts.append(f"{s.n_error:,} error lines ({k_err:,} shown)")
        if s.n_traceback:
            whole = bool(tb_entries) and tb_entries <= kept
            parts.append(f"{s.n_traceback:,} traceback{'s' if s.n_traceback != 1 else ''}"
                         + (" (the last one shown)" if whole else ""))
        parts.append(f"{s.n_warning:,} warnings ({k_warn:,} shown)")
        if s.n_summary:
            parts.append(f"{s.n_summary:,} summary lines")
        return "[log: " + ", ".join(parts) + "]"

    body = select_lines([lines[i] for i in index], order, budget, count, index=index, total=n, footer=footer)
    shown = set(body.kept)
    d_err = s.n_error - sum(1 for i in shown if i in errs)
    d_warn = s.n_warning - sum(1 for i in shown if level[i] == WARNING)
    detail = f"dropped {max(0, d_err):,} error, {max(0, d_warn):,} warning and {max(0, n - len(shown) - d_err - d_warn):,} other lines"
    return Body(body.text, body.kept_lines, body.notes, body.tokens, detail)
