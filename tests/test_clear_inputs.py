"""Clearing old tool calls' long inputs (compaction/inputs.py) within the per-call cache step."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import Session
from contextwindow.compaction.cache import CacheConfig, clear_for_cache
from contextwindow.compaction.inputs import LONG_VALUE_CHARS, cleared_inputs, input_candidates, is_cleared
from contextwindow.compaction.mask import MaskConfig
from contextwindow.compaction.view import ViewItem
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, dump_arguments, user
from contextwindow.session import SessionConfig
from contextwindow.sink import ConversationSink
from contextwindow.store.memory import MemoryStore
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)
count = COUNTER.count_message


def body(i: int, words: int, seed: int = 0) -> str:
    rnd = random.Random(seed * 1_000 + i)
    return "\n".join(f"export const v{i}_{k} = {rnd.randint(0, 10**6)};" for k in range(words))


def write(i: int, words: int, tool: str = "Write", seed: int = 0) -> Message:
    args = dump_arguments({"file_path": f"/src/types/f{i}.ts", "content": body(i, words, seed)})
    return Message("assistant", (TextPart(f"Writing f{i}."), ToolCallPart(f"c{i}", tool, args)))


def done(i: int, error: bool = False) -> Message:
    return Message("tool", (ToolResultPart(f"c{i}", (TextPart(f"File created successfully at: /src/types/f{i}.ts"),), is_error=error),))


def view(sizes: list[int], tool: str = "Write", answered: bool = True) -> list[ViewItem]:
    msgs = [user("Create the TypeScript types. Never use `any`.")]
    for i, n in enumerate(sizes):
        msgs.append(write(i, n, tool))
        if answered or i < len(sizes) - 1:
            msgs.append(done(i))
    return [ViewItem(f"m{k}", m, count(m)) for k, m in enumerate(msgs)]


def test_a_cleared_call_keeps_its_id_name_shape_and_short_values_and_names_its_ref() -> None:
    item = view([120])[1]
    out = cleared_inputs(item, count)
    (before,), (after,) = item.message.tool_calls, out.tool_calls
    assert (after.id, after.name) == (before.id, before.name)
    args = json.loads(after.arguments)
    assert set(args) == {"file_path", "content"} and args["file_path"] == "/src/types/f0.ts"
    assert 'retrieve(ref="msg-m1")' in args["content"] and str(len(json.loads(before.arguments)["content"])) in args["content"]
    assert out.text == item.message.text  # the assistant's words stay
    assert is_cleared(out) and count(out) < item.tokens // 4


def test_candidates_are_answered_calls_older_than_the_newest_results_with_long_inputs() -> None:
    items = view([120] * 6)
    cfg = MaskConfig(keep_last=3)
    assert input_candidates(items, cfg, 200) == [1, 3, 5]  # the calls of the newest 3 results stay
    assert input_candidates(view([5] * 6), cfg, 200) == []  # nothing long to clear
    assert input_candidates(view([120] * 6, tool="retrieve"), MaskConfig(keep_last=3), 200) == []  # excluded tool
    unanswered = view([120] * 6, answered=False)  # the last call has no result yet
    assert input_candidates(unanswered, cfg, 200) == [1, 3]
    once = list(items)
    once[1] = once[1].with_message(cleared_inputs(once[1], count), count)
    assert input_candidates(once, cfg, 200) == [3, 5]  # a cleared call is not cleared again


def test_the_cache_step_clears_old_inputs_when_it_pays_and_not_when_turned_off() -> None:
    items = view([150] * 12)
    on = clear_for_cache(items, count, 0, CacheConfig(clear_at_least=1_000, horizon_calls=12))
    assert on is not None
    out, step = on
    assert [k for k, it in enumerate(out) if is_cleared(it.message)] == [1, 3, 5, 7, 9, 11, 13, 15, 17]
    assert step["saved"] == sum(a.tokens for a in items) - sum(b.tokens for b in out)
    assert clear_for_cache(items, count, 0, CacheConfig(clear_at_least=1_000, horizon_calls=12, clear_inputs=False)) is None
    # a short horizon does not repay the rewrite of everything after the first cleared call
    assert clear_for_cache(items, count, 0, CacheConfig(clear_at_least=1_000, horizon_calls=0.5)) is None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 200), min_size=1, max_size=20), st.integers(0, 3))
def test_clearing_inputs_keeps_every_call_with_its_result_and_valid_json(sizes: list[int], keep: int) -> None:
    items = view(sizes)
    got = clear_for_cache(items, count, 0, CacheConfig(clear_at_least=300, horizon_calls=30, keep_last=keep))
    if got is None:
        return
    out, step = got
    assert [it.key for it in out] == [it.key for it in items]
    for a, b in zip(items, out, strict=True):
        assert [(c.id, c.name) for c in a.message.tool_calls] == [(c.id, c.name) for c in b.message.tool_calls]
        if not is_cleared(b.message):
            assert b.message == a.message
            continue
        for c in b.message.tool_calls:
            args = json.loads(c.arguments)
            assert all(len(v) <= LONG_VALUE_CHARS or f'retrieve(ref="msg-{b.key}")' in v for v in args.values())
    assert sum(it.tokens for it in out) == sum(it.tokens for it in items) - step["saved"]  # type: ignore[operator]


def test_a_session_clears_old_writes_below_the_trigger_and_retrieve_reads_them_back() -> None:
    s = Session(MemoryStore(), window=400_000, max_output=8_000, config=SessionConfig(cache=CacheConfig(clear_at_least=2_000, horizon_calls=12)))
    s.add(user("Create the TypeScript types. Never use `any`."))
    for i in range(25):
        s.add(write(i, 60, seed=1))
        s.add(done(i))
        b = s.build()
        assert not b.decision.over
    sent = s.build().messages
    cleared = [m for m in sent if is_cleared(m)]
    assert cleared, "old writes were never cleared"
    assert not any(is_cleared(m) for m in sent[-6:])  # the newest steps keep their inputs
    assert "Never use `any`." in sent[0].text
    ref = json.loads(cleared[0].tool_calls[0].arguments)["content"].split('ref="')[1].split('"')[0]
    back = ConversationSink(s.store, s.id).get_offload(ref).content
    i = int(json.loads(cleared[0].tool_calls[0].arguments)["file_path"].split("/f")[-1].split(".")[0])
    assert body(i, 60, 1).splitlines()[-1] in back.replace("\\n", "\n")
