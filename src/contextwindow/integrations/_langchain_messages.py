"""LangChain messages ↔ :class:`~contextwindow.messages.Message`, losslessly (private; pure).

- ``HumanMessage`` → ``user``, ``AIMessage`` → ``assistant`` (``tool_calls`` → ToolCallPart with
  the ``args`` serialized once), ``ToolMessage`` → ``tool`` (one ToolResultPart; ``status="error"``
  → ``is_error``), ``SystemMessage`` → ``system``.
- Content: a string is one TextPart; a list of blocks becomes parts in order — ``text`` blocks
  TextPart, ``image``/``image_url`` blocks ImagePart (base64 data URLs decoded), ``thinking``/
  ``redacted_thinking``/``reasoning`` blocks ReasoningPart with the signature byte-exact; any
  other block (``tool_use`` echoes, citations, provider blocks) rides along opaque at its position.
- Everything else on the message (``id``, ``name``, ``additional_kwargs``, ``response_metadata``,
  ``usage_metadata``, ``invalid_tool_calls``, ``tool_call_id``, ``status``, ``artifact``) is kept
  in ``extra["langchain"]``, with the message id as the mirror key; a value that is not JSON
  (an ``artifact`` object) cannot be stored and is named in ``unkept`` (never sent to a model
  anyway).

Back: a message is rebuilt from its parts and the shape kept in ``extra`` — exactly as it came
when nothing changed it, with the new text when compaction clipped, masked or truncated it;
messages contextwindow made (a fold summary, a marker) become plain ``HumanMessage``/``ToolMessage``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from ..errors import PayloadError
from ..formats._common import image_data_url, merge_opaque, parse_data_url
from ..messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
)
from ._base import fingerprint

__all__ = ["FORMAT", "from_langchain", "to_langchain"]

FORMAT = "langchain"
_ROLES: dict[str, Role] = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}
_CLASSES: dict[str, type[BaseMessage]] = {"human": HumanMessage, "ai": AIMessage, "tool": ToolMessage, "system": SystemMessage}
_REBUILT = ("content", "type", "tool_calls")


# --- LangChain → ours -----------------------------------------------------------------


def from_langchain(messages: Sequence[BaseMessage]) -> list[Message]:
    return [message_from_langchain(m, i) for i, m in enumerate(messages)]


def message_from_langchain(lc: BaseMessage, index: int | None = None) -> Message:
    kind = getattr(lc, "type", None)
    if kind not in _ROLES:
        raise PayloadError(f"unsupported LangChain message type {kind!r} (expected human, ai, tool or system)", index=index)
    role = _ROLES[kind]
    fields: dict[str, Any] = {}
    unkept: list[str] = []
    for k, v in lc.model_dump().items():
        if k in _REBUILT or (v is None and k not in ("name", "id")):
            continue
        try:
            json.dumps(v)
        except (TypeError, ValueError):
            unkept.append(k)
            continue
        fields[k] = v
    parts, opaque, string = _content(lc.content, index)
    sec: dict[str, Any] = {"type": kind, "fields": fields, "string": string, "opaque": opaque, "unkept": unkept}
    out: list[Part]
    if role == "tool":
        res = [p for p in parts if isinstance(p, TextPart | ImagePart)]
        if len(res) != len(parts):
            raise PayloadError("a LangChain ToolMessage holds reasoning blocks, which a tool result cannot carry", index=index)
        call_id = getattr(lc, "tool_call_id", None)
        if not isinstance(call_id, str):
            raise PayloadError("ToolMessage without a tool_call_id", index=index, field="tool_call_id")
        out = [ToolResultPart(call_id, tuple(res), is_error=getattr(lc, "status", "success") == "error", name=getattr(lc, "name", None))]
    else:
        out = list(parts)
        for tc in getattr(lc, "tool_calls", None) or []:
            rest = {k: v for k, v in tc.items() if k not in ("name", "args", "id", "type")}
            out.append(ToolCallPart(tc.get("id") or "", tc["name"], dump_arguments(tc.get("args") or {}), extra={FORMAT: {"fields": rest}} if rest else {}))
    key = lc.id if isinstance(lc.id, str) and lc.id else "fp:" + fingerprint([TextPart(kind), *out])
    sec["key"] = key
    return Message(role, tuple(out), name=None, extra={FORMAT: {k: v for k, v in sec.items() if v not in (None, [], {}, False)}})


def _content(content: Any, index: int | None) -> tuple[list[Part], list[list[Any]], bool]:
    """(parts, opaque [position, block] pairs, was a plain string)."""
    if isinstance(content, str):
        return ([TextPart(content)] if content else []), [], True
    if not isinstance(content, list):
        raise PayloadError(f"message content must be a string or a list of blocks, got {type(content).__name__}", index=index, field="content")
    parts: list[Part] = []
    opaque: list[list[Any]] = []
    for pos, block in enumerate(content):
        p = _block(block)
        if p is None:
            opaque.append([pos, block])
        else:
            parts.append(p)
    return parts, opaque, False


def _block(block: Any) -> Part | None:
    if isinstance(block, str):
        return TextPart(block, extra={FORMAT: {"bare": True}})
    if not isinstance(block, Mapping):
        return None
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(block["text"], extra=_own(block, "text"))
    if kind in ("thinking", "reasoning") and isinstance(block.get(kind), str):
        sig = block.get("signature")
        return ReasoningPart(
            block[kind], signature=sig if isinstance(sig, str) else None,
            provider="anthropic" if kind == "thinking" else FORMAT, extra=_own(block, kind, "signature"),
        )
    if kind == "redacted_thinking" and isinstance(block.get("data"), str):
        return ReasoningPart("", encrypted=block["data"], provider="anthropic", extra=_own(block, "data"))
    if kind in ("image", "image_url"):
        return _image(block)
    return None


def _own(block: Mapping[str, Any], *moved: str) -> dict[str, Any]:
    return {FORMAT: {"block": {k: v for k, v in block.items() if k not in moved}}}


def _image(block: Mapping[str, Any]) -> ImagePart | None:
    slot, value = None, None
    if block.get("type") == "image_url":
        iu = block.get("image_url")
        if isinstance(iu, Mapping) and isinstance(iu.get("url"), str):
            slot, value = "image_url.url", iu["url"]
        elif isinstance(iu, str):
            slot, value = "image_url", iu
    else:
        slot = next((s for s in ("base64", "url", "file_id", "data") if isinstance(block.get(s), str)), None)
        value = block.get(slot) if slot else None
    if slot is None or not isinstance(value, str):
        return None
    shell = copy.deepcopy(dict(block))
    _put(shell, slot, None)
    iu = block.get("image_url")
    detail = iu.get("detail") if isinstance(iu, Mapping) else block.get("detail")
    mime = block.get("mime_type") if isinstance(block.get("mime_type"), str) else None
    own: dict[str, dict[str, Any]] = {FORMAT: {"block": shell, "slot": slot}}
    if slot == "file_id":
        return ImagePart("file", value, media_type=mime, extra=own)
    if slot == "base64" or (slot == "data" and block.get("source_type") == "base64"):
        return ImagePart("base64", value, media_type=mime, extra=own)
    parsed = parse_data_url(value)
    if parsed and parsed[0]:
        own[FORMAT]["data_url"] = True
        return ImagePart("base64", parsed[1], media_type=parsed[0], detail=detail if isinstance(detail, str) else None, extra=own)
    return ImagePart("url", value, media_type=mime, detail=detail if isinstance(detail, str) else None, extra=own)


def _put(d: dict[str, Any], path: str, value: Any) -> None:
    head, _, rest = path.partition(".")
    if rest:
        d[head] = dict(d.get(head) or {})
        _put(d[head], rest, value)
    elif value is None:
        d.pop(head, None)
    else:
        d[head] = value


# --- ours → LangChain -----------------------------------------------------------------


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for m in messages:
        out.extend(message_to_langchain(m))
    return out


def message_to_langchain(m: Message) -> list[BaseMessage]:
    sec = m.extra.get(FORMAT) if isinstance(m.extra, Mapping) else None
    sec = sec if isinstance(sec, Mapping) else {}
    fields = dict(sec.get("fields") or {})
    kind = sec.get("type") or {"user": "human", "assistant": "ai", "tool": "tool", "system": "system"}[m.role]
    if m.role == "tool" or kind == "tool":
        return [_tool_message(p, fields if len(m.tool_results) == 1 else {}, sec) for p in m.tool_results] + _beside(m)
    body = [p for p in m.parts if not isinstance(p, ToolCallPart | ToolResultPart)]
    content = _render(body, sec)
    if kind == "ai" or m.role == "assistant":
        calls = [_tool_call(c) for c in m.tool_calls]
        return [AIMessage(content=content, tool_calls=calls, **{k: v for k, v in fields.items() if k != "tool_calls"})]
    return [_CLASSES[kind](content=content, **fields)]


def _render(parts: Sequence[Part], sec: Mapping[str, Any]) -> Any:
    if sec.get("string") and all(isinstance(p, TextPart) for p in parts):
        return "\n".join(p.text for p in parts if isinstance(p, TextPart))
    if not sec and all(isinstance(p, TextPart) for p in parts):
        return "\n".join(p.text for p in parts if isinstance(p, TextPart))
    blocks = [b for b in (_block_out(p) for p in parts) if b is not None]
    return merge_opaque(blocks, sec.get("opaque"))


def _block_out(p: Part) -> Any:
    own = p.extra.get(FORMAT) if isinstance(p.extra, Mapping) else None
    own = own if isinstance(own, Mapping) else {}
    if isinstance(p, TextPart):
        if own.get("bare"):
            return p.text
        return {**(own.get("block") or {"type": "text"}), "text": p.text}
    if isinstance(p, ReasoningPart):
        block = dict(own.get("block") or {})
        if not block:
            return None  # another provider's reasoning goes back only to that provider
        kind = block.get("type")
        if kind == "redacted_thinking":
            block["data"] = p.encrypted or ""
        else:
            block[kind if kind in ("thinking", "reasoning") else "reasoning"] = p.text
            if p.signature is not None:
                block["signature"] = p.signature
        return block
    if isinstance(p, ImagePart):
        if not own.get("block"):
            return {"type": "image_url", "image_url": {"url": image_data_url(p)}}
        block = copy.deepcopy(dict(own["block"]))
        value = image_data_url(p) if own.get("data_url") else p.data
        _put(block, str(own.get("slot", "url")), value)
        return block
    return None


def _tool_call(c: ToolCallPart) -> dict[str, Any]:
    args = c.parsed_arguments()
    own = c.extra.get(FORMAT) if isinstance(c.extra, Mapping) else None
    rest: dict[str, Any] = dict(own["fields"]) if isinstance(own, Mapping) and isinstance(own.get("fields"), Mapping) else {}
    return {"name": c.name, "args": args if isinstance(args, dict) else {"input": args}, "id": c.id or None, "type": "tool_call", **rest}


def _tool_message(p: ToolResultPart, fields: Mapping[str, Any], sec: Mapping[str, Any]) -> ToolMessage:
    f = {k: v for k, v in fields.items() if k not in ("tool_call_id", "status", "name")}
    content = _render(p.content, sec if fields else {"string": True} if all(isinstance(c, TextPart) for c in p.content) else {})
    return ToolMessage(content=content, tool_call_id=p.call_id, status="error" if p.is_error else "success", name=p.name, **f)


def _beside(m: Message) -> list[BaseMessage]:
    """Text or images that came beside tool results (an Anthropic-style user turn): a HumanMessage."""
    rest = [p for p in m.parts if isinstance(p, TextPart | ImagePart)]
    return [HumanMessage(content=_render(rest, {}))] if rest else []
