"""Restore recently read files after a fold: the newest reads come back, bounded.

At most ``max_files`` paths (newest first; Claude Code's numbers: 5 files, 5,000 tokens each,
50,000 in all), one block per path — its latest version only. When ``read`` is given (the Session
passes a reader of the working directory) a file that still exists is restored from disk, so the
fold carries its current content, not an old copy from the transcript; otherwise the latest read
in the transcript. Beyond the bound only the path is listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..messages import Message
from .extractive import call_path

_READ_TOOLS = re.compile(r"(^|[_.:-])(read|view|cat|open)([_.:-]|$)|^read|^view|open_file|read_file", re.IGNORECASE)


def recent_reads(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """(path, latest content read) pairs, newest first, one per path."""
    results = {r.call_id: r for m in messages for r in m.tool_results}
    seen: dict[str, str] = {}
    for m in reversed(messages):
        for c in reversed(m.tool_calls):
            if not _READ_TOOLS.search(c.name):
                continue
            path = call_path(c)
            r = results.get(c.id)
            if path and r is not None and not r.is_error and path not in seen:
                seen[path] = r.text
    return list(seen.items())


MAX_FILES = 5
PER_FILE_TOKENS = 5_000
TOTAL_TOKENS = 50_000


def restore_section(
    messages: Sequence[Message],
    count: Callable[[str], int],
    max_files: int = MAX_FILES,
    per_file: int = PER_FILE_TOKENS,
    total: int = TOTAL_TOKENS,
    read: Callable[[str], str | None] | None = None,
) -> str:
    return "".join(restore_pieces(messages, count, max_files, per_file, total, read))


def restore_pieces(
    messages: Sequence[Message],
    count: Callable[[str], int],
    max_files: int = MAX_FILES,
    per_file: int = PER_FILE_TOKENS,
    total: int = TOTAL_TOKENS,
    read: Callable[[str], str | None] | None = None,
) -> list[str]:
    """:func:`restore_section` as the pieces it is joined from (each file's text one piece, as it
    was counted; ``[]`` when nothing was read), for a counter that adds up pieces (tokens/joined.py)."""
    reads = recent_reads(messages)[:max_files]
    if not reads:
        return []
    pieces = ["## Recently read files (restored after the fold)\n"]
    listed: list[str] = []
    used = 0
    for path, text in reads:
        current = read(path) if read is not None else None
        text = current if current is not None else text
        n = count(text)
        if n > per_file:
            keep = max(200, len(text) * per_file // max(1, n))
            text = text[:keep] + f"\n[... file clipped at ~{per_file} tokens; read it again for the rest ...]"
            n = count(text)
        if used + n > total:
            listed.append(path)
            continue
        used += n
        if len(pieces) > 1:
            pieces.append("\n\n")
        pieces += [f"### {path}\n", text]
    if listed:
        pieces.append("\n\nAlso read recently (not restored, over the size bound): " + ", ".join(listed))
    return pieces
