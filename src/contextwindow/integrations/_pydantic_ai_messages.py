"""pydantic-ai messages ↔ :class:`~contextwindow.messages.Message`, losslessly (private; pure).

One pydantic-ai message becomes one of ours: a ``ModelResponse`` an ``assistant`` message, a
``ModelRequest`` a ``tool`` message when it answers tool calls (else ``user``). Parts map in
order: ``text`` → TextPart, ``thinking`` → ReasoningPart (signature byte-exact, ``provider`` the
part's ``provider_name``), ``tool-call`` → ToolCallPart (dict args serialized once),
``system-prompt`` and ``user-prompt`` text → TextPart, user images (``ImageUrl``, binary images)
→ ImagePart, ``tool-return`` → ToolResultPart (non-string content as its JSON text; an outcome
other than ``success`` is an error), a retry with a tool name → an error ToolResultPart with the
text the model would read. Parts we do not model (native tool calls, files, compaction parts,
instructions deltas, non-image user content) ride along whole, at their position.

Everything else is kept from pydantic-ai's own JSON dump (``ModelMessagesTypeAdapter``), minus
the content we hold as parts, in ``extra["pydantic_ai"]``; back, the dump gets the parts'
current content and is validated by the same adapter — exact when nothing changed the parts,
with the new text when compaction clipped, masked or truncated them. Messages contextwindow made
(a fold summary, a marker, a repair) become plain ``UserPromptPart``/``ToolReturnPart``s.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

from ..errors import PayloadError
from ..formats._common import parse_data_url
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

__all__ = ["FORMAT", "from_pydantic_ai", "to_pydantic_ai"]

FORMAT = "pydantic_ai"
_TOOL_ANSWERS = ("tool-return", "retry-prompt")


# --- pydantic-ai → ours ---------------------------------------------------------------


def from_pydantic_ai(messages: Sequence[ModelMessage]) -> list[Message]:
    dumps = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return [_message(d, messages[i], i) for i, d in enumerate(dumps)]


def _message(d: dict[str, Any], original: Any, index: int) -> Message:
    d = dict(d)
    parts_dump = d.pop("parts", [])
    kind = d.get("kind")
    if kind not in ("request", "response"):
        raise PayloadError(f"unsupported pydantic-ai message kind {kind!r}", index=index)
    ours: list[Part] = []
    opaque: list[list[Any]] = []
    answers_tools = False
    for j, (pd, part) in enumerate(zip(parts_dump, original.parts, strict=False)):
        got = _part(pd, part, j)
        if got is None:
            opaque.append([j, pd])
            continue
        answers_tools = answers_tools or any(isinstance(p, ToolResultPart) for p in got)
        ours.extend(got)
    role: Role = "assistant" if kind == "response" else "tool" if answers_tools else "user"
    sec = {"msg": d, "opaque": opaque} if opaque else {"msg": d}
    return Message(role, tuple(ours), extra={FORMAT: sec})


def _tag(j: int, dump: Mapping[str, Any] | None, **more: Any) -> dict[str, Any]:
    own: dict[str, Any] = {"i": j, **more}
    if dump is not None:
        own["d"] = dict(dump)
    return {FORMAT: own}


def _part(pd: dict[str, Any], part: Any, j: int) -> list[Part] | None:
    kind = pd.get("part_kind")
    rest = {k: v for k, v in pd.items() if k != "content"}
    content = pd.get("content")
    if kind in ("text", "system-prompt") and isinstance(content, str):
        return [TextPart(content, extra=_tag(j, rest))]
    if kind == "thinking" and isinstance(content, str):
        rest.pop("signature", None)
        sig = pd.get("signature")
        return [ReasoningPart(content, signature=sig if isinstance(sig, str) else None, provider=pd.get("provider_name"), extra=_tag(j, rest))]
    if kind == "tool-call":
        args = pd.get("args")
        rest.pop("args", None)
        text = args if isinstance(args, str) else dump_arguments(args if args is not None else {})
        return [ToolCallPart(str(pd.get("tool_call_id") or ""), str(pd.get("tool_name")), text, extra=_tag(j, rest, args="str" if isinstance(args, str) else "json"))]
    if kind == "user-prompt":
        if isinstance(content, str):
            return [TextPart(content, extra=_tag(j, rest, str=True))]
        out: list[Part] = []
        for k, item in enumerate(content or []):
            p = _user_item(item, j, k, rest if not out else None)
            if p is None:
                return None  # a document, audio, cache point...: the whole part rides along
            out.append(p)
        return out or None
    if kind == "tool-return":
        is_json = not isinstance(content, str)
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        err = pd.get("outcome") not in (None, "success")
        return [ToolResultPart(str(pd.get("tool_call_id") or ""), (TextPart(text),), is_error=err, name=pd.get("tool_name"), extra=_tag(j, rest, json=is_json))]
    if kind == "retry-prompt" and pd.get("tool_name"):
        said = part.model_response() if hasattr(part, "model_response") else str(content)
        return [ToolResultPart(str(pd.get("tool_call_id") or ""), (TextPart(said),), is_error=True, name=pd.get("tool_name"), extra=_tag(j, pd, keep=True))]
    if kind == "retry-prompt":
        said = part.model_response() if hasattr(part, "model_response") else str(content)
        return [TextPart(said, extra=_tag(j, pd, keep=True))]
    return None


def _user_item(item: Any, j: int, k: int, head: Mapping[str, Any] | None) -> Part | None:
    if isinstance(item, str):
        return TextPart(item, extra=_tag(j, head, k=k))
    if not isinstance(item, Mapping):
        return None
    kind = item.get("kind")
    shell = {key: v for key, v in item.items() if key not in ("url", "data")}
    if kind == "image-url" and isinstance(item.get("url"), str):
        parsed = parse_data_url(item["url"])
        if parsed and parsed[0]:
            return ImagePart("base64", parsed[1], media_type=parsed[0], extra=_tag(j, head, k=k, item=shell, data_url=True))
        return ImagePart("url", item["url"], media_type=item.get("media_type"), extra=_tag(j, head, k=k, item=shell))
    if kind == "binary" and str(item.get("media_type", "")).startswith("image/") and isinstance(item.get("data"), str):
        return ImagePart("base64", item["data"], media_type=item.get("media_type"), extra=_tag(j, head, k=k, item=shell))
    return None


# --- ours → pydantic-ai ---------------------------------------------------------------


def to_pydantic_ai(messages: Sequence[Message]) -> list[ModelMessage]:
    dumps = [_dump(m) for m in messages]
    return list(ModelMessagesTypeAdapter.validate_python(dumps))


def _own(x: Any) -> Mapping[str, Any]:
    sec = x.extra.get(FORMAT) if isinstance(x.extra, Mapping) else None
    return sec if isinstance(sec, Mapping) else {}


def _dump(m: Message) -> dict[str, Any]:
    sec = _own(m)
    base = copy.deepcopy(dict(sec.get("msg") or {}))
    kind = "response" if m.role == "assistant" else "request"
    base["kind"] = kind
    if m.role == "system":
        return {"kind": "request", "parts": [{"part_kind": "system-prompt", "content": m.text}]}
    parts: list[tuple[int, dict[str, Any]]] = []
    fresh = 10_000  # parts without a source position go after the kept ones, in order
    for p in m.parts:
        own = _own(p)
        i = own.get("i")
        if not isinstance(i, int):
            parts.append((fresh, _fresh_part(p, kind)))
            fresh += 1
            continue
        if isinstance(p, ImagePart | TextPart) and "k" in own and parts and parts[-1][0] == i and parts[-1][1].get("part_kind") == "user-prompt":
            parts[-1][1]["content"].append(_item_out(p, own))
            continue
        parts.append((i, _part_out(p, own)))
    merged = [pd for _, pd in parts]
    for pos, raw in sec.get("opaque") or []:
        merged.insert(min(pos, len(merged)), copy.deepcopy(raw))
    base["parts"] = merged
    return base


def _part_out(p: Part, own: Mapping[str, Any]) -> dict[str, Any]:
    d = copy.deepcopy(dict(own.get("d") or {}))
    if own.get("keep"):
        return d  # a retry prompt: its own content (errors and all) is the source of the text
    if isinstance(p, TextPart):
        if "k" in own:
            d["content"] = [_item_out(p, own)]
        else:
            d["content"] = p.text
        return d
    if isinstance(p, ImagePart):
        d["content"] = [_item_out(p, own)]
        return d
    if isinstance(p, ReasoningPart):
        d["content"] = p.text
        d["signature"] = p.signature
        return d
    if isinstance(p, ToolCallPart):
        args = p.parsed_arguments() if own.get("args") == "json" else p.arguments
        d.update(tool_name=p.name, tool_call_id=p.id, args=args if own.get("args") != "json" or isinstance(args, dict) else {"input": args})
        return d
    if isinstance(p, ToolResultPart):
        text = p.text
        content: Any = text
        if own.get("json"):
            try:
                content = json.loads(text)
            except ValueError:
                content = text  # clipped or masked: the text the model reads now
        d.update(content=content, tool_call_id=p.call_id)
        return d
    raise PayloadError(f"cannot render a {p.kind} part as pydantic-ai")


def _item_out(p: Part, own: Mapping[str, Any]) -> Any:
    if isinstance(p, TextPart):
        return p.text
    assert isinstance(p, ImagePart)
    item = copy.deepcopy(dict(own.get("item") or {}))
    if own.get("data_url"):
        item["url"] = f"data:{p.media_type or 'image/png'};base64,{p.data}"
    elif item.get("kind") == "binary":
        item["data"] = p.data
    else:
        item.setdefault("kind", "image-url")
        item["url"] = p.data if p.source == "url" else f"data:{p.media_type or 'image/png'};base64,{p.data}"
    return item


def _fresh_part(p: Part, kind: str) -> dict[str, Any]:
    if isinstance(p, ToolResultPart):
        return {"part_kind": "tool-return", "tool_name": p.name or "tool", "tool_call_id": p.call_id, "content": p.text}
    if isinstance(p, ToolCallPart):
        args = p.parsed_arguments()
        return {"part_kind": "tool-call", "tool_name": p.name, "tool_call_id": p.id, "args": args if isinstance(args, dict) else {"input": args}}
    if isinstance(p, ReasoningPart):
        return {"part_kind": "thinking", "content": p.text, "signature": p.signature}
    if isinstance(p, ImagePart):
        url = p.data if p.source == "url" else f"data:{p.media_type or 'image/png'};base64,{p.data}"
        return {"part_kind": "user-prompt", "content": [{"kind": "image-url", "url": url}]}
    text = p.text if isinstance(p, TextPart) else ""
    return {"part_kind": "text", "content": text} if kind == "response" else {"part_kind": "user-prompt", "content": text}


def message_key(m: Message) -> str:
    """What a message says (its role and parts): equal for the same message met again."""
    return fingerprint([TextPart(m.role), *m.parts])
