"""Gemini ``generateContent`` payloads ↔ :class:`~contextwindow.messages.Message`.

- ``systemInstruction`` → a leading ``system`` message; ``contents`` role ``model`` → assistant,
  ``user`` → user, or ``tool`` when it holds ``functionResponse`` parts (text beside them stays).
- Parts: ``{text}`` → TextPart; ``{text, thought: true}`` → ReasoningPart(provider="gemini");
  a bare ``{thoughtSignature}`` → an empty gemini ReasoningPart carrying the signature;
  ``inlineData`` (image/*) / ``fileData`` → ImagePart; ``functionCall`` → ToolCallPart (``args``
  serialized with :func:`dump_arguments`); ``functionResponse`` → ToolResultPart. Anything else
  (``executableCode``, non-image ``inlineData``, ...) rides along opaque at its position.
- ``thoughtSignature`` on text or ``functionCall`` parts stays in ``extra["gemini"]`` and goes back
  only to Gemini.
- Gemini pairs responses with calls by name; ids are optional. Absent ids are synthesized as
  ``"<name>#<n>"`` (n counts that name's calls over the payload) and left out on the way back.
- ``functionResponse.response`` ``{"output": text}`` ↔ the result text, ``{"error": text}`` ↔ an
  error result; any other object is kept as its JSON text and parsed back.

Going out, consecutive messages of the same Gemini role are merged (user and tool are both
``user``) and other providers' reasoning is left out.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from typing import Any

from .. import jsonbound
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
    dump_arguments,
)
from ._common import (
    expect,
    merge_opaque,
    parse_arguments_object,
    payload_list,
    section,
    split_fields,
    tool_names,
    with_section,
)
from .tooldefs import ToolLike, to_gemini_tools, tools_from_gemini

__all__ = ["FORMAT", "from_payload", "system_from_payload", "to_payload", "tools_from_payload"]

FORMAT = "gemini"


# --- payload → messages ---------------------------------------------------------------


def from_payload(obj: Any) -> list[Message]:
    """A generateContent request (``{"systemInstruction"?, "contents": [...]}``) or its bare contents."""
    items, whole = payload_list(obj, "contents", "Gemini")
    out: list[Message] = []
    sys_inst = whole.get("systemInstruction")
    if sys_inst is not None:
        out.append(_system(sys_inst))
    ids = _Ids()
    for i, c in enumerate(items):
        out.append(_content(c, i, ids))
    return out


def system_from_payload(obj: Any) -> str | None:
    """The text of ``systemInstruction`` (also the first message of :func:`from_payload`)."""
    if not isinstance(obj, Mapping) or obj.get("systemInstruction") is None:
        return None
    return _system(obj["systemInstruction"]).text


def tools_from_payload(obj: Any) -> list[Any]:
    return tools_from_gemini(obj.get("tools")) if isinstance(obj, Mapping) else []


class _Ids:
    """Synthesizes ``name#n`` ids for calls without one and pairs responses with them by name."""

    def __init__(self) -> None:
        self.count: dict[str, int] = defaultdict(int)
        self.pending: dict[str, deque[str]] = defaultdict(deque)

    def call(self, name: str) -> str:
        n = self.count[name]
        self.count[name] = n + 1
        call_id = f"{name}#{n}"
        self.pending[name].append(call_id)
        return call_id

    def response(self, name: str) -> str:
        if self.pending[name]:
            return self.pending[name].popleft()
        n = self.count[name]  # an orphan response: give it an id no call has
        self.count[name] = n + 1
        return f"{name}#{n}"


def _system(s: Any) -> Message:
    if isinstance(s, str):
        return Message(role="system", parts=(TextPart(s),), extra={FORMAT: {"string": True}})
    if not isinstance(s, Mapping):
        raise PayloadError(f"expected object, got {type(s).__name__}", field="systemInstruction")
    raw_parts = s.get("parts", [])
    if not isinstance(raw_parts, list):
        raise PayloadError("systemInstruction.parts must be a list", field="systemInstruction")
    parts: list[Part] = []
    for j, p in enumerate(raw_parts):
        if not isinstance(p, Mapping) or not isinstance(p.get("text"), str):
            raise PayloadError(f"systemInstruction part {j} must be a text part", field="systemInstruction")
        parts.append(TextPart(p["text"], extra=with_section({}, FORMAT, {"fields": split_fields(p, ("text",))})))
    sec = {"fields": split_fields(s, ("parts",)), "no_parts": "parts" not in s}
    return Message(role="system", parts=tuple(parts), extra=with_section({}, FORMAT, sec))


