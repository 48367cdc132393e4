"""Strategy 1 (cheapest): mask old tool results.

The call stays; each old result's content becomes a one-line placeholder naming the tool and the
ref that reads it back. The newest ``keep_last`` results, error results, small results and
results of excluded tools are left alone. Masking runs only when its saving is worth a cache break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..messages import Message, Part, TextPart, ToolResultPart
from . import markers
from .view import Count, ViewItem, total


@dataclass(frozen=True, slots=True)
class MaskConfig:
    keep_last: int = 3
    min_result_tokens: int = 200
    min_saving_tokens: int = 20_000
    exclude_tools: frozenset[str] = frozenset({"retrieve", "read_skill"})


def tool_names(items: Sequence[ViewItem]) -> dict[str, str]:
    """call id → tool name, from the assistant calls in the view."""
    names: dict[str, str] = {}
    for it in items:
        for call in it.message.tool_calls:
            names[call.id] = call.name
    return names


def is_masked(message: Message) -> bool:
    return bool(message.meta.get("cw_masked"))


def mask_candidates(items: Sequence[ViewItem], config: MaskConfig) -> list[int]:
    """Indices of tool messages that may be masked, oldest first."""
    names = tool_names(items)
    result_idx = [i for i, it in enumerate(items) if it.message.role == "tool" and it.message.is_tool_result]
    old = result_idx[: max(0, len(result_idx) - config.keep_last)]
    out = []
    for i in old:
        it = items[i]
        m = it.message
        if is_masked(m) or it.tokens < config.min_result_tokens:
            continue
        results = m.tool_results
        if any(r.is_error for r in results):
            continue
        if any((r.name or names.get(r.call_id)) in config.exclude_tools for r in results):
            continue
        out.append(i)
    return out


def masked_message(item: ViewItem, names: dict[str, str], count: Count) -> Message:
    m = item.message
    parts: list[Part] = []
    for p in m.parts:
        if isinstance(p, ToolResultPart):
            tool = p.name or names.get(p.call_id)
            parts.append(replace(p, content=(TextPart(markers.masked_result(tool, item.tokens, item.key, item.seq)),)))
        else:
            parts.append(p)
    return replace(m, parts=tuple(parts), meta={**m.meta, "cw_masked": True})


def mask(items: Sequence[ViewItem], need: int, count: Count, config: MaskConfig, budget: int) -> tuple[list[ViewItem], dict[str, object]] | None:
    """Mask old results, oldest first, until ``need`` tokens are saved (or all candidates used).

    Returns None when nothing can be masked or the saving is below the cache-break threshold
    (``min_saving_tokens``, scaled down for small windows to 10% of the budget).
    """
    cands = mask_candidates(items, config)
    if not cands:
        return None
    names = tool_names(items)
    out = list(items)
    saved = 0
    masked: list[str] = []
    for i in cands:
        new = out[i].with_message(masked_message(out[i], names, count), count)
        gain = out[i].tokens - new.tokens
        if gain <= 0:
            continue
        out[i] = new
        saved += gain
        masked.append(out[i].key)
        if saved >= need:
            break
    threshold = min(config.min_saving_tokens, max(1, budget // 10))
    if saved < threshold and saved < need:
        return None
    return out, {"method": "mask", "targets": masked, "saved": saved, "tokens_after": total(out)}
