"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``) → an ImportedSession.

How the log maps onto the message model:

- Records form a tree through ``uuid``/``parentUuid``. The conversation is the chain from the last
  main-line message back to the root (a ``compact_boundary`` continues through ``logicalParentUuid``).
  Parallel tool calls hang off that chain as siblings, so records that share a chain assistant's
  ``message.id`` and the results of its calls are taken too. What is left over are abandoned branches
  (edits, retries): dropped, counted in ``meta["abandoned_records"]``.
- Sidechains (``isSidechain``: subagent turns written inline by older versions) are not part of the
  main conversation; they are counted in ``meta["sidechain_records"]``/``meta["sidechain_responses"]``.
- One API response is written as several assistant records (one content block each) sharing
  ``message.id``: they become ONE assistant message and ONE :class:`CallRecord`, whose usage is counted
  once (input, cache read and cache write are the same on every record; output grows while streaming,
  the largest is kept).
- Tool results (``tool_result`` blocks in user records) become ``tool`` messages; thinking blocks keep
  their signatures byte-exact (``ReasoningPart(provider="anthropic")``); images become ImageParts.
- A ``compact_boundary`` system record followed by an ``isCompactSummary`` user record becomes an
  :class:`ImportedCheckpoint`: the summary is a user message with ``meta={"cw": "fold_summary"}``.
- A ``microcompact_boundary`` system record (``microcompactMetadata.compactedToolIds``: tool results the
  agent cleared from what it sends, the log keeping them whole) becomes an :class:`ImportedClearing`
  effective from the response written just before it (Claude Code writes the record after the response of
  the request that cleared them); ids the conversation does not hold, and records with nothing to clear,
  are counted in ``meta["dropped"]``.
- An ``attachment`` record (what the client attached: a nested ``CLAUDE.md``, an ``@`` file, reminders…;
  :mod:`.claude_attachments`) on the conversation's chain becomes text the model was sent: a ``TextPart``
  of the tool message it follows (the API merges it with those results), else a user message marked
  ``meta["cw"] = "client_attachment"`` (not the user's words, not a turn start). Kinds whose text the
  record does not hold are counted in ``meta["dropped"]`` by kind.
- ``summary``, ``progress``, ``file-history-snapshot``, ``queue-operation`` and other ``system``
  records carry no conversation; they are counted in ``meta["record_types"]``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
)
from ..tokens.retention import with_output_count
from .claude_attachments import ATTACHMENT_MARKER, attachment_text
from .claude_microcompact import with_simulated_microcompact
from .claude_tree import DUPLICATE, Rec, Selection, copies, select, sidechain_groups
from .model import (
    CallRecord,
    ImportedCheckpoint,
    ImportedClearing,
    ImportedSession,
    RawInput,
    Skipped,
    as_int,
    iter_records,
)
from .repair import finish_session

FORMAT = "claude-code"
_NON_MESSAGE_TYPES = frozenset({"summary", "progress", "file-history-snapshot", "queue-operation", "system"})
_SYNTHETIC_MODEL = "<synthetic>"
#: Kinds counted in ``meta["dropped"]`` for ``microcompact_boundary`` records that cannot apply.
MICRO_UNKNOWN_ID = "microcompact_boundary id not in the conversation"
MICRO_UNUSED = "microcompact_boundary record with nothing to clear"
#: Kind counted in ``meta["dropped"]`` for attachment records whose text the log does not hold.
ATTACHMENT_UNSIZED = "attachment the client renders from text not in the log"
ATTACHMENT_OFF_CHAIN = "attachment record off the conversation's chain"


@dataclass(slots=True)
class _Reply:
    """One assistant response being assembled from its records."""

    parts: list[Part] = field(default_factory=list)
    seen_calls: set[str] = field(default_factory=set)
    seen_signatures: set[str] = field(default_factory=set)
    usage: dict[str, Any] | None = None
    output_tokens: int | None = None
    model: str | None = None
    response_id: str | None = None
    stop_reason: str | None = None
    client_version: str | None = None  # the ``version`` of the client that wrote the response's first record


# --- content blocks ----------------------------------------------------------------------


