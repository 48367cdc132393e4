"""Diffs and patches (unified diff, git diff, Codex apply_patch): file headers and hunk headers
are kept, hunk bodies are trimmed to their first lines with a count of what was cut."""

from __future__ import annotations

import re

from .measure import Count
from .select import Body, plain_gap, select_lines

FILE_HEADER_RE = re.compile(
    r"^(?:diff --git |diff -|index [0-9a-f]+\.\.|--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode"
    r"|rename from |rename to |copy from |copy to |similarity index|dissimilarity index|Binary files "
    r"|\*\*\* (?:Begin Patch|End Patch|Update File: |Add File: |Delete File: |Move to: )|Only in )"
)
HUNK_RE = re.compile(r"^@@")


def diff_score(lines: list[str]) -> float:
    """1.0 when the sample reads as a diff (file header + hunk header), else 0."""
    heads = sum(1 for ln in lines if ln.startswith(("diff --git ", "*** Begin Patch", "*** Update File: ", "+++ ")))
    hunks = sum(1 for ln in lines if HUNK_RE.match(ln))
    return 1.0 if heads and (hunks or any(ln.startswith("*** ") for ln in lines)) else 0.0


def clip_diff(text: str, budget: int, count: Count) -> Body:
    lines = text.split("\n")
    n = len(lines)
    keys: list[tuple[float, ...]] = []
    hunk_of: list[int] = [-1] * n
    hunk = -1
    pos = 0
    in_body = False
    for i, line in enumerate(lines):
        if FILE_HEADER_RE.match(line) and not (in_body and line.startswith(("--- ", "+++ ")) and _is_body_line(lines, i)):
            keys.append((0, i))
            in_body = False
        elif HUNK_RE.match(line):
            hunk += 1
            pos = 0
            in_body = True
            keys.append((0, i))
        elif in_body:
            hunk_of[i] = hunk
            keys.append((1, pos, i))
            pos += 1
        else:
            keys.append((2, i))
    order = sorted(range(n), key=lambda i: keys[i])

    def gap(start: int, end: int) -> str:
        body = [lines[i] for i in range(start, end) if hunk_of[i] >= 0]
        if not body:
            return plain_gap(start, end)
        added = sum(1 for ln in body if ln.startswith("+"))
        removed = sum(1 for ln in body if ln.startswith("-"))
        return f"… [{end - start:,} hunk lines omitted: +{added:,} −{removed:,}] …"

    return select_lines(lines, order, budget, count, gap)


def _is_body_line(lines: list[str], i: int) -> bool:
    """A '--- '/'+++ ' line inside a hunk is content unless it starts a new file's header."""
    line = lines[i]
    if line.startswith("--- "):
        return not (i + 1 < len(lines) and lines[i + 1].startswith("+++ "))
    return not (i > 0 and lines[i - 1].startswith("--- "))
