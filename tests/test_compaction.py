"""The pure in-flight compaction policy over keyed views."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.compaction import CompactionConfig, MaskConfig, compact, make_items, total
from contextwindow.errors import CompactionError
from contextwindow.folding import ExtractiveSummarizer
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, dumps


def count_text(text: str) -> int:
    return len(text) // 4 + 1


def count(m: Message) -> int:
    return count_text(dumps(m)) + 4


def user(text: str) -> Message:
    return Message("user", (TextPart(text),))


def call(cid: str, name: str = "grep", **args: object) -> Message:
    return Message("assistant", (TextPart("let me look"), ToolCallPart(cid, name, json.dumps(args or {"q": cid}))))


def result(cid: str, text: str, *, error: bool = False) -> Message:
    return Message("tool", (ToolResultPart(cid, (TextPart(text),), is_error=error),))


def answer(text: str = "done") -> Message:
    return Message("assistant", (TextPart(text),))


def big(n: int, tag: str = "x") -> str:
    return "\n".join(f"{tag} line {i}: " + "lorem ipsum dolor sit amet " * 3 for i in range(n))


def items_of(msgs: list[Message]):
    return make_items([f"m{i}" for i in range(len(msgs))], msgs, count)


def well_formed(msgs: list[Message]) -> bool:
    """Every call answered by a later tool message, no result without an earlier call."""
    calls: set[str] = set()
    answered: set[str] = set()
    for m in msgs:
        for c in m.tool_calls:
            calls.add(c.id)
        for r in m.tool_results:
            if r.call_id not in calls:
                return False
            answered.add(r.call_id)
    return calls == answered


def session_history(turns: int = 4, steps: int = 4, lines: int = 60) -> list[Message]:
    msgs: list[Message] = [user("Fix the parser. Never touch the public API. Always run the tests before you finish.")]
    for t in range(turns):
        if t:
            msgs.append(user(f"Now do step {t}."))
        for s in range(steps):
            cid = f"c{t}_{s}"
            msgs += [call(cid, path=f"src/mod{t}_{s}.py"), result(cid, big(lines, cid))]
        msgs.append(answer(f"turn {t} finished"))
    return msgs


def test_under_target_is_untouched() -> None:
    items = items_of(session_history(1, 1, 5))
    res = compact(items, budget=100_000, target=50_000, count=count)
    assert not res.changed
    assert [i.message for i in res.items] == [i.message for i in items]


def test_mask_clears_old_results_keeps_calls_and_newest() -> None:
    msgs = session_history(2, 5, 40)
    items = items_of(msgs)
    before = total(items)
    cfg = CompactionConfig(mask=MaskConfig(min_saving_tokens=10))
    res = compact(items, budget=before, target=int(before * 0.6), count=count, config=cfg)
    assert res.steps[0]["method"] == "mask"
    assert res.tokens_after <= res.target
    out = [i.message for i in res.items]
    assert well_formed(out)
    tool_msgs = [m for m in out if m.role == "tool"]
    assert all("result cleared, ~" not in m.text for m in tool_msgs[-3:])  # newest 3 intact
    masked = [m for m in tool_msgs if "result cleared, ~" in m.text]
    assert masked and all('retrieve(ref="msg-m' in m.text and "grep result" in m.text for m in masked)
    assert sum(len(m.tool_calls) for m in out) == sum(len(m.tool_calls) for m in msgs)


def test_mask_skips_errors_and_small_saving() -> None:
    msgs = [user("go"), call("a"), result("a", big(80), error=True), call("b"), result("b", "ok"), answer()]
    items = items_of(msgs)
    res = compact(items, budget=10**6, target=10, count=count, config=CompactionConfig(strategies=("mask",)), summarizer=None)
    assert not res.changed  # the only big result is an error: never masked


def test_truncate_protects_first_user_last_per_role_and_errors() -> None:
    first = user("TASK: " + big(60, "task"))
    msgs = [first, call("a"), result("a", big(200, "a")), call("b"), result("b", big(200, "b"), error=True)]
    msgs += [answer(big(150, "ans")), user("next " + big(50, "u2"))]
    for c in "cde":
        msgs += [call(c), result(c, big(30, c))]
    msgs += [answer("ok")]
    items = items_of(msgs)
    cfg = CompactionConfig(strategies=("truncate",))
    res = compact(items, budget=total(items), target=int(total(items) * 0.7), count=count, config=cfg)
    out = [i.message for i in res.items]
    assert out[0] == first
    assert out[4] == msgs[4]  # error result untouched
    assert out[-3:] == msgs[-3:]
    assert "cut from the middle of this message" in out[2].text
    assert res.tokens_after < res.tokens_before
    assert all(i.original is not None for i in res.items if i.message != msgs[int(i.key[1:])])


def test_summarize_folds_oldest_turns_and_keeps_constraints() -> None:
    msgs = session_history(5, 3, 50)
    items = items_of(msgs)
    before = total(items)
    cfg = CompactionConfig(strategies=("summarize",))
    summarizer = ExtractiveSummarizer(count_text)
    rules = ["Never touch the public API.", "Always run the tests before you finish."]
    res = compact(items, budget=before, target=before // 3, count=count, config=cfg, summarizer=summarizer, constraints=rules)
    assert res.fold is not None
    head = res.items[0].message
    assert head.meta["cw"] == "fold_summary"
    for r in rules:
        assert r in head.text
    # the fold ends at a turn boundary: the next item starts a user turn
    assert res.items[1].message.role == "user"
    assert res.items[-1].message.meta.get("cw") == "nudge"
    assert well_formed([i.message for i in res.items])
    assert res.fold.upto_key == f"m{int(res.items[1].key[1:]) - 1}"


def test_single_message_larger_than_budget_is_squeezed_or_refused() -> None:
    msgs = [user("x " * 40_000)]
    items = items_of(msgs)
    res = compact(items, budget=3_000, target=1_500, count=count, summarizer=ExtractiveSummarizer(count_text))
    assert res.tokens_after <= 3_000
    assert "cut from the middle" in res.items[0].message.text
    with pytest.raises(CompactionError) as info:
        compact(items, budget=20, target=10, count=count)
    assert info.value.budget == 20 and info.value.tokens and info.value.tokens > 20


def test_forced_compaction_shrinks_even_under_target() -> None:
    items = items_of(session_history(3, 3, 40))
    before = total(items)
    res = compact(items, budget=before * 2, target=before * 2, count=count, summarizer=ExtractiveSummarizer(count_text), force=True)
    assert res.tokens_after <= int(before * 0.7)


# --- property: any history, any budget → valid and within budget, or a typed error ---------

@st.composite
def histories(draw):
    msgs: list[Message] = []
    n_turns = draw(st.integers(1, 5))
    cid = 0
    for t in range(n_turns):
        msgs.append(user(f"turn {t} " + "w " * draw(st.integers(1, 400))))
        for _ in range(draw(st.integers(0, 4))):
            k = draw(st.integers(1, 3))
            ids = [f"t{cid + j}" for j in range(k)]
            cid += k
            msgs.append(Message("assistant", tuple(ToolCallPart(i, draw(st.sampled_from(["grep", "read", "bash"])), "{}") for i in ids)))
            for i in ids:
                msgs.append(result(i, "r " * draw(st.integers(0, 3000)), error=draw(st.booleans())))
        if draw(st.booleans()):
            msgs.append(answer("a " * draw(st.integers(1, 300))))
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(), st.integers(50, 6000), st.floats(0.2, 0.9), st.booleans())
def test_any_history_any_budget_valid_within_budget_or_typed_error(msgs, budget, frac, force) -> None:
    items = items_of(msgs)
    try:
        res = compact(items, budget=budget, target=int(budget * frac), count=count, summarizer=ExtractiveSummarizer(count_text), force=force)
    except CompactionError as exc:
        assert exc.tokens is not None and exc.tokens > budget
        return
    out = [i.message for i in res.items]
    assert res.tokens_after <= budget
    assert res.tokens_after == total(res.items)
    assert well_formed(out)
    # progress: each applied step lowered the count
    last = res.tokens_before
    for step in res.steps:
        assert int(step["tokens_after"]) < last  # type: ignore[call-overload]
        last = int(step["tokens_after"])  # type: ignore[call-overload]
    # nothing lost: every kept non-synthetic item's original is the input message with that key
    by_key = {i.key: i.message for i in items}
    for it in res.items:
        if it.key in by_key:
            assert it.source == by_key[it.key]


def test_leading_system_messages_are_never_compacted() -> None:
    system = Message("system", (TextPart("You are SWE-agent. " + big(40, "sys")),))
    msgs = [system, user("Fix issue 12."), *[m for i in range(8) for m in (call(f"s{i}"), result(f"s{i}", big(60, f"s{i}")))]]
    items = items_of(msgs)
    budget = total(items) // 3
    res = compact(items, budget=budget, target=budget // 2, count=count, summarizer=ExtractiveSummarizer(count_text))
    out = [i.message for i in res.items]
    assert out[0] == system and out[1] == msgs[1]
    assert res.tokens_after <= budget
    assert well_formed(out)


def test_user_messages_stating_constraints_are_not_truncated() -> None:
    rule = "Never edit files under migrations/."
    first = user("Set up the project.")
    stated = user(big(40, "context") + "\n" + rule + "\n" + big(40, "more"))
    msgs = [first, answer("ok"), stated]
    for i in range(6):
        msgs += [call(f"k{i}"), result(f"k{i}", big(50, f"k{i}"))]
    msgs += [answer("done"), user("next"), answer("a"), user("b"), answer("c"), user("d")]
    items = items_of(msgs)
    cfg = CompactionConfig(strategies=("truncate",))
    res = compact(items, budget=total(items), target=int(total(items) * 0.5), count=count, config=cfg, constraints=[rule])
    assert res.items[2].message == stated
    free = compact(items, budget=total(items), target=int(total(items) * 0.5), count=count, config=cfg)
    assert free.items[2].message != stated  # without the ledger it would have been cut


def test_one_long_turn_summarizes_its_oldest_steps_cumulatively() -> None:
    msgs = [user("Fix the flaky test. Never disable tests.")]
    for i in range(12):
        msgs += [call(f"t{i}", path=f"src/m{i}.py"), result(f"t{i}", big(40, f"t{i}"))]
    items = items_of(msgs)
    before = total(items)
    cfg = CompactionConfig(strategies=("summarize_steps",), keep_last_steps=3)
    summ = ExtractiveSummarizer(count_text)
    rules = ["Never disable tests."]
    res = compact(items, budget=before, target=before // 2, count=count, config=cfg, summarizer=summ, constraints=rules)
    out = [i.message for i in res.items]
    assert out[0] == msgs[0]
    assert out[1].meta["cw"] == "step_summary" and "Never disable tests." in out[1].text
    assert out[-6:] == msgs[-6:]  # the newest 3 steps are whole
    assert well_formed(out) and res.tokens_after <= before // 2
    # a later pass folds the previous step summary into the new one: still one summary
    more = [*res.items]
    extra = []
    for i in range(12, 20):
        extra += [call(f"t{i}", path=f"src/m{i}.py"), result(f"t{i}", big(40, f"t{i}"))]
    more += make_items([f"n{i}" for i in range(len(extra))], extra, count)
    res2 = compact(more, budget=total(more), target=total(more) // 2, count=count, config=cfg, summarizer=summ, constraints=rules)
    out2 = [i.message for i in res2.items]
    assert sum(1 for m in out2 if m.meta.get("cw") == "step_summary") == 1
    assert "src/m0.py" in out2[1].text  # the first pass's content survived into the second summary
    assert well_formed(out2)


def test_squeeze_leaves_a_margin_when_the_target_is_the_budget() -> None:
    msgs = [user("Review: " + "lorem ipsum dolor sit amet " * 3000), answer("Notes: " + "needs tests " * 3000), user("more? " + "x y z " * 4000)]
    items = items_of(msgs)
    for budget in (3_000, 5_000, 9_000):
        res = compact(items, budget=budget, target=budget, count=count, summarizer=ExtractiveSummarizer(count_text))
        assert res.tokens_after <= budget
