"""OpenAI Chat Completions messages ↔ :class:`~contextwindow.messages.Message`.

- role ``system``/``developer`` → role ``system`` (``developer`` kept in ``extra["openai"]``);
  ``user`` → ``user``; ``assistant`` → text/image parts then one :class:`ToolCallPart` per
  ``tool_calls`` entry (``arguments`` kept byte-exact); ``tool`` → a ``tool`` message with one
  :class:`ToolResultPart`.
- Content is a string or a list of ``text``/``image_url`` parts (``data:`` URLs become base64
  images); other content parts (``refusal``, ``input_audio``, ``file``) ride along opaque.
- Every key we have no slot for, and every ``null``, is kept in ``extra["openai"]`` so that
  ``to_payload(from_payload(p))["messages"] == p["messages"]``.

Going out, reasoning is dropped (Chat Completions takes none back), a tool message holding
several results becomes several ``tool`` messages, and text or images that came beside
results (Anthropic) follow them in one ``user`` message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from .. import jsonbound
from ..errors import PayloadError
from ..messages import (
    ImagePart,
    Message,
    Part,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
)
from ._common import (
    expect,
    image_data_url,
    merge_opaque,
    optional,
    parse_data_url,
    payload_list,
    plain_text,
    section,
    split_fields,
    with_section,
)
from .memo import RenderMemo
from .tooldefs import ToolLike, to_openai_tools, tools_from_openai

__all__ = ["FORMAT", "from_payload", "system_from_payload", "to_payload", "tools_from_payload"]

FORMAT = "openai"
_MSG_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
_ABSENT = object()


# --- payload → messages ---------------------------------------------------------------


def from_payload(obj: Any) -> list[Message]:
    """A Chat Completions request (``{"messages": [...]}``) or its bare message list → messages."""
    items, _ = payload_list(obj, "messages", "OpenAI chat")
    return [_message(d, i) for i, d in enumerate(items)]


def system_from_payload(obj: Any) -> str | None:
    """The text of the payload's system/developer messages (they are also in :func:`from_payload`)."""
    texts = [m.text for m in from_payload(obj) if m.role == "system"]
    return "\n\n".join(texts) if texts else None


def tools_from_payload(obj: Any) -> list[Any]:
    return tools_from_openai(obj.get("tools")) if isinstance(obj, Mapping) else []


def _message(d: Any, i: int) -> Message:
    if not isinstance(d, Mapping):
        raise PayloadError("a message must be an object", index=i)
    role = expect(d, "role", str, i)
    fields = split_fields(d, _MSG_KEYS)
    if role == "tool":
        call_id = expect(d, "tool_call_id", str, i)
        content, csec = _content(d, i)
        name = optional(d, "name", str, i)
        sec = {"fields": fields, **csec, "name": name is not None}
        result = ToolResultPart(call_id=call_id, content=tuple(content), name=name, extra=with_section({}, FORMAT, sec))
        return Message(role="tool", parts=(result,))
    if role not in ("system", "developer", "user", "assistant"):
        raise PayloadError(
            f"unknown role {role!r} (expected system, developer, user, assistant or tool)", index=i, field="role"
        )
    content, sec = _content(d, i)
    parts: list[Part] = list(content)
    if role == "assistant":
        calls = d.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise PayloadError(f"expected list, got {type(calls).__name__}", index=i, field="tool_calls")
            sec["empty_tool_calls"] = not calls
            parts.extend(_tool_call(tc, i, j) for j, tc in enumerate(calls))
    sec["fields"] = fields
    if role == "developer":
        sec["role"] = "developer"
    return Message(
        role="system" if role == "developer" else role,
        parts=tuple(parts),
        name=optional(d, "name", str, i),
        extra=with_section({}, FORMAT, sec),
    )


