"""When and how deep to compact by what it costs (compaction/economics.py), and the Session using it."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from contextwindow.budget import compute_budget
from contextwindow.compaction.cache import CacheConfig
from contextwindow.compaction.economics import Growth, cost_budget, eoq_trigger, pass_cost, thresholds
from contextwindow.replay import replay

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from prose_sessions import prose_heavy_session


def cycle_cost(trigger: float, kept: float, growth: float, read: float, write: float) -> float:
    """Per call over one cycle: the history read on every call, the kept part rewritten once."""
    return read * (trigger + kept) / 2 + (write - read) * kept * growth / (trigger - kept)


@pytest.mark.parametrize("seed", range(20))
def test_the_trigger_is_where_a_cycle_costs_least(seed: int) -> None:
    rng = random.Random(seed)
    kept, growth = rng.uniform(500, 20_000), rng.uniform(50, 8_000)
    read, write = rng.choice([(0.1, 1.25), (0.1, 1.0), (0.5, 1.0), (0.25, 1.0)])
    t = eoq_trigger(kept, growth, read, write)
    best = cycle_cost(t, kept, growth, read, write)
    for factor in (0.5, 0.8, 0.95, 1.05, 1.25, 2.0):
        other = kept + (t - kept) * factor
        assert best <= cycle_cost(other, kept, growth, read, write) + 1e-9


def test_no_growth_or_free_reads_never_trigger() -> None:
    assert eoq_trigger(1_000, 0, 0.1, 1.25) == math.inf
    assert eoq_trigger(1_000, 100, 0.0, 1.25) == math.inf


def grown(calls: int, per_call: int, reached: int | None = None) -> Growth:
    g = Growth()
    size = 0
    g.after(size, compacted=False)
    for _ in range(calls):
        size += per_call
        g.before(size)
        g.after(size, compacted=False)
    g.reached = reached
    return g


def test_thresholds_keep_the_budget_until_growth_and_payback_say_otherwise() -> None:
    kw = {"read": 0.1, "write": 1.25, "deep_target": 0.1, "min_trigger": 0.1, "max_trigger": 0.9}
    fresh = thresholds(100_000, 75_000, 50_000, Growth(), **kw)
    assert (fresh.trigger, fresh.target) == (90_000, 10_000) and "no growth" in fresh.reason  # the latest trigger
    # T* for kept 10k and 1k/call: 10k + sqrt(2 * 1.15 * 10k * 1k / 0.1) ~ 25.2k, a cycle of ~15 calls
    early = thresholds(100_000, 75_000, 50_000, grown(5, 1_000), **kw)
    assert early.trigger == 90_000 and "pay back" in early.reason
    later = thresholds(100_000, 75_000, 50_000, grown(20, 1_000), **kw)
    assert later.trigger == pytest.approx(10_000 + math.sqrt(2 * 1.15 * 10_000 * 1_000 / 0.1), abs=1)
    # the floor and the ceiling of the trigger
    fast = thresholds(100_000, 75_000, 50_000, grown(40, 20_000), **kw)
    assert 75_000 < fast.trigger < 90_000  # T* ~ 77.8k: later than the budget's own trigger
    faster = thresholds(100_000, 75_000, 50_000, grown(40, 40_000), **kw)
    assert faster.trigger == 90_000  # T* ~ 106k is past the ceiling: the ceiling holds
    budgets_own = thresholds(100_000, 75_000, 50_000, grown(40, 20_000), **{**kw, "max_trigger": 0.5})
    assert budgets_own.trigger == 75_000  # a ceiling under the budget's trigger never lowers it
    slow = thresholds(100_000, 75_000, 50_000, grown(400, 10), **{**kw, "min_trigger": 0.3})
    assert slow.trigger == 30_000
    # what the last pass really kept counts: a pass cannot go deeper than fidelity lets it
    kept = thresholds(100_000, 75_000, 50_000, grown(60, 1_000, reached=20_000), **kw)
    assert kept.trigger > later.trigger


def cycle_cost_with_summary(trigger: float, kept: float, growth: float, read: float, write: float, fixed: float, u: float) -> float:
    """Per call over one cycle when each pass also pays a summary call: ``u`` per token folded
    (``trigger - kept`` of them) and ``fixed`` for the summary's output."""
    per_cycle = (write - read) * kept + fixed + u * (trigger - kept)
    return read * (trigger + kept) / 2 + per_cycle * growth / (trigger - kept)


