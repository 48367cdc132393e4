"""The normalized message model.

A :class:`Message` has a role and a tuple of parts. Every part is a frozen, slotted dataclass
with a ``kind`` discriminator. Values never change in place: use :func:`dataclasses.replace`.

Roles:

- ``system``    instructions (providers that keep the system prompt apart get it apart)
- ``user``      what a person said; a *turn* starts at a user message
- ``assistant`` what the model said: text, reasoning and tool calls
- ``tool``      tool results (OpenAI's role ``tool``; Anthropic carries them in a user message,
                Gemini as ``functionResponse`` parts). A tool message may also hold text and
                images that came in the same provider message.

Opaque provider data rides along untouched in ``extra``: a mapping from provider format name
(``"openai"``, ``"openai_responses"``, ``"anthropic"``, ``"gemini"``) to the fields that provider
gave us and that only it understands (cache hints, signatures' companions, ids). A converter
reads and writes only its own key, so opaque data goes back only to the provider that produced
it. ``meta`` is contextwindow's own annotation (for example ``{"cw": "fold_summary"}``) and is
never sent to a provider.

Identity (id, sequence number, parent) belongs to the store, not to the value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .errors import PayloadError
from .jsonbound import loads as bounded_loads

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})
JSON: TypeAlias = Any
Extra: TypeAlias = Mapping[str, JSON]

_EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str
    extra: Extra = field(default_factory=dict)
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """Model reasoning. ``signature`` (Anthropic thinking) and ``encrypted`` (Anthropic
    redacted_thinking data, OpenAI encrypted_content) are opaque and kept byte-exact.
    ``provider`` names the format that produced it; the part goes back only there."""

    text: str = ""
    signature: str | None = None
    encrypted: str | None = None
    provider: str | None = None
    extra: Extra = field(default_factory=dict)
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image. ``source`` is ``base64`` (``data`` holds the base64 text), ``url`` or
    ``file`` (a provider file id). ``width``/``height`` in pixels when known."""

    source: Literal["base64", "url", "file"]
    data: str
    media_type: str | None = None
    width: int | None = None
    height: int | None = None
    detail: str | None = None
    extra: Extra = field(default_factory=dict)
    kind: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """A tool call. ``arguments`` is the JSON text exactly as the provider gave it (OpenAI
    sends a string; object-shaped providers are serialized once with :func:`dump_arguments`)."""

    id: str
    name: str
    arguments: str = "{}"
    extra: Extra = field(default_factory=dict)
    kind: Literal["tool_call"] = "tool_call"

    def parsed_arguments(self) -> JSON:
        """The arguments as JSON values; text that is not valid JSON comes back as a string."""
        try:
            return bounded_loads(self.arguments, what="tool-call arguments") if self.arguments else {}
        except (ValueError, PayloadError):
            return self.arguments


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """The result of the tool call ``call_id``. ``content`` holds text and image parts."""

    call_id: str
    content: tuple[TextPart | ImagePart, ...] = ()
    is_error: bool = False
    name: str | None = None
    extra: Extra = field(default_factory=dict)
    kind: Literal["tool_result"] = "tool_result"

    @property
    def text(self) -> str:
        """The text content joined by newlines (images left out)."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


Part: TypeAlias = TextPart | ReasoningPart | ImagePart | ToolCallPart | ToolResultPart
PART_KINDS: tuple[str, ...] = ("text", "reasoning", "image", "tool_call", "tool_result")


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...] = ()
    name: str | None = None
    extra: Extra = field(default_factory=dict)
    meta: Mapping[str, JSON] = field(default_factory=dict)

    # --- convenience views -------------------------------------------------------------
    @property
    def text(self) -> str:
        """All text parts joined by newlines (tool result text included)."""
        out: list[str] = []
        for p in self.parts:
            if isinstance(p, (TextPart, ToolResultPart)):
                out.append(p.text)
        return "\n".join(out)

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    @property
    def tool_results(self) -> tuple[ToolResultPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolResultPart))

    @property
    def is_tool_result(self) -> bool:
        return any(isinstance(p, ToolResultPart) for p in self.parts)


# --- constructors ----------------------------------------------------------------------


def text_message(role: Role, text: str, **meta: JSON) -> Message:
    return Message(role=role, parts=(TextPart(text),), meta=dict(meta))


def user(text: str) -> Message:
    return text_message("user", text)


def assistant(text: str = "", *calls: ToolCallPart) -> Message:
    parts: tuple[Part, ...] = ((TextPart(text),) if text else ()) + tuple(calls)
    return Message(role="assistant", parts=parts)


def system(text: str) -> Message:
    return text_message("system", text)


def tool_result(call_id: str, text: str, *, name: str | None = None, is_error: bool = False) -> Message:
    return Message(
        role="tool",
        parts=(ToolResultPart(call_id=call_id, content=(TextPart(text),), is_error=is_error, name=name),),
    )


def dump_arguments(value: JSON) -> str:
    """Serialize object-shaped tool arguments once, deterministically."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- lossless JSON ---------------------------------------------------------------------


def part_to_dict(part: Part) -> dict[str, JSON]:
    d: dict[str, JSON] = {"kind": part.kind}
    if isinstance(part, TextPart):
        d["text"] = part.text
    elif isinstance(part, ReasoningPart):
        d["text"] = part.text
        for k in ("signature", "encrypted", "provider"):
            v = getattr(part, k)
            if v is not None:
                d[k] = v
    elif isinstance(part, ImagePart):
        d["source"] = part.source
        d["data"] = part.data
        for k in ("media_type", "width", "height", "detail"):
            v = getattr(part, k)
            if v is not None:
                d[k] = v
    elif isinstance(part, ToolCallPart):
        d["id"] = part.id
        d["name"] = part.name
        d["arguments"] = part.arguments
    elif isinstance(part, ToolResultPart):
        d["call_id"] = part.call_id
        d["content"] = [part_to_dict(c) for c in part.content]
        if part.is_error:
            d["is_error"] = True
        if part.name is not None:
            d["name"] = part.name
    else:  # pragma: no cover - exhaustive
        raise TypeError(f"not a part: {part!r}")
    if part.extra:
        d["extra"] = dict(part.extra)
    return d


