"""When and how deep to compact, by what it costs under a prompt cache. Pure.

A provider's prompt cache bills a call's unchanged prefix at the read price and what follows the
first changed byte at the write price (the input price where writes are not charged). A compaction
pass changes the view from its oldest changed item on, so it pays a cache write of what it keeps
(``s`` tokens) instead of a read; between two passes the history grows ``g`` tokens a call from ``s``
back up to the trigger ``T`` and is read on every call. A pass that summarizes also pays the summary
call: the ``T - s`` tokens it folds sent to the summarizer (``u`` per token: the read price, since the
summary request re-sends the conversation's cached prompt and appends its instruction,
folding/cached.py; the input price for a flat transcript no cache holds) and the summary written
(``sigma`` tokens at ``o``, the output price). The request also reads the ``s`` tokens the pass keeps
(``u * s`` once a pass, about a tenth of its rewrite's ``(write - read) * s``); that is left out of the
formula. Per call, over one such cycle::

    cost(T, s) = read * (T + s) / 2  +  ((write - read) * s + o * sigma) * g / (T - s)  +  u * g

- ``cost`` grows with ``s`` for any ``T``: compact as DEEP as fidelity allows. A pass aims at
  ``deep_target`` of the history budget; what fidelity keeps (the newest turn and steps, the
  constraint ledger in the summary, restored files) stays whatever the aim, so ``s`` is also never
  taken below the size the last pass really reached.
- ``cost`` is lowest at ``T* = s + sqrt(2 * ((write - read) * s + o * sigma) * g / read)`` (the
  economic order quantity of inventory theory, with the rewrite and the summary's output as the order
  cost and the reads as the holding cost; the summarizer's input, ``u * g`` a call, is the same
  whenever the pass comes): waiting longer pays more reads than the writes it saves, compacting
  sooner pays more writes and summaries. The trigger is ``T*`` kept between ``min_trigger`` of the budget (a guard: no pass for
  cost alone on a history that small) and the LATEST trigger: the budget's own or ``max_trigger``
  of the history budget, whichever is later (rare passes: the budget itself still binds).
- A pass at ``T`` costs ``K = (write - read) * s + u * (T - s) + o * sigma`` once and saves
  ``read * (T - s)`` on every call after it (what the history no longer carries). How long a session
  will go on is unknown; it is taken to last at least as long again as it has so far (a session
  that has made n calls has, as often as not, n more to come), so unless ``read * (T* - s) * n >= K``
  the latest trigger holds, as it does before any growth is measured. With a summary priced as a
  flat model call (``u = 1``, ``read = 0.1``) that took at least ten calls to come, whatever the
  sizes; riding the cache (``u = read``) it takes about one, plus what the rewrite and the summary's
  output cost.

Two kinds of pass. The one above aims at ``deep_target`` and prices a summary of the whole summary
budget; on agent sessions it mostly clears and truncates. Where the history is mostly finished
turns (the model's own prose, little tool output to clear), what a pass keeps is a summary and the
newest turn, and both are known before it runs (:func:`fold_now`: the newest turn's tokens, the
last summary's size): the same cycle cost, with ``s = newest turn + sigma_hat`` and the summary at
``sigma_hat`` (the last summary's size; before the first, ``CacheConfig.first_summary_tokens``, a fitted prior; never above the budget), prices a fold of every turn but the
newest. When its cycle costs less, its trigger is used and the pass folds first
(``Thresholds.fold_first``: it summarizes before it truncates). ``s`` is least
at a turn's start and grows with the turn, so these folds come at turn starts; at a turn's start,
if the latest trigger (the budget's, widened to ``max_trigger`` of the history budget) would force a pass
before the next turn starts, the fold comes now.

:class:`Growth` measures ``g`` from the builds a Session makes; :func:`thresholds` turns the
budget's trigger and target into the cost-aware ones. The knobs live in
:class:`~contextwindow.compaction.cache.CacheConfig` (fitted: docs/replay.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..budget import Budget
from ..turns import _starts_turn
from .cache import CacheConfig
from .view import ViewItem, is_synthetic


@dataclass(slots=True)
class Growth:
    """History growth per call, measured between builds (tokens the view gained since the last
    build, whatever compaction did then), and what the last compaction pass left."""

    calls: int = 0
    grown: int = 0
    last_after: int | None = None  # history tokens the previous build sent
    reached: int | None = None  # history tokens the last compaction pass left
    cleared: int = 0  # tokens the per-call clearing step took so far (compaction/cache.py: the rate clearables accrue at)

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


def eoq_trigger(kept: float, growth: float, read: float, write: float, summary: float = 0.0) -> float:
    """``T*`` of the module docstring: the history size at which a pass down to ``kept`` tokens
    costs least per call (``inf`` when nothing grows or reads are free); ``summary``: the pass's
    fixed cost beyond the rewrite (``o * sigma``, input-price tokens)."""
    if growth <= 0 or read <= 0 or kept <= 0:
        return math.inf
    return kept + math.sqrt(2.0 * (max(0.0, write - read) * kept + max(0.0, summary)) * growth / read)


def pass_cost(trigger: float, kept: float, *, read: float, write: float, summary_in: float = 0.0, summary: float = 0.0) -> float:
    """``K`` of the module docstring: one pass from ``trigger`` down to ``kept`` tokens (input-price
    tokens): the rewrite of what it keeps, the summarizer reading what it folds, the summary."""
    return max(0.0, write - read) * kept + summary_in * max(0.0, trigger - kept) + summary


@dataclass(frozen=True, slots=True)
class FoldNow:
    """What a fold of every turn but the newest would keep if a pass made it now: ``kept`` tokens
    besides the new summary (the leading system messages and the newest turn, which a fold never
    takes), and ``summary``, the tokens of the view's fold summary (the last one written; the next,
    cumulative, is about as large), None before the first. ``steps``: the model's calls in the
    newest turn so far (0 at a turn's start); ``turn_calls``: in the turn before it (how long the
    next turn is taken to be)."""

    kept: int
    summary: int | None
    steps: int = 0
    turn_calls: int = 1


def fold_now(items: Sequence[ViewItem]) -> FoldNow | None:
    """:class:`FoldNow` for ``items``, or None when a fold would have nothing to take (fewer than
    two turns after the fold summary: the newest turn is never folded). Reads from the end back to
    the second-newest turn start (the whole view only in a one-turn session)."""
    newest = None
    steps = calls = 0
    for i in range(len(items) - 1, -1, -1):
        it = items[i]
        if it.message.role == "assistant":
            calls += 1
        elif _starts_turn(it.message) and not is_synthetic(it):
            if newest is not None:
                break
            newest, steps, calls = i, calls, 0
    else:
        return None  # (the loop ran out: at most one turn)
    assert newest is not None
    head = 0
    while head < len(items) and items[head].message.role == "system" and not is_synthetic(items[head]):
        head += 1
    summary = items[head].tokens if head < len(items) and items[head].key.startswith("fold:") else None
    kept = sum(it.tokens for it in items[:head]) + sum(it.tokens for it in items[newest:])
    return FoldNow(kept, summary, steps, max(1, calls))


@dataclass(frozen=True, slots=True)
class Thresholds:
    trigger: int
    target: int
    reason: str
    fold_first: bool = False  # the pass folds the oldest turns first (a fold is what pays, not a clear)


def cycle_cost(trigger: float, kept: float, growth: float, *, read: float, write: float, summary_in: float = 0.0, summary: float = 0.0) -> float:
    """``cost(T, s)`` of the module docstring: per call, over one cycle of passes at ``trigger``
    down to ``kept`` (input-price tokens; ``inf`` when the trigger is not above what is kept): the
    reads of the history as it grows back, and one :func:`pass_cost` spread over the calls of the
    cycle (``(T - s) / g`` of them; its summarizer's input, ``u * (T - s)``, is ``u * g`` a call)."""
    if trigger <= kept:
        return math.inf
    per_pass = pass_cost(trigger, kept, read=read, write=write, summary_in=summary_in, summary=max(0.0, summary))
    return read * (trigger + kept) / 2 + per_pass * growth / (trigger - kept)


def latest_trigger(trigger: int, history_budget: int, max_trigger: float) -> int:
    """The latest a pass may come: the budget's own trigger, or ``max_trigger`` of the history budget
    when that is later (the budget still binds)."""
    return max(trigger, min(history_budget, int(history_budget * max_trigger)))


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
    summary_in: float = 0.0,
    summary: float = 0.0,
    fold: FoldNow | None = None,
    sigma: int = 0,
    first_sigma: int | None = None,
) -> Thresholds:
    """The cost-aware trigger and target (tokens of history) for a budget whose own are
    ``trigger``/``target``: the target never above the budget's, the trigger never above the
    larger of the budget's and ``max_trigger`` of the history budget (the budget still binds).
    ``summary_in``/``summary``: the summary call's price per token folded and its fixed part
    (``u`` and ``o * sigma`` of the module docstring; 0 and 0 price passes as rewrites only).

    ``fold`` (what a fold of the oldest turns would keep if it ran now) and ``sigma`` (the summary
    budget, tokens) price a second kind of pass beside the one that aims at ``deep_target``: a
    fold of every turn but the newest, which keeps ``s = fold.kept + sigma_hat`` (``sigma_hat``:
    the view's last summary, else ``first_sigma``, else ``sigma``; never above ``sigma``). Where its cycle costs less, its trigger and a
    target that folds every older turn are used, with ``fold_first``: that pass summarizes before
    it truncates. ``fold.kept`` is small at a turn's start and grows with the newest turn, so this
    kind of pass comes at turn starts, and never where one long turn is the whole history."""
    trigger = latest_trigger(trigger, history_budget, max_trigger)
    deep = min(target, max(1, int(history_budget * deep_target)))
    kept = max(deep, growth.reached or 0)
    g = growth.per_call
    t_star = eoq_trigger(kept, g, read, write, summary)
    if not math.isfinite(t_star):
        return Thresholds(trigger, deep, "no growth measured yet: the latest trigger")
    low = int(history_budget * min_trigger)
    cost = pass_cost(t_star, kept, read=read, write=write, summary_in=summary_in, summary=summary)
    saved = read * (t_star - kept) * growth.calls
    if saved < cost:
        chosen = Thresholds(
            trigger, deep, f"a pass would save {saved:,.0f} over {growth.calls} calls to come, less than its cost {cost:,.0f} (it would not pay back): the latest trigger"
        )
    else:
        t = int(min(trigger, max(low, t_star)))
        if t <= deep:
            chosen = Thresholds(trigger, deep, "the cost-aware trigger would not be above the target: the latest trigger")
        else:
            chosen = Thresholds(t, deep, f"T*={t_star:,.0f} for kept {kept:,} and growth {g:,.0f}/call, held in [{low:,}, {trigger:,}]")
    if fold is None or sigma <= 0:
        return chosen
    per_token = summary / sigma  # the summary's price per output token (o)
    own = cycle_cost(chosen.trigger, kept, g, read=read, write=write, summary_in=summary_in, summary=summary)
    sigma_hat = min(sigma, fold.summary or first_sigma or sigma)
    s = fold.kept + sigma_hat
    t_fold = eoq_trigger(s, g, read, write, per_token * sigma_hat)
    if not math.isfinite(t_fold):
        return chosen
    k_fold = pass_cost(t_fold, s, read=read, write=write, summary_in=summary_in, summary=per_token * sigma_hat)
    if read * (t_fold - s) * growth.calls < k_fold:
        return chosen
    why = f"T*={t_fold:,.0f}"
    if fold.steps == 0 and g > 0 and trigger - g * fold.turn_calls < t_fold:
        # at a turn's start, when the latest trigger would force a pass before the next
        # turn starts (in the middle of it, keeping its steps), the fold is cheaper now
        t_fold = trigger - g * fold.turn_calls
        why = f"the next turn ({fold.turn_calls} calls) would cross {trigger:,}"
    t = int(min(trigger, max(low, t_fold)))
    aim = min(target, fold.kept + sigma)  # folds every turn but the newest (compaction/summarize.py)
    if t <= aim or cycle_cost(t, s, g, read=read, write=write, summary_in=summary_in, summary=per_token * sigma_hat) >= own:
        return chosen
    return Thresholds(t, aim, f"a fold now keeps {s:,} ({fold.kept:,} + a summary of {sigma_hat:,}): {why}, held in [{low:,}, {trigger:,}]", fold_first=True)


def cost_budget(
    budget: Budget, growth: Growth, config: CacheConfig, summary_tokens: int = 0, fold: FoldNow | None = None
) -> tuple[Budget, Thresholds]:
    """``budget`` with the cost-aware trigger and target of :func:`thresholds` (and why);
    ``summary_tokens``: a summary's size when ``config`` does not say (the summary budget);
    ``fold``: what a fold of the oldest turns would keep now (:func:`fold_now`)."""
    sigma = config.summary_tokens if config.summary_tokens is not None else summary_tokens
    th = thresholds(
        budget.history_budget, budget.trigger_tokens, budget.target_tokens, growth,
        read=config.read_weight, write=config.write_weight, deep_target=config.deep_target, min_trigger=config.min_trigger,
        max_trigger=config.max_trigger,
        summary_in=config.read_weight if config.summary_input_weight is None else config.summary_input_weight,
        summary=config.summary_output_weight * sigma,
        fold=fold,
        sigma=sigma,
        first_sigma=config.first_summary_tokens,
    )
    return replace(budget, trigger_tokens=th.trigger, target_tokens=th.target), th
