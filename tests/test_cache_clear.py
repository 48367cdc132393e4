"""Cache-aware clearing of old tool results (compaction/cache.py) and its per-call step in Session."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import Session
from contextwindow.compaction.cache import CacheConfig, clear_for_cache
from contextwindow.compaction.mask import is_masked
from contextwindow.compaction.view import ViewItem
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, user
from contextwindow.models import get_model
from contextwindow.session import SessionConfig
from contextwindow.store.memory import MemoryStore
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)
count = COUNTER.count_message


def call(i: int) -> Message:
    return Message("assistant", (ToolCallPart(f"c{i}", "read_file", f'{{"path": "f{i}.py"}}'),))


def result(i: int, words: int, error: bool = False) -> Message:
    return Message("tool", (ToolResultPart(f"c{i}", (TextPart(" ".join(f"w{i}_{k}" for k in range(words))),), is_error=error),))


def view(sizes: list[int], errors: tuple[int, ...] = ()) -> list[ViewItem]:
    msgs = [user("go")]
    for i, n in enumerate(sizes):
        msgs += [call(i), result(i, n, error=i in errors)]
    return [ViewItem(f"m{k}", m, count(m)) for k, m in enumerate(msgs)]


def cleared(out: list[ViewItem]) -> list[int]:
    return [k for k, it in enumerate(out) if is_masked(it.message)]


def test_nothing_is_cleared_below_clear_at_least() -> None:
    items = view([400] * 6)
    assert clear_for_cache(items, count, 0, CacheConfig(clear_at_least=10**6)) is None
    got = clear_for_cache(items, count, 0, CacheConfig(clear_at_least=1_000, horizon_calls=40))
    assert got is not None
    out, step = got
    assert step["method"] == "cache_clear" and step["saved"] >= 1_000
    assert cleared(out) == [2, 4, 6]  # the newest 3 results stay; the calls all stay


def test_a_clear_that_rewrites_more_than_it_saves_is_not_made() -> None:
    # one old clearable result followed by a long history of small ones: clearing it rewrites
    # everything after it, which costs more than the reads it saves over a short horizon
    items = view([600] + [30] * 150)  # results under min_result_tokens are not clearable
    assert clear_for_cache(items, count, 0, CacheConfig(clear_at_least=200, horizon_calls=2)) is None
    # a long horizon repays the same rewrite
    assert clear_for_cache(items, count, 0, CacheConfig(clear_at_least=200, horizon_calls=400)) is not None


def test_what_is_new_since_the_last_call_costs_nothing_to_rewrite() -> None:
    items = view([600, 600] + [30] * 40 + [30] * 3)
    cfg = CacheConfig(clear_at_least=500, horizon_calls=1)
    assert clear_for_cache(items, count, 0, cfg) is None
    tail = sum(it.tokens for it in items[1:])  # all of it arrived with this call (nothing cached yet)
    assert clear_for_cache(items, count, tail, cfg) is not None


def test_errors_and_the_newest_results_stay_verbatim() -> None:
    items = view([500] * 8, errors=(1,))
    out, _ = clear_for_cache(items, count, 0, CacheConfig(clear_at_least=100, horizon_calls=40)) or (None, None)
    assert out is not None
    assert 4 not in cleared(out)  # the error result (message 4) stays
    assert not set(cleared(out)) & {12, 14, 16}


def test_prices_come_from_the_model() -> None:
    spec = get_model("claude-sonnet-4-5")
    cfg = CacheConfig.for_model(spec)
    assert cfg.read_weight == spec.cache_read_price / spec.input_price  # type: ignore[operator]
    assert cfg.write_weight == spec.cache_write_price / spec.input_price  # type: ignore[operator]
    openai = CacheConfig.for_model(get_model("gpt-4o"))
    assert openai.write_weight == 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 900), min_size=1, max_size=30), st.integers(0, 5_000), st.floats(1, 50))
def test_a_clear_keeps_every_call_with_its_result_and_only_ever_saves(sizes: list[int], tail: int, horizon: float) -> None:
    items = view(sizes)
    got = clear_for_cache(items, count, tail, CacheConfig(clear_at_least=300, horizon_calls=horizon))
    if got is None:
        return
    out, step = got
    assert [it.key for it in out] == [it.key for it in items]
    assert [it.message.role for it in out] == [it.message.role for it in items]
    assert [[c.id for c in it.message.tool_calls] for it in out] == [[c.id for c in it.message.tool_calls] for it in items]
    assert sum(it.tokens for it in out) == sum(it.tokens for it in items) - step["saved"]  # type: ignore[operator]
    assert step["saved"] >= 300  # type: ignore[operator]


def _session(cache: CacheConfig | None) -> tuple[Session, list[dict[str, Any]]]:
    s = Session(MemoryStore(), window=400_000, max_output=8_000, config=SessionConfig(cache=cache))
    steps: list[dict[str, Any]] = []
    s.events.subscribe(lambda ev: steps.extend(ev.data["steps"]) if ev.name == "compaction.applied" else None)
    return s, steps


def test_the_session_clears_per_call_far_below_the_trigger_and_keeps_its_prefix_between_clears() -> None:
    s, steps = _session(CacheConfig(clear_at_least=3_000, horizon_calls=12))
    s.add(user("Refactor the parser. Never touch the public API."))
    reuse: list[tuple[float, bool]] = []
    for i in range(30):
        s.add(call(i), result(i, 700))
        before = len(steps)
        b = s.build()
        assert not b.decision.over  # nowhere near the trigger
        reuse.append((b.prefix_reuse, len(steps) > before))
    assert any(st["method"] == "cache_clear" for st in steps)
    assert all(r == 1.0 for r, changed in reuse[1:] if not changed)  # untouched between clears
    last = s.build().messages
    assert "Never touch the public API." in last[0].text
    assert [m.role for m in last[-2:]] == ["assistant", "tool"] and not is_masked(last[-1])


def test_without_the_cache_step_nothing_is_cleared_below_the_trigger() -> None:
    s, steps = _session(None)
    s.add(user("go"))
    for i in range(30):
        s.add(call(i), result(i, 700))
        s.build()
    assert steps == []
