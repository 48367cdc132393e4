"""The words compaction leaves in the context: each names what was dropped and how to get it back."""

from __future__ import annotations

import re
from collections.abc import Iterable

MESSAGE_REF_PREFIX = "msg-"


def ref_for(key: str, seq: int | None = None) -> str:
    """The retrieve ref of a stored message (the store keeps every original): ``msg-<seq>``, its
    sequence number in the conversation, when known (``msg-24``: ~4 tokens), else ``msg-<id>``
    (``msg-m_1f2e3d4c5b6a7988``: ~17 tokens). A stub is read again on every later call, and the
    ref was most of it (docs/replay.md, "the short ref"); :class:`~contextwindow.sink.ConversationSink`
    reads both forms (an id is never all digits)."""
    return f"{MESSAGE_REF_PREFIX}{key if seq is None else seq}"


SPAN_REF_PREFIX = "span-"


def span_ref(first_key: str, last_key: str) -> str:
    """The retrieve ref of the stored messages from ``first_key`` through ``last_key``."""
    return f"{SPAN_REF_PREFIX}{first_key}-{last_key}"


_SPAN_RE = re.compile(r"span-([A-Za-z0-9_]+)-([A-Za-z0-9_]+)")


def span_of(texts: Iterable[str]) -> tuple[str, str] | None:
    """The span (first key, last key) of the oldest marker in ``texts`` (oldest first) that has
    one. A marker's own span is the last one in its text (a summary may quote others)."""
    for text in texts:
        found = _SPAN_RE.findall(text)
        if found:
            return str(found[-1][0]), str(found[-1][1])
    return None


def span_start(texts: Iterable[str], default: str) -> str:
    """Where the span of a new marker starts: where the span of the oldest earlier marker it
    replaces starts (a prior summary, a step summary, a drop note; ``texts`` oldest first), else
    at ``default``. So messages an earlier lossy step removed stay reachable after the marker
    that named them is gone."""
    span = span_of(texts)
    return span[0] if span else default


def folded_span(first_key: str, last_key: str, messages: int) -> str:
    return (
        f'[The {messages} original messages summarized here are kept in the conversation store: retrieve(ref="{span_ref(first_key, last_key)}", '
        "grep=..., offset=N, limit=N) reads them back.]"
    )


# A cleared result or input leaves a stub that every later call reads again (and a clear rewrites),
# so the two stubs below say only what invariant 5 needs: what was dropped (the tool, the size) and
# how to get it back: the ``retrieve`` ref, and for a result "or re-run it" (an agent behind the proxy
# has no ``retrieve`` tool: re-running is the way back it can take). Their longer forms (~40 tokens
# each, before 2026-11-24) cost ~20 tokens more per cleared item per call (docs/replay.md, "the stub").


def masked_result(tool: str | None, tokens: int, key: str, seq: int | None = None) -> str:
    name = tool or "tool"
    return f'[{name} result cleared, ~{tokens} tokens: retrieve(ref="{ref_for(key, seq)}") or re-run it]'


def cleared_input(chars: int, ref: str) -> str:
    """What stands in a tool call's arguments for a long value cleared from the context."""
    return f'[{chars} chars cleared: retrieve(ref="{ref}")]'


def truncated(dropped_tokens: int, dropped_lines: int, key: str, seq: int | None = None) -> str:
    return (
        f"\n[... {dropped_tokens} tokens ({dropped_lines} lines) cut from the middle of this message to save context; "
        f'retrieve(ref="{ref_for(key, seq)}", offset=N, limit=N) reads the original ...]\n'
    )


def dropped_turns(turns: int, messages: int, tokens: int, first_key: str, last_key: str) -> str:
    return (
        f"[{turns} earlier turn(s) ({messages} messages, ~{tokens} tokens) were dropped from the context to fit the "
        f'window. They are kept in the conversation store; nothing was deleted: retrieve(ref="{span_ref(first_key, last_key)}", '
        "grep=..., offset=N, limit=N) reads them back.]"
    )


def dropped_steps(messages: int, tokens: int, span: tuple[str, str] | None) -> str:
    where = f': retrieve(ref="{span_ref(*span)}", grep=..., offset=N, limit=N) reads them back' if span else ""
    return (
        f"[{messages} earlier messages of this turn (~{tokens} tokens) were dropped from the context to fit the "
        f"window; they are kept in the conversation store{where}.]"
    )


NUDGE_SUMMARY_OK = (
    "[Context note: earlier parts of this conversation were summarized above to fit the context window. "
    "The task is NOT finished: continue from where you left off, following the summary's next steps and "
    "constraints. Do not restart or repeat completed work.]"
)
NUDGE_SUMMARY_FAILED = (
    "[Context note: earlier parts of this conversation were condensed without a model summary (the summarizer "
    "was unavailable), so some detail is missing. The task is NOT finished: continue from where you left off; "
    "re-read files or re-run tools if you need details that are gone.]"
)
