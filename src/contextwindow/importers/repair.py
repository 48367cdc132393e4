"""Structure check and repair of an imported history: every tool call answered, no orphan result.

A broken log is repaired (a synthetic ``[no result recorded]`` result, an orphan result kept as user
text) and the repair is reported in ``skipped``/``meta``, never done silently.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..clipping.images import image_size
from ..errors import ImportFormatError
from ..messages import JSON, ImagePart, Message, TextPart, ToolCallPart, ToolResultPart
from .model import (
    NO_RESULT_TEXT,
    CallRecord,
    ImportedCheckpoint,
    ImportedClearing,
    ImportedSession,
    Skipped,
    first_reasons,
)


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


def _repair_kind(note: str) -> str:
    if "has no result in the log" in note:
        return "unanswered tool call given a synthetic result"
    if "moved up to its call" in note:
        return "late tool result moved up to its call"
    return "orphan tool result kept as user text"


def _sized(p: ImagePart) -> ImagePart:
    if (p.width and p.height) or p.source != "base64":
        return p
    size = image_size(p.data)
    return replace(p, width=size[0], height=size[1]) if size else p


def size_images(messages: list[Message]) -> list[Message]:
    """Base64 images get ``width``/``height`` read from their own header (PNG, JPEG, GIF, WebP), so
    token estimates use each provider's image formula instead of a flat fallback."""
    out: list[Message] = []
    for m in messages:
        if not any(isinstance(p, ImagePart) or (isinstance(p, ToolResultPart) and any(isinstance(c, ImagePart) for c in p.content)) for p in m.parts):
            out.append(m)
            continue
        parts: list[Any] = []
        for p in m.parts:
            if isinstance(p, ImagePart):
                p = _sized(p)
            elif isinstance(p, ToolResultPart) and any(isinstance(c, ImagePart) for c in p.content):
                p = replace(p, content=tuple(_sized(c) if isinstance(c, ImagePart) else c for c in p.content))
            parts.append(p)
        out.append(replace(m, parts=tuple(parts)))
    return out


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
    clearings: list[ImportedClearing] | None = None,
) -> ImportedSession:
    """Repair the history if needed, remap call/checkpoint/clearing indices, and build the session."""
    clearings = clearings or []
    messages = size_images(messages)
    messages, renames = dedupe_call_ids(messages)
    if renames:
        meta = {**meta, "renamed_call_ids": renames}
        skipped = [*skipped, *(Skipped(None, f"repaired: {note}", kind="duplicate call id renamed") for note in renames)]
    if structure_problems(messages):
        fixed, imap, notes = repair_pairs(messages)
        calls = [replace(c, index=imap[c.index], reply_end=max(imap[c.index] + 1, imap[c.reply_end])) for c in calls]
        checkpoints = [replace(cp, upto=imap[cp.upto]) for cp in checkpoints]
        clearings = [replace(cl, at=imap[cl.at]) for cl in clearings]
        messages = fixed
        meta = {**meta, "repairs": notes}
        skipped = [*skipped, *(Skipped(None, f"repaired: {note}", kind=_repair_kind(note)) for note in notes)]
    if not messages:
        raise ImportFormatError(f"{source}: no messages could be imported as {format}" + first_reasons(skipped))
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
        clearings=clearings,
    )
