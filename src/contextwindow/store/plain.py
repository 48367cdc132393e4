"""Which messages the stored JSON gives back exactly: ``loads(dumps(m))`` would equal ``m`` with
the same types in the same order (``repr`` identical). Pure.

A store that hands out decoded copies (so that what it holds never changes) can keep such a message
as it was given instead of decoding its own JSON again: messages and parts are frozen values, and
the copy would be indistinguishable. Anything else — a tuple where JSON gives back a list, a dict
whose keys are not in sorted order (JSON is written with sorted keys), a float JSON cannot hold
exactly, a bool given as an int, a subclass — is decoded as before, and so is what decoding
refuses (an unknown role: the append fails as it always did).
"""

from __future__ import annotations

import math
from typing import Any

from ..messages import ROLES, ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart

_STR_OR_NONE = (str, type(None))


def _value(v: Any) -> bool:
    t = type(v)
    if t is str or t is int or t is bool or v is None:
        return True
    if t is float:
        return math.isfinite(v)
    if t is list:
        return all(_value(x) for x in v)
    if t is dict:
        return _mapping(v)
    return False


def _mapping(d: Any) -> bool:
    """A plain dict with string keys already in sorted order and plain values."""
    if type(d) is not dict:
        return False
    if not d:
        return True
    keys = list(d)
    return all(type(k) is str for k in keys) and keys == sorted(keys) and all(_value(x) for x in d.values())


def _opt_str(*values: Any) -> bool:
    return all(type(v) in _STR_OR_NONE for v in values)


def _part(p: Any) -> bool:
    t = type(p)
    if t is TextPart:
        return p.kind == "text" and type(p.text) is str and _mapping(p.extra)
    if t is ToolCallPart:
        return p.kind == "tool_call" and type(p.id) is str and type(p.name) is str and type(p.arguments) is str and _mapping(p.extra)
    if t is ToolResultPart:
        return (
            p.kind == "tool_result" and type(p.call_id) is str and type(p.is_error) is bool and _opt_str(p.name) and _mapping(p.extra)
            and type(p.content) is tuple and all(type(c) in (TextPart, ImagePart) and _part(c) for c in p.content)
        )
    if t is ReasoningPart:
        return p.kind == "reasoning" and type(p.text) is str and _opt_str(p.signature, p.encrypted, p.provider) and _mapping(p.extra)
    if t is ImagePart:
        return (
            p.kind == "image" and p.source in ("base64", "url", "file") and type(p.data) is str and _opt_str(p.media_type, p.detail)
            and all(type(x) is int or x is None for x in (p.width, p.height)) and _mapping(p.extra)
        )
    return False


def round_trips(m: Message) -> bool:
    """True when the store's JSON of ``m`` decodes to a message ``repr``-identical to ``m``."""
    return (
        type(m) is Message and type(m.role) is str and m.role in ROLES and _opt_str(m.name) and _mapping(m.extra) and _mapping(m.meta)
        and type(m.parts) is tuple and all(_part(p) for p in m.parts)
    )