def _content(d: Mapping[str, Any], i: int) -> tuple[list[TextPart | ImagePart], dict[str, Any]]:
    if "content" not in d:
        return [], {"absent": True}
    c = d["content"]
    if c is None:
        return [], {}  # the null itself is kept in the message's fields
    if isinstance(c, str):
        return [TextPart(c)], {}
    if not isinstance(c, list):
        raise PayloadError(f"expected string, list or null, got {type(c).__name__}", index=i, field="content")
    parts: list[TextPart | ImagePart] = []
    opaque: list[list[Any]] = []
    for j, cp in enumerate(c):
        if not isinstance(cp, Mapping):
            raise PayloadError(f"content part {j} must be an object", index=i, field="content")
        kind = cp.get("type")
        if kind == "text" and isinstance(cp.get("text"), str):
            parts.append(TextPart(cp["text"], extra=with_section({}, FORMAT, {"fields": split_fields(cp, ("type", "text"))})))
        elif kind == "image_url" and isinstance(cp.get("image_url"), Mapping) and isinstance(cp["image_url"].get("url"), str):
            parts.append(_image(cp, i))
        else:
            opaque.append([j, cp])
    sec: dict[str, Any] = {"opaque": opaque}
    sec["list"] = not parts or plain_text(parts, FORMAT, sec) is not None
    return parts, sec


def _image(cp: Mapping[str, Any], i: int) -> ImagePart:
    iu = cp["image_url"]
    detail = optional(iu, "detail", str, i, "image_url")
    extra = with_section(
        {}, FORMAT, {"fields": split_fields(cp, ("type", "image_url")), "url_fields": split_fields(iu, ("url", "detail"))}
    )
    parsed = parse_data_url(iu["url"])
    if parsed and parsed[0]:
        return ImagePart(source="base64", data=parsed[1], media_type=parsed[0], detail=detail, extra=extra)
    return ImagePart(source="url", data=iu["url"], detail=detail, extra=extra)


def _tool_call(tc: Any, i: int, j: int) -> ToolCallPart:
    where = f"tool call {j}"
    if not isinstance(tc, Mapping):
        raise PayloadError(f"{where} must be an object", index=i, field="tool_calls")
    call_id = expect(tc, "id", str, i, where)
    sec: dict[str, Any] = {"fields": split_fields(tc, ("id", "type", "function", "custom")), "no_type": "type" not in tc}
    if tc.get("type") == "custom":
        custom = expect(tc, "custom", dict, i, where)
        sec.update(custom=True, custom_fields=split_fields(custom, ("name", "input")))
        return ToolCallPart(
            id=call_id,
            name=expect(custom, "name", str, i, where),
            arguments=expect(custom, "input", str, i, where),
            extra=with_section({}, FORMAT, sec),
        )
    fn = expect(tc, "function", dict, i, where)
    name = expect(fn, "name", str, i, where)
    args = fn.get("arguments")
    sec["function_fields"] = split_fields(fn, ("name", "arguments"))
    if args is None:
        arguments = ""
        sec["args_absent"] = "arguments" not in fn
    elif isinstance(args, str):
        arguments = args
    else:
        arguments = dump_arguments(args)
        sec["args_object"] = True
    return ToolCallPart(id=call_id, name=name, arguments=arguments, extra=with_section({}, FORMAT, sec))


# --- messages → payload ---------------------------------------------------------------


