"""OpenAI Responses API input items ↔ :class:`~contextwindow.messages.Message`.

- ``instructions`` → a leading ``system`` message (marked so it goes back to ``instructions``);
  a string ``input`` → one ``user`` message.
- ``message`` items of role user/system/developer → one message each (developer kept as a mark).
- A run of assistant-side items (assistant ``message``, ``reasoning``, ``function_call``,
  ``custom_tool_call``, and item types we do not model such as ``web_search_call``) → ONE
  assistant message, in order; a run of ``*_output`` items → ONE ``tool`` message. So parallel
  calls stay with their results, as every other format needs.
- ``reasoning`` → ReasoningPart(provider="openai_responses", encrypted=encrypted_content,
  text = the summary texts joined by a blank line; the exact summary list kept when it differs).
- ``function_call`` → ToolCallPart(id=call_id, arguments byte-exact); ``custom_tool_call`` →
  ToolCallPart(arguments = the raw ``input``) marked custom.

Item boundaries, item ids/status/phase, and unmodelled items are kept in
``extra["openai_responses"]`` so that ``to_payload(from_payload(p))`` gives ``p`` back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import PayloadError
from ..messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
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
from .tooldefs import ToolLike, to_responses_tools, tools_from_responses

__all__ = ["FORMAT", "from_payload", "system_from_payload", "to_payload", "tools_from_payload"]

FORMAT = "openai_responses"
_ASSISTANT_TYPES = ("reasoning", "function_call", "custom_tool_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


# --- payload → messages ---------------------------------------------------------------


def from_payload(obj: Any) -> list[Message]:
    """A Responses request (``{"instructions"?, "input": ...}``) or its bare item list → messages."""
    out: list[Message] = []
    if isinstance(obj, Mapping):
        instructions = obj.get("instructions")
        if instructions is not None:
            if not isinstance(instructions, str):
                raise PayloadError(f"expected string, got {type(instructions).__name__}", field="instructions")
            out.append(Message(role="system", parts=(TextPart(instructions),), extra={FORMAT: {"instructions": True}}))
        if isinstance(obj.get("input"), str):
            out.append(Message(role="user", parts=(TextPart(obj["input"]),), extra={FORMAT: {"input_string": True}}))
            return out
    items, _ = payload_list(obj, "input", "OpenAI Responses")
    run = _Run()
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise PayloadError("an input item must be an object", index=i)
        kind = item.get("type", "message" if "role" in item else None)
        if not isinstance(kind, str):
            raise PayloadError("an input item needs a 'type' (or a 'role' for a message)", index=i, field="type")
        if kind == "message":
            role = expect(item, "role", str, i)
            if role != "assistant":
                out.extend(run.flush())
                out.append(_plain_message(item, role, i))
                continue
        side = "tool" if kind in _OUTPUT_TYPES or (kind.endswith("_output") and kind not in _ASSISTANT_TYPES) else "assistant"
        if run.side != side:
            out.extend(run.flush())
            run.side = side
        run.add(item, kind, i)
    out.extend(run.flush())
    return out


def system_from_payload(obj: Any) -> str | None:
    """``instructions`` plus system/developer message text (all also in :func:`from_payload`)."""
    texts = [m.text for m in from_payload(obj) if m.role == "system"]
    return "\n\n".join(texts) if texts else None


def tools_from_payload(obj: Any) -> list[Any]:
    return tools_from_responses(obj.get("tools")) if isinstance(obj, Mapping) else []


def _plain_message(item: Mapping[str, Any], role: str, i: int) -> Message:
    if role not in ("user", "system", "developer"):
        raise PayloadError(f"unknown role {role!r} (expected user, system, developer or assistant)", index=i, field="role")
    parts, sec = _content(item, i, standalone=True)
    sec["fields"] = split_fields(item, ("type", "role", "content"))
    sec["no_type"] = "type" not in item
    if role == "developer":
        sec["role"] = "developer"
    return Message(role="user" if role == "user" else "system", parts=tuple(parts), extra=with_section({}, FORMAT, sec))


def _content(item: Mapping[str, Any], i: int, *, standalone: bool) -> tuple[list[TextPart | ImagePart], dict[str, Any]]:
    """Message content → parts; unmodelled content parts opaque (None parts when not standalone)."""
    c = expect(item, "content", (str, list), i)
    if isinstance(c, str):
        return [TextPart(c)], {"string": True}
    parts: list[TextPart | ImagePart] = []
    opaque: list[list[Any]] = []
    for j, cp in enumerate(c):
        p = _content_part(cp, i, j)
        if p is None:
            opaque.append([j, cp])
        else:
            parts.append(p)
    return parts, {"opaque": opaque}


def _content_part(cp: Any, i: int, j: int) -> TextPart | ImagePart | None:
    if not isinstance(cp, Mapping):
        raise PayloadError(f"content part {j} must be an object", index=i, field="content")
    kind = cp.get("type")
    if kind in ("input_text", "output_text") and isinstance(cp.get("text"), str):
        sec = {"fields": split_fields(cp, ("type", "text")), "output": kind == "output_text"}
        return TextPart(cp["text"], extra=with_section({}, FORMAT, sec))
    if kind == "input_image":
        detail = optional(cp, "detail", str, i, f"content part {j}")
        extra = with_section({}, FORMAT, {"fields": split_fields(cp, ("type", "image_url", "file_id", "detail"))})
        url = cp.get("image_url")
        if isinstance(url, str):
            parsed = parse_data_url(url)
            if parsed and parsed[0]:
                return ImagePart(source="base64", data=parsed[1], media_type=parsed[0], detail=detail, extra=extra)
            return ImagePart(source="url", data=url, detail=detail, extra=extra)
        if isinstance(cp.get("file_id"), str) and "image_url" not in cp:
            return ImagePart(source="file", data=cp["file_id"], detail=detail, extra=extra)
    return None


class _Run:
    """Consecutive assistant-side (or output) items gathered into one message."""

    def __init__(self) -> None:
        self.side: str | None = None
        self.parts: list[Part] = []
        self.opaque: list[list[Any]] = []
        self.count = 0

    def _reset(self) -> None:
        self.side, self.parts, self.opaque, self.count = None, [], [], 0

    def flush(self) -> list[Message]:
        out: list[Message] = []
        if self.side is not None:
            role: Role = "tool" if self.side == "tool" else "assistant"
            out.append(Message(role=role, parts=tuple(self.parts), extra=with_section({}, FORMAT, {"opaque": self.opaque})))
        self._reset()
        return out

    def add(self, item: Mapping[str, Any], kind: str, i: int) -> None:
        pos, self.count = self.count, self.count + 1
        part: Part | list[Part] | None
        if kind == "message":
            part = _assistant_message(item, i)
        elif kind == "reasoning":
            part = _reasoning(item, i)
        elif kind in ("function_call", "custom_tool_call"):
            custom = kind == "custom_tool_call"
            part = ToolCallPart(
                id=expect(item, "call_id", str, i),
                name=expect(item, "name", str, i),
                arguments=expect(item, "input" if custom else "arguments", str, i),
                extra=with_section(
                    {}, FORMAT, {"custom": custom, "fields": split_fields(item, ("type", "call_id", "name", "arguments", "input"))}
                ),
            )
        elif kind in _OUTPUT_TYPES:
            part = _output(item, kind, i)
        else:
            part = None
        if part is None:
            self.opaque.append([pos, item])
        elif isinstance(part, list):
            self.parts.extend(part)
        else:
            self.parts.append(part)


def _assistant_message(item: Mapping[str, Any], i: int) -> list[Part] | None:
    parts, sec = _content(item, i, standalone=False)
    if sec.get("opaque") or not parts or not all(isinstance(p, TextPart) for p in parts):
        return None  # refusals, empty or image content: the whole item rides along opaque
    head = {"fields": split_fields(item, ("type", "role", "content")), "no_type": "type" not in item, "string": sec.get("string")}
    first = parts[0]
    assert isinstance(first, TextPart)
    out: list[Part] = [TextPart(first.text, extra={**first.extra, FORMAT: {**section(first.extra, FORMAT), "item": _nonempty(head)}})]
    out.extend(parts[1:])
    return out


def _nonempty(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v}


def _reasoning(item: Mapping[str, Any], i: int) -> ReasoningPart:
    summary = item.get("summary", [])
    if not isinstance(summary, list):
        raise PayloadError(f"expected list, got {type(summary).__name__}", index=i, field="summary")
    texts = [s.get("text", "") for s in summary if isinstance(s, Mapping) and isinstance(s.get("text"), str)]
    text = "\n\n".join(texts)
    sec: dict[str, Any] = {"fields": split_fields(item, ("type", "summary", "encrypted_content"))}
    if summary != _summary(text) or "summary" not in item:
        sec["summary"] = summary if "summary" in item else None
        sec["no_summary"] = "summary" not in item
    return ReasoningPart(
        text=text,
        encrypted=optional(item, "encrypted_content", str, i),
        provider=FORMAT,
        extra=with_section({}, FORMAT, sec),
    )


def _summary(text: str) -> list[dict[str, Any]]:
    return [{"type": "summary_text", "text": text}] if text else []


def _output(item: Mapping[str, Any], kind: str, i: int) -> ToolResultPart:
    out = expect(item, "output", (str, list), i)
    sec: dict[str, Any] = {"custom": kind == "custom_tool_call_output", "fields": split_fields(item, ("type", "call_id", "output"))}
    if isinstance(out, str):
        content: list[TextPart | ImagePart] = [TextPart(out)]
    else:
        content, csec = _content({"content": out}, i, standalone=True)
        sec.update(csec, list=True)
    return ToolResultPart(call_id=expect(item, "call_id", str, i), content=tuple(content), extra=with_section({}, FORMAT, sec))


# --- messages → payload ---------------------------------------------------------------


def to_payload(
    messages: Sequence[Message],
    *,
    system: str | None = None,
    tools: Sequence[ToolLike] | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """Messages → a Responses request body (``input`` items; ``instructions``, ``model``, ``tools`` when any)."""
    instructions = [system] if system else []
    items: list[Any] = []
    body: list[Message] = []
    for m in messages:
        if m.role == "system" and section(m.extra, FORMAT).get("instructions"):
            instructions.append(m.text)
        else:
            body.append(m)
    for m in body:
        items.extend(_render(m))
    payload: dict[str, Any] = {}
    if model is not None:
        payload["model"] = model
    if instructions:
        payload["instructions"] = "\n\n".join(instructions)
    if len(body) == 1 and section(body[0].extra, FORMAT).get("input_string"):
        payload["input"] = body[0].text
    else:
        payload["input"] = items
    if tools:
        payload["tools"] = to_responses_tools(tools)
    return payload


def _apply(d: dict[str, Any], fields: Any) -> dict[str, Any]:
    if isinstance(fields, Mapping):
        for k, v in fields.items():
            if d.get(k) is None:
                d[k] = v
    return d


def _render(m: Message) -> list[Any]:
    sec = section(m.extra, FORMAT)
    if m.role in ("user", "system") and not m.is_tool_result:
        parts = [p for p in m.parts if isinstance(p, (TextPart, ImagePart))]
        if not parts and not sec:
            return []
        role = "developer" if sec.get("role") == "developer" else m.role
        return [_message_item(role, parts, sec)]
    items: list[Any] = []
    beside: list[TextPart | ImagePart] = []
    for p in m.parts:
        if isinstance(p, TextPart) and m.role == "assistant":
            head = section(p.extra, FORMAT).get("item")
            last = items[-1] if items else None
            if head is None and isinstance(last, dict) and last.get("role") == "assistant" and isinstance(last.get("content"), list):
                last["content"].append(_content_out(p, "output_text"))
            else:
                items.append(_assistant_item(p, head if isinstance(head, Mapping) else {}))
        elif isinstance(p, ReasoningPart):
            if p.provider == FORMAT:
                items.append(_render_reasoning(p))
        elif isinstance(p, ToolCallPart):
            items.append(_render_call(p))
        elif isinstance(p, ToolResultPart):
            items.append(_render_output(p))
        elif isinstance(p, (TextPart, ImagePart)):
            beside.append(p)
    items = merge_opaque(items, sec.get("opaque"))
    if beside:
        items.append(_message_item("user", beside, {}))
    return items


def _message_item(role: str, parts: Sequence[TextPart | ImagePart], sec: Mapping[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {} if sec.get("no_type") else {"type": "message"}
    d["role"] = role
    text = plain_text(parts, FORMAT, {}) if sec.get("string") else None
    if text is not None:
        d["content"] = text
    else:
        kind = "output_text" if role == "assistant" else "input_text"
        d["content"] = merge_opaque([_content_out(p, kind) for p in parts], sec.get("opaque"))
    return _apply(d, sec.get("fields"))


def _assistant_item(p: TextPart, head: Mapping[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {} if head.get("no_type") else {"type": "message"}
    d["role"] = "assistant"
    own = section(p.extra, FORMAT)
    if head.get("string") and not own.get("fields"):
        d["content"] = p.text
    else:
        d["content"] = [_content_out(p, "output_text")]
    return _apply(d, head.get("fields"))


def _content_out(p: TextPart | ImagePart, text_kind: str) -> dict[str, Any]:
    own = section(p.extra, FORMAT)
    if isinstance(p, TextPart):
        if own:
            text_kind = "output_text" if own.get("output") else "input_text"
        return _apply({"type": text_kind, "text": p.text}, own.get("fields"))
    d: dict[str, Any] = {"type": "input_image"}
    if p.source == "file":
        d["file_id"] = p.data
    else:
        d["image_url"] = image_data_url(p)
    if p.detail is not None:
        d["detail"] = p.detail
    return _apply(d, own.get("fields"))


def _render_reasoning(p: ReasoningPart) -> dict[str, Any]:
    own = section(p.extra, FORMAT)
    d: dict[str, Any] = {"type": "reasoning"}
    if not own.get("no_summary"):
        d["summary"] = own["summary"] if "summary" in own else _summary(p.text)
    if p.encrypted is not None:
        d["encrypted_content"] = p.encrypted
    return _apply(d, own.get("fields"))


def _render_call(p: ToolCallPart) -> dict[str, Any]:
    own = section(p.extra, FORMAT)
    if own.get("custom"):
        d = {"type": "custom_tool_call", "call_id": p.id, "name": p.name, "input": p.arguments}
    else:
        d = {"type": "function_call", "call_id": p.id, "name": p.name, "arguments": p.arguments or "{}"}
    return _apply(d, own.get("fields"))


def _render_output(p: ToolResultPart) -> dict[str, Any]:
    own = section(p.extra, FORMAT)
    kind = "custom_tool_call_output" if own.get("custom") else "function_call_output"
    d: dict[str, Any] = {"type": kind, "call_id": p.call_id}
    text = plain_text(p.content, FORMAT, own)
    if text is not None:
        d["output"] = text
    elif not own and all(isinstance(c, TextPart) for c in p.content):
        d["output"] = p.text  # another provider's text blocks: one string
    else:
        d["output"] = merge_opaque([_content_out(c, "input_text") for c in p.content], own.get("opaque"))
    return _apply(d, own.get("fields"))
