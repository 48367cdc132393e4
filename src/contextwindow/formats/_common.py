"""Helpers shared by the payload converters (private).

Conventions every converter follows, so a payload comes back byte-for-byte:

- ``extra[fmt]`` on a message or part holds what only that provider understands: ``fields``
  (the object's keys we have no slot for, verbatim, including keys whose value is ``null``)
  plus a few shape markers (``list``: content was a list where a string would be canonical;
  ``absent``: a key we would emit was missing; ``opaque``: ``[position, raw]`` pairs of
  content blocks/items we cannot model, put back at their position).
- A converter reads and writes only its own ``fmt`` key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import PayloadError
from ..jsonbound import loads as bounded_loads
from ..messages import JSON, ImagePart, Message, Part, TextPart, ToolCallPart

__all__ = [
    "expect",
    "merge_opaque",
    "optional",
    "parse_arguments_object",
    "parse_data_url",
    "plain_text",
    "section",
    "split_fields",
    "tool_names",
    "with_section",
]


def expect(d: Mapping[str, Any], key: str, typ: type | tuple[type, ...], index: int | None, where: str = "") -> Any:
    """``d[key]`` checked against ``typ``; a :class:`PayloadError` naming index and field otherwise."""
    if key not in d:
        raise PayloadError(f"missing required field{' in ' + where if where else ''}", index=index, field=key)
    return _check(d[key], key, typ, index, where)


def optional(d: Mapping[str, Any], key: str, typ: type | tuple[type, ...], index: int | None, where: str = "") -> Any:
    """``d.get(key)`` checked against ``typ`` when present and not null."""
    v = d.get(key)
    return None if v is None else _check(v, key, typ, index, where)


def _check(v: Any, key: str, typ: type | tuple[type, ...], index: int | None, where: str) -> Any:
    if isinstance(v, bool) and typ in (int, float):
        ok = False
    else:
        ok = isinstance(v, typ)
    if not ok:
        names = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
        names = names.replace("dict", "object").replace("str", "string")
        raise PayloadError(
            f"expected {names}{' in ' + where if where else ''}, got {_json_type(v)}", index=index, field=key
        )
    return v


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(v), type(v).__name__
    )


def split_fields(d: Mapping[str, Any], known: Sequence[str]) -> dict[str, Any]:
    """The keys of ``d`` we have no slot for, plus known keys whose value is null (kept verbatim)."""
    return {k: v for k, v in d.items() if k not in known or v is None}


def section(extra: Mapping[str, JSON], fmt: str) -> Mapping[str, Any]:
    """This provider's part of an ``extra`` mapping (empty when absent or malformed)."""
    s = extra.get(fmt) if isinstance(extra, Mapping) else None
    return s if isinstance(s, Mapping) else {}


def with_section(extra: Mapping[str, JSON], fmt: str, sec: Mapping[str, Any]) -> dict[str, JSON]:
    """``extra`` with this provider's section replaced; empty values are left out."""
    out = {k: v for k, v in extra.items() if k != fmt}
    clean = {k: v for k, v in sec.items() if not (v is None or v is False or (isinstance(v, (dict, list)) and not v))}
    if clean:
        out[fmt] = clean
    return out


def merge_opaque(items: list[Any], opaque: Any) -> list[Any]:
    """Put opaque ``[position, raw]`` entries back at their positions (clamped to the end)."""
    if not isinstance(opaque, list) or not opaque:
        return items
    out = list(items)
    for entry in opaque:
        if isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], int):
            out.insert(min(entry[0], len(out)), entry[1])
    return out


def plain_text(parts: Sequence[Part], fmt: str, sec: Mapping[str, Any]) -> str | None:
    """The text when ``parts`` render canonically as a bare string (one text part, no extras)."""
    if sec.get("list") or sec.get("opaque") or len(parts) != 1:
        return None
    p = parts[0]
    if isinstance(p, TextPart) and not section(p.extra, fmt):
        return p.text
    return None


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``data:<mime>;base64,<data>`` → (mime, data); None for anything else."""
    if not url.startswith("data:"):
        return None
    head, sep, data = url[5:].partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    return head[: -len(";base64")], data


def image_data_url(img: ImagePart) -> str:
    if img.source == "base64":
        return f"data:{img.media_type or 'image/png'};base64,{img.data}"
    return img.data


def parse_arguments_object(arguments: str) -> dict[str, Any]:
    """Tool-call arguments as a JSON object for object-shaped providers.

    Empty text is ``{}``; text that is not a JSON object is wrapped as ``{"input": text}`` so
    nothing is lost (a provider that wants an object still gets one).
    """
    if not arguments.strip():
        return {}
    try:
        value = bounded_loads(arguments, what="tool-call arguments")
    except (ValueError, PayloadError):  # not JSON, or nested past the bound: kept as opaque text
        return {"input": arguments}
    return value if isinstance(value, dict) else {"input": value}


def tool_names(messages: Sequence[Message]) -> dict[str, str]:
    """call id → tool name, over every tool call in ``messages``."""
    return {p.id: p.name for m in messages for p in m.parts if isinstance(p, ToolCallPart)}


def payload_list(obj: Any, key: str, fmt_label: str) -> tuple[list[Any], Mapping[str, Any]]:
    """Accept a full request dict (``obj[key]`` is the list) or the bare list itself."""
    if isinstance(obj, Mapping):
        if key not in obj:
            raise PayloadError(f"{fmt_label} payload has no {key!r} list", field=key)
        items = obj[key]
        if not isinstance(items, list):
            raise PayloadError(f"expected list, got {_json_type(items)}", field=key)
        return items, obj
    if isinstance(obj, list):
        return obj, {}
    raise PayloadError(f"a {fmt_label} payload is an object with {key!r} or a list, got {_json_type(obj)}")
