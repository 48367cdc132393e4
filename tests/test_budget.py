"""Budget waterfall, thresholds, gauge and session limits (contextwindow.budget)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import budget as b
from contextwindow.budget import (
    DEFAULT_MAX_OUTPUT,
    DEFAULT_WINDOW,
    BudgetConfig,
    Limits,
    check_limits,
    compute_budget,
    exceeded,
    gauge,
    should_compact,
    should_fold,
)
from contextwindow.errors import ConfigError, LimitExceeded

# --- config ------------------------------------------------------------------------------------


def test_config_defaults() -> None:
    cfg = BudgetConfig()
    assert (cfg.output_cap, cfg.safety_buffer, cfg.trigger, cfg.target, cfg.fold_threshold) == (
        20_000,
        None,
        0.75,
        0.50,
        0.85,
    )
    assert DEFAULT_WINDOW == 128_000


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"trigger": 0.5, "target": 0.5}, "target=0.5 must be below trigger=0.5"),
        ({"trigger": 1.5}, "trigger=1.5"),
        ({"target": 0.0}, "target=0.0"),
        ({"fold_threshold": 0}, "fold_threshold=0"),
        ({"output_cap": 0}, "output_cap=0"),
        ({"output_cap": 1.5}, "output_cap=1.5"),
        ({"safety_buffer": -1}, "safety_buffer=-1"),
        ({"trigger": float("nan")}, "trigger=nan"),
        ({"trigger": True}, "trigger=True"),
    ],
)
def test_config_rejects_bad_values(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        BudgetConfig(**kwargs)  # type: ignore[arg-type]
    assert fragment in str(info.value)


def test_from_env_reads_every_variable() -> None:
    env = {
        "CONTEXTWINDOW_TRIGGER": "0.8",
        "CONTEXTWINDOW_TARGET": "40%",
        "CONTEXTWINDOW_FOLD_THRESHOLD": "off",
        "CONTEXTWINDOW_OUTPUT_CAP": "8_000",
        "CONTEXTWINDOW_SAFETY_BUFFER": "1000",
        "UNRELATED": "x",
    }
    cfg = BudgetConfig.from_env(env)
    assert cfg == BudgetConfig(output_cap=8000, safety_buffer=1000, trigger=0.8, target=0.4, fold_threshold=None)


def test_from_env_empty_env_is_defaults_and_blank_values_are_unset() -> None:
    assert BudgetConfig.from_env({}) == BudgetConfig()
    assert BudgetConfig.from_env({"CONTEXTWINDOW_TRIGGER": "  ", "CONTEXTWINDOW_SAFETY_BUFFER": "auto"}) == BudgetConfig()


def test_overrides_beat_env_and_none_turns_fold_off() -> None:
    env = {"CONTEXTWINDOW_TRIGGER": "0.9", "CONTEXTWINDOW_FOLD_THRESHOLD": "0.95"}
    cfg = BudgetConfig.from_env(env, trigger=0.7, fold_threshold=None)
    assert cfg.trigger == 0.7
    assert cfg.fold_threshold is None


@pytest.mark.parametrize(
    "var, value",
    [
        ("CONTEXTWINDOW_TRIGGER", "lots"),
        ("CONTEXTWINDOW_TRIGGER", "1.2"),
        ("CONTEXTWINDOW_TRIGGER", "inf"),
        ("CONTEXTWINDOW_TARGET", "-0.1"),
        ("CONTEXTWINDOW_FOLD_THRESHOLD", "maybe"),
        ("CONTEXTWINDOW_OUTPUT_CAP", "20k"),
        ("CONTEXTWINDOW_OUTPUT_CAP", "0"),
        ("CONTEXTWINDOW_SAFETY_BUFFER", "-5"),
    ],
)
def test_from_env_bad_value_names_variable_and_value(var: str, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        BudgetConfig.from_env({var: value})
    assert var in str(info.value)
    assert repr(value) in str(info.value) or value in str(info.value)


def test_from_env_cross_check_names_both_sources() -> None:
    with pytest.raises(ConfigError) as info:
        BudgetConfig.from_env({"CONTEXTWINDOW_TARGET": "0.8"}, trigger=0.6)
    msg = str(info.value)
    assert "CONTEXTWINDOW_TARGET=0.8" in msg and "trigger=0.6" in msg


def test_from_env_unknown_override() -> None:
    with pytest.raises(ConfigError, match="triger"):
        BudgetConfig.from_env({}, triger=0.7)


# --- waterfall ---------------------------------------------------------------------------------


def test_waterfall_by_hand() -> None:
    cfg = BudgetConfig(safety_buffer=2_000)
    bud = compute_budget(200_000, 64_000, system_tokens=10_000, tool_tokens=5_000, summary_tokens=3_000, config=cfg)
    assert bud.output_reserve == 20_000  # capped
    assert bud.history_budget == 200_000 - 20_000 - 10_000 - 5_000 - 3_000 - 2_000 == 160_000
    assert bud.trigger_tokens == 120_000
    assert bud.target_tokens == 80_000
    assert bud.fold_tokens == 170_000
    assert bud.fixed_overflow == 0
    assert bud.fixed == 40_000
    assert "history 160,000" in bud.describe()


def test_output_reserve_is_max_output_when_below_cap() -> None:
    bud = compute_budget(32_000, 4_096)
    assert bud.output_reserve == 4_096


def test_default_safety_buffer_is_two_percent_with_floor() -> None:
    assert compute_budget(200_000, 1000).safety_buffer == 4_000
    assert compute_budget(8_000, 1000).safety_buffer == b.SAFETY_BUFFER_FLOOR
    assert compute_budget().window == DEFAULT_WINDOW
    assert compute_budget().output_reserve == DEFAULT_MAX_OUTPUT


def test_fixed_overflow_never_negative_history() -> None:
    bud = compute_budget(10_000, 8_000, system_tokens=3_000, config=BudgetConfig(safety_buffer=0))
    assert bud.history_budget == 0
    assert bud.fixed_overflow == 1_000
    assert bud.trigger_tokens == 0 and bud.target_tokens == 0
    assert "OVERFLOW BY 1,000" in bud.describe()


def test_fold_off() -> None:
    assert compute_budget(config=BudgetConfig(fold_threshold=None)).fold_tokens is None


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"window": 0}, "window"),
        ({"max_output": -1}, "max_output"),
        ({"system_tokens": 1.5}, "system_tokens"),
        ({"tool_tokens": True}, "tool_tokens"),
        ({"summary_tokens": -3}, "summary_tokens"),
    ],
)
def test_compute_budget_rejects_bad_numbers(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        compute_budget(**kwargs)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(
    window=st.integers(1, 2_000_000),
    max_output=st.integers(0, 200_000),
    system=st.integers(0, 300_000),
    tools=st.integers(0, 300_000),
    summary=st.integers(0, 300_000),
    buffer=st.one_of(st.none(), st.integers(0, 50_000)),
    trigger=st.floats(0.02, 1.0),
    ratio=st.floats(0.01, 0.99),
)
def test_waterfall_invariants(
    window: int, max_output: int, system: int, tools: int, summary: int, buffer: int | None, trigger: float, ratio: float
) -> None:
    target = trigger * ratio
    if not 0 < target < trigger:
        return
    cfg = BudgetConfig(safety_buffer=buffer, trigger=trigger, target=target)
    bud = compute_budget(window, max_output, system, tools, summary, cfg)
    assert bud.history_budget >= 0 and bud.fixed_overflow >= 0
    # the parts always add up to the window (with the overflow on the other side)
    assert bud.fixed + bud.history_budget == window + bud.fixed_overflow
    assert bud.history_budget == 0 or bud.fixed_overflow == 0
    assert bud.output_reserve == min(max_output, cfg.output_cap)
    assert 0 <= bud.target_tokens <= bud.trigger_tokens <= bud.history_budget
    assert bud.fold_tokens is not None and bud.fold_tokens <= window


# --- decisions ---------------------------------------------------------------------------------


def _bud() -> b.Budget:
    # history budget 100,000: trigger 75,000, target 50,000; prompt fixed 15,000; fold at 114,750
    cfg = BudgetConfig(safety_buffer=0, output_cap=20_000)
    bud = compute_budget(135_000, 30_000, system_tokens=10_000, tool_tokens=5_000, summary_tokens=0, config=cfg)
    assert bud.history_budget == 100_000
    return bud


def test_should_compact_estimate_only() -> None:
    bud = _bud()
    below = should_compact(74_999, None, bud)
    assert not below.over and below.effective == 74_999 and below.reported is None
    at = should_compact(75_000, None, bud)
    assert at.over and at.threshold == 75_000 and at.target == 50_000 and at.to_free == 25_000
    assert at.describe().startswith("compact: history estimate 75,000 ≥ trigger 75,000")
    assert below.describe().startswith("no compact:")
    assert below.to_free == 0


def test_should_compact_uses_the_higher_of_estimate_and_report() -> None:
    bud = _bud()
    # provider said 92,000 for the whole prompt: 77,000 of it is history → over although estimate is 60,000
    d = should_compact(60_000, 92_000, bud)
    assert d.reported == 77_000 and d.effective == 77_000 and d.over
    assert "reported 77,000 (estimate 60,000 is lower)" in d.describe()
    # a low report never lowers the estimate
    d2 = should_compact(80_000, 20_000, bud)
    assert d2.effective == 80_000 and d2.over
    assert d2.last_reported == 20_000 and d2.reported == 5_000


def test_should_compact_empty_history_never_over_even_with_zero_budget() -> None:
    bud = compute_budget(1_000, 1_000)
    assert bud.history_budget == 0
    assert not should_compact(0, None, bud).over
    d = should_compact(10, None, bud)
    assert d.over and "fixed parts exceed the window" in d.reason


def test_should_compact_rejects_negative() -> None:
    with pytest.raises(ConfigError, match="estimate"):
        should_compact(-1, None, _bud())
    with pytest.raises(ConfigError, match="last_reported"):
        should_compact(1, -1, _bud())


def test_should_fold() -> None:
    bud = _bud()
    assert bud.fold_tokens == 114_750
    assert not should_fold(99_749, None, bud).over  # 99,749 + 15,000 fixed = 114,749
    d = should_fold(99_750, None, bud)
    assert d.over and d.effective == 114_750 and d.kind == "fold"
    assert should_fold(10, 114_750, bud).over
    assert not should_fold(10, 114_749, bud).over
    off = compute_budget(130_000, 30_000, config=BudgetConfig(fold_threshold=None))
    d_off = should_fold(10**6, 10**6, off)
    assert not d_off.over and "off" in d_off.describe()


# --- gauge -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "used, window, severity",
    [
        (0, 100, "ok"),
        (69, 100, "ok"),
        (70, 100, "warn"),
        (89, 100, "warn"),
        (90, 100, "critical"),
        (150, 100, "critical"),
        (699_999, 1_000_000, "ok"),
        (700_000, 1_000_000, "warn"),
        (899_999, 1_000_000, "warn"),
        (900_000, 1_000_000, "critical"),
        # 70% of 128,000 is 89,600 exactly
        (89_599, 128_000, "ok"),
        (89_600, 128_000, "warn"),
        (115_199, 128_000, "warn"),
        (115_200, 128_000, "critical"),
    ],
)
def test_gauge_boundaries(used: int, window: int, severity: str) -> None:
    g = gauge(used, window)
    assert g.severity == severity
    assert math.isclose(g.percent, 100 * used / window)


def test_gauge_describe_and_errors() -> None:
    assert gauge(45_000, 128_000).describe() == "45,000 / 128,000 tokens (35.2%) ok"
    with pytest.raises(ConfigError, match="window"):
        gauge(1, 0)
    with pytest.raises(ConfigError, match="used"):
        gauge(-1, 10)


# --- limits ------------------------------------------------------------------------------------


def test_no_limits_never_exceeded() -> None:
    check_limits(Limits(), turns=10**9, tokens=10**12, tool_calls=10**6, cost_usd=1e6, wall_s=1e9)
    assert exceeded(Limits(), turns=10**9) == []


def test_limit_at_maximum_is_allowed_above_raises() -> None:
    lim = Limits(max_turns=10)
    check_limits(lim, turns=10)
    with pytest.raises(LimitExceeded) as info:
        check_limits(lim, turns=11)
    err = info.value
    assert (err.limit, err.value, err.maximum) == ("turns", 11, 10)
    assert "turns" in str(err) and "11" in str(err)


@pytest.mark.parametrize(
    "limits, kwargs, name",
    [
        (Limits(max_tokens=1_000), {"tokens": 1_001}, "tokens"),
        (Limits(max_tool_calls=5), {"tool_calls": 6}, "tool_calls"),
        (Limits(max_cost_usd=0.5), {"cost_usd": 0.5001}, "cost_usd"),
        (Limits(max_wall_s=60), {"wall_s": 60.5}, "wall_s"),
    ],
)
def test_each_limit(limits: Limits, kwargs: dict[str, float], name: str) -> None:
    with pytest.raises(LimitExceeded) as info:
        check_limits(limits, **kwargs)  # type: ignore[arg-type]
    assert info.value.limit == name


def test_first_exceeded_limit_raises_and_exceeded_lists_all() -> None:
    lim = Limits(max_turns=1, max_tokens=10, max_tool_calls=1, max_cost_usd=1.0, max_wall_s=1.0)
    hits = exceeded(lim, turns=1, tokens=11, tool_calls=2, cost_usd=2.0, wall_s=0.5)
    assert [h.limit for h in hits] == ["tokens", "tool_calls", "cost_usd"]
    assert hits[1].value == 2 and hits[1].maximum == 1
    with pytest.raises(LimitExceeded) as info:
        check_limits(lim, turns=1, tokens=11, tool_calls=2, cost_usd=2.0, wall_s=0.5)
    assert info.value.limit == "tokens"
    assert isinstance(hits[2].error(), LimitExceeded)


def test_limits_reject_bad_numbers() -> None:
    with pytest.raises(ConfigError, match="max_turns"):
        Limits(max_turns=-1)
    with pytest.raises(ConfigError, match="cost_usd"):
        check_limits(Limits(), cost_usd=float("nan"))


def test_module_is_pure() -> None:
    """Invariant 7: the budget module imports nothing that reaches a clock, disk, network or env."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(b))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported <= {"__future__", "math", "collections.abc", "dataclasses", "typing", ".errors"}


@settings(max_examples=200, deadline=None)
@given(estimate=st.integers(0, 300_000), reported=st.one_of(st.none(), st.integers(0, 400_000)))
def test_should_compact_rule(estimate: int, reported: int | None) -> None:
    bud = _bud()
    d = should_compact(estimate, reported, bud)
    history_reported = None if reported is None else max(0, reported - 15_000)
    assert d.reported == history_reported
    assert d.effective == max(estimate, history_reported or 0)
    assert d.over == (d.effective >= 75_000)
    assert d.to_free == (d.effective - 50_000 if d.over else 0)
    assert "\n" not in d.describe()
