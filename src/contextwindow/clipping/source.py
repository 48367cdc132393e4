"""One streaming pass over a text: its lines in bounded chunks, giant lines shortened on the way.

The clippers never split a whole input into a list of lines: they walk :func:`line_chunks`,
which slices about ``CHUNK_CHARS`` characters at a time (cut at a newline) and yields the lines
of that slice with the index of the first. Memory beyond the input is one chunk plus what a
clipper decides to keep (bounded by its own caps), whatever the input's size.
"""

from __future__ import annotations

from collections.abc import Iterator

#: Characters sliced per chunk (cut back to the last newline inside it).
CHUNK_CHARS = 1 << 20
#: A line longer than this is not kept whole by any clipper: it becomes head…tail here already.
MAX_LINE_CHARS = 16_384


def long_line(text: str, start: int, end: int, keep: int = MAX_LINE_CHARS) -> str:
    """``text[start:end]`` as head…tail of about ``keep`` characters (copies only the two ends)."""
    size = end - start
    if size <= keep:
        return text[start:end]
    head = keep * 2 // 3
    tail = keep - head
    return f"{text[start:start + head]} …[{size - head - tail:,} chars]… {text[end - tail:end]}"


def line_chunks(text: str, chunk_chars: int = CHUNK_CHARS, max_line: int = MAX_LINE_CHARS) -> Iterator[tuple[int, list[str]]]:
    """(index of the first line, lines) for consecutive slices of ``text``; the lines are those of
    ``text.split("\\n")``, each longer than ``max_line`` shortened to head…tail."""
    n = len(text)
    pos = 0
    idx = 0
    while True:
        end = pos + chunk_chars
        if end >= n:
            lines = text[pos:].split("\n")
            yield idx, _capped(lines, max_line)
            return
        nl = text.rfind("\n", pos, end)
        if nl < 0:  # one line longer than a chunk: find its end without copying it
            nl = text.find("\n", end)
            stop = n if nl < 0 else nl
            yield idx, [long_line(text, pos, stop, max_line)]
            idx += 1
            if nl < 0:
                return
            pos = nl + 1
            continue
        lines = text[pos:nl].split("\n")
        yield idx, _capped(lines, max_line)
        idx += len(lines)
        pos = nl + 1


def _capped(lines: list[str], max_line: int) -> list[str]:
    if not lines or max(map(len, lines)) <= max_line:  # the common case, settled in C
        return lines
    for i, ln in enumerate(lines):
        if len(ln) > max_line:
            lines[i] = long_line(ln, 0, len(ln), max_line)
    return lines


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """(index, line) over ``text`` via :func:`line_chunks`."""
    for first, lines in line_chunks(text):
        for k, line in enumerate(lines):
            yield first + k, line


def total_lines(text: str) -> int:
    """Number of entries ``text.split("\\n")`` would give, without splitting."""
    return text.count("\n") + 1
