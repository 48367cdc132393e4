"""Logs and shell output: error and warning lines with their context, tracebacks whole, the
command's summary lines (test totals, compiler error counts, make/npm/cargo verdicts), head and tail."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from .measure import Count
from .select import Body, select_lines

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

# Rank tiers (lower is kept first).
_SUMMARY, _ERROR, _CONTEXT, _WARNING, _EDGE, _REST = range(6)


def _candidates(lines: list[str]) -> list[int]:
    low = "\n".join(lines).lower()
    if len(low) != sum(len(x) for x in lines) + len(lines) - 1:  # lower() changed lengths (rare scripts)
        return list(range(len(lines)))
    starts = list(accumulate((len(x) + 1 for x in lines), initial=0))
    hits = {bisect_right(starts, m.start()) - 1 for m in CANDIDATE_RE.finditer(low)}
    hits.update(bisect_right(starts, m.start() + 1) - 1 for m in LINE_START_RE.finditer("\n" + low))
    return sorted(hits)


def _tiers(lines: list[str]) -> list[int]:
    n = len(lines)
    tier = [_REST] * n
    done = -1  # lines up to here belong to a traceback already ranked
    for i in _candidates(lines):
        if i <= done:
            continue
        line = lines[i]
        if TRACEBACK_START.search(line):
            # The whole traceback: indented frames up to and including the exception line.
            j = i + 1
            while j < n and j - i < 2000:
                nxt = lines[j]
                if nxt and not nxt[0].isspace() and not TRACEBACK_START.search(nxt):
                    break
                if not nxt.strip() and j + 1 < n and lines[j + 1][:1] not in (" ", "\t"):
                    break
                j += 1
            end = min(j + 1, n)
            for k in range(i, end):
                tier[k] = _ERROR
            done = end - 1
            continue
        if SUMMARY_RE.search(line):
            tier[i] = _SUMMARY
        elif ERROR_RE.search(line):
            tier[i] = min(tier[i], _ERROR)
            # The error's own block: following indented / pointer lines (rustc, tsc, JS stacks).
            j = i + 1
            while j < n and j - i <= 40 and lines[j].strip() and STACKISH.match(lines[j]):
                tier[j] = min(tier[j], _ERROR)
                j += 1
            for k in range(max(0, i - 2), min(n, j + 2)):
                tier[k] = min(tier[k], _CONTEXT)
        elif WARNING_RE.search(line):
            tier[i] = min(tier[i], _WARNING)
    for k in list(range(min(3, n))) + list(range(max(0, n - 3), n)):
        tier[k] = min(tier[k], _EDGE)
    return tier


def error_lines(text: str) -> list[int]:
    """Indices of the lines the log clipper treats as errors, traceback lines or summaries."""
    lines = text.split("\n")
    return [i for i, t in enumerate(_tiers(lines)) if t in (_SUMMARY, _ERROR)]


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


def clip_log(text: str, budget: int, count: Count) -> Body:
    lines = text.split("\n")
    n = len(lines)
    tier = _tiers(lines)

    def key(i: int) -> tuple[int, float]:
        t = tier[i]
        dist = float(min(i, (n - 1 - i) * 1.5))
        return (t, dist)

    order = sorted(range(n), key=key)
    return select_lines(lines, order, budget, count)
