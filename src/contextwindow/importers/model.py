"""The common shape of an imported agent session.

Every importer (Claude Code, Codex, SWE-agent, OpenHands, provider payload files) turns a log into an
:class:`ImportedSession`: the conversation as normalized messages, one :class:`CallRecord` per model
call the log shows (with the provider's usage where the log kept it), the compactions it recorded as
:class:`ImportedCheckpoint` rows, and every line it could not use as a :class:`Skipped` entry.
This module holds only data and small helpers; it imports no importer (``registry`` does).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ImportFormatError
from ..messages import JSON, Message, TextPart, ToolResultPart

NO_RESULT_TEXT = "[no result recorded]"
#: What Claude Code sends in place of a tool result it cleared (microcompact); the log keeps the original.
CLEARED_RESULT_TEXT = "[Old tool result content cleared]"


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One model call seen in the log.

    ``messages[:index]`` is the history the call was sent (after a checkpoint whose ``upto`` ≤ index,
    the provider saw that checkpoint's summary followed by ``messages[upto:index]``);
    ``messages[index:reply_end]`` is what the call produced. ``reported_input_tokens`` is the whole
    prompt as the provider counted it: input + cache read + cache write (None when the log has no usage).
    """

    index: int
    reply_end: int
    reported_input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    model: str | None = None
    response_id: str | None = None
    cache_write_1h_tokens: int | None = None  # the part of cache_write_tokens written with a 1-hour TTL
    client_version: str | None = None  # the agent's version that made the call, where its log says (Claude Code)


@dataclass(frozen=True, slots=True)
class ImportedCheckpoint:
    """A compaction the agent itself did: ``messages[:upto]`` were folded into ``summary``."""

    upto: int
    summary: Message
    trigger: str | None = None
    pre_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ImportedClearing:
    """Tool results the agent cleared from what it sent, as its log records it: from the call at message
    index ``at`` on, the results of ``call_ids`` went to the provider as :data:`CLEARED_RESULT_TEXT` while
    the log keeps them whole (Claude Code's ``microcompact_boundary``; docs/tokens.md)."""

    at: int
    call_ids: tuple[str, ...]
    trigger: str | None = None
    tokens_saved: int | None = None  # the agent's own figure (its log's ``tokensSaved``; a simulated one: the client's rough count), for reports
    simulated: bool = False  # True: not in the log, derived from the agent's documented rule (claude_microcompact)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line (1-based; None for a whole-document item) the importer could not use, and why."""

    line: int | None
    reason: str
    kind: str | None = None  # what kind of drop/repair, for counting (derived from ``reason`` when None)


@dataclass(frozen=True, slots=True)
class ImportedSession:
    format: str
    source: str
    messages: list[Message]
    calls: list[CallRecord]
    checkpoints: list[ImportedCheckpoint] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    model: str | None = None
    title: str | None = None
    meta: dict[str, JSON] = field(default_factory=dict)
    clearings: list[ImportedClearing] = field(default_factory=list)


def cleared(messages: list[Message], call_ids: set[str]) -> list[Message]:
    """``messages`` with the results of ``call_ids`` replaced by :data:`CLEARED_RESULT_TEXT` (what the
    agent sent after clearing them); messages without such a result are the same objects."""
    if not call_ids:
        return messages
    out: list[Message] = []
    for m in messages:
        if not any(isinstance(p, ToolResultPart) and p.call_id in call_ids for p in m.parts):
            out.append(m)
            continue
        parts = tuple(
            replace(p, content=(TextPart(CLEARED_RESULT_TEXT),)) if isinstance(p, ToolResultPart) and p.call_id in call_ids else p
            for p in m.parts
        )
        out.append(replace(m, parts=parts))
    return out


# --- format names ------------------------------------------------------------------------

FORMATS: tuple[str, ...] = (
    "claude-code",
    "codex",
    "swe-agent",
    "openhands",
    "openai-chat",
    "anthropic-messages",
    "openai-responses",
)
_ALIASES = {
    "claude": "claude-code",
    "claude-code-jsonl": "claude-code",
    "codex-rollout": "codex",
    "codex-rollout-jsonl": "codex",
    "sweagent": "swe-agent",
    "swe-agent-traj": "swe-agent",
    "traj": "swe-agent",
    "openai": "openai-chat",
    "chat": "openai-chat",
    "anthropic": "anthropic-messages",
    "responses": "openai-responses",
}


def normalize_format(name: str) -> str:
    """The canonical name of a format (``claude_code`` → ``claude-code``); ImportFormatError if unknown."""
    key = name.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise ImportFormatError(f"unknown transcript format {name!r}; known formats: {', '.join(FORMATS)}")
    return key



@dataclass(slots=True)
class RawInput:
    """A file as records: either one JSON document (``document``) or JSONL lines ``(line_no, obj)``."""

    source: str
    document: Any = None
    is_document: bool = False
    records: list[tuple[int, Any]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    size: int = 0


def first_reasons(skipped: list[Skipped]) -> str:
    if not skipped:
        return ""
    shown = "; ".join(f"line {s.line}: {s.reason}" if s.line else s.reason for s in skipped[:3])
    more = f" (+{len(skipped) - 3} more)" if len(skipped) > 3 else ""
    return f" ({shown}{more})"


def iter_records(raw: RawInput) -> Iterator[tuple[int | None, Any]]:
    """JSONL records with their line numbers; a document's items (a list) or the document itself."""
    if raw.is_document:
        doc = raw.document
        if isinstance(doc, list):
            for item in doc:
                yield None, item
        else:
            yield None, doc
    else:
        yield from raw.records


def sub(d: Any, key: str) -> dict[str, Any]:
    """``d[key]`` when both are objects, else an empty dict (for optional nested log fields)."""
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


def as_int(v: Any) -> int | None:
    """An int from a usage field (None for anything else, bools included)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None