def _req(d: Mapping[str, JSON], key: str, typ: type | tuple[type, ...], where: str, index: int | None) -> Any:
    if key not in d:
        raise PayloadError(f"missing required field in {where}", index=index, field=key)
    v = d[key]
    if not isinstance(v, typ):
        raise PayloadError(f"expected {getattr(typ, '__name__', typ)} in {where}, got {type(v).__name__}", index=index, field=key)
    return v


def _opt(d: Mapping[str, JSON], key: str, typ: type | tuple[type, ...], where: str, index: int | None) -> Any:
    v = d.get(key)
    if v is not None and not isinstance(v, typ):
        raise PayloadError(f"expected {getattr(typ, '__name__', typ)} in {where}, got {type(v).__name__}", index=index, field=key)
    return v


def part_from_dict(d: Mapping[str, JSON], index: int | None = None) -> Part:
    if not isinstance(d, Mapping):
        raise PayloadError(f"a part must be an object, got {type(d).__name__}", index=index)
    kind = d.get("kind")
    extra = _opt(d, "extra", dict, "part", index) or {}
    if kind == "text":
        return TextPart(text=_req(d, "text", str, "text part", index), extra=extra)
    if kind == "reasoning":
        return ReasoningPart(
            text=_opt(d, "text", str, "reasoning part", index) or "",
            signature=_opt(d, "signature", str, "reasoning part", index),
            encrypted=_opt(d, "encrypted", str, "reasoning part", index),
            provider=_opt(d, "provider", str, "reasoning part", index),
            extra=extra,
        )
    if kind == "image":
        source = _req(d, "source", str, "image part", index)
        if source not in ("base64", "url", "file"):
            raise PayloadError(f"image source must be base64, url or file, got {source!r}", index=index, field="source")
        return ImagePart(
            source=source,
            data=_req(d, "data", str, "image part", index),
            media_type=_opt(d, "media_type", str, "image part", index),
            width=_opt(d, "width", int, "image part", index),
            height=_opt(d, "height", int, "image part", index),
            detail=_opt(d, "detail", str, "image part", index),
            extra=extra,
        )
    if kind == "tool_call":
        return ToolCallPart(
            id=_req(d, "id", str, "tool_call part", index),
            name=_req(d, "name", str, "tool_call part", index),
            arguments=_opt(d, "arguments", str, "tool_call part", index) or "",
            extra=extra,
        )
    if kind == "tool_result":
        content = []
        for c in _opt(d, "content", list, "tool_result part", index) or []:
            p = part_from_dict(c, index)
            if not isinstance(p, (TextPart, ImagePart)):
                raise PayloadError("tool result content holds only text and image parts", index=index, field="content")
            content.append(p)
        return ToolResultPart(
            call_id=_req(d, "call_id", str, "tool_result part", index),
            content=tuple(content),
            is_error=bool(d.get("is_error", False)),
            name=_opt(d, "name", str, "tool_result part", index),
            extra=extra,
        )
    raise PayloadError(f"unknown part kind {kind!r} (expected one of {', '.join(PART_KINDS)})", index=index, field="kind")


def message_to_dict(m: Message) -> dict[str, JSON]:
    d: dict[str, JSON] = {"role": m.role, "parts": [part_to_dict(p) for p in m.parts]}
    if m.name is not None:
        d["name"] = m.name
    if m.extra:
        d["extra"] = dict(m.extra)
    if m.meta:
        d["meta"] = dict(m.meta)
    return d


def message_from_dict(d: Mapping[str, JSON], index: int | None = None) -> Message:
    if not isinstance(d, Mapping):
        raise PayloadError(f"a message must be an object, got {type(d).__name__}", index=index)
    role = _req(d, "role", str, "message", index)
    if role not in ROLES:
        raise PayloadError(f"unknown role {role!r} (expected system, user, assistant or tool)", index=index, field="role")
    parts = tuple(part_from_dict(p, index) for p in _req(d, "parts", list, "message", index))
    return Message(
        role=role,
        parts=parts,
        name=_opt(d, "name", str, "message", index),
        extra=_opt(d, "extra", dict, "message", index) or {},
        meta=_opt(d, "meta", dict, "message", index) or {},
    )


def dumps(m: Message) -> str:
    """One message as compact, deterministic JSON (the store's content-address input)."""
    return json.dumps(message_to_dict(m), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def loads(s: str | bytes, index: int | None = None) -> Message:
    try:
        d = json.loads(s)
    except ValueError as exc:
        raise PayloadError(f"not valid JSON: {exc}", index=index) from exc
    return message_from_dict(d, index)


def messages_to_json(ms: Iterable[Message]) -> list[dict[str, JSON]]:
    return [message_to_dict(m) for m in ms]


def messages_from_json(items: Iterable[Mapping[str, JSON]]) -> list[Message]:
    return [message_from_dict(d, i) for i, d in enumerate(items)]


def iter_parts(ms: Iterable[Message]) -> Iterator[tuple[int, Part]]:
    for i, m in enumerate(ms):
        for p in m.parts:
            yield i, p
