"""The common shape of an imported agent session, and the one entry point that loads any of them.

Every importer (Claude Code, Codex, SWE-agent, OpenHands, provider payload files) turns a log into an
:class:`ImportedSession`: the conversation as normalized messages, one :class:`CallRecord` per model
call the log shows (with the provider's usage where the log kept it), the compactions it recorded as
:class:`ImportedCheckpoint` rows, and every line it could not use as a :class:`Skipped` entry.

``load_transcript(path)`` detects the format by content (``format=`` forces one) and always returns a
structurally valid history: every tool call answered, no orphan result. A broken log is repaired (a
synthetic ``[no result recorded]`` result, an orphan result kept as user text) and the repair is
reported in ``skipped``/``meta``, never done silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError
from ..messages import JSON, Message, TextPart, ToolCallPart, ToolResultPart
from .detect import detect_raw as _detect_raw
from .detect import heuristic_from_text as _heuristic_from_text

__all__ = [
    "FORMATS",
    "CallRecord",
    "ImportedCheckpoint",
    "ImportedSession",
    "Skipped",
    "detect_format",
    "load_all",
    "load_transcript",
    "normalize_format",
]

MAX_FILE_BYTES = 1024 * 1024 * 1024
NO_RESULT_TEXT = "[no result recorded]"


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


@dataclass(frozen=True, slots=True)
class ImportedCheckpoint:
    """A compaction the agent itself did: ``messages[:upto]`` were folded into ``summary``."""

    upto: int
    summary: Message
    trigger: str | None = None
    pre_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line (1-based; None for a whole-document item) the importer could not use, and why."""

    line: int | None
    reason: str


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


# --- reading -----------------------------------------------------------------------------


