"""SWE-agent trajectories (``*.traj``, one JSON document) → an ImportedSession.

``history`` is the conversation as the model saw it: ``system``/``user``/``assistant``/``tool``
entries, one message each. Function-calling runs carry ``tool_calls`` on assistant entries and
``tool_call_ids`` on tool entries; older (and demonstration) runs keep the action inside the assistant
text and the observation in the next user message, which is imported as plain text, exactly as sent,
marked ``meta["observation"]`` (tool output, not the user's words: the constraint ledger does not read it).
Such a user entry is the one that follows an assistant entry (the action whose output it is); the
task text comes before the first action. ``message_type`` cannot tell them apart: newer trajectories
label the task text ("instance template") ``observation`` too.
Every assistant entry is one model call (:class:`CallRecord` without usage: a trajectory keeps only
totals, in ``info.model_stats``, which go to ``meta["model_stats"]``). Entries that are demonstrations
(``is_demo``) keep that flag in their message ``meta``.
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import ImagePart, Message, Part, TextPart, ToolCallPart, ToolResultPart, dump_arguments
from .model import CallRecord, ImportedSession, RawInput, Skipped, sub
from .repair import finish_session

FORMAT = "swe-agent"
_ROLES = ("system", "user", "assistant", "tool")


def _content(content: Any) -> list[TextPart | ImagePart]:
    if isinstance(content, str):
        return [TextPart(content)] if content else []
    out: list[TextPart | ImagePart] = []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                out.append(TextPart(b["text"]))
            elif isinstance(b, dict) and b.get("type") == "image_url":
                url = b.get("image_url", {})
                url = url.get("url") if isinstance(url, dict) else url
                if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
                    head, data = url.split(";base64,", 1)
                    out.append(ImagePart(source="base64", data=data, media_type=head[5:] or None))
                elif isinstance(url, str):
                    out.append(ImagePart(source="url", data=url))
            elif isinstance(b, str):
                out.append(TextPart(b))
    return out


def _tool_calls(raw: Any) -> list[ToolCallPart]:
    out: list[ToolCallPart] = []
    for i, tc in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(tc, dict):
            continue
        fn = sub(tc, "function")
        args = fn.get("arguments")
        out.append(
            ToolCallPart(
                id=str(tc.get("id") or f"call_{i}"),
                name=str(fn.get("name", "")),
                arguments=args if isinstance(args, str) else dump_arguments(args if args is not None else {}),
            )
        )
    return out


def import_raw(raw: RawInput) -> list[ImportedSession]:
    doc = raw.document
    skipped = raw.skipped  # shared: what an importer skips is reported even when nothing imports
    if not raw.is_document or not isinstance(doc, dict) or not isinstance(doc.get("history"), list):
        skipped.append(Skipped(None, "a SWE-agent trajectory is one JSON object with a 'history' list"))
        return []
    names: dict[str, str] = {}
    messages: list[Message] = []
    calls: list[CallRecord] = []
    after_action = False  # the last entry (demonstrations aside) was an assistant's action
    for n, h in enumerate(doc["history"]):
        where = f"history[{n}]"
        if not isinstance(h, dict) or h.get("role") not in _ROLES:
            role = h.get("role") if isinstance(h, dict) else None
            skipped.append(Skipped(None, f"{where}: not a message (role {role!r})"))
            continue
        role = h["role"]
        meta: dict[str, Any] = {}
        if h.get("is_demo"):
            meta["is_demo"] = True
        elif role == "user" and after_action:
            meta["observation"] = True  # the environment's answer to the action before it
        if not h.get("is_demo"):
            after_action = role == "assistant"
        if h.get("agent") not in (None, "main", "primary"):
            meta["agent"] = h["agent"]
        parts: list[Part] = list(_content(h.get("content")))
        if role == "assistant":
            tcs = _tool_calls(h.get("tool_calls"))
            for c in tcs:
                names[c.id] = c.name
            parts.extend(tcs)
            calls.append(CallRecord(index=len(messages), reply_end=len(messages) + 1))
        elif role == "tool":
            raw_ids = h.get("tool_call_ids")
            ids = [str(x) for x in raw_ids if x is not None] if isinstance(raw_ids, list) else []
            if not ids:
                skipped.append(Skipped(None, f"{where}: tool message without tool_call_ids; kept as user text"))
                messages.append(Message(role="user", parts=tuple(parts), meta={**meta, "cw": "orphan_result"}))
                continue
            content = tuple(p for p in parts if isinstance(p, (TextPart, ImagePart)))
            results: list[Part] = [ToolResultPart(call_id=ids[0], content=content, name=names.get(ids[0]))]
            for other in ids[1:]:
                results.append(ToolResultPart(call_id=other, content=(TextPart(f"[see the result of {ids[0]}]"),), name=names.get(other)))
            parts = results
        messages.append(Message(role=role, parts=tuple(parts), meta=meta))
    info = sub(doc, "info")
    meta_out: dict[str, Any] = {"history_entries": len(doc["history"]), "trajectory_steps": len(doc["trajectory"]) if isinstance(doc.get("trajectory"), list) else 0}
    for key in ("model_stats", "exit_status"):
        if key in info:
            meta_out[key] = info[key]
    if isinstance(doc.get("environment"), str):
        meta_out["environment"] = doc["environment"]
    model = None
    rc = doc.get("replay_config")
    if isinstance(rc, str):
        try:
            rc = json.loads(rc)
        except ValueError:
            rc = None
    if isinstance(rc, dict):
        agent = sub(rc, "agent")
        mc = sub(agent, "model")
        if isinstance(mc.get("name"), str):
            model = mc["name"]
    if not messages:
        return []
    return [
        finish_session(
            format=FORMAT,
            source=raw.source,
            messages=messages,
            calls=[CallRecord(index=c.index, reply_end=c.reply_end, model=model) for c in calls],
            checkpoints=[],
            skipped=skipped,
            model=model,
            title=None,
            meta=meta_out,
        )
    ]
