"""Anthropic Messages payloads ↔ :class:`~contextwindow.messages.Message`.

- ``system`` (a string or text blocks with ``cache_control``) → one leading ``system`` message.
- Blocks: ``text`` → TextPart; ``image`` → ImagePart (base64 / url / file source); ``tool_use``
  → ToolCallPart (``input`` serialized once with :func:`dump_arguments`, parsed back with
  ``json.loads``); ``tool_result`` → ToolResultPart; ``thinking`` → ReasoningPart(text,
  signature); ``redacted_thinking`` → ReasoningPart(encrypted=data). Both reasoning kinds carry
  ``provider="anthropic"`` and go back only to Anthropic. Other blocks (``document``,
  ``server_tool_use``, ``web_search_tool_result``, ...) ride along opaque at their position.
- A user message holding ``tool_result`` blocks becomes a ``tool`` message (its text and image
  blocks stay, in order).
- Keys we have no slot for (``cache_control``, ``citations``, ``caller``, ...) are kept in
  ``extra["anthropic"]``; content given as a string comes back as a string.

Going out, messages alternate: consecutive messages of the same Anthropic role (user and tool
are both ``user``) are merged, empty text blocks (the API rejects them) and other providers'
reasoning are left out, and tool-use ids are reduced to the characters Anthropic accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .. import jsonbound
from ..errors import PayloadError
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
from ._common import (
    expect,
    merge_opaque,
    optional,
    parse_arguments_object,
    payload_list,
    plain_text,
    section,
    split_fields,
    with_section,
)
from .tooldefs import ToolLike, to_anthropic_tools, tools_from_anthropic

__all__ = ["FORMAT", "from_payload", "system_from_payload", "to_payload", "tools_from_payload"]

FORMAT = "anthropic"
_ID_BAD = re.compile(r"[^a-zA-Z0-9_-]")


# --- payload → messages ---------------------------------------------------------------


def from_payload(obj: Any) -> list[Message]:
    """A Messages request (``{"system"?, "messages": [...]}``) or its bare message list → messages."""
    items, whole = payload_list(obj, "messages", "Anthropic")
    out: list[Message] = []
    if whole.get("system") is not None:
        out.append(_system(whole["system"]))
    out.extend(_message(d, i) for i, d in enumerate(items))
    return out


def system_from_payload(obj: Any) -> str | None:
    """The payload's system text (also the first message of :func:`from_payload`)."""
    if not isinstance(obj, Mapping) or obj.get("system") is None:
        return None
    return _system(obj["system"]).text


def tools_from_payload(obj: Any) -> list[Any]:
    return tools_from_anthropic(obj.get("tools")) if isinstance(obj, Mapping) else []


def _system(s: Any) -> Message:
    if isinstance(s, str):
        return Message(role="system", parts=(TextPart(s),))
    if not isinstance(s, list):
        raise PayloadError(f"expected string or list of text blocks, got {type(s).__name__}", field="system")
    parts: list[Part] = []
    for j, b in enumerate(s):
        if not isinstance(b, Mapping) or b.get("type") != "text" or not isinstance(b.get("text"), str):
            raise PayloadError(f"system block {j} must be a text block", field="system")
        parts.append(TextPart(b["text"], extra=with_section({}, FORMAT, split_fields(b, ("type", "text")))))
    sec = {"list": not parts or plain_text(parts, FORMAT, {}) is not None}
    return Message(role="system", parts=tuple(parts), extra=with_section({}, FORMAT, sec))


def _message(d: Any, i: int) -> Message:
    if not isinstance(d, Mapping):
        raise PayloadError("a message must be an object", index=i)
    role = expect(d, "role", str, i)
    if role not in ("user", "assistant"):
        raise PayloadError(f"unknown role {role!r} (expected user or assistant)", index=i, field="role")
    content = expect(d, "content", (str, list), i)
    sec: dict[str, Any] = {"fields": split_fields(d, ("role", "content"))}
    if isinstance(content, str):
        sec["string"] = content == ""  # an empty string is kept only when it came from Anthropic
        return Message(role=role, parts=(TextPart(content),), extra=with_section({}, FORMAT, sec))
    parts: list[Part] = []
    opaque: list[list[Any]] = []
    for j, b in enumerate(content):
        part = _block(b, i, j)
        if part is None:
            opaque.append([j, b])
        else:
            parts.append(part)
    sec["opaque"] = opaque
    sec["list"] = not parts or plain_text(parts, FORMAT, sec) is not None
    is_tool = role == "user" and any(isinstance(p, ToolResultPart) for p in parts)
    return Message(role="tool" if is_tool else role, parts=tuple(parts), extra=with_section({}, FORMAT, sec))