@dataclass(slots=True)
class RawInput:
    """A file as records: either one JSON document (``document``) or JSONL lines ``(line_no, obj)``."""

    source: str
    document: Any = None
    is_document: bool = False
    records: list[tuple[int, Any]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    size: int = 0


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; one clear ImportFormatError for a missing file, a directory or an empty file."""
    p = Path(path)
    if p.is_dir():
        raise ImportFormatError(f"{path} is a directory, not a transcript file (name the .jsonl/.json file inside it)")
    if not p.exists():
        raise ImportFormatError(f"{path}: no such file")
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise ImportFormatError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MB; refusing to read it")
    if not data.strip():
        raise ImportFormatError(f"{path} is empty: nothing to import")
    return data


def parse_input(data: bytes, source: str) -> RawInput:
    """Parse ``data`` as one JSON document, else as JSONL (comments, bad and truncated lines → Skipped)."""
    raw = RawInput(source=source, size=len(data))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        raw.skipped.append(Skipped(None, "file is not valid UTF-8; undecodable bytes were replaced by U+FFFD"))
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        try:
            raw.document = json.loads(text)
            raw.is_document = True
            return raw
        except ValueError:
            pass
    lines = text.split("\n")
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    loads = json.loads
    for no in range(1, last + 1):
        line = lines[no - 1]
        s = line.strip()
        if not s:
            continue
        if s.startswith("#") or s.startswith("//"):
            raw.skipped.append(Skipped(no, "comment line"))
            continue
        try:
            obj = loads(s)
        except ValueError as exc:
            if no == last:
                raw.skipped.append(Skipped(no, f"truncated last line (not valid JSON: {exc.msg} at column {exc.colno})"))  # type: ignore[attr-defined]
            else:
                raw.skipped.append(Skipped(no, f"not valid JSON: {exc.msg} at column {exc.colno}"))  # type: ignore[attr-defined]
            continue
        if not isinstance(obj, dict):
            raw.skipped.append(Skipped(no, f"not a JSON object (got {type(obj).__name__})"))
            continue
        raw.records.append((no, obj))
    return raw


# --- detection ---------------------------------------------------------------------------

def detect_format(path_or_first_bytes: str | Path | bytes) -> str:
    """The format of a transcript, from its content (a path is read; bytes may be just the file's start)."""
    if isinstance(path_or_first_bytes, (bytes, bytearray)):
        data = bytes(path_or_first_bytes)
        source = "input"
    else:
        data = read_bytes(path_or_first_bytes)
        source = str(path_or_first_bytes)
    raw = parse_input(data, source)
    found = _detect_raw(raw)
    if found is None and not raw.is_document:
        # The first bytes of a large file: the last line may be cut, or a document may be unfinished.
        found = _heuristic_from_text(data[:65536].decode("utf-8", errors="replace"))
    if found is None:
        raise ImportFormatError(
            f"{source}: cannot tell which transcript format this is (known: {', '.join(FORMATS)}); pass --format to force one"
        )
    return found


# --- structure check and repair ----------------------------------------------------------


def structure_problems(messages: list[Message]) -> list[str]:
    """What breaks the tool-pair rules: calls without a result in the tool block that follows them,
    results without a call in the assistant message just before. Empty when the history is valid."""
    problems: list[str] = []
    pending: dict[str, int] = {}
    seen: set[str] = set()
    for i, m in enumerate(messages):
        if m.role == "tool":
            for r in m.tool_results:
                if r.call_id in pending:
                    del pending[r.call_id]
                else:
                    problems.append(f"message {i}: result for call {r.call_id!r} without a matching call before it")
            if not m.tool_results:
                problems.append(f"message {i}: tool message without a tool result")
            continue
        for cid, at in pending.items():
            problems.append(f"message {at}: call {cid!r} has no result")
        pending = {}
        if m.role == "assistant":
            for c in m.tool_calls:
                if c.id in seen:
                    problems.append(f"message {i}: call id {c.id!r} used twice")
                seen.add(c.id)
                pending[c.id] = i
        elif m.tool_results:
            problems.append(f"message {i}: a {m.role} message holds tool results")
    for cid, at in pending.items():
        problems.append(f"message {at}: call {cid!r} has no result")
    return problems


def _result_as_text(m: Message, why: str) -> Message:
    """A tool message whose results have no call, kept as user text (nothing dropped)."""
    parts: list[Any] = []
    for p in m.parts:
        if isinstance(p, ToolResultPart):
            head = f"[tool result for call {p.call_id}{' (' + p.name + ')' if p.name else ''}{', error' if p.is_error else ''}]"
            parts.append(TextPart(head + (("\n" + p.text) if p.text else "")))
            parts.extend(c for c in p.content if not isinstance(c, TextPart))
        else:
            parts.append(p)
    meta = {**m.meta, "cw": "orphan_result", "reason": why}
    return Message(role="user", parts=tuple(parts), name=m.name, extra=m.extra, meta=meta)


def repair_pairs(messages: list[Message]) -> tuple[list[Message], list[int], list[str]]:
    """Make every tool call answered and every result matched, in place of order.

    Returns the new list, ``index_map`` (old index → new index, len(old)+1 entries so an end index maps
    too) and one note per change. Late results (after a user message but before the next assistant
    message) are moved up to their call; a missing result gets a synthetic ``[no result recorded]``
    tool message; a result with no call becomes a user text message.
    """
    out: list[Message] = []
    notes: list[str] = []
    index_map: list[int] = [0] * (len(messages) + 1)
    names: dict[str, str] = {}
    i = 0
    n = len(messages)
    while i < n:
        m = messages[i]
        index_map[i] = len(out)
        if m.role != "assistant" or not m.tool_calls:
            if m.role == "tool" or m.tool_results:
                why = "no tool call before it" if m.role == "tool" else f"tool result in a {m.role} message"
                notes.append(f"message {i}: {why}; kept as user text")
                out.append(_result_as_text(m, why))
            else:
                out.append(m)
            i += 1
            continue
        out.append(m)
        pending = {c.id: c.name for c in m.tool_calls}
        names.update(pending)
        i += 1
        deferred: list[tuple[int, Message]] = []
        # The tool block: tool messages right after the call, plus late results found before the next
        # assistant message (user interjections between are kept, after the results).
        while i < n and messages[i].role != "assistant":
            t = messages[i]
            if t.role == "tool" or t.tool_results:
                keep: list[Any] = []
                stray: list[Any] = []
                for p in t.parts:
                    if isinstance(p, ToolResultPart):
                        if p.call_id in pending:
                            del pending[p.call_id]
                            keep.append(p)
                        else:
                            stray.append(p)
                    else:
                        keep.append(p)
                if deferred and any(isinstance(p, ToolResultPart) for p in keep):
                    notes.append(f"message {i}: result arrived after a user message; moved up to its call")
                if any(isinstance(p, ToolResultPart) for p in keep):
                    index_map[i] = len(out)
                    out.append(replace(t, role="tool", parts=tuple(keep)) if t.role != "tool" or stray else t)
                    if stray:
                        notes.append(f"message {i}: result for unknown call(s) {[p.call_id for p in stray]}; kept as user text")
                        deferred.append((i, _result_as_text(replace(t, parts=tuple(stray)), "no matching call")))
                else:
                    notes.append(f"message {i}: result(s) without a matching call; kept as user text")
                    deferred.append((i, _result_as_text(t, "no matching call")))
            else:
                if not pending:
                    break
                deferred.append((i, t))
            i += 1
        for cid, name in pending.items():
            notes.append(f"call {cid!r} ({name}) has no result in the log; added {NO_RESULT_TEXT!r}")
            out.append(
                Message(
                    role="tool",
                    parts=(ToolResultPart(call_id=cid, content=(TextPart(NO_RESULT_TEXT),), name=name),),
                    meta={"cw": "synthetic_result"},
                )
            )
        for old, d in deferred:
            index_map[old] = len(out)
            out.append(d)
    index_map[n] = len(out)
    return out, index_map, notes


def dedupe_call_ids(messages: list[Message]) -> tuple[list[Message], list[str]]:
    """Give a call id that was already used earlier in the history a fresh one (``<id>_dup2``), in the call
    and in the results that follow it up to the next assistant message. Some logs reuse ids (replayed
    SWE-agent demonstrations); providers want them unique. Returns the new list and one note per rename."""
    used: set[str] = set()
    notes: list[str] = []
    out: list[Message] = []
    active: dict[str, str] = {}
    for i, m in enumerate(messages):
        if m.role == "assistant":
            active = {}
            parts: list[Any] = []
            changed = False
            for p in m.parts:
                if isinstance(p, ToolCallPart) and p.id in used:
                    n = 2
                    while f"{p.id}_dup{n}" in used:
                        n += 1
                    new = f"{p.id}_dup{n}"
                    active[p.id] = new
                    notes.append(f"message {i}: call id {p.id!r} was already used; renamed {new!r}")
                    parts.append(replace(p, id=new))
                    used.add(new)
                    changed = True
                else:
                    if isinstance(p, ToolCallPart):
                        used.add(p.id)
                    parts.append(p)
            out.append(replace(m, parts=tuple(parts), meta={**m.meta, "renamed_call_ids": {active[k]: k for k in active}}) if changed else m)
        elif active and m.tool_results:
            parts = [replace(p, call_id=active[p.call_id]) if isinstance(p, ToolResultPart) and p.call_id in active else p for p in m.parts]
            out.append(replace(m, parts=tuple(parts)))
        else:
            out.append(m)
    return out, notes


def finish_session(
    *,
    format: str,
    source: str,
    messages: list[Message],
    calls: list[CallRecord],
    checkpoints: list[ImportedCheckpoint],
    skipped: list[Skipped],
    model: str | None,
    title: str | None,
    meta: dict[str, JSON],
) -> ImportedSession:
    """Repair the history if needed, remap call/checkpoint indices, and build the session."""
    messages, renames = dedupe_call_ids(messages)
    if renames:
        meta = {**meta, "renamed_call_ids": renames}
    if structure_problems(messages):
        fixed, imap, notes = repair_pairs(messages)
        calls = [replace(c, index=imap[c.index], reply_end=max(imap[c.index] + 1, imap[c.reply_end])) for c in calls]
        checkpoints = [replace(cp, upto=imap[cp.upto]) for cp in checkpoints]
        messages = fixed
        meta = {**meta, "repairs": notes}
        skipped = [*skipped, *(Skipped(None, f"repaired: {note}") for note in notes)]
    if not messages:
        raise ImportFormatError(f"{source}: no messages could be imported as {format}" + _first_reasons(skipped))
    return ImportedSession(
        format=format,
        source=source,
        messages=messages,
        calls=calls,
        checkpoints=checkpoints,
        skipped=skipped,
        model=model,
        title=title,
        meta=meta,
    )


def _first_reasons(skipped: list[Skipped]) -> str:
    if not skipped:
        return ""
    shown = "; ".join(f"line {s.line}: {s.reason}" if s.line else s.reason for s in skipped[:3])
    more = f" (+{len(skipped) - 3} more)" if len(skipped) > 3 else ""
    return f" ({shown}{more})"


# --- entry points ------------------------------------------------------------------------

Importer = Callable[[RawInput], list[ImportedSession]]


def _importer(fmt: str) -> Importer:
    if fmt == "claude-code":
        from . import claude_code

        return claude_code.import_raw
    if fmt == "codex":
        from . import codex

        return codex.import_raw
    if fmt == "swe-agent":
        from . import swe_agent

        return swe_agent.import_raw
    if fmt == "openhands":
        from . import openhands

        return openhands.import_raw
    from . import payload_files

    return lambda raw: payload_files.import_raw(raw, fmt)


def load_raw(raw: RawInput, format: str | None = None) -> list[ImportedSession]:
    """Import already-parsed input; every session it holds (OpenHands eval files hold several)."""
    if format is None:
        fmt = _detect_raw(raw)
        if fmt is None:
            what = _first_reasons(raw.skipped) if not raw.records and not raw.is_document else ""
            raise ImportFormatError(
                f"{raw.source}: cannot tell which transcript format this is (known: {', '.join(FORMATS)}); "
                f"pass --format to force one{what}"
            )
    else:
        fmt = normalize_format(format)
    if not raw.is_document and not raw.records:
        raise ImportFormatError(f"{raw.source}: no JSON records could be read" + _first_reasons(raw.skipped))
    sessions = _importer(fmt)(raw)
    if not sessions:
        raise ImportFormatError(f"{raw.source}: nothing could be imported as {fmt}" + _first_reasons(raw.skipped))
    return sessions


def load_all(path: str | Path, format: str | None = None) -> list[ImportedSession]:
    """Every session in ``path`` (one for most formats; one per instance for OpenHands eval output)."""
    raw = parse_input(read_bytes(path), str(path))
    return load_raw(raw, format)


def load_transcript(path: str | Path, format: str | None = None) -> ImportedSession:
    """The (first) session in ``path``; the format is detected by content unless ``format`` forces one."""
    return load_all(path, format)[0]


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