@pytest.mark.parametrize("seed", range(20))
def test_with_a_summary_call_the_trigger_is_still_where_a_cycle_costs_least(seed: int) -> None:
    rng = random.Random(1_000 + seed)
    kept, growth = rng.uniform(500, 20_000), rng.uniform(50, 8_000)
    read, write = rng.choice([(0.1, 1.25), (0.1, 1.0), (0.5, 1.0)])
    fixed = rng.choice([4.0, 5.0]) * rng.uniform(200, 4_000)  # output weight x summary tokens
    t = eoq_trigger(kept, growth, read, write, fixed)
    assert t > eoq_trigger(kept, growth, read, write)  # a dearer pass comes later
    best = cycle_cost_with_summary(t, kept, growth, read, write, fixed, 1.0)
    for factor in (0.5, 0.8, 0.95, 1.05, 1.25, 2.0):
        other = kept + (t - kept) * factor
        assert best <= cycle_cost_with_summary(other, kept, growth, read, write, fixed, 1.0) + 1e-9


def test_a_pass_whose_summary_call_costs_more_than_the_reads_it_saves_waits_for_the_budget() -> None:
    """Folding a small history in a big window: the summarizer reads the folded tokens at the input
    price (10x a cache read), so the pass needs > 10 calls to come before it can pay at all."""
    kw = {"read": 0.1, "write": 1.25, "deep_target": 0.02, "min_trigger": 0.1, "max_trigger": 0.9}
    history = grown(12, 1_500)  # 12 calls so far, 18k of history in a 200k budget
    rewrites_only = thresholds(200_000, 150_000, 100_000, history, **kw)
    assert rewrites_only.trigger < 150_000 and "T*" in rewrites_only.reason
    priced = thresholds(200_000, 150_000, 100_000, history, **kw, summary_in=1.0, summary=5.0 * 2_000)
    assert priced.trigger == 180_000 and "pay back" in priced.reason
    # the same pass, once the session has gone on long enough for the reads saved to cover it
    later = thresholds(200_000, 150_000, 100_000, grown(40, 1_500), **kw, summary_in=1.0, summary=5.0 * 2_000)
    assert later.trigger < 150_000
    t = eoq_trigger(4_000, 1_500, 0.1, 1.25, 10_000)
    assert pass_cost(t, 4_000, read=0.1, write=1.25, summary_in=1.0, summary=10_000) == pytest.approx(1.15 * 4_000 + (t - 4_000) + 10_000)


def test_cost_budget_never_aims_shallower_than_the_budget() -> None:
    budget = compute_budget(128_000, 16_000)
    out, th = cost_budget(budget, grown(30, 2_000), CacheConfig())
    assert out.target_tokens <= budget.target_tokens
    assert out.history_budget == budget.history_budget and out.window == budget.window
    assert th.trigger == out.trigger_tokens


@pytest.mark.parametrize("window", [40_000, 60_000, 80_000])
def test_pricing_the_summary_call_makes_fewer_summaries_and_keeps_fidelity(window: int) -> None:
    """On a prose-heavy session (little for clearing to take), the policy that prices each pass's
    summary call (the folded tokens read at the read price: the request rides the cache; the summary at the output price) asks
    for fewer summaries than the same policy blind to that price, with nothing over the window or
    invalid and every rule kept. What it does NOT do here is bill less than claude-code (1.2-1.7x
    with the summaries' calls; docs/replay.md)."""
    session = prose_heavy_session(7)
    priced = replay(session, ["default"], window=window).policy("default")
    blind = replay(session, ["default"], window=window, cache=CacheConfig(summary_input_weight=0.0, summary_tokens=0)).policy("default")
    assert 0 < priced.summary_calls < blind.summary_calls
    for d in (priced, blind):
        assert d.over_window_calls == 0 and d.invalid_payloads == 0
        assert d.constraints_total > 0 and d.constraints_kept == d.constraints_total
