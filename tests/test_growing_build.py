"""A Session's build reuses the last build's walks when its view only grew (compaction/sticky.py
StickyViews, incremental.py, RenderMemo.map): every answer must be the one the whole walk gives.
Compared by value on seeded lists and sessions and on a real transcript; never timed (speed lives
in benchmarks/bench_replay.py --speed)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from contextwindow import turns
from contextwindow.compaction.candidates import GrowingCandidates, shape
from contextwindow.compaction.inputs import cleared_inputs, input_candidates
from contextwindow.compaction.mask import MaskConfig, mask_candidates, masked_message, tool_names
from contextwindow.compaction.view import ViewItem
from contextwindow.events import Event
from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.formats import openai_chat, rules
from contextwindow.formats.memo import RenderMemo
from contextwindow.importers import CallRecord, ImportedSession, load_transcript
from contextwindow.incremental import GrowingPayloadCheck, GrowingValidation
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, assistant, system, user
from contextwindow.replay.engine import estimate_overhead, leading_system
from contextwindow.replay.policies import ReplayContext
from contextwindow.replay.session_policy import SessionPolicy
from contextwindow.tokens import counter_for


def _step(rng: random.Random, n: int, faults: bool, used: Sequence[str] = ()) -> list[Message]:
    """One exchange: a user line, or an assistant call with its result(s); with ``faults``, now
    and then a structural problem (an orphan or stray result, a reused id, an unanswered call, an
    empty message, a tool message first, text beside results). ``used``: call ids already sent."""
    roll = rng.random()
    cid = f"c{n}"
    if faults and roll < 0.1 and used:  # an earlier call's id again, answered: fine on its own, not after the first
        old = rng.choice(list(used))
        return [assistant(f"again {n}", ToolCallPart(old, "bash", "{}")), Message("tool", (ToolResultPart(old, (TextPart("again"),)),))]
    if faults and roll < 0.04:
        return [Message("tool", (ToolResultPart(f"nobody{n}", (TextPart("late"),)),))]
    if faults and roll < 0.08:
        return [assistant(f"call {n}", ToolCallPart(f"c{rng.randint(0, max(0, n - 1))}", "bash", "{}")),
                Message("tool", (ToolResultPart(f"c{n}", (TextPart("x"),)),))]
    if faults and roll < 0.11:
        return [assistant("", ToolCallPart(cid, "bash", "{}"))]
    if faults and roll < 0.13:
        return [Message("user", ())]
    if faults and roll < 0.15:
        return [Message("user", (TextPart("see"), ToolResultPart(cid, (TextPart("out"),))))]
    if roll < 0.35:
        return [user(f"please do step {n}")]
    k = rng.randint(1, 3)
    calls = [ToolCallPart(f"{cid}_{j}", rng.choice(("bash", "read_file")), json.dumps({"n": j})) for j in range(k)]
    results = [Message("tool", (ToolResultPart(c.id, (TextPart(f"out {c.id}"),), is_error=rng.random() < 0.1),)) for c in calls]
    rng.shuffle(results)
    return [assistant(f"step {n}", *calls), *results]


@pytest.mark.parametrize("seed", range(6))
def test_the_growing_checks_answer_what_the_whole_checks_answer(seed: int) -> None:
    rng = random.Random(seed)
    msgs: list[Message] = [system("sys"), user("start")] if seed % 2 else [user("start")]
    checks = {p: GrowingValidation() for p in turns.PROVIDERS}
    chat = GrowingPayloadCheck()
    memo: RenderMemo[Message, list[dict[str, Any]]] = RenderMemo()
    passed = failed = 0
    good = list(msgs)  # the last list that passed every rule set
    for n in range(150):
        if rng.random() < 0.05 and len(msgs) > 4:  # a rewrite in the middle (as a compaction does): not an extension
            i = rng.randint(1, len(msgs) - 2)
            msgs = [*msgs[:i], user(f"summary {n}"), *msgs[i + 1 :]]
        elif rng.random() < 0.04 and len(msgs) > 4:  # shorter (a fold)
            msgs = msgs[: len(msgs) // 2]
        elif rng.random() < 0.6:  # a broken tail is usually left behind (a repair, a retry)
            msgs = good
        used = [p.id for m in msgs for p in m.parts if isinstance(p, ToolCallPart)]
        msgs = [*msgs, *_step(rng, n, faults=rng.random() < 0.2, used=used)]
        ok = True
        for p, check in checks.items():
            want = turns.validate(msgs, p)
            assert check.validate(msgs, p) == want, (seed, n, p)
            ok = ok and not want
        passed += ok
        failed += not ok
        good = msgs if ok else good
        payload = openai_chat.to_payload(msgs, system="You help.", memo=memo)
        assert payload == openai_chat.to_payload(msgs, system="You help.")
        assert chat.check(payload) == rules.check("openai", payload), (seed, n)
    assert passed and failed  # both kinds of answer were given


def test_render_memo_map_is_make_of_each_object() -> None:
    made: list[str] = []

    def render(m: Message) -> str:
        made.append(m.text)
        return m.text.upper()

    memo: RenderMemo[Message, str] = RenderMemo()
    a, b, c = user("a"), user("b"), user("c")
    assert memo.map([a, b], render) == ["A", "B"]
    assert memo.map([a, b, c], render) == ["A", "B", "C"]
    assert made == ["a", "b", "c"]  # the prefix by position
    assert memo.map([b, user("a"), c], render) == ["B", "A", "C"]
    assert made == ["a", "b", "c", "a"]  # not a prefix: by object; an equal other object made again
    assert memo.map([], render) == [] and memo.map([a], render) == ["A"] and made[-1] == "a"


def _seeded_session(seed: int, turns_: int = 16) -> ImportedSession:
    rng = random.Random(seed)
    msgs: list[Message] = []
    calls: list[CallRecord] = []
    n = 0
    for t in range(turns_):
        rule = " Never touch api.py." if t == 0 else (" The limit is now 40 lines." if t == 5 else "")
        msgs.append(user(f"turn {t}: fix module m{t}.{rule} " + "detail " * rng.randint(5, 60)))
        for _ in range(rng.randint(1, 4)):
            calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
            n += 1
            msgs.append(assistant(f"step {n}", ToolCallPart(f"c{n}", rng.choice(["read_file", "grep", "bash"]), json.dumps({"path": f"src/m{n % 7}.py"}))))
            body = "\n".join(f"{k}: line {k} of result {n} " + "x" * rng.randint(0, 40) for k in range(rng.choice([2, 10, 60, 400, 900])))
            msgs.append(Message("tool", (ToolResultPart(f"c{n}", (TextPart(body),), is_error=rng.random() < 0.1),)))
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
        msgs.append(assistant(f"done with turn {t}: " + "summary " * rng.randint(5, 60)))
    return ImportedSession("openai-chat", f"seeded-{seed}", msgs, calls, model="gpt-4o")


def _events(pol: SessionPolicy) -> list[Event]:
    got: list[Event] = []
    pol.session.events.subscribe(got.append)
    return got


def _said(events: Sequence[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.name, {k: v for k, v in e.data.items() if k != "duration_s"}) for e in events]


def drive_both(session: ImportedSession, window: int, overhead: int, model: str = "gpt-4o") -> int:
    """Replay ``session`` through two Sessions, one building incrementally and one walking the
    whole view every time; at every call the payload messages and every event (build tokens,
    prefix shares, compactions, clears) must be the same. Returns the calls that compacted."""
    counter = counter_for(model)
    ctx = ReplayContext(window=window, counter=counter, summarizer=ExtractiveSummarizer(counter.count_text), overhead=overhead)
    fast, whole = SessionPolicy(ctx), SessionPolicy(ctx, incremental=False)
    seen_fast, seen_whole = _events(fast), _events(whole)
    head = leading_system(session.messages)
    acted = 0
    for call in sorted(session.calls, key=lambda c: c.index):
        history = session.messages[min(len(head), call.index) : call.index]
        a, b = fast.before_call(history), whole.before_call(history)
        assert a.messages == b.messages, call.index
        assert a.events == b.events, call.index
        acted += bool(a.events)
        reply = session.messages[call.index : call.reply_end]
        tokens = ctx.prompt_tokens(a.messages)
        fast.after_call(reply, tokens)
        whole.after_call(reply, tokens)
    assert _said(seen_fast) == _said(seen_whole)
    return acted


@pytest.mark.parametrize("seed", [1, 2])
def test_an_incremental_session_sends_what_a_whole_walk_sends_on_seeded_sessions(seed: int) -> None:
    assert drive_both(_seeded_session(seed), window=9_000, overhead=500) > 0  # small enough to compact and clear


def test_an_incremental_session_sends_what_a_whole_walk_sends_on_a_real_transcript(transcripts_dir: Path) -> None:
    session = load_transcript(transcripts_dir / "openhands" / "multi_swe_bench_output.jsonl")
    overhead = estimate_overhead(session, counter_for("gpt-4o"))
    assert drive_both(session, window=overhead + 16_000, overhead=overhead) > 0


def _items_step(rng: random.Random, n: int, used: Sequence[str], count: Any) -> list[ViewItem]:
    """New view items: a call with long or short inputs and its result(s); now and then an error,
    a retrieve, a reused call id, a result for an earlier call, an unanswered call, a masked one."""
    roll = rng.random()
    cid = f"c{n}"
    if roll < 0.06 and used:
        cid = rng.choice(list(used))  # an id seen before
    elif roll < 0.1 and used:  # a late result for an earlier call
        m = Message("tool", (ToolResultPart(rng.choice(list(used)), (TextPart("late " * 300),)),))
        return [ViewItem(f"k{n}", m, count(m))]
    tool = rng.choice(("bash", "write_file", "retrieve", "read_file"))
    args = json.dumps({"path": f"f{n}.py", "content": "x = 1\n" * rng.choice((2, 100, 900))})
    call = Message("assistant", (TextPart(f"step {n}"), ToolCallPart(cid, tool, args)))
    out = [ViewItem(f"a{n}", call, count(call))]
    if roll > 0.93 or (roll < 0.06 and rng.random() < 0.5):
        return out  # unanswered (for now)
    body = "line of output\n" * rng.choice((3, 50, 400))
    res = Message("tool", (ToolResultPart(cid, (TextPart(body),), is_error=rng.random() < 0.1),), meta={"cw_masked": True} if rng.random() < 0.05 else {})
    return [*out, ViewItem(f"r{n}", res, count(res))]


@pytest.mark.parametrize("seed", range(4))
def test_growing_candidates_are_the_candidates_of_the_whole_view(seed: int) -> None:
    rng = random.Random(seed)
    count = counter_for("gpt-4o").count_message
    config = MaskConfig(keep_last=rng.choice((0, 3)), min_result_tokens=200)
    found = GrowingCandidates()
    first = user("start")
    items: list[ViewItem] = [ViewItem("u", first, count(first))]
    picked = 0
    for n in range(120):
        if rng.random() < 0.05 and len(items) > 6:  # cleared in the middle (a clear): not an extension
            i = rng.randint(1, len(items) - 2)
            items = [*items[:i], ViewItem(items[i].key, user(f"cleared {n}"), 3), *items[i + 1 :]]
        used = [p.id for it in items for p in it.message.parts if isinstance(p, ToolCallPart)]
        items = [*items, *_items_step(rng, n, used, count)]
        want = (mask_candidates(items, config), input_candidates(items, config, 200))
        assert found.find(items, config, 200) == want, (seed, n)
        assert found.names == tool_names(items)
        # a clear's riders (cache.riders), from the same facts: the candidates with no size floor
        free = MaskConfig(keep_last=config.keep_last, min_result_tokens=0)
        assert found.riders(config.keep_last) == (mask_candidates(items, free), input_candidates(items, free, 1)), (seed, n)
        picked += bool(want[0]) + bool(want[1])
    assert picked


@pytest.mark.parametrize("seed", range(4))
def test_growing_candidates_after_clears_are_the_candidates_of_the_whole_view(seed: int) -> None:
    """A clear gives the view back with items replaced by their cleared forms (same keys, same
    shape): the facts are patched for those items, and the answer is still the whole view's. Also
    rewrites that change a shape (a result's ids, a call's tool) or a key, which read afresh."""
    rng = random.Random(1000 + seed)
    count = counter_for("gpt-4o").count_message
    config = MaskConfig(keep_last=rng.choice((0, 2)), min_result_tokens=rng.choice((0, 200)), exclude_tools=frozenset({"retrieve"}))
    found = GrowingCandidates()
    first = user("start")
    items: list[ViewItem] = [ViewItem("u", first, count(first))]
    patched = 0
    for n in range(150):
        roll = rng.random()
        if roll < 0.3 and len(items) > 4:  # a clear of some old results and calls' inputs
            names = tool_names(items)
            out = list(items)
            for i in rng.sample(range(1, len(items)), k=min(len(items) - 1, rng.randint(1, 4))):
                it, m = out[i], out[i].message
                if m.role == "tool" and m.is_tool_result:
                    out[i] = it.with_message(masked_message(it, names, count), count)
                elif m.role == "assistant" and m.tool_calls:
                    out[i] = it.with_message(cleared_inputs(it, count), count)
                assert shape(out[i].message) == shape(m)
            patched += any(a is not b for a, b in zip(items, out, strict=True))
            items = [replace(it) for it in out] if rng.random() < 0.5 else out  # the view made again: new items
        elif roll < 0.35 and len(items) > 4:  # a call's tool renamed in place: not the same shape
            i = next((i for i in range(len(items) - 1, 0, -1) if items[i].message.tool_calls), None)
            if i is not None:
                m = items[i].message
                renamed = Message("assistant", tuple(replace(p, name="retrieve") if isinstance(p, ToolCallPart) else p for p in m.parts))
                items = [*items[:i], ViewItem(items[i].key, renamed, count(renamed)), *items[i + 1 :]]
        elif roll < 0.45 and len(items) > 4:  # the same message counted otherwise (another count)
            i = rng.randint(1, len(items) - 1)
            items = [*items[:i], replace(items[i], tokens=rng.choice((1, 5_000))), *items[i + 1 :]]
        elif roll < 0.48 and len(items) > 4:  # a key changed in place (another row at that position)
            i = rng.randint(1, len(items) - 1)
            items = [*items[:i], replace(items[i], key=f"other{n}"), *items[i + 1 :]]
        if rng.random() < 0.8:
            used = [p.id for it in items for p in it.message.parts if isinstance(p, ToolCallPart)]
            items = [*items, *_items_step(rng, n, used, count)]
        want = (mask_candidates(items, config), input_candidates(items, config, 200))
        assert found.find(items, config, 200) == want, (seed, n)
        assert found.names == tool_names(items)
        free = MaskConfig(keep_last=config.keep_last, min_result_tokens=0, exclude_tools=config.exclude_tools)
        assert found.riders(config.keep_last) == (mask_candidates(items, free), input_candidates(items, free, 1)), (seed, n)
    assert patched > 10


def test_shape_is_what_a_clear_keeps() -> None:
    call = assistant("run", ToolCallPart("c1", "bash", json.dumps({"cmd": "x" * 4000})))
    result = Message("tool", (ToolResultPart("c1", (TextPart("out\n" * 500),), name="bash"),))
    count = counter_for("gpt-4o").count_message
    a, r = ViewItem("a", call, count(call)), ViewItem("r", result, count(result))
    assert shape(cleared_inputs(a, count)) == shape(call) and cleared_inputs(a, count) != call
    assert shape(masked_message(r, {"c1": "bash"}, count)) == shape(result)
    assert shape(result) == ("tool", True, (), (("c1", "bash"),))
    assert shape(call) != shape(assistant("run", ToolCallPart("c1", "grep", "{}")))
    assert shape(call) != shape(assistant("run", ToolCallPart("c2", "bash", "{}")))
    assert shape(call) != shape(user("run"))
