"""Logs and shell output: error and warning lines with their context, tracebacks whole, the
command's summary lines (test totals, compiler error counts, make/npm/cargo verdicts), head and tail."""

from __future__ import annotations

import re

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

# Rank tiers (lower is kept first).
_SUMMARY, _ERROR, _CONTEXT, _WARNING, _EDGE, _REST = range(6)


def _tiers(lines: list[str]) -> list[int]:
    n = len(lines)
    tier = [_REST] * n
    i = 0
    while i < n:
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
            # chained exceptions ("During handling ...") start a new traceback on their own
            i = end
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
        i += 1
    for k in list(range(min(3, n))) + list(range(max(0, n - 3), n)):
        tier[k] = min(tier[k], _EDGE)
    return tier


def error_lines(text: str) -> list[int]:
    """Indices of the lines the log clipper treats as errors, traceback lines or summaries."""
    lines = text.split("\n")
    return [i for i, t in enumerate(_tiers(lines)) if t in (_SUMMARY, _ERROR)]


def log_score(lines: list[str]) -> float:
    """How log-like a sample is: share of lines that are errors, warnings or summaries."""
    if not lines:
        return 0.0
    hits = sum(1 for ln in lines if ERROR_RE.search(ln) or SUMMARY_RE.search(ln) or TRACEBACK_START.search(ln))
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
