"""Cache breakpoints (``cache_control``) belong to one request, not to the history. Pure.

A client moves its breakpoints as the conversation grows (Claude Code marks the newest messages of
each request). So a message is fingerprinted and stored without them, and the breakpoints of the
request at hand are put back, byte-exact, on the same parts of the same messages right before the
payload is rendered (:meth:`Session.build`'s ``decorate``). A message compaction left out simply
loses its breakpoint: the request never carries more than the client sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..messages import Message, Part, ToolResultPart, dumps
from ..session import FINGERPRINT_KEY
from ..store.base import content_hash

KEY = "cache_control"
Where = tuple[int, int | None, str, tuple[str, ...]]  # part index, content index, format, path in its section


@dataclass(frozen=True, slots=True)
class Mark:
    where: Where
    value: Any


def _strip_extra(extra: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[tuple[str, tuple[str, ...], Any]]]:
    found: list[tuple[str, tuple[str, ...], Any]] = []
    out = dict(extra)
    for fmt, sec in extra.items():
        if not isinstance(sec, Mapping):
            continue
        new = dict(sec)
        if KEY in sec:
            found.append((fmt, (KEY,), sec[KEY]))
            del new[KEY]
        fields = sec.get("fields")
        if isinstance(fields, Mapping) and KEY in fields:
            found.append((fmt, ("fields", KEY), fields[KEY]))
            new["fields"] = {k: v for k, v in fields.items() if k != KEY}
        if len(found) and new != sec:
            out[fmt] = new
    return out, found


def _strip_part(p: Any, i: int, j: int | None, marks: list[Mark]) -> Any:
    extra, found = _strip_extra(p.extra)
    marks.extend(Mark((i, j, fmt, path), v) for fmt, path, v in found)
    return replace(p, extra=extra) if found else p


def strip(m: Message) -> tuple[Message, list[Mark]]:
    """``m`` without cache breakpoints, and where they were."""
    marks: list[Mark] = []
    parts: list[Part] = []
    for i, p in enumerate(m.parts):
        q = _strip_part(p, i, None, marks)
        if isinstance(q, ToolResultPart) and q.content:
            content = tuple(_strip_part(c, i, j, marks) for j, c in enumerate(q.content))
            if content != q.content:
                q = replace(q, content=content)
        parts.append(q)
    return (replace(m, parts=tuple(parts)) if marks else m), marks


def fingerprint(m: Message) -> str:
    return content_hash(dumps(m))


def normalize(history: Sequence[Message]) -> tuple[list[Message], list[str], dict[str, list[Mark]]]:
    """Stripped messages, their fingerprints, and the breakpoints by fingerprint."""
    out: list[Message] = []
    fps: list[str] = []
    marks: dict[str, list[Mark]] = {}
    for m in history:
        s, mk = strip(m)
        fp = fingerprint(s)
        out.append(s)
        fps.append(fp)
        if mk:
            marks[fp] = mk
    return out, fps, marks


def _put(p: Any, fmt: str, path: tuple[str, ...], value: Any) -> Any:
    sec = dict(p.extra.get(fmt) or {})
    if len(path) == 1:
        sec[path[0]] = value
    else:
        sub = dict(sec.get(path[0]) or {})
        sub[path[1]] = value
        sec[path[0]] = sub
    return replace(p, extra={**p.extra, fmt: sec})


def apply(messages: list[Message], marks: Mapping[str, Sequence[Mark]]) -> list[Message]:
    """Put ``marks`` back on the messages whose stored fingerprint has them (parts that are no
    longer there, e.g. masked away, are skipped)."""
    if not marks:
        return messages
    out: list[Message] = []
    for m in messages:
        mk = marks.get(str(m.meta.get(FINGERPRINT_KEY)))
        if not mk:
            out.append(m)
            continue
        parts = list(m.parts)
        for mark in mk:
            i, j, fmt, path = mark.where
            if i >= len(parts):
                continue
            if j is None:
                parts[i] = _put(parts[i], fmt, path, mark.value)
            else:
                p = parts[i]
                if isinstance(p, ToolResultPart) and j < len(p.content):
                    content = list(p.content)
                    content[j] = _put(content[j], fmt, path, mark.value)
                    parts[i] = replace(p, content=tuple(content))
        out.append(replace(m, parts=tuple(parts)))
    return out