def _image(block: dict[str, Any]) -> ImagePart | None:
    src = block.get("source")
    if not isinstance(src, dict):
        return None
    kind = src.get("type")
    if kind == "base64" and isinstance(src.get("data"), str):
        return ImagePart(source="base64", data=src["data"], media_type=src.get("media_type"))
    if kind == "url" and isinstance(src.get("url"), str):
        return ImagePart(source="url", data=src["url"], media_type=src.get("media_type"))
    if kind == "file" and isinstance(src.get("file_id"), str):
        return ImagePart(source="file", data=src["file_id"], media_type=src.get("media_type"))
    return None


def _other_block(block: Any) -> TextPart:
    """A block this importer has no part for: kept as text so nothing is lost."""
    kind = block.get("type") if isinstance(block, dict) else type(block).__name__
    return TextPart(text=json.dumps(block, ensure_ascii=False), extra={"claude_code": {"block_type": kind}})


def _plain_parts(content: Any) -> list[TextPart | ImagePart]:
    if isinstance(content, str):
        return [TextPart(content)]
    out: list[TextPart | ImagePart] = []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                out.append(TextPart(b["text"]))
            elif isinstance(b, dict) and b.get("type") == "image" and (img := _image(b)) is not None:
                out.append(img)
            else:
                out.append(_other_block(b))
    elif content is not None:
        out.append(_other_block(content))
    return out


def _add_assistant_blocks(reply: _Reply, content: Any) -> None:
    if isinstance(content, str):
        if content:
            reply.parts.append(TextPart(content))
        return
    if not isinstance(content, list):
        return
    for b in content:
        t = b.get("type") if isinstance(b, dict) else None
        if t == "text":
            reply.parts.append(TextPart(str(b.get("text", ""))))
        elif t == "thinking":
            sig = b.get("signature")
            if isinstance(sig, str) and sig:
                if sig in reply.seen_signatures:
                    continue
                reply.seen_signatures.add(sig)
            reply.parts.append(
                ReasoningPart(text=str(b.get("thinking", "")), signature=sig if isinstance(sig, str) else None, provider="anthropic")
            )
        elif t == "redacted_thinking":
            reply.parts.append(
                ReasoningPart(encrypted=str(b.get("data", "")), provider="anthropic", extra={"anthropic": {"type": "redacted_thinking"}})
            )
        elif t == "tool_use":
            cid = str(b.get("id", ""))
            if cid in reply.seen_calls:
                continue
            reply.seen_calls.add(cid)
            reply.parts.append(ToolCallPart(id=cid, name=str(b.get("name", "")), arguments=dump_arguments(b.get("input", {}))))
        else:
            reply.parts.append(_other_block(b))


def _user_message(rec: Rec, names: dict[str, str]) -> Message:
    content = rec.msg.get("content")
    meta: dict[str, Any] = {}
    if rec.obj.get("isMeta"):
        meta["is_meta"] = True
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        parts: list[Part] = []
        rest: list[Any] = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                cid = str(b.get("tool_use_id", ""))
                parts.append(
                    ToolResultPart(
                        call_id=cid,
                        content=tuple(_plain_parts(b.get("content", ""))),
                        is_error=bool(b.get("is_error", False)),
                        name=names.get(cid),
                    )
                )
            else:
                rest.append(b)
        parts.extend(_plain_parts(rest) if rest else [])
        return Message(role="tool", parts=tuple(parts), meta=meta)
    return Message(role="user", parts=tuple(_plain_parts(content)), meta=meta)


# --- import ------------------------------------------------------------------------------


