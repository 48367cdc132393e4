"""Calibration from provider usage, the safety rule, and the running ledger."""

from __future__ import annotations

import importlib
import statistics
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextwindow.errors import ConfigError
from contextwindow.messages import user
from contextwindow.tokens import (
    Calibration,
    RunningCount,
    anchored_estimate,
    calibrate,
    counter_for,
    effective_tokens,
    median_ratio,
)


def test_learns_growth_ratio_and_ignores_constant_prefix() -> None:
    # reported = 20_000 (unseen system prompt) + 1.3 x estimate
    pairs = [(e, 20_000 + round(1.3 * e)) for e in range(1_000, 30_000, 1_000)]
    cal = calibrate(pairs, "anthropic")
    assert cal.factor == pytest.approx(1.3, abs=0.02)
    assert cal.apply(1000) == pytest.approx(1300, abs=20)


def test_one_outlier_does_not_swing_it() -> None:
    pairs = [(e, round(1.2 * e)) for e in range(1_000, 20_000, 1_000)]
    pairs.append((20_000, 10 * 20_000))
    cal = calibrate(pairs)
    assert cal.factor < 1.7  # clamped ratio, EWMA


@given(st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)), max_size=30))
def test_factor_always_clamped(pairs: list[tuple[int, int]]) -> None:
    cal = calibrate(pairs)
    assert 0.5 <= cal.factor <= 2.0
    assert 0.5 <= median_ratio(pairs) <= 2.0


def test_negative_is_refused() -> None:
    with pytest.raises(ConfigError):
        Calibration().observe(-1, 5)


def test_safety_rule() -> None:
    assert effective_tokens(1000, 1500, True) == 1500
    assert effective_tokens(1000, 1500, False) == 1000
    assert effective_tokens(2000, 1500, True) == 2000
    assert effective_tokens(2000, None, True) == 2000
    assert anchored_estimate(30_000, 10_000, 12_500) == 32_500
    assert anchored_estimate(100, 10_000, 0) == 0


def test_running_count_incremental() -> None:
    c = counter_for("claude-sonnet-4-5")
    msgs = [user(f"message number {i} " * (i + 1)) for i in range(20)]
    rc = RunningCount(c, msgs[:10], base=500)
    assert rc.total == 500 + rc.framing + sum(c.count_message(m) for m in msgs[:10])
    added = rc.append(msgs[10])
    assert added == c.count_message(msgs[10]) and len(rc) == 11
    removed = rc.truncate(5)
    assert removed == sum(c.count_message(m) for m in msgs[5:11])
    assert rc.counts == tuple(c.count_message(m) for m in msgs[:5])
    rc.replace_from(3, msgs[15:18])
    assert rc.total == 500 + rc.framing + sum(c.count_message(m) for m in msgs[:3] + msgs[15:18])
    assert rc.fits(rc.total) and not rc.fits(rc.total - 1)
    assert rc.headroom(rc.total + 10) == 10
    assert rc.append_checked(user("x"), 10**9)
    with pytest.raises(ConfigError):
        rc.truncate(-1)


class _CallCounting:
    """A real TokenCounter (the estimator underneath) that counts the messages it is asked about."""

    def __init__(self) -> None:
        self.inner = counter_for(None)
        self.name, self.exact, self.profile = self.inner.name, self.inner.exact, self.inner.profile
        self.messages_counted = 0

    def count_text(self, text: str) -> int:
        return self.inner.count_text(text)

    def count_message(self, message):  # type: ignore[no-untyped-def]
        self.messages_counted += 1
        return self.inner.count_message(message)

    def count_messages(self, messages):  # type: ignore[no-untyped-def]
        return sum(self.count_message(m) for m in messages)

    def count_tools(self, tools):  # type: ignore[no-untyped-def]
        return self.inner.count_tools(tools)


def test_append_cost_is_flat() -> None:
    # the work of an append is counted, not timed: each append measures the new message only,
    # whatever the history's length (speed lives in benchmarks/)
    for n in (1_000, 20_000):
        c = _CallCounting()
        rc = RunningCount(c, [user(f"tool output line {i}\n" * 5) for i in range(n)])
        assert c.messages_counted == n
        before = rc.total
        extra = [user(f"new message {i}") for i in range(500)]
        for m in extra:
            assert rc.append_checked(m, 10**9)
        assert c.messages_counted == n + len(extra)
        assert rc.total == before + sum(c.inner.count_message(m) for m in extra)


def _bench_module() -> object:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_tokens_common.py"
    sys.path.insert(0, str(path.parent))
    return importlib.import_module("bench_tokens_common")


@pytest.mark.fixtures
def test_estimator_on_real_claude_sessions(transcripts_dir: Path) -> None:
    """Growth of the estimate tracks growth of provider-reported input tokens (first call anchors
    the unseen system prompt + tools); the fixed chars/4 ratio does much worse."""
    mod = _bench_module()
    calls = [c for f in ("codemie_session-196820da.jsonl", "spotter_subagent.jsonl", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
             for c in mod.load_claude_calls(transcripts_dir / "claude_code" / f)]  # type: ignore[attr-defined]
    assert len(calls) > 50
    errs: list[float] = []
    errs4: list[float] = []
    by: dict[str, list] = {}
    for c in calls:
        by.setdefault(c.chain, []).append(c)
    for chain in by.values():
        counter = counter_for(chain[0].model)
        e0 = counter.count_messages(chain[0].messages)
        c0 = sum(len(m.text) for m in chain[0].messages)
        for c in chain[1:]:
            e = counter.count_messages(c.messages)
            errs.append(abs(chain[0].reported + e - e0 - c.reported) / c.reported)
            errs4.append(abs(chain[0].reported + (sum(len(m.text) for m in c.messages) - c0) / 4 - c.reported) / c.reported)
    assert statistics.median(errs) < 0.05
    assert statistics.median(errs) < statistics.median(errs4)
