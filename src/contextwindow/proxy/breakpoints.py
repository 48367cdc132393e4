"""Cache breakpoints (``cache_control``) belong to one request, not to the history. Pure.

A client moves its breakpoints as the conversation grows (Claude Code marks the newest messages of
each request). So they are taken out of the request body before it is read as messages — the
stored, fingerprinted history never holds them — and the breakpoints of the request at hand are
put back, byte-exact, on the same parts of the same messages right before the payload is rendered
(:meth:`Session.build`'s ``decorate``). A message compaction left out loses its breakpoint: a
forwarded request never carries more than the client sent.

Anthropic (system blocks, content blocks, blocks inside ``tool_result``) and OpenAI chat content
parts (some gateways take Anthropic-style hints there) are handled; Responses items carry none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..messages import Message, ToolResultPart
from ..session import FINGERPRINT_KEY

KEY = "cache_control"


@dataclass(frozen=True, slots=True)
class Mark:
    """A breakpoint on message part ``part`` (``sub``: a block inside a tool result), or on the
    opaque block at payload position ``opaque``."""

    part: int | None
    sub: int | None
    opaque: int | None
    value: Any


_RawMark = tuple[int, int, int | None, Any]  # message index (from_payload order), block, sub-block, value


def _take(block: Any, found: list[_RawMark], i: int, j: int, k: int | None) -> Any:
    if isinstance(block, dict) and KEY in block:
        found.append((i, j, k, block[KEY]))
        return {key: v for key, v in block.items() if key != KEY}
    return block


def _strip_blocks(content: Any, found: list[_RawMark], i: int, nested: bool) -> Any:
    if not isinstance(content, list):
        return content
    out = []
    for j, b in enumerate(content):
        b = _take(b, found, i, j, None)
        if nested and isinstance(b, dict) and isinstance(b.get("content"), list):
            inner: list[_RawMark] = []
            sub = [_take(c, inner, i, j, k) for k, c in enumerate(b["content"])]
            if inner:
                found.extend(inner)
                b = {**b, "content": sub}
        out.append(b)
    return out


def strip_payload(body: Mapping[str, Any], fmt: str) -> tuple[Mapping[str, Any], list[_RawMark]]:
    """``body`` without breakpoints (a shallow copy where any were) and where they were."""
    found: list[_RawMark] = []
    if fmt not in ("anthropic", "openai") or not isinstance(body.get("messages"), list):
        return body, found
    out = dict(body)
    offset = 0
    if fmt == "anthropic" and body.get("system") is not None:
        offset = 1
        out["system"] = _strip_blocks(body["system"], found, 0, False)
    msgs = []
    for i, m in enumerate(body["messages"]):
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            before = len(found)
            content = _strip_blocks(m["content"], found, i + offset, fmt == "anthropic")
            if len(found) > before:
                m = {**m, "content": content}
        msgs.append(m)
    out["messages"] = msgs
    return (out, found) if found else (body, found)


def _opaque_positions(extra: Mapping[str, Any], fmt: str, key: str = "opaque") -> list[int]:
    sec = extra.get(fmt)
    sec = sec.get("~shape", sec) if isinstance(sec, Mapping) and key == "~shape" else sec
    ops = sec.get("opaque") if isinstance(sec, Mapping) else None
    return sorted(e[0] for e in ops if isinstance(e, list | tuple) and e and isinstance(e[0], int)) if isinstance(ops, list) else []


def _to_mark(m: Message, fmt: str, j: int, k: int | None, value: Any) -> Mark | None:
    if m.role == "tool" and fmt == "openai":  # one result; its content parts are the blocks
        p = m.parts[0] if m.parts else None
        if not isinstance(p, ToolResultPart):
            return None
        ops = _opaque_positions(p.extra, fmt)
        return None if j in ops else Mark(0, j - sum(1 for o in ops if o < j), None, value)
    ops = _opaque_positions(m.extra, fmt)
    if j in ops:
        return Mark(None, None, j, value) if k is None else None
    part = j - sum(1 for o in ops if o < j)
    if k is None:
        return Mark(part, None, None, value)
    p = m.parts[part] if part < len(m.parts) else None
    if not isinstance(p, ToolResultPart):
        return None
    sub_ops = _opaque_positions(p.extra, fmt, "~shape")
    return None if k in sub_ops else Mark(part, k - sum(1 for o in sub_ops if o < k), None, value)


def marks_by_fingerprint(history: Sequence[Message], fps: Sequence[str], raw: Sequence[_RawMark], fmt: str) -> dict[str, list[Mark]]:
    """The breakpoints found by :func:`strip_payload`, keyed by the fingerprint of their message."""
    marks: dict[str, list[Mark]] = {}
    for i, j, k, value in raw:
        if i < len(fps):
            mk = _to_mark(history[i], fmt, j, k, value)
            if mk is not None:
                marks.setdefault(fps[i], []).append(mk)
    return marks


def _put(p: Any, fmt: str, value: Any) -> Any:
    sec = dict(p.extra.get(fmt) or {})
    if fmt == "openai":
        sec["fields"] = {**(sec.get("fields") or {}), KEY: value}
    else:
        sec[KEY] = value
    return replace(p, extra={**p.extra, fmt: sec})


def _put_opaque(m: Message, fmt: str, pos: int, value: Any) -> Message:
    sec = dict(m.extra.get(fmt) or {})
    ops = sec.get("opaque")
    if not isinstance(ops, list):
        return m
    sec["opaque"] = [[e[0], {**e[1], KEY: value}] if e[0] == pos and isinstance(e[1], dict) else e for e in ops]
    return replace(m, extra={**m.extra, fmt: sec})


def apply(messages: list[Message], marks: Mapping[str, Sequence[Mark]], fmt: str) -> list[Message]:
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
            if mark.opaque is not None:
                continue
            i = mark.part
            if i is None or i >= len(parts):
                continue
            p = parts[i]
            if mark.sub is None:
                parts[i] = _put(p, fmt, mark.value)
            elif isinstance(p, ToolResultPart) and mark.sub < len(p.content):
                content = list(p.content)
                content[mark.sub] = _put(content[mark.sub], fmt, mark.value)
                parts[i] = replace(p, content=tuple(content))
        new = replace(m, parts=tuple(parts))
        for mark in mk:
            if mark.opaque is not None:
                new = _put_opaque(new, fmt, mark.opaque, mark.value)
        out.append(new)
    return out