def _content(c: Any, i: int, ids: _Ids) -> Message:
    if not isinstance(c, Mapping):
        raise PayloadError("a content must be an object", index=i)
    role = c.get("role")
    if role not in (None, "user", "model", "function"):
        raise PayloadError(f"unknown role {role!r} (expected user or model)", index=i, field="role")
    raw_parts = expect(c, "parts", list, i)
    parts: list[Part] = []
    opaque: list[list[Any]] = []
    for j, p in enumerate(raw_parts):
        part = _part(p, i, j, ids)
        if part is None:
            opaque.append([j, p])
        else:
            parts.append(part)
    sec = {"fields": split_fields(c, ("role", "parts")), "opaque": opaque}
    if role is None or role == "function":
        sec["role"] = role or "none"
    ours: Role
    if role == "model":
        ours = "assistant"
    elif any(isinstance(p, ToolResultPart) for p in parts):
        ours = "tool"
    else:
        ours = "user"
    return Message(role=ours, parts=tuple(parts), extra=with_section({}, FORMAT, sec))


def _part(p: Any, i: int, j: int, ids: _Ids) -> Part | None:
    where = f"part {j}"
    if not isinstance(p, Mapping):
        raise PayloadError(f"{where} must be an object", index=i, field="parts")
    if "functionCall" in p:
        fc = expect(p, "functionCall", dict, i, where)
        name = expect(fc, "name", str, i, where)
        sec: dict[str, Any] = {
            "fields": split_fields(p, ("functionCall",)),
            "call_fields": split_fields(fc, ("name", "args", "id")),
            "no_args": "args" not in fc,
        }
        call_id = fc.get("id")
        if not isinstance(call_id, str):
            call_id, sec["synth_id"] = ids.call(name), True
        return ToolCallPart(id=call_id, name=name, arguments=dump_arguments(fc.get("args") or {}), extra=with_section({}, FORMAT, sec))
    if "functionResponse" in p:
        return _response(p, i, where, ids)
    if "text" in p and isinstance(p["text"], str):
        if p.get("thought") is True:
            sig = p.get("thoughtSignature")
            return ReasoningPart(
                text=p["text"],
                signature=sig if isinstance(sig, str) else None,
                provider=FORMAT,
                extra=with_section(
                    {},
                    FORMAT,
                    {"fields": split_fields(p, ("text", "thought", "thoughtSignature")), "keep": not p["text"] and sig is None},
                ),
            )
        sec = {"fields": split_fields(p, ("text",)), "keep": p["text"] == ""}
        return TextPart(p["text"], extra=with_section({}, FORMAT, sec))
    if set(p) == {"thoughtSignature"} and isinstance(p["thoughtSignature"], str):
        return ReasoningPart(signature=p["thoughtSignature"], provider=FORMAT, extra={FORMAT: {"bare": True}})
    blob = p.get("inlineData") or p.get("fileData")
    if isinstance(blob, Mapping) and str(blob.get("mimeType", "image/")).startswith("image/"):
        key = "inlineData" if "inlineData" in p else "fileData"
        data = blob.get("data" if key == "inlineData" else "fileUri")
        if isinstance(data, str):
            extra = with_section(
                {}, FORMAT, {"fields": split_fields(p, (key,)), "blob_fields": split_fields(blob, ("mimeType", "data", "fileUri"))}
            )
            mime = blob.get("mimeType") if isinstance(blob.get("mimeType"), str) else None
            return ImagePart(source="base64" if key == "inlineData" else "url", data=data, media_type=mime, extra=extra)
    return None


def _response(p: Mapping[str, Any], i: int, where: str, ids: _Ids) -> ToolResultPart:
    fr = expect(p, "functionResponse", dict, i, where)
    name = expect(fr, "name", str, i, where)
    response = fr.get("response", {})
    sec: dict[str, Any] = {"fields": split_fields(p, ("functionResponse",)), "response_fields": split_fields(fr, ("name", "response", "id"))}
    call_id = fr.get("id")
    if not isinstance(call_id, str):
        call_id, sec["synth_id"] = ids.response(name), True
    is_error = False
    if isinstance(response, Mapping) and set(response) == {"output"} and isinstance(response["output"], str):
        text = response["output"]
    elif isinstance(response, Mapping) and set(response) == {"error"} and isinstance(response["error"], str):
        text, is_error = response["error"], True
    else:
        text, sec["json"] = dump_arguments(response), True
    return ToolResultPart(
        call_id=call_id, content=(TextPart(text),), is_error=is_error, name=name, extra=with_section({}, FORMAT, sec)
    )


# --- messages → payload ---------------------------------------------------------------