def to_payload(
    messages: Sequence[Message],
    *,
    system: str | None = None,
    tools: Sequence[ToolLike] | None = None,
    model: str | None = None,
    memo: RenderMemo[Message, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Messages → a Chat Completions request body (``messages``, plus ``model``/``tools`` when given).
    ``memo`` reuses the renders of message objects the previous call rendered (:mod:`.memo`)."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    if memo is None:
        for m in messages:
            out.extend(_render(m))
    else:
        out.extend(chain.from_iterable(memo.map(messages, _render)))
    payload: dict[str, Any] = {}
    if model is not None:
        payload["model"] = model
    payload["messages"] = out
    if tools:
        payload["tools"] = to_openai_tools(tools)
    return payload


def _apply(d: dict[str, Any], fields: Any) -> dict[str, Any]:
    if isinstance(fields, Mapping):
        for k, v in fields.items():
            if d.get(k) is None:
                d[k] = v
    return d


def _render(m: Message) -> list[dict[str, Any]]:
    sec = section(m.extra, FORMAT)
    if m.role == "tool":
        return _render_tool(m)
    content_parts = [p for p in m.parts if isinstance(p, (TextPart, ImagePart))]
    calls = [p for p in m.parts if isinstance(p, ToolCallPart)]
    if not content_parts and not calls and not sec:
        return []  # e.g. an assistant turn that held only another provider's reasoning
    role = "developer" if m.role == "system" and sec.get("role") == "developer" else m.role
    d: dict[str, Any] = {"role": role}
    content = _render_content(content_parts, sec, None if m.role == "assistant" else "")
    if content is not _ABSENT:
        d["content"] = content
    if m.name is not None:
        d["name"] = m.name
    if calls or sec.get("empty_tool_calls"):
        d["tool_calls"] = [_render_call(c) for c in calls]
    return [_apply(d, sec.get("fields"))]


def _render_content(parts: Sequence[TextPart | ImagePart], sec: Mapping[str, Any], empty: str | None) -> Any:
    if not parts and not sec.get("opaque"):
        if sec.get("absent"):
            return _ABSENT
        if not sec.get("list"):
            return empty
    text = plain_text(parts, FORMAT, sec)
    if text is not None:
        return text
    return merge_opaque([_render_part(p) for p in parts], sec.get("opaque"))


def _render_part(p: TextPart | ImagePart) -> dict[str, Any]:
    sec = section(p.extra, FORMAT)
    if isinstance(p, TextPart):
        return _apply({"type": "text", "text": p.text}, sec.get("fields"))
    iu: dict[str, Any] = {"url": image_data_url(p)}
    if p.detail is not None:
        iu["detail"] = p.detail
    return _apply({"type": "image_url", "image_url": _apply(iu, sec.get("url_fields"))}, sec.get("fields"))


def _render_call(c: ToolCallPart) -> dict[str, Any]:
    sec = section(c.extra, FORMAT)
    if sec.get("custom"):
        custom = _apply({"name": c.name, "input": c.arguments}, sec.get("custom_fields"))
        return _apply({"id": c.id, "type": "custom", "custom": custom}, sec.get("fields"))
    fn: dict[str, Any] = {"name": c.name}
    if sec.get("args_object"):
        try:
            fn["arguments"] = jsonbound.loads(c.arguments)
        except (ValueError, PayloadError):
            fn["arguments"] = c.arguments
    elif not sec.get("args_absent"):
        fn["arguments"] = c.arguments
    d: dict[str, Any] = {"id": c.id}
    if not sec.get("no_type"):
        d["type"] = "function"
    d["function"] = _apply(fn, sec.get("function_fields"))
    return _apply(d, sec.get("fields"))


def _render_tool(m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    beside: list[TextPart | ImagePart] = []
    for p in m.parts:
        if isinstance(p, ToolResultPart):
            sec = section(p.extra, FORMAT)
            texts = [c for c in p.content if isinstance(c, TextPart)]
            images = [c for c in p.content if isinstance(c, ImagePart)]
            d: dict[str, Any] = {"role": "tool", "tool_call_id": p.call_id}
            if sec:
                content = _render_content(list(p.content), sec, "")
            else:  # another provider's result: tool messages carry text only, images follow
                content = plain_text(texts, FORMAT, {}) if len(texts) == 1 else [_render_part(t) for t in texts]
                if content is None or content == []:
                    content = ""
                beside.extend(images)
            if content is not _ABSENT:
                d["content"] = content
            if p.name is not None and sec.get("name"):
                d["name"] = p.name
            out.append(_apply(d, sec.get("fields")))
        elif isinstance(p, (TextPart, ImagePart)):
            beside.append(p)
    if beside:
        out.append({"role": "user", "content": _render_content(beside, {}, "")})
    return out
