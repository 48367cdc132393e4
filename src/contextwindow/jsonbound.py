"""JSON parsing with a nesting bound, for text a model or a tool controls. Pure.

``json.loads`` recurses once per nesting level, so arguments nested a thousand deep raise an
untyped ``RecursionError`` — on every later build, since the message stays in the store.
:func:`loads` refuses such text up front with a typed :class:`~contextwindow.errors.PayloadError`
(a linear scan, done only when the text holds enough brackets to be that deep); callers that must
go on keep the text as opaque text instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import PayloadError

__all__ = ["MAX_DEPTH", "loads", "nesting_depth"]

MAX_DEPTH = 64


#: a JSON string (to its closing quote, or to the end of an unterminated one), or one bracket
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of ``text`` outside JSON strings (a linear scan: the regex
    engine skips strings and plain text, Python looks only at the brackets)."""
    depth = deepest = 0
    for tok in _TOKEN.findall(text):
        d = _DELTA.get(tok)
        if d is None:
            continue  # a string
        depth += d
        if depth > deepest:
            deepest = depth
    return deepest


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, what: str = "JSON text") -> Any:
    """``json.loads(text)``, or PayloadError when ``text`` nests deeper than ``max_depth``.
    Other errors are json's own ``ValueError``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") > max_depth:
        depth = nesting_depth(text)
        if depth > max_depth:
            raise PayloadError(f"{what} nests {depth} levels deep; at most {max_depth} are parsed (kept as text)")
    try:
        return json.loads(text)
    except RecursionError:  # pragma: no cover - only past the bound, which the scan refuses
        raise PayloadError(f"{what} nests too deep to parse") from None
