"""Review of budget and turns: properties of the waterfall, env parsing, the gauge's edges, limits,
and repair on damaged histories with parts the other property tests do not draw (results inside
assistant/system messages, images inside tool results, parallel calls, ids reused across messages)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contextwindow.budget import (
    ENV_VARS,
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
from contextwindow.messages import ImagePart, Message, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart, user
from contextwindow.turns import PROVIDERS, repair, safe_cut_points, turn_starts, validate

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- budget ----------------------------------------------------------------------------------------

fractions = st.floats(0.01, 1.0, allow_nan=False)


@st.composite
def configs(draw: st.DrawFn) -> BudgetConfig:
    trigger = draw(fractions)
    target = draw(st.floats(0.001, trigger, exclude_max=True, allow_nan=False))
    return BudgetConfig(
        output_cap=draw(st.integers(1, 10**7)),
        safety_buffer=draw(st.none() | st.integers(0, 10**6)),
        trigger=trigger,
        target=target,
        fold_threshold=draw(st.none() | fractions),
    )


@SETTINGS
@given(
    window=st.integers(1, 10**18),
    max_output=st.integers(0, 10**18),
    system=st.integers(0, 10**18),
    tools=st.integers(0, 10**18),
    summary=st.integers(0, 10**18),
    cfg=configs(),
)
@example(window=2**60 - 1, max_output=0, system=0, tools=0, summary=0, cfg=BudgetConfig(safety_buffer=0, trigger=1.0, target=0.999999, fold_threshold=1.0))
def test_waterfall_invariants(window: int, max_output: int, system: int, tools: int, summary: int, cfg: BudgetConfig) -> None:
    b = compute_budget(window, max_output, system, tools, summary, config=cfg)
    assert b.history_budget >= 0 and b.fixed_overflow >= 0
    assert b.history_budget - b.fixed_overflow == window - b.fixed  # exact: nothing lost to rounding
    assert 0 <= b.target_tokens <= b.trigger_tokens <= b.history_budget
    assert b.output_reserve == min(max_output, cfg.output_cap)
    if b.fold_tokens is not None:
        assert 0 <= b.fold_tokens <= window


@SETTINGS
@given(estimate=st.integers(0, 10**7), reported=st.none() | st.integers(0, 10**7), window=st.integers(1, 10**7), cfg=configs())
def test_decisions_are_consistent(estimate: int, reported: int | None, window: int, cfg: BudgetConfig) -> None:
    b = compute_budget(window, 4_000, 1_000, 500, 0, config=cfg)
    d = should_compact(estimate, reported, b)
    assert d.effective >= estimate and d.over == (d.effective > 0 and d.effective >= b.trigger_tokens)
    assert d.to_free == (max(0, d.effective - b.target_tokens) if d.over else 0)
    assert not (estimate == 0 and reported is None and d.over)  # an empty history never compacts
    f = should_fold(estimate, reported, b)
    assert f.effective >= estimate + b.prompt_fixed
    assert (not f.over) if b.fold_tokens is None else f.over == (f.effective >= b.fold_tokens)


@pytest.mark.parametrize("field", sorted(ENV_VARS))
@pytest.mark.parametrize("raw", ["abc", "1.5", "-1", "nan", "inf", "0x10", "1e400", "9" * 5000, "½"])
def test_every_bad_env_value_names_its_variable(field: str, raw: str) -> None:
    var = ENV_VARS[field]
    try:
        cfg = BudgetConfig.from_env({var: raw})
    except ConfigError as e:
        assert var in str(e) and (raw[:20] in str(e) or "9999" in str(e)), str(e)
    else:
        pytest.fail(f"{var}={raw!r} was accepted: {cfg}")


def test_env_ordering_error_names_both_sources() -> None:
    with pytest.raises(ConfigError, match=r"CONTEXTWINDOW_TARGET.*CONTEXTWINDOW_TRIGGER"):
        BudgetConfig.from_env({"CONTEXTWINDOW_TRIGGER": "60%", "CONTEXTWINDOW_TARGET": "0.6"})
    with pytest.raises(ConfigError, match=r"CONTEXTWINDOW_TARGET.*trigger="):
        BudgetConfig.from_env({"CONTEXTWINDOW_TARGET": "0.7"}, trigger=0.5)


@SETTINGS
@given(window=st.integers(1, 10**9))
def test_gauge_boundaries_are_exact(window: int) -> None:
    warn = -(-70 * window // 100)  # the least used with used/window ≥ 70%
    crit = -(-90 * window // 100)
    assert gauge(warn, window).severity == ("critical" if warn >= crit else "warn")
    if warn > 0:
        assert gauge(warn - 1, window).severity == "ok"
    assert gauge(crit, window).severity == "critical"
    if crit > warn:
        assert gauge(crit - 1, window).severity == "warn"
    assert gauge(window * 3, window).severity == "critical"


def test_limits_at_the_maximum_are_not_exceeded_above_are_and_name_the_limit() -> None:
    lim = Limits(max_turns=3, max_tokens=1000, max_tool_calls=0, max_cost_usd=0.5, max_wall_s=60)
    assert exceeded(lim, turns=3, tokens=1000, tool_calls=0, cost_usd=0.5, wall_s=60) == []
    hits = exceeded(lim, turns=4, tokens=1001, tool_calls=1, cost_usd=0.51, wall_s=60.5)
    assert [h.limit for h in hits] == ["turns", "tokens", "tool_calls", "cost_usd", "wall_s"]
    with pytest.raises(LimitExceeded, match="cost_usd") as e:
        check_limits(lim, cost_usd=0.75)
    assert "0.75" in str(e.value) and "0.5" in str(e.value)
    for bad in (-1, float("nan"), float("inf"), True, "3"):
        with pytest.raises(ConfigError, match="max_turns"):
            Limits(max_turns=bad)  # type: ignore[arg-type]


# --- turns -----------------------------------------------------------------------------------------

ids = st.sampled_from(["a", "b", "c", "a~2", "toolu_1"])
text_part = st.sampled_from(["", " ", "hi", "ls", "ok"]).map(TextPart)
image = st.builds(ImagePart, st.sampled_from(["base64", "url"]), st.sampled_from(["aGk=", "https://x/i.png"]), st.sampled_from([None, "image/png"]))
result_part = st.builds(ToolResultPart, ids, st.lists(text_part | image, max_size=3).map(tuple), st.booleans())
call_part = st.builds(ToolCallPart, ids, st.sampled_from(["read", "bash"]), st.sampled_from(["{}", '{"p": 1}']))
reasoning = st.builds(ReasoningPart, st.sampled_from(["", "think"]), st.sampled_from([None, "sig"]))
any_part: st.SearchStrategy[Part] = st.one_of(text_part, result_part, call_part, call_part, reasoning, image)


@st.composite
def damaged(draw: st.DrawFn) -> list[Message]:
    """Any role holding any part (results in assistant/system messages, calls in tool messages,
    images inside results), parallel calls with ids reused across messages, empty messages."""
    out: list[Message] = [user("task")]
    for _ in range(draw(st.integers(0, 14))):
        role = draw(st.sampled_from(["assistant", "assistant", "tool", "tool", "user", "system"]))
        if role == "assistant" and draw(st.booleans()):  # a parallel batch and its results
            cids = draw(st.lists(ids, min_size=1, max_size=4))
            out.append(Message("assistant", tuple(ToolCallPart(c, "bash") for c in cids)))
            for c in draw(st.permutations(cids)):
                out.append(Message("tool", (ToolResultPart(c, draw(st.lists(text_part | image, max_size=2).map(tuple))),)))
            continue
        out.append(Message(role, tuple(draw(st.lists(any_part, max_size=4)))))  # type: ignore[arg-type]
    return out


def _parts(ms: list[Message]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in ms:
        for p in m.parts:
            c[p.kind] += 1
    return c


@SETTINGS
@given(damaged())
def test_repair_makes_any_damaged_history_valid_for_every_provider_and_is_idempotent(history: list[Message]) -> None:
    fixed, report = repair(history)
    for provider in PROVIDERS:
        assert validate(fixed, provider) == [], (provider, validate(fixed, provider))
    again, report2 = repair(fixed)
    assert again == fixed and not report2.changed
    # nothing lost silently: every input part is kept, dropped in the report, or (empty text) in a dropped message
    before = _parts(history)
    after = _parts(fixed)
    dropped: Counter[str] = Counter(d.part.kind for d in report.dropped_parts)
    for d in report.dropped_messages:
        dropped.update(p.kind for p in d.message.parts)
    synthetic = sum(1 for a in report.actions if a.action == "synthetic_result")
    for kind in before:
        assert after[kind] + dropped[kind] - (synthetic if kind == "tool_result" else 0) >= before[kind], kind
    # images inside results survive with their results
    imgs_in = sum(1 for m in history for p in m.parts if isinstance(p, ToolResultPart) for c in p.content if c.kind == "image")
    imgs_out = sum(1 for m in fixed for p in m.parts if isinstance(p, ToolResultPart) for c in p.content if c.kind == "image")
    imgs_dropped = sum(1 for d in report.dropped_parts if isinstance(d.part, ToolResultPart) for c in d.part.content if c.kind == "image")
    assert imgs_out + imgs_dropped == imgs_in
    # assistant tool calls are never dropped
    assert sum(len(m.tool_calls) for m in fixed if m.role == "assistant") == sum(len(m.tool_calls) for m in history if m.role == "assistant")
    # every turn start is a safe cut of the repaired history
    assert set(turn_starts(fixed)) <= set(safe_cut_points(fixed))