def _block(b: Any, i: int, j: int) -> Part | None:
    where = f"content block {j}"
    if not isinstance(b, Mapping):
        raise PayloadError(f"{where} must be an object", index=i, field="content")
    kind = expect(b, "type", str, i, where)
    if kind == "text":
        return TextPart(expect(b, "text", str, i, where), extra=_extra(b, ("type", "text")))
    if kind == "image":
        return _image(b, i, where)
    if kind == "thinking":
        return ReasoningPart(
            text=expect(b, "thinking", str, i, where),
            signature=optional(b, "signature", str, i, where),
            provider=FORMAT,
            extra=_extra(b, ("type", "thinking", "signature")),
        )
    if kind == "redacted_thinking":
        return ReasoningPart(
            encrypted=expect(b, "data", str, i, where), provider=FORMAT, extra=_extra(b, ("type", "data"))
        )
    if kind == "tool_use":
        return ToolCallPart(
            id=expect(b, "id", str, i, where),
            name=expect(b, "name", str, i, where),
            arguments=dump_arguments(b.get("input", {})),
            extra=with_section({}, FORMAT, {**split_fields(b, ("type", "id", "name", "input")), "no_input": "input" not in b}),
        )
    if kind == "tool_result":
        return _tool_result(b, i, where)
    return None


def _extra(b: Mapping[str, Any], known: Sequence[str]) -> dict[str, Any]:
    return with_section({}, FORMAT, split_fields(b, known))


def _image(b: Mapping[str, Any], i: int, where: str) -> ImagePart | None:
    src = expect(b, "source", dict, i, where)
    kind = src.get("type")
    extra = with_section({}, FORMAT, {**split_fields(b, ("type", "source")), "source": split_fields(src, ("type", "media_type", "data", "url", "file_id"))})
    if kind == "base64":
        return ImagePart(
            source="base64", data=expect(src, "data", str, i, where), media_type=optional(src, "media_type", str, i, where), extra=extra
        )
    if kind == "url":
        return ImagePart(source="url", data=expect(src, "url", str, i, where), extra=extra)
    if kind == "file":
        return ImagePart(source="file", data=expect(src, "file_id", str, i, where), extra=extra)
    return None  # an image source we do not model: kept opaque


def _tool_result(b: Mapping[str, Any], i: int, where: str) -> ToolResultPart:
    call_id = expect(b, "tool_use_id", str, i, where)
    is_error = b.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        raise PayloadError(f"expected boolean in {where}", index=i, field="is_error")
    sec: dict[str, Any] = split_fields(b, ("type", "tool_use_id", "content", "is_error"))
    c = b.get("content")
    parts: list[TextPart | ImagePart] = []
    shape: dict[str, Any] = {"is_error_false": is_error is False}  # an explicit false comes back
    if c is None:
        shape["absent"] = "content" not in b
    elif isinstance(c, str):
        parts.append(TextPart(c))
    elif isinstance(c, list):
        opaque = []
        for k, cb in enumerate(c):
            p = _block(cb, i, k)
            if isinstance(p, (TextPart, ImagePart)):
                parts.append(p)
            else:
                opaque.append([k, cb])
        shape["opaque"] = opaque
        shape["list"] = not parts or plain_text(parts, FORMAT, shape) is not None
    else:
        raise PayloadError(f"expected string or list in {where}, got {type(c).__name__}", index=i, field="content")
    sec["~shape"] = {k: v for k, v in shape.items() if v}
    return ToolResultPart(call_id=call_id, content=tuple(parts), is_error=bool(is_error), extra=with_section({}, FORMAT, sec))


# --- messages → payload ---------------------------------------------------------------


