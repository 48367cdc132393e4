"""When and how deep to compact by what it costs (compaction/economics.py), and the Session using it."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from contextwindow.budget import compute_budget
from contextwindow.compaction import economics
from contextwindow.compaction.cache import CacheConfig
from contextwindow.compaction.economics import (
    FoldNow,
    Growth,
    cost_budget,
    eoq_trigger,
    fold_now,
    pass_cost,
    thresholds,
)
from contextwindow.compaction.policy import CompactionConfig, fold_first
from contextwindow.compaction.view import ViewItem
from contextwindow.messages import Message, ToolCallPart, assistant, system, tool_result, user
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
def test_pricing_the_summary_call_bills_less_and_keeps_fidelity(window: int) -> None:
    """On a prose-heavy session (little for clearing to take), the policy that prices each pass's
    summary call (the folded tokens read at the read price: the request rides the cache; the
    summary at the output price) bills less, summaries included, than the same policy blind to
    the summary (its size taken as 0: no summary price, and so no fold kind either, which is
    priced by its summary) — 0.5-0.7x on this seed, with nothing over the window or invalid and
    every rule kept. What is compared is the pricing of summaries as a whole, fold kind included."""
    session = prose_heavy_session(7)
    priced = replay(session, ["default"], window=window).policy("default")
    blind = replay(session, ["default"], window=window, cache=CacheConfig(summary_input_weight=0.0, summary_tokens=0)).policy("default")
    assert priced.summary_calls > 0
    assert priced.billed_with_summaries < blind.billed_with_summaries
    for d in (priced, blind):
        assert d.over_window_calls == 0 and d.invalid_payloads == 0
        assert d.constraints_total > 0 and d.constraints_kept == d.constraints_total


@pytest.mark.parametrize("window", [40_000, 60_000, 80_000])
def test_on_a_prose_heavy_session_default_bills_no_more_than_claude_code_above_the_floor(window: int) -> None:
    """The passes that fold whole turns are priced by what a fold keeps NOW (the newest turn and
    a summary the size of the last one, before the first one ``first_summary_tokens``), so they
    come at turn starts and earlier than a pass that aims at deep_target; the rules the ledger
    holds are appended by the harness, not written as output: default's bill above the floor is at
    most claude-code's (0.68 / 0.94 / 0.69 at 40k / 60k / 80k on this seed, a FIT seed; 1.12 / 1.73 /
    1.18 before the fold kind, 0.81 / 1.20 / 0.88 before the carried ledger and the prior)."""
    session = prose_heavy_session(7)
    r = replay(session, ["claude-code", "default"], window=window)
    cc, d = r.policy("claude-code"), r.policy("default")
    assert d.over_window_calls == 0 and d.invalid_payloads == 0 and d.constraints_kept == d.constraints_total > 0
    above = d.billed_with_summaries - d.floor_input_tokens
    assert above <= cc.billed_with_summaries - cc.floor_input_tokens
    # default folds there, and each fold came at a turn's start (4 calls a turn)
    folds = [c for c, what in d.markers if what == "fold"]
    assert folds and all(c % 4 == 0 for c in folds)


def _items(messages: list[Message]) -> list[ViewItem]:
    return [ViewItem(f"m{i}", m, 10 * (i + 1)) for i, m in enumerate(messages)]


def test_fold_now_reads_the_newest_turn_the_last_summary_and_the_turns_length() -> None:
    call = ToolCallPart("c1", "bash", "{}")
    one_turn = [system("sys"), user("do it"), assistant("", call), tool_result("c1", "ok"), assistant("done")]
    assert fold_now(_items(one_turn)) is None  # the newest turn is never folded: nothing to take
    two = [*one_turn, user("again"), assistant("", ToolCallPart("c2", "bash", "{}")), tool_result("c2", "ok")]
    items = _items(two)
    got = fold_now(items)
    assert got is not None
    # kept: the leading system message (10) and the newest turn (60 + 70 + 80); no summary yet
    assert got == FoldNow(kept=10 + 60 + 70 + 80, summary=None, steps=1, turn_calls=2)
    # a fold summary after the system message is the last summary written; a turn's start has no steps
    fold = ViewItem("fold:x", user("summary"), 1_234)
    start = fold_now([items[0], fold, *items[1:6]])
    assert start == FoldNow(kept=10 + 60, summary=1_234, steps=0, turn_calls=2)


def test_a_fold_of_the_oldest_turns_is_chosen_when_what_it_keeps_now_is_small() -> None:
    kw = {"read": 0.1, "write": 1.25, "deep_target": 0.2, "min_trigger": 0.1, "max_trigger": 0.9, "summary_in": 0.1, "summary": 5.0 * 4_000, "sigma": 4_000}
    growth = grown(20, 1_700)
    plain = thresholds(44_000, 33_000, 22_000, growth, **kw)
    assert not plain.fold_first and plain.target == 8_800
    # mid-turn, a fold that would keep little beats the deep pass at its own trigger
    small = thresholds(44_000, 33_000, 22_000, growth, **kw, fold=FoldNow(kept=100, summary=None, steps=2, turn_calls=4))
    s = 100 + 4_000  # what the fold keeps: the newest turn and a summary the size of the budget
    assert small.fold_first and small.target == s
    assert small.trigger == pytest.approx(eoq_trigger(s, 1_700, 0.1, 1.25, 20_000), abs=1)
    assert small.trigger < plain.trigger
    assert economics.cycle_cost(small.trigger, s, 1_700, read=0.1, write=1.25, summary_in=0.1, summary=20_000) < economics.cycle_cost(
        plain.trigger, 8_800, 1_700, read=0.1, write=1.25, summary_in=0.1, summary=20_000
    )
    # the last summary's size is what the next one is taken to be
    learned = thresholds(44_000, 33_000, 22_000, growth, **kw, fold=FoldNow(kept=100, summary=1_500, steps=2, turn_calls=4))
    assert learned.fold_first and learned.trigger < small.trigger
    # a newest turn that is most of the history (one long turn): the deep pass stays
    long_turn = thresholds(44_000, 33_000, 22_000, growth, **kw, fold=FoldNow(kept=30_000, summary=None, steps=40, turn_calls=4))
    assert long_turn == plain
    # at a turn's start, when the budget's trigger (39.6k) would force a pass within the next turn, fold now
    late = thresholds(44_000, 33_000, 22_000, growth, **kw, fold=FoldNow(kept=100, summary=1_500, steps=0, turn_calls=15))
    assert late.fold_first and late.trigger == 39_600 - 15 * 1_700 < learned.trigger and "next turn" in late.reason
    # before the first summary, its size is taken to be first_sigma (never above the budget);
    # once one is measured, that one's size, even above first_sigma
    prior = thresholds(44_000, 33_000, 22_000, growth, **kw, first_sigma=1_500, fold=FoldNow(kept=100, summary=None, steps=2, turn_calls=4))
    assert prior.fold_first and prior.trigger == learned.trigger and prior.target == small.target
    measured = thresholds(44_000, 33_000, 22_000, growth, **kw, first_sigma=1_500, fold=FoldNow(kept=100, summary=3_000, steps=2, turn_calls=4))
    assert measured == thresholds(44_000, 33_000, 22_000, growth, **kw, fold=FoldNow(kept=100, summary=3_000, steps=2, turn_calls=4))
    assert measured.trigger > prior.trigger
    capped = thresholds(44_000, 33_000, 22_000, growth, **kw, first_sigma=9_000, fold=FoldNow(kept=100, summary=None, steps=2, turn_calls=4))
    assert capped == small
    # with nothing measured the latest trigger holds, whatever a fold would keep
    assert not thresholds(44_000, 33_000, 22_000, Growth(), **kw, fold=FoldNow(100, None)).fold_first


def test_a_fold_first_pass_summarizes_before_it_truncates() -> None:
    cfg = fold_first(CompactionConfig())
    assert cfg.strategies[0] == "summarize" and sorted(cfg.strategies) == sorted(CompactionConfig().strategies)
    none = CompactionConfig(strategies=("mask", "truncate"))
    assert fold_first(none) == none