def to_payload(
    messages: Sequence[Message],
    *,
    system: str | None = None,
    tools: Sequence[ToolLike] | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """Messages → a generateContent request body (``contents``; ``systemInstruction``, ``tools``, ``model``)."""
    names: dict[str, str] = {}  # call id → name of the latest call so far (ids may repeat)
    contents: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        names.update(tool_names([m]))
        c = _render(m, names)
        if c is None:
            continue
        if contents and contents[-1].get("role") == c.get("role") and "role" in c:
            contents[-1] = {**contents[-1], "parts": contents[-1]["parts"] + c["parts"]}
        else:
            contents.append(c)
    payload: dict[str, Any] = {}
    if model is not None:
        payload["model"] = model
    sys_value = _render_system(system, [m for m in messages if m.role == "system"])
    if sys_value is not None:
        payload["systemInstruction"] = sys_value
    payload["contents"] = contents
    if tools:
        payload["tools"] = to_gemini_tools(tools)
    return payload


def _apply(d: dict[str, Any], fields: Any) -> dict[str, Any]:
    if isinstance(fields, Mapping):
        for k, v in fields.items():
            if d.get(k) is None:
                d[k] = v
    return d


def _render_system(system: str | None, sys_msgs: Sequence[Message]) -> Any:
    if not system and len(sys_msgs) == 1 and section(sys_msgs[0].extra, FORMAT).get("string"):
        return sys_msgs[0].text
    if not system and not sys_msgs:
        return None
    parts: list[dict[str, Any]] = [{"text": system}] if system else []
    head: Mapping[str, Any] = {}
    for m in sys_msgs:
        head = head or section(m.extra, FORMAT)
        parts.extend(_apply({"text": p.text}, section(p.extra, FORMAT).get("fields")) for p in m.parts if isinstance(p, TextPart))
    d: dict[str, Any] = {} if head.get("no_parts") and not parts else {"parts": parts}
    return _apply(d, head.get("fields"))


def _render(m: Message, names: Mapping[str, str]) -> dict[str, Any] | None:
    sec = section(m.extra, FORMAT)
    parts: list[Any] = []
    for p in m.parts:
        parts.extend(_render_part(p, names))
    parts = merge_opaque(parts, sec.get("opaque"))
    if not parts and not sec:
        return None
    role = sec.get("role")
    d: dict[str, Any] = {}
    if role != "none":
        d["role"] = role or ("model" if m.role == "assistant" else "user")
    d["parts"] = parts
    return _apply(d, sec.get("fields"))


def _render_part(p: Part, names: Mapping[str, str]) -> list[dict[str, Any]]:
    own = section(p.extra, FORMAT)
    if isinstance(p, TextPart):
        if not p.text and not own:
            return []  # another provider's empty text: Gemini rejects empty parts
        return [_apply({"text": p.text}, own.get("fields"))]
    if isinstance(p, ReasoningPart):
        if p.provider != FORMAT:
            return []
        if own.get("bare"):
            return [{"thoughtSignature": p.signature}] if p.signature is not None else []
        if not p.text and p.signature is None and not own:
            return []  # an empty thought carries nothing
        d: dict[str, Any] = {"text": p.text, "thought": True}
        if p.signature is not None:
            d["thoughtSignature"] = p.signature
        return [_apply(d, own.get("fields"))]
    if isinstance(p, ImagePart):
        return [_render_image(p, own)]
    if isinstance(p, ToolCallPart):
        fc: dict[str, Any] = {"name": p.name}
        if not own.get("no_args"):
            fc["args"] = _args(p.arguments, bool(own))
        if not own.get("synth_id"):
            fc["id"] = p.id
        return [_apply({"functionCall": _apply(fc, own.get("call_fields"))}, own.get("fields"))]
    if isinstance(p, ToolResultPart):
        return _render_result(p, own, names)
    return []  # pragma: no cover - exhaustive


def _args(arguments: str, ours: bool) -> Any:
    if ours:
        try:
            return jsonbound.loads(arguments)
        except (ValueError, PayloadError):
            pass
    return parse_arguments_object(arguments)


def _render_image(p: ImagePart, own: Mapping[str, Any]) -> dict[str, Any]:
    blob_fields = own.get("blob_fields")
    if p.source == "base64":
        blob: dict[str, Any] = {"mimeType": p.media_type or "image/png", "data": p.data}
        return _apply({"inlineData": _apply(blob, blob_fields)}, own.get("fields"))
    blob = {"fileUri": p.data}
    if p.media_type is not None:
        blob = {"mimeType": p.media_type, **blob}
    return _apply({"fileData": _apply(blob, blob_fields)}, own.get("fields"))


def _render_result(p: ToolResultPart, own: Mapping[str, Any], names: Mapping[str, str]) -> list[dict[str, Any]]:
    text = p.text
    response: Any
    if own.get("json"):
        try:
            response = jsonbound.loads(text)
        except (ValueError, PayloadError):
            response = {"output": text}
    else:
        response = {"error": text} if p.is_error else {"output": text}
    fr: dict[str, Any] = {"name": p.name or names.get(p.call_id) or p.call_id.split("#")[0], "response": response}
    if not own.get("synth_id"):
        fr["id"] = p.call_id
    out = [_apply({"functionResponse": _apply(fr, own.get("response_fields"))}, own.get("fields"))]
    # images a result carried: Gemini's functionResponse holds JSON only, so they follow it
    out.extend(_render_image(c, {}) for c in p.content if isinstance(c, ImagePart))
    return out
