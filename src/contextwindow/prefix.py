"""How much of a payload a provider's prompt cache can serve: the identical leading units of two
consecutive payloads. Pure."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .formats.memo import RenderMemo


def payload_units(payload: dict[str, Any], memo: RenderMemo[Any, str] | None = None) -> list[str]:
    """The payload as ordered serialized units (for prefix-stability measurement). ``memo`` reuses
    the units of message dicts the previous payload shared (a payload is read-only)."""
    units = []
    for key in ("system", "instructions", "systemInstruction", "tools"):
        if key in payload:
            units.append(_unit(payload[key]))
    for key in ("messages", "input", "contents"):
        items = payload.get(key)
        if items:  # (one of them per format: the memo's round is that list)
            units.extend(map(_unit, items) if memo is None else memo.map(items, _unit))
    return units


def _unit(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def common_prefix(prev: Sequence[str], cur: Sequence[str]) -> int:
    """Characters of the identical leading units of two payloads."""
    n = len(prev)
    if n <= len(cur) and list(prev) == list(cur[:n]):  # the common case, a payload that only grew: settled in C
        return sum(map(len, prev))
    same = 0
    for a, b in zip(prev, cur, strict=False):
        if a != b:
            break
        same += len(b)
    return same


def share_and_reuse(prev: Sequence[str], cur: Sequence[str]) -> tuple[float, float]:
    """``(prefix_share(prev, cur), prefix_reuse(prev, cur))`` with one walk of the two payloads."""
    same = common_prefix(prev, cur)
    size_cur, size_prev = sum(map(len, cur)), sum(map(len, prev))
    return (same / size_cur if size_cur else 1.0), (same / size_prev if size_prev else 1.0)


def prefix_share(prev: Sequence[str], cur: Sequence[str]) -> float:
    """Share of ``cur`` (in characters) that is an identical prefix of ``prev`` (what a provider
    cache can serve)."""
    size = sum(len(u) for u in cur)
    return common_prefix(prev, cur) / size if size else 1.0


def prefix_reuse(prev: Sequence[str], cur: Sequence[str]) -> float:
    """Share of ``prev`` that survives as a prefix of ``cur`` (1.0 unless the history was rewritten)."""
    size = sum(len(u) for u in prev)
    return common_prefix(prev, cur) / size if size else 1.0