def import_raw(raw: RawInput) -> list[ImportedSession]:
    skipped = raw.skipped  # shared: what an importer skips is reported even when nothing imports
    type_counts: Counter[str] = Counter()
    msgs: list[Rec] = []
    by_uuid: dict[str, Rec] = {}
    titles: list[str] = []
    info: dict[str, Any] = {}
    micro: list[Rec] = []
    for pos, (line, obj) in enumerate(iter_records(raw)):
        if not isinstance(obj, dict):
            skipped.append(Skipped(line, f"not a JSON object (got {type(obj).__name__})"))
            continue
        rec = Rec(pos, line, obj)
        t = obj.get("type") if isinstance(obj.get("type"), str) else None
        if isinstance(obj.get("uuid"), str):
            by_uuid[obj["uuid"]] = rec
        for key in ("sessionId", "cwd", "gitBranch", "version"):
            if obj.get(key) and key not in info:
                info[key] = obj[key]
        if t in ("user", "assistant"):
            if not isinstance(obj.get("message"), dict) or "content" not in obj["message"]:
                skipped.append(Skipped(line, f"{t} record without a message.content"))
                continue
            msgs.append(rec)
        elif t == "attachment":
            type_counts["attachment"] += 1
            msgs.append(rec)
        elif t == "system" and obj.get("subtype") == "compact_boundary":
            type_counts["system:compact_boundary"] += 1
            msgs.append(rec)
        elif t in _NON_MESSAGE_TYPES:
            type_counts[str(t) if t != "system" else f"system:{obj.get('subtype')}"] += 1
            if t == "system" and obj.get("subtype") == "microcompact_boundary" and not obj.get("isSidechain"):
                micro.append(rec)
            if t == "summary" and isinstance(obj.get("summary"), str):
                titles.append(obj["summary"])
        else:
            skipped.append(Skipped(line, f"unknown Claude Code record type {obj.get('type')!r}"))
    if not any(r.type in ("user", "assistant") for r in msgs):
        return []
    subagent_file = all(r.obj.get("isSidechain") for r in msgs if r.type in ("user", "assistant"))
    if subagent_file:
        # A subagent's own log (``<session>/subagents/agent-*.jsonl``): its sidechain is the conversation.
        for r in msgs:
            r.obj = {**r.obj, "isSidechain": False}
    main_sel = select(msgs, by_uuid, lambda r: not r.obj.get("isSidechain"))
    side = [r for r in msgs if r.obj.get("isSidechain") and r.type in ("user", "assistant")]
    groups = sidechain_groups(side, by_uuid)
    parent = _build(raw.source, main_sel, msgs, skipped, info, type_counts, titles, subagent=subagent_file, micro=micro)
    sessions = [parent]
    for n, group in enumerate(groups, 1):
        member = {r.pos for r in group}
        sel = select(group, by_uuid, lambda r, m=member: r.pos in m)  # type: ignore[misc]
        if not any(r.type == "assistant" for r in sel.records):
            continue
        child = _build(f"{raw.source}#subagent-{n}", sel, group, [], {"sessionId": info.get("sessionId")}, Counter(), [], subagent=True)
        prompt = next((m.text for m in child.messages if m.role == "user"), "")
        link = _spawning_call(parent.messages, prompt)
        child.meta["parent"] = {"source": raw.source, "sessionId": info.get("sessionId"), "tool_call_id": link, "subagent": n}
        sessions.append(child)
    parent.meta["sidechain_records"] = len(side)
    parent.meta["sidechain_responses"] = len({r.mid for r in side if r.type == "assistant" and r.mid})
    if len(sessions) > 1:
        parent.meta["subagents"] = len(sessions) - 1
        parent.meta["subagent_calls"] = sum(len(c.calls) for c in sessions[1:])
    return sessions


def _spawning_call(messages: list[Message], prompt: str) -> str | None:
    """The id of the parent's Task/Agent call whose prompt the sub-agent run starts with."""
    if not prompt:
        return None
    for m in messages:
        for c in m.tool_calls:
            args = c.parsed_arguments()
            if isinstance(args, dict) and isinstance(args.get("prompt"), str) and args["prompt"].strip() == prompt.strip():
                return c.id
    return None


