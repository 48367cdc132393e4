"""Dollars of a model call: each usage row priced at the model that made it, from the bundled registry.

A call's prompt splits into four parts, each at its own price (USD per 1M tokens, models.py):

- uncached input (``input_price``),
- cache read (``cache_read_price``),
- cache write with the 5-minute TTL (``cache_write_price``),
- cache write with the 1-hour TTL — the registry (models.dev) has no field for it, so the provider's
  published rule is applied: Anthropic bills a 1-hour write at **2× the base input price** (a 5-minute
  write at 1.25×, a cache read at 0.1×; the same multipliers fill a missing Anthropic cache price),

and the output (``output_price``; reasoning/thinking tokens are output tokens and are billed as such).

How a log's fields map (``CallRecord``/``Usage``: ``input`` = the whole prompt): Anthropic reports
``input_tokens`` (uncached), ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` (of which
``cache_creation.ephemeral_1h_input_tokens`` at the 1-hour TTL); OpenAI reports ``input_tokens``
(the whole prompt) of which ``cached_input_tokens`` were read from the cache, and no writes.

A call whose model is unknown, or whose model lacks a price for a part the call used, is *unpriced*:
its cost is ``None`` and totals say how many calls were left out — never ``$0.00``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

ANTHROPIC_READ_FACTOR = 0.1
ANTHROPIC_WRITE_5M_FACTOR = 1.25
ANTHROPIC_WRITE_1H_FACTOR = 2.0


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per 1M tokens of one model (None: the registry has no price for that part)."""

    model: str
    input: float | None
    output: float | None
    cache_read: float | None
    cache_write_5m: float | None
    cache_write_1h: float | None


@lru_cache(maxsize=512)
def prices_for(model: str | None) -> Prices | None:
    """The prices of ``model`` from the registry (None when the model is unknown)."""
    from .models import find_model

    spec = find_model(model)
    if spec is None:
        return None
    inp = spec.input_price
    read, write = spec.cache_read_price, spec.cache_write_price
    write_1h = None
    if (spec.provider == "anthropic" or spec.id.startswith("claude")) and inp is not None:
        read = read if read is not None else inp * ANTHROPIC_READ_FACTOR
        write = write if write is not None else inp * ANTHROPIC_WRITE_5M_FACTOR
        write_1h = inp * ANTHROPIC_WRITE_1H_FACTOR
    return Prices(spec.qualified, inp, spec.output_price, read, write, write_1h)


@dataclass(frozen=True, slots=True)
class Parts:
    """One call's tokens split by price."""

    uncached: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output: int = 0

    @classmethod
    def of(
        cls,
        prompt: int | None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        output: int | None = None,
        cache_write_1h: int | None = None,
    ) -> Parts:
        """From the whole ``prompt`` (cache included) and its cached parts."""
        cr, cw = cache_read or 0, cache_write or 0
        w1h = min(cache_write_1h or 0, cw)
        return cls(max(0, (prompt or 0) - cr - cw), cr, cw - w1h, w1h, output or 0)


def parts_cost(parts: Parts, prices: Prices | None) -> float | None:
    """USD of ``parts`` at ``prices``; None when a part the call used has no price."""
    if prices is None:
        return None
    total = 0.0
    for n, price in (
        (parts.uncached, prices.input),
        (parts.cache_read, prices.cache_read),
        (parts.cache_write_5m, prices.cache_write_5m),
        (parts.cache_write_1h, prices.cache_write_1h),
        (parts.output, prices.output),
    ):
        if n:
            if price is None:
                return None
            total += n * price
    return total / 1_000_000


def call_cost(call: Any) -> float | None:
    """USD of one imported call (a ``CallRecord``); None when unpriced or without usage."""
    if call.reported_input_tokens is None and call.output_tokens is None:
        return None
    parts = Parts.of(call.reported_input_tokens, call.cache_read_tokens, call.cache_write_tokens, call.output_tokens, call.cache_write_1h_tokens)
    return parts_cost(parts, prices_for(call.model))


def usage_cost(usage: Any) -> float | None:
    """USD of one :class:`~contextwindow.usage.Usage` row at its model's prices (None when unpriced)."""
    w1h = usage.extra.get("cache_write_1h_tokens") if isinstance(usage.extra, dict) else None
    parts = Parts.of(usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens, w1h if isinstance(w1h, int) else None)
    return parts_cost(parts, prices_for(usage.model))


@dataclass(slots=True)
class CostTotal:
    """The sum over calls: dollars of the priced ones, and what was left unpriced."""

    usd: float = 0.0
    priced_calls: int = 0
    unpriced_calls: int = 0
    no_usage_calls: int = 0
    unpriced_models: dict[str, int] = field(default_factory=dict)

    def add(self, cost: float | None, model: str | None, has_usage: bool = True) -> None:
        if not has_usage:
            self.no_usage_calls += 1
        elif cost is None:
            self.unpriced_calls += 1
            key = model or "(no model named)"
            self.unpriced_models[key] = self.unpriced_models.get(key, 0) + 1
        else:
            self.usd += cost
            self.priced_calls += 1

    @property
    def cost_usd(self) -> float | None:
        """The total, or None when no call could be priced."""
        return self.usd if self.priced_calls else None

    def text(self) -> str:
        """``$1.2345`` / ``$1.2345 (+2 calls unpriced: m)`` / ``unpriced (3 calls: m)``."""
        left = ", ".join(f"{m} ×{n}" for m, n in sorted(self.unpriced_models.items()))
        if not self.priced_calls:
            if self.unpriced_calls:
                return f"unpriced ({self.unpriced_calls} call(s): {left})"
            return "no usage in the log"
        out = f"${self.usd:,.4f}"
        if self.unpriced_calls:
            out += f" (+{self.unpriced_calls} call(s) unpriced: {left})"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "cost_usd": None if self.cost_usd is None else round(self.usd, 6),
            "priced_calls": self.priced_calls,
            "unpriced_calls": self.unpriced_calls,
            "calls_without_usage": self.no_usage_calls,
            "unpriced_models": dict(self.unpriced_models),
        }


def calls_total(calls: Iterable[Any]) -> CostTotal:
    """The cost of imported calls (``CallRecord``s)."""
    t = CostTotal()
    for c in calls:
        has = c.reported_input_tokens is not None or c.output_tokens is not None
        t.add(call_cost(c) if has else None, c.model, has)
    return t


def usage_total(rows: Iterable[Any]) -> CostTotal:
    """The cost of stored usage rows: their ``cost_usd`` when recorded, else priced now."""
    t = CostTotal()
    for u in rows:
        cost = u.cost_usd if u.cost_usd is not None else usage_cost(u)
        t.add(cost, u.model)
    return t


def role_totals(rows: Iterable[Any]) -> dict[str, CostTotal]:
    """Stored usage rows' dollars per role (``main``, ``summarizer``, …)."""
    out: dict[str, CostTotal] = {}
    for u in rows:
        t = out.setdefault(str(u.role), CostTotal())
        t.add(u.cost_usd if u.cost_usd is not None else usage_cost(u), u.model)
    return out