def to_payload(
    messages: Sequence[Message],
    *,
    system: str | None = None,
    tools: Sequence[ToolLike] | None = None,
    model: str | None = None,
    positions: list[tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """Messages → a Messages request body (``messages``; ``system``, ``model``, ``tools`` when any).
    ``positions``, when given, is filled with where each message ends in the body: (index in its
    ``messages``, index of its last block there) — consecutive messages of one role share a body
    message; (-1, -1) for a system message or one with nothing to send."""
    sys_msgs = [m for m in messages if m.role == "system"]
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            if positions is not None:
                positions.append((-1, -1))
            continue
        rendered = _render(m)
        if rendered is None:
            if positions is not None:
                positions.append((-1, -1))
            continue
        if out and out[-1]["role"] == rendered["role"]:
            out[-1] = {**out[-1], "content": _as_blocks(out[-1]["content"]) + _as_blocks(rendered["content"])}
        else:
            out.append(rendered)
        if positions is not None:
            c = out[-1]["content"]
            positions.append((len(out) - 1, (len(c) if isinstance(c, list) else int(bool(c))) - 1))
    payload: dict[str, Any] = {}
    if model is not None:
        payload["model"] = model
    sys_value = _render_system(system, sys_msgs)
    if sys_value is not None:
        payload["system"] = sys_value
    payload["messages"] = out
    if tools:
        payload["tools"] = to_anthropic_tools(tools)
    return payload


def _as_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def _render_system(system: str | None, sys_msgs: Sequence[Message]) -> Any:
    if not sys_msgs:
        return system or None
    if not system and len(sys_msgs) == 1:
        m = sys_msgs[0]
        text = plain_text(m.parts, FORMAT, section(m.extra, FORMAT))
        if text is not None:
            return text
    blocks = [{"type": "text", "text": system}] if system else []
    for m in sys_msgs:
        blocks.extend(_text_block(p) for p in m.parts if isinstance(p, TextPart) and p.text)
    return blocks


def _text_block(p: TextPart) -> dict[str, Any]:
    return {"type": "text", "text": p.text, **section(p.extra, FORMAT)}


def _render(m: Message) -> dict[str, Any] | None:
    sec = section(m.extra, FORMAT)
    role = "assistant" if m.role == "assistant" else "user"
    blocks: list[Any] = []
    for p in m.parts:
        b = _render_part(p, role)
        if b is not None:
            blocks.append(b)
    blocks = merge_opaque(blocks, sec.get("opaque"))
    d: dict[str, Any] = {"role": role}
    text = plain_text(m.parts, FORMAT, sec)
    if text is not None and (text or sec.get("string")):
        d["content"] = text
    elif blocks or sec.get("list"):
        d["content"] = blocks
    else:
        return None  # nothing Anthropic can take (e.g. only another provider's reasoning)
    for k, v in (sec.get("fields") or {}).items():
        d.setdefault(k, v)
    return d


def _render_part(p: Part, role: str) -> dict[str, Any] | None:
    own = section(p.extra, FORMAT)
    if isinstance(p, TextPart):
        return _text_block(p) if p.text or own else None
    if isinstance(p, ReasoningPart):
        if p.provider != FORMAT:
            return None
        if p.encrypted is not None:
            return {"type": "redacted_thinking", "data": p.encrypted, **own}
        b = {"type": "thinking", "thinking": p.text}
        if p.signature is not None:
            b["signature"] = p.signature
        return {**b, **own}
    if isinstance(p, ImagePart):
        return _render_image(p, own)
    if isinstance(p, ToolCallPart):
        b = {"type": "tool_use", "id": _safe_id(p.id), "name": p.name}
        fields = {k: v for k, v in own.items() if k != "no_input"}
        if not own.get("no_input"):
            b["input"] = _input(p.arguments, bool(own))
        return {**b, **fields}
    if isinstance(p, ToolResultPart):
        return _render_result(p, own)
    return None  # pragma: no cover - exhaustive


def _input(arguments: str, ours: bool) -> Any:
    if ours:  # came from Anthropic as an object: json.loads gives it back exactly
        try:
            return jsonbound.loads(arguments)
        except (ValueError, PayloadError):
            pass
    return parse_arguments_object(arguments)


def _sub(own: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = own.get(key)
    return v if isinstance(v, Mapping) else {}


def _safe_id(call_id: str) -> str:
    return _ID_BAD.sub("_", call_id) or "_"


def _render_image(p: ImagePart, own: Mapping[str, Any]) -> dict[str, Any]:
    src_fields = _sub(own, "source")
    fields = {k: v for k, v in own.items() if k != "source"}
    src: dict[str, Any]
    if p.source == "base64":
        src = {"type": "base64", "media_type": p.media_type, "data": p.data}
        if p.media_type is None:
            del src["media_type"]
    elif p.source == "url":
        src = {"type": "url", "url": p.data}
    else:
        src = {"type": "file", "file_id": p.data}
    return {"type": "image", "source": {**src, **src_fields}, **fields}


def _render_result(p: ToolResultPart, own: Mapping[str, Any]) -> dict[str, Any]:
    shape = _sub(own, "~shape")
    fields = {k: v for k, v in own.items() if k != "~shape"}
    b: dict[str, Any] = {"type": "tool_result", "tool_use_id": _safe_id(p.call_id)}
    text = plain_text(p.content, FORMAT, shape)
    if text is not None:
        b["content"] = text
    elif p.content or shape.get("list") or shape.get("opaque"):
        blocks = [x for x in (_render_part(c, "user") for c in p.content) if x is not None]
        b["content"] = merge_opaque(blocks, shape.get("opaque"))
    elif not shape.get("absent") and not own:
        b["content"] = ""
    if p.is_error:
        b["is_error"] = True
    elif shape.get("is_error_false"):
        b["is_error"] = False
    return {**b, **fields}
