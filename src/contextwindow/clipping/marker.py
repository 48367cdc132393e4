"""The one marker every clipped output ends with: what was dropped and how to get it back.

Markers start with ``MARKER_PREFIX``; a marker-like line that was already in the input (an
output clipped before, pasted text) is defused so each output carries exactly one marker.
"""

from __future__ import annotations

import re

MARKER_PREFIX = "[contextwindow clipped"
MARKER_RE = re.compile(r"^\[contextwindow clipped ", re.M)
#: Retrieve output starts with this header; the clipper leaves such output alone.
RETRIEVE_HEADER = "[contextwindow retrieve "

#: Longest "what was dropped" detail a marker carries.
DETAIL_CHARS = 160

_RERUN_HINT = {
    "search": "re-run the search with a more specific pattern or path",
    "log": "re-run the command with narrower output (a single test, | tail, | grep)",
    "json": "re-query for the fields or items you need",
    "diff": "diff a single file or path",
    "html": "fetch a narrower page or section",
    "read": "read again with offset/limit",
    "source": "read the file again with offset/limit around the definition you need",
    "text": "re-run the tool narrower (offset/limit or a more specific query)",
}


def defuse(text: str) -> str:
    """Old markers inside an input become plain notes (the new marker is the only one)."""
    if MARKER_PREFIX not in text:
        return text
    return MARKER_RE.sub("[earlier note: contextwindow clipped ", text)


def render_marker(
    *,
    kind: str,
    dropped_tokens: int,
    dropped_lines: int,
    tokens_before: int,
    lines_before: int,
    ref: str | None,
    estimated: bool = False,
    offloaded: bool = False,
    store_error: str | None = None,
    detail: str = "",
) -> str:
    approx = "~" if estimated else ""
    what = "output over the hard cap, only a preview kept" if offloaded else f"{kind} output"
    head = (
        f"{MARKER_PREFIX} {what}: dropped {approx}{dropped_tokens:,} of {approx}{tokens_before:,} tokens"
        f" and {dropped_lines:,} of {lines_before:,} lines"
        + (f" ({detail[:DETAIL_CHARS]})." if detail else ".")
    )
    rerun = _RERUN_HINT.get(kind, _RERUN_HINT["text"])
    if ref:
        how = (
            f' Full original: retrieve(ref="{ref}", offset=0, limit=200) for a slice of lines, or'
            f' retrieve(ref="{ref}", grep="PATTERN") for matching lines; or {rerun}.]'
        )
    else:
        why = f" (offload store failed: {store_error})" if store_error else " (no offload store configured)"
        how = f" The original was not kept{why}; to see more, {rerun}.]"
    return head + how


def count_markers(text: str) -> int:
    return len(MARKER_RE.findall(text))