def _build(
    source: str,
    sel: Selection,
    msgs: list[Rec],
    skipped: list[Skipped],
    info: dict[str, Any],
    type_counts: Counter[str],
    titles: list[str],
    *,
    subagent: bool,
    micro: list[Rec] | None = None,
) -> ImportedSession:
    """One conversation from the records ``sel`` chose (``micro``: its ``microcompact_boundary`` records)."""
    selected = sel.records
    chosen = {r.pos for r in selected}
    abandoned = [r for r in msgs if r.type in ("user", "assistant") and not r.obj.get("isSidechain") and r.pos not in chosen]
    if subagent:
        abandoned = [r for r in msgs if r.type in ("user", "assistant") and r.pos not in chosen]
    chosen_ids = {r.mid for r in selected if r.type == "assistant"}

    messages: list[Message | _Reply] = []
    replies: dict[str, int] = {}
    names: dict[str, str] = {}
    checkpoints: list[ImportedCheckpoint] = []
    pending_boundary: Rec | None = None
    reply_at: list[tuple[int, int]] = []  # (file position of an assistant record, its reply's message index)
    unsized: Counter[str] = Counter()
    for rec in selected:
        if rec.type == "attachment":
            _add_attachment(messages, rec, unsized)
            continue
        if rec.type == "system":
            pending_boundary = rec
            continue
        if rec.type == "assistant":
            m = rec.msg
            mid = rec.mid
            if mid is not None and mid in replies:
                reply = messages[replies[mid]]
                assert isinstance(reply, _Reply)
            else:
                version = rec.obj.get("version")
                reply = _Reply(
                    response_id=mid,
                    model=m.get("model") if isinstance(m.get("model"), str) else None,
                    client_version=version if isinstance(version, str) else None,
                )
                if mid is not None:
                    replies[mid] = len(messages)
                messages.append(reply)
            reply_at.append((rec.pos, len(messages) - 1 if mid is None else replies[mid]))
            _add_assistant_blocks(reply, m.get("content"))
            for p in reply.parts:
                if isinstance(p, ToolCallPart):
                    names[p.id] = p.name
            usage = m.get("usage")
            if isinstance(usage, dict):
                if reply.usage is None:
                    reply.usage = usage
                out = as_int(usage.get("output_tokens"))
                if out is not None and (reply.output_tokens is None or out > reply.output_tokens):
                    reply.output_tokens = out
            if m.get("stop_reason"):
                reply.stop_reason = m["stop_reason"]
            continue
        if rec.obj.get("isCompactSummary"):
            summary = Message(role="user", parts=tuple(_plain_parts(rec.msg.get("content"))), meta={"cw": "fold_summary"})
            meta = pending_boundary.obj.get("compactMetadata") if pending_boundary else None
            meta = meta if isinstance(meta, dict) else {}
            checkpoints.append(
                ImportedCheckpoint(
                    upto=len(messages),
                    summary=summary,
                    trigger=meta.get("trigger") if isinstance(meta.get("trigger"), str) else None,
                    pre_tokens=as_int(meta.get("preTokens")),
                )
            )
            pending_boundary = None
            continue
        messages.append(_user_message(rec, names))

    final: list[Message] = []
    calls: list[CallRecord] = []
    models: Counter[str] = Counter()
    synthetic = 0
    for i, item in enumerate(messages):
        if isinstance(item, Message):
            final.append(item)
            continue
        final.append(with_output_count(Message(role="assistant", parts=tuple(item.parts)), item.output_tokens))
        if item.model == _SYNTHETIC_MODEL:
            synthetic += 1
            continue
        u = item.usage or {}
        inp, cw, cr = as_int(u.get("input_tokens")), as_int(u.get("cache_creation_input_tokens")), as_int(u.get("cache_read_input_tokens"))
        cc = u.get("cache_creation")
        cw1h = as_int(cc.get("ephemeral_1h_input_tokens")) if isinstance(cc, dict) else None
        reported = None if inp is None else inp + (cw or 0) + (cr or 0)
        if item.model:
            models[item.model] += 1
        calls.append(
            CallRecord(
                index=i,
                reply_end=i + 1,
                reported_input_tokens=reported,
                output_tokens=item.output_tokens,
                cache_read_tokens=cr,
                cache_write_tokens=cw,
                model=item.model,
                response_id=item.response_id,
                cache_write_1h_tokens=cw1h,
                client_version=item.client_version,
            )
        )
    abandoned_responses = len({r.mid for r in abandoned if r.type == "assistant" and r.mid and r.mid not in chosen_ids})
    session_meta: dict[str, Any] = {
        **info,
        "record_types": dict(type_counts),
        "abandoned_records": len(abandoned),
        "abandoned_responses": abandoned_responses,
    }
    copied = copies(abandoned, selected)
    repairs = [
        *sel.repairs,
        *(Skipped(r.line, "repaired: copy of a record already in the conversation (re-written history); kept once", kind=DUPLICATE) for r in copied),
    ]
    if len(abandoned) > len(copied):
        session_meta["dropped"] = {"record of an abandoned branch": len(abandoned) - len(copied)}
    off_chain = sum(1 for r in msgs if r.type == "attachment" and r.pos not in chosen and (subagent or not r.obj.get("isSidechain")))
    if off_chain:
        session_meta["dropped"] = {**(session_meta.get("dropped") or {}), ATTACHMENT_OFF_CHAIN: off_chain}
    if unsized:
        session_meta["dropped"] = {**(session_meta.get("dropped") or {}), ATTACHMENT_UNSIZED: sum(unsized.values())}
        session_meta["unsized_attachments"] = dict(unsized)
    if subagent:
        session_meta["subagent_log"] = True
    if synthetic:
        session_meta["synthetic_assistant_messages"] = synthetic
    if pending_boundary is not None:
        session_meta["compact_boundary_without_summary"] = True
    clearings = _clearings(micro or [], reply_at, names, session_meta)
    model = models.most_common(1)[0][0] if models else None
    session = finish_session(
        format=FORMAT,
        source=source,
        messages=final,
        calls=calls,
        checkpoints=checkpoints,
        skipped=[*skipped, *repairs],
        model=model,
        title=titles[-1] if titles else None,
        meta=session_meta,
        clearings=clearings,
    )
    return with_simulated_microcompact(session)


