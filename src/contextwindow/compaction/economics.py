"""When and how deep to compact, by what it costs under a prompt cache. Pure.

A provider's prompt cache bills a call's unchanged prefix at the read price and what follows the
first changed byte at the write price (the input price where writes are not charged). A compaction
pass changes the view from its oldest changed item on, so it pays a cache write of what it keeps
(``s`` tokens) instead of a read; between two passes the history grows ``g`` tokens a call from ``s``
back up to the trigger ``T`` and is read on every call. Per call, over one such cycle::

    cost(T, s) = read * (T + s) / 2  +  (write - read) * s * g / (T - s)

- ``cost`` grows with ``s`` for any ``T``: compact as DEEP as fidelity allows. A pass aims at
  ``deep_target`` of the history budget; what fidelity keeps (the newest turn and steps, the
  constraint ledger in the summary, restored files) stays whatever the aim, so ``s`` is also never
  taken below the size the last pass really reached.
- ``cost`` is lowest at ``T* = s + sqrt(2 * (write - read) * s * g / read)`` (the economic order
  quantity of inventory theory, with the rewrite as the order cost and the reads as the holding
  cost): waiting longer pays more reads than the writes it saves, compacting sooner pays more
  writes. The trigger is ``T*`` kept between ``min_trigger`` of the budget (a guard: no pass for
  cost alone on a history that small) and the LATEST trigger: the budget's own or ``max_trigger``
  of the history budget, whichever is later (rare passes: the budget itself still binds).
- A pass pays back only over the ``(T* - s) / g`` calls until the next one. How long a session
  will go on is unknown; it is taken to last at least as long again as it has so far (a session
  that has made n calls has, as often as not, n more to come), so before ``n >= (T* - s) / g``
  the latest trigger holds, as it does before any growth is measured.

:class:`Growth` measures ``g`` from the builds a Session makes; :func:`thresholds` turns the
budget's trigger and target into the cost-aware ones. The knobs live in
:class:`~contextwindow.compaction.cache.CacheConfig` (fitted: docs/replay.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..budget import Budget
from .cache import CacheConfig


@dataclass(slots=True)
class Growth:
    """History growth per call, measured between builds (tokens the view gained since the last
    build, whatever compaction did then), and what the last compaction pass left."""

    calls: int = 0
    grown: int = 0
    last_after: int | None = None  # history tokens the previous build sent
    reached: int | None = None  # history tokens the last compaction pass left

    def before(self, history: int) -> None:
        """The history of the build about to be made (before any pass)."""
        if self.last_after is not None:
            self.calls += 1
            self.grown += max(0, history - self.last_after)

    def after(self, history: int, *, compacted: bool) -> None:
        """The history the build sent; ``compacted`` when a pass ran for it."""
        self.last_after = history
        if compacted:
            self.reached = history

    @property
    def per_call(self) -> float:
        return self.grown / self.calls if self.calls else 0.0


def eoq_trigger(kept: float, growth: float, read: float, write: float) -> float:
    """``T*`` of the module docstring: the history size at which a pass down to ``kept`` tokens
    costs least per call (``inf`` when nothing grows or reads are free)."""
    if growth <= 0 or read <= 0 or kept <= 0:
        return math.inf
    return kept + math.sqrt(2.0 * max(0.0, write - read) * kept * growth / read)


@dataclass(frozen=True, slots=True)
class Thresholds:
    trigger: int
    target: int
    reason: str


def thresholds(
    history_budget: int,
    trigger: int,
    target: int,
    growth: Growth,
    *,
    read: float,
    write: float,
    deep_target: float,
    min_trigger: float,
    max_trigger: float = 0.0,
) -> Thresholds:
    """The cost-aware trigger and target (tokens of history) for a budget whose own are
    ``trigger``/``target``: the target never above the budget's, the trigger never above the
    larger of the budget's and ``max_trigger`` of the history budget (the budget still binds)."""
    trigger = max(trigger, min(history_budget, int(history_budget * max_trigger)))
    deep = min(target, max(1, int(history_budget * deep_target)))
    kept = max(deep, growth.reached or 0)
    g = growth.per_call
    t_star = eoq_trigger(kept, g, read, write)
    if not math.isfinite(t_star):
        return Thresholds(trigger, deep, "no growth measured yet: the latest trigger")
    cycle = (t_star - kept) / g
    if growth.calls < cycle:
        return Thresholds(trigger, deep, f"{growth.calls} calls so far < {cycle:.0f} a pass needs to pay back: the latest trigger")
    low = int(history_budget * min_trigger)
    t = int(min(trigger, max(low, t_star)))
    if t <= deep:
        return Thresholds(trigger, deep, "the cost-aware trigger would not be above the target: the latest trigger")
    return Thresholds(t, deep, f"T*={t_star:,.0f} for kept {kept:,} and growth {g:,.0f}/call, held in [{low:,}, {trigger:,}]")


def cost_budget(budget: Budget, growth: Growth, config: CacheConfig) -> tuple[Budget, Thresholds]:
    """``budget`` with the cost-aware trigger and target of :func:`thresholds` (and why)."""
    th = thresholds(
        budget.history_budget, budget.trigger_tokens, budget.target_tokens, growth,
        read=config.read_weight, write=config.write_weight, deep_target=config.deep_target, min_trigger=config.min_trigger,
        max_trigger=config.max_trigger,
    )
    return replace(budget, trigger_tokens=th.trigger, target_tokens=th.target), th
