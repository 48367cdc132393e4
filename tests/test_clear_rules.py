"""The rules of WHEN a cache-aware clear comes: ``horizon`` (compaction/clearing.py) and the two tried
against it, ``eoq`` and ``balance`` (benchmarks/clear_rules.py, plugged in as ``ClearRule`` functions):
their arithmetic, and a seeded session on which the rules that wait clear later and less often."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from contextwindow.compaction.cache import CacheConfig, clear_for_cache
from contextwindow.compaction.clearing import ClearHistory, horizon_start, suffix_sums
from contextwindow.errors import ConfigError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from clear_rules import RULES, balance_start, candidate_ages, eoq_start, eoq_threshold
from contextwindow.messages import user
from test_cache_clear import _session, call, cleared, count, result, view

READ, REWRITE = 0.1, 1.15  # Anthropic's cache read and write less read, as weights of the input price


def test_suffix_sums() -> None:
    assert suffix_sums([1, 2, 3]) == [6, 5, 3]
    assert suffix_sums([]) == []


def test_the_eoq_size_is_the_square_root_of_twice_the_rewrite_times_the_accrual_over_the_read() -> None:
    assert eoq_threshold(1_000, 500, read=READ, rewrite=REWRITE) == pytest.approx(math.sqrt(2 * 1.15 * 1_000 * 500 / 0.1))
    assert eoq_threshold(1_000, 500, read=0.0, rewrite=REWRITE) == math.inf
    # four times the tail to rewrite: twice the size to wait for
    assert eoq_threshold(4_000, 500, read=READ, rewrite=REWRITE) == pytest.approx(2 * eoq_threshold(1_000, 500, read=READ, rewrite=REWRITE))


def test_eoq_clears_once_the_candidates_reach_the_square_root_size_and_not_before() -> None:
    tail, calls = 1_000, 20
    rewrites = [1_500, 1_200]
    # accrual = (cleared before + the candidates now) / calls; threshold = sqrt(2 * 1.15 * tail * accrual / 0.1)
    for gains, clears in (([1_800, 1_800], True), ([1_000, 1_000], False)):
        accrual = (4_000 + sum(gains)) / calls
        assert (sum(gains) >= eoq_threshold(tail, accrual, read=READ, rewrite=REWRITE)) is clears
        got = eoq_start(gains, rewrites, tail, ClearHistory(calls, 4_000), read=READ, rewrite=REWRITE, at_least=500)
        assert (got is not None) is clears
        if got is not None:
            net, start, took = got
            assert (start, took) == (0, 3_600) and net == pytest.approx(0.1 * 3_600 * calls - 1.15 * 1_500)


def test_eoq_waits_for_a_clear_that_would_not_pay_back_over_as_many_calls_again_unless_the_window_presses() -> None:
    gains, rewrites, tail = [3_000], [9_000], 100
    # ready by size (3,000 against ~155), but 0.1 * 3,000 * 2 calls < 1.15 * 9,000
    assert eoq_start(gains, rewrites, tail, ClearHistory(2), read=READ, rewrite=REWRITE, at_least=500) is None
    assert eoq_start(gains, rewrites, tail, ClearHistory(40), read=READ, rewrite=REWRITE, at_least=500) is not None
    # the window's trigger is one call away: a pass would come instead, so the clear comes now
    got = eoq_start(gains, rewrites, tail, ClearHistory(2, pressed=True), read=READ, rewrite=REWRITE, at_least=500)
    assert got is not None and got[1:] == (0, 3_000)
    # clear_at_least still holds under pressure
    assert eoq_start(gains, rewrites, tail, ClearHistory(2, pressed=True), read=READ, rewrite=REWRITE, at_least=5_000) is None


def test_balance_clears_once_what_waiting_has_cost_reaches_the_tail_s_rewrite() -> None:
    gains, rewrites, tail = [1_000, 1_000], [2_000, 1_000], 2_000
    # waited from the newest: 1,000 * age; the tail's rewrite: 1.15 * 2,000 = 2,300 = 0.1 * 23,000
    young = balance_start(gains, rewrites, [11, 11], tail, ClearHistory(30), read=READ, rewrite=REWRITE, at_least=500)
    assert young is None  # 0.1 * 22,000 < 2,300
    old = balance_start(gains, rewrites, [12, 11], tail, ClearHistory(30), read=READ, rewrite=REWRITE, at_least=500)
    assert old is not None and old[1:] == (0, 2_000)  # 0.1 * 23,000 >= 2,300, from the oldest


def test_horizon_takes_the_start_with_the_largest_positive_net_return() -> None:
    gains, rewrites = [500, 2_000], [20_000, 1_000]
    got = horizon_start(gains, rewrites, read=READ, rewrite=REWRITE, horizon=12, at_least=1_000)
    assert got is not None and got[1:] == (1, 2_000)  # from the oldest the rewrite would cost 23,000
    assert horizon_start(gains, rewrites, read=READ, rewrite=REWRITE, horizon=12, at_least=3_000) is None


def test_candidate_ages_count_the_calls_since_a_result_fell_out_of_the_newest_three() -> None:
    items = view([400] * 6)  # user, then call i / result i for i in 0..5
    cands = [2, 4, 6]  # results 0, 1, 2: results 3, 4, 5 are the newest three
    # result 0 became a candidate when result 3 came (at index 8): the calls after it are 4 and 5
    assert candidate_ages(items, cands, 3) == [2, 1, 0]
    # a call's long inputs age with the newest of its results
    assert candidate_ages(items, [1, 3], 3) == [2, 1]


def test_an_unknown_rule_is_a_config_error_naming_what_it_takes() -> None:
    with pytest.raises(ConfigError, match=r"clear_rule='eoq'.*'horizon' or a ClearRule function.*benchmarks/clear_rules.py"):
        CacheConfig(clear_rule="eoq")  # by name: the tried rules left the library
    with pytest.raises(ConfigError, match=r"clear_rule=3"):
        CacheConfig(clear_rule=3)  # type: ignore[arg-type]


def test_the_rules_that_wait_read_the_calls_from_the_view_when_no_history_is_given() -> None:
    items = view([400] * 20)
    for rule in ("eoq", "balance"):
        got = clear_for_cache(items, count, 0, CacheConfig(clear_rule=RULES[rule], clear_at_least=500))
        assert got is not None and 2 in cleared(got[0])
        assert not set(cleared(got[0])) & {len(items) - 1, len(items) - 3, len(items) - 5}  # the newest 3 results stay


def _clears(rule: str, seed: int, calls: int = 40) -> list[int]:
    s, steps = _session(CacheConfig(clear_rule=RULES[rule]))
    s.add(user("Port the parser; never change the public API."))
    rng = random.Random(seed)
    at = []
    for i in range(calls):
        s.add(call(i), result(i, rng.randint(150, 700)))
        before = len(steps)
        b = s.build()
        if len(steps) > before:
            at.append(i)
        assert "never change the public API." in b.messages[0].text
    return at


def test_on_a_seeded_session_the_rules_that_wait_clear_later_and_less_often_than_horizon() -> None:
    horizon, eoq, balance = (_clears(rule, seed=0) for rule in ("horizon", "eoq", "balance"))
    assert horizon and eoq and balance
    assert eoq[0] > horizon[0] and balance[0] > horizon[0]
    assert len(eoq) < len(horizon) and len(balance) < len(horizon)
