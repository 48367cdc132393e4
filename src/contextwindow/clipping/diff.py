"""Diffs and patches (unified diff, git diff, Codex apply_patch): file headers and hunk headers
are kept, hunk bodies are trimmed to their first lines with a count of what was cut."""

from __future__ import annotations

import re

from .measure import Count
from .select import Body, select_lines
from .source import line_chunks

FILE_HEADER_RE = re.compile(
    r"^(?:diff --git |diff -|index [0-9a-f]+\.\.|--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode"
    r"|rename from |rename to |copy from |copy to |similarity index|dissimilarity index|Binary files "
    r"|\*\*\* (?:Begin Patch|End Patch|Update File: |Add File: |Delete File: |Move to: )|Only in )"
)
HUNK_RE = re.compile(r"^@@")
SNIFF = 65_536


def diff_score(lines: list[str]) -> float:
    """1.0 when the sample reads as a diff (file header + hunk header), else 0."""
    heads = sum(1 for ln in lines if ln.startswith(("diff --git ", "*** Begin Patch", "*** Update File: ", "+++ ")))
    hunks = sum(1 for ln in lines if HUNK_RE.match(ln))
    return 1.0 if heads and (hunks or any(ln.startswith("*** ") for ln in lines)) else 0.0


#: Lines of a hunk's body kept as candidates (the rest are counted in its header).
HUNK_LINES = 80


_BODY_START = frozenset(" +-\\")
_FILE_ID = ("diff --git ", "*** Update File: ", "*** Add File: ", "*** Delete File: ")


def _file_name(line: str) -> str:
    if line.startswith("diff --git "):
        rest = line[len("diff --git "):]
        return rest.split(" b/", 1)[1] if " b/" in rest else rest
    if line.startswith("+++ ") or line.startswith("--- "):
        name = line[4:].split("\t", 1)[0].strip()
        return name[2:] if name.startswith(("a/", "b/")) else name
    return line.split(": ", 1)[-1].strip()


def clip_diff(text: str, budget: int, count: Count) -> Body:
    """Every file and every hunk header with its +/− counts first, then the other header lines,
    then the first lines of every hunk (round robin), in one streaming pass; when even the file
    and hunk headers do not fit, one line per file with its hunk and +/− counts."""
    cap = max(200_000, budget * 48)
    lines: dict[int, str] = {}
    key: dict[int, tuple[int, ...]] = {}
    hunks: list[list[int]] = []  # [header index, added, removed, file]
    files: list[str] = []
    git_style = "diff --git " in text[:SNIFF] or "*** Begin Patch" in text[:SNIFF]
    kept_chars = 0
    in_body = False
    pos = 0
    prev_line = ""
    n = 0

    def keep(i: int, line: str, rank: tuple[int, ...]) -> None:
        nonlocal kept_chars
        if kept_chars < cap or rank[0] <= 1:
            lines[i] = line
            key[i] = rank
            kept_chars += len(line) + 1

    for first, chunk in line_chunks(text):
        for k, line in enumerate(chunk):
            i = first + k
            if in_body and line[:1] in _BODY_START and not line.startswith(("--- ", "+++ ")):
                # the common case, a hunk body line, without any pattern
                if line[:1] == "+":
                    hunks[-1][1] += 1
                elif line[:1] == "-":
                    hunks[-1][2] += 1
                if pos < HUNK_LINES:
                    keep(i, line, (3, pos, i))
                pos += 1
                prev_line = line
                continue
            nxt = chunk[k + 1] if k + 1 < len(chunk) else ""
            header = FILE_HEADER_RE.match(line) and not (
                in_body and line.startswith(("--- ", "+++ "))
                and not (line.startswith("--- ") and nxt.startswith("+++ "))
                and not (line.startswith("+++ ") and prev_line.startswith("--- "))
            )
            if header:
                in_body = False
                if line.startswith(_FILE_ID) or (not git_style and line.startswith("+++ ")):
                    files.append(_file_name(line))
                    keep(i, line, (0, i))
                else:
                    keep(i, line, (2, i))
            elif HUNK_RE.match(line):
                hunks.append([i, 0, 0, len(files) - 1])
                in_body = True
                pos = 0
                keep(i, line, (1, i))
            elif in_body:
                if line.startswith("+"):
                    hunks[-1][1] += 1
                elif line.startswith("-"):
                    hunks[-1][2] += 1
                if pos < HUNK_LINES:
                    keep(i, line, (3, pos, i))
                pos += 1
            else:
                keep(i, line, (4, i))
            prev_line = line
        n = first + len(chunk)
    per_file = [[0, 0, 0] for _ in files]
    for h in hunks:
        lines[h[0]] = f"{lines[h[0]]}  [+{h[1]:,} −{h[2]:,}]"
        if 0 <= h[3] < len(files):
            per_file[h[3]][0] += 1
            per_file[h[3]][1] += h[1]
            per_file[h[3]][2] += h[2]
    added = sum(h[1] for h in hunks)
    removed = sum(h[2] for h in hunks)
    footer = f"[diff: {len(files):,} files, {len(hunks):,} hunks, +{added:,} −{removed:,}]"
    index = sorted(lines)
    order = sorted(range(len(index)), key=lambda e: key[index[e]])
    tier_one = sum(1 for i in index if key[i][0] <= 1)
    body = select_lines([lines[i] for i in index], order, budget, count, _gap, index=index, total=n, footer=footer)
    if len(body.kept) >= tier_one:
        dropped = max(0, n - len(body.kept))
        return Body(body.text, body.kept_lines, body.notes, body.tokens,
                    f"kept every file and hunk header with its +/− counts; dropped {dropped:,} other lines", body.kept)
    # even the file and hunk headers do not fit: one line per file with its counts
    summary = [f"{name}: {h:,} hunk{'s' if h != 1 else ''}, +{a:,} −{r:,}" for name, (h, a, r) in zip(files, per_file, strict=True)]
    cond = select_lines([footer, *summary], list(range(len(summary) + 1)), budget, count)
    detail = f"kept {max(0, len(cond.kept) - 1):,} of {len(files):,} files as counts"
    room = budget - cond.tokens - 8
    if len(cond.kept) == len(summary) + 1 and room > 40:  # then as many file and hunk headers as fit
        heads = [i for i in index if key[i][0] <= 1]
        more = select_lines([lines[i] for i in heads], list(range(len(heads))), room, count, _gap, index=heads, total=n)
        if more.kept:
            return Body(f"{cond.text}\n[the headers, in order:]\n{more.text}", -1, ("diff condensed to one line per file",),
                        -1, f"{detail} and {len(more.kept):,} of {len(heads):,} file/hunk headers; dropped every hunk body")
    return Body(cond.text, -1, ("diff condensed to one line per file",), cond.tokens, f"{detail}; dropped every hunk")


def _gap(start: int, end: int) -> str:
    return "…"


def _is_body_line(lines: list[str], i: int) -> bool:
    """A '--- '/'+++ ' line inside a hunk is content unless it starts a new file's header."""
    line = lines[i]
    if line.startswith("--- "):
        return not (i + 1 < len(lines) and lines[i + 1].startswith("+++ "))
    return not (i > 0 and lines[i - 1].startswith("--- "))
