"""Clearing the inputs of old tool calls: the call's own long arguments, not its result. Pure.

An agent that writes files or runs scripts sends their whole text as a tool call's arguments
(``Write``'s content, ``Edit``'s old and new strings, a shell heredoc); once the result is back and
a few newer steps followed, the model reads them again on every call although the work is on disk.
Like Anthropic's context editing with ``clear_tool_inputs``, :func:`cleared_inputs` keeps the call
(id, name, the JSON shape and every short value, such as a path) and replaces each long string
value with a marker naming its size and the ``retrieve`` ref that reads the original call back
(the store keeps it). :func:`input_candidates` picks the assistant messages that may be cleared:
every call in them answered by a result older than the newest ``keep_last`` results, arguments
that would shrink by at least ``min_tokens``, no excluded tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..messages import Message, Part, ToolCallPart, dump_arguments
from . import markers
from .mask import MaskConfig
from .view import Count, ViewItem

LONG_VALUE_CHARS = 240  # a string argument longer than this is cleared; shorter ones (paths, flags) stay


def is_cleared(message: Message) -> bool:
    return bool(message.meta.get("cw_inputs_cleared"))


def _long_chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value) if len(value) > LONG_VALUE_CHARS else 0
    if isinstance(value, dict):
        return sum(_long_chars(v) for v in value.values())
    if isinstance(value, list):
        return sum(_long_chars(v) for v in value)
    return 0


def _clear(value: Any, ref: str) -> Any:
    if isinstance(value, str) and len(value) > LONG_VALUE_CHARS:
        return markers.cleared_input(len(value), ref)
    if isinstance(value, dict):
        return {k: _clear(v, ref) for k, v in value.items()}
    if isinstance(value, list):
        return [_clear(v, ref) for v in value]
    return value


def input_candidates(items: Sequence[ViewItem], config: MaskConfig, min_tokens: int) -> list[int]:
    """Indices of assistant messages whose tool-call inputs may be cleared, oldest first."""
    result_at: dict[str, int] = {}
    n_results = 0
    for it in items:
        if it.message.role == "tool" and it.message.is_tool_result:
            n_results += 1
            for r in it.message.tool_results:
                result_at[r.call_id] = n_results
    old_up_to = n_results - config.keep_last  # results numbered <= this are old
    out = []
    for i, it in enumerate(items):
        if not input_ok(it, config, min_tokens):
            continue
        if any(result_at.get(c.id, old_up_to + 1) > old_up_to for c in it.message.tool_calls):
            continue
        out.append(i)
    return out


def input_ok(it: ViewItem, config: MaskConfig, min_tokens: int) -> bool:
    """Whether ``it``'s tool-call inputs may be cleared, its age aside."""
    m = it.message
    calls = m.tool_calls
    if m.role != "assistant" or not calls or is_cleared(m) or it.tokens < min_tokens:
        return False
    if any(c.name in config.exclude_tools for c in calls):
        return False
    long, chars = _sizes(m)
    return long * it.tokens >= min_tokens * chars  # else it shrinks by fewer than min_tokens (by share of characters)


_SIZES: dict[int, tuple[Message, int, int]] = {}  # id -> (message, long chars, chars): its arguments parsed once
_SIZES_HELD = [0]  # characters of the messages _SIZES holds
SIZES_MAX_CHARS = 8_000_000  # bounded: it holds the messages it answers for


def _sizes(m: Message) -> tuple[int, int]:
    """(characters of long string values in ``m``'s call arguments, ``_chars(m)``), remembered per
    message object (a pure answer: a view asks again for every old call whenever it is read afresh)."""
    hit = _SIZES.get(id(m))
    if hit is None or hit[0] is not m:
        chars = _chars(m)
        if len(_SIZES) >= 4096 or _SIZES_HELD[0] + chars > SIZES_MAX_CHARS:
            _SIZES.clear()
            _SIZES_HELD[0] = 0
        hit = _SIZES[id(m)] = (m, sum(_long_chars(c.parsed_arguments()) for c in m.tool_calls), chars)
        _SIZES_HELD[0] += chars
    return hit[1], hit[2]


def _chars(m: Message) -> int:
    n = 0
    for p in m.parts:
        if isinstance(p, ToolCallPart):
            n += len(p.arguments) + len(p.name)
        else:
            n += len(getattr(p, "text", "") or "")
    return max(1, n)


def cleared_inputs(item: ViewItem, count: Count) -> Message:
    """``item``'s message with the long string values of its tool calls' arguments cleared."""
    m = item.message
    ref = markers.ref_for(item.key, item.seq)
    parts: list[Part] = []
    for p in m.parts:
        if isinstance(p, ToolCallPart):
            args = p.parsed_arguments()
            if isinstance(args, dict | list):
                parts.append(replace(p, arguments=dump_arguments(_clear(args, ref))))
            elif isinstance(args, str) and len(args) > LONG_VALUE_CHARS:
                parts.append(replace(p, arguments=dump_arguments({"cleared": markers.cleared_input(len(args), ref)})))
            else:
                parts.append(p)
        else:
            parts.append(p)
    return replace(m, parts=tuple(parts), meta={**m.meta, "cw_inputs_cleared": True})
