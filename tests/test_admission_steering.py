from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from contextwindow import messages as m
from contextwindow.admission import SteeringQueue, can_steer, drain_into, merge_steering
from contextwindow.messages import Message, ToolCallPart


def _queue(*texts: str) -> SteeringQueue:
    q = SteeringQueue()
    for t in texts:
        q.put(t)
    return q


def test_empty_queue_changes_nothing() -> None:
    msgs = [m.user("hi"), m.assistant("hello")]
    assert drain_into(msgs, SteeringQueue()) == msgs


def test_after_an_assistant_answer_a_new_user_message_is_appended() -> None:
    q = _queue("also check the docs", "and be brief")
    out = drain_into([m.user("fix it"), m.assistant("done")], q)
    assert [x.role for x in out] == ["user", "assistant", "user"]
    assert out[-1].text == "also check the docs\n\nand be brief"
    assert out[-1].meta == {"cw": "steering"}
    assert len(q) == 0


def test_last_user_message_gets_the_text_merged() -> None:
    out = drain_into([m.user("fix it")], _queue("use pytest"))
    assert len(out) == 1 and out[0].role == "user"
    assert out[0].text == "fix it\nuse pytest"
    assert out[0].meta["steering"] == 1


def test_pending_tool_call_keeps_the_queue() -> None:
    call = ToolCallPart(id="c1", name="grep", arguments="{}")
    call2 = ToolCallPart(id="c2", name="read", arguments="{}")
    msgs = [m.user("go"), m.assistant("", call, call2), m.tool_result("c1", "found")]
    q = _queue("stop after this")
    assert not can_steer(msgs)
    assert drain_into(msgs, q) == msgs
    assert len(q) == 1  # kept for later
    msgs.append(m.tool_result("c2", "text"))
    out = drain_into(msgs, q)
    assert out[-1] == Message(role="user", parts=(m.TextPart("stop after this"),), meta={"cw": "steering"})
    assert out[:-1] == msgs and len(q) == 0


def test_empty_history_and_system_only() -> None:
    assert drain_into([], _queue("x"))[0].role == "user"
    out = drain_into([m.system("sys")], _queue("x"))
    assert [x.role for x in out] == ["system", "user"]


def test_blank_texts_are_ignored() -> None:
    q = SteeringQueue()
    q.put("   ")
    assert len(q) == 0
    assert merge_steering([m.assistant("a")], ["", " "]) == [m.assistant("a")]


def test_queue_is_thread_safe() -> None:
    q = SteeringQueue()

    def put_many(k: int) -> None:
        for i in range(200):
            q.put(f"{k}-{i}")

    threads = [threading.Thread(target=put_many, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    items = q.drain()
    assert len(items) == 800 and len(set(items)) == 800
    assert [i for i in items if i.startswith("2-")] == [f"2-{i}" for i in range(200)]


roles = st.sampled_from(["user", "assistant", "tool", "system"])


@given(st.lists(roles, max_size=6), st.lists(st.text(min_size=1, max_size=10).filter(str.strip), min_size=1, max_size=3))
def test_never_two_user_messages_in_a_row_are_created(seq: list[str], texts: list[str]) -> None:
    msgs = [
        m.tool_result(f"c{i}", "r") if r == "tool" else m.text_message(r, f"msg {i}")  # type: ignore[arg-type]
        for i, r in enumerate(seq)
    ]
    out = drain_into(msgs, _queue(*texts))
    assert len(out) in (len(msgs), len(msgs) + 1)
    assert out[-1].role == "user"
    assert out[: len(msgs) - 1] == msgs[: len(msgs) - 1]
    # a new user message is only added when the previous message was not a user one
    if len(out) == len(msgs) + 1 and msgs:
        assert msgs[-1].role != "user"
    for t in texts:
        assert t.strip() in out[-1].text