def _add_attachment(messages: list[Message | _Reply], rec: Rec, unsized: Counter[str]) -> None:
    """The text an attachment record stands for, where the model read it: beside the tool results it
    follows, else as a marked user message (merged with the next attachment's)."""
    kind, text = attachment_text(rec.obj)
    if text is None:
        unsized[kind] += 1
        return
    part = TextPart(text, extra={"claude_code": {"attachment": kind}})
    last = messages[-1] if messages else None
    if isinstance(last, Message) and (last.role == "tool" or last.meta.get("cw") == ATTACHMENT_MARKER):
        messages[-1] = Message(role=last.role, parts=(*last.parts, part), meta=last.meta)
    else:
        messages.append(Message(role="user", parts=(part,), meta={"cw": ATTACHMENT_MARKER}))


def _clearings(micro: list[Rec], reply_at: list[tuple[int, int]], names: dict[str, str], meta: dict[str, Any]) -> list[ImportedClearing]:
    """One clearing per ``microcompact_boundary`` record, effective from the last response written before
    it in the file. What cannot apply is counted in ``meta["dropped"]`` (so the import report says it):
    ids of results this conversation does not hold, and records with no such id or before any response."""
    out: list[ImportedClearing] = []
    unknown_ids = unused = 0
    ordered = sorted(reply_at)
    for rec in micro:
        md = rec.obj.get("microcompactMetadata")
        md = md if isinstance(md, dict) else {}
        raw_ids = md.get("compactedToolIds")
        ids = [x for x in raw_ids if isinstance(x, str)] if isinstance(raw_ids, list) else []
        known = tuple(x for x in ids if x in names)
        unknown_ids += len(ids) - len(known)
        before = [i for pos, i in ordered if pos < rec.pos]
        if not before or not known:
            unused += 1
            continue
        trigger = md.get("trigger")
        out.append(ImportedClearing(at=max(before), call_ids=known, trigger=trigger if isinstance(trigger, str) else None, tokens_saved=as_int(md.get("tokensSaved"))))
    if out:
        meta["microcompactions"] = len(out)
    dropped = {k: n for k, n in ((MICRO_UNKNOWN_ID, unknown_ids), (MICRO_UNUSED, unused)) if n}
    if dropped:
        meta["dropped"] = {**(meta.get("dropped") or {}), **dropped}
    return out
