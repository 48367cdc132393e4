"""Clients that end every request with a block that changes from call to call (a runtime block,
a system reminder, IDE context), through ``ctxw proxy``: the official OpenAI and Anthropic SDKs
against a real local upstream that records what it receives. Asserted on the recorded upstream
bodies and on the proxy's store: ONE conversation, byte-identical prefixes between compaction
events, every answer's dollars in that one conversation, the model's replies stored from the
answers (streamed or not)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")

from contextwindow.curation import segments  # noqa: E402
from contextwindow.llm.localserver import Reply, ToolCallSpec  # noqa: E402
from contextwindow.session import SessionConfig  # noqa: E402
from contextwindow.sync import STATE_KEY  # noqa: E402
from contextwindow.sync_state import load_decisions  # noqa: E402
from proxy_helpers import TOOLS  # noqa: E402
from test_proxy import ant, big_output, oai, stack, valid  # noqa: E402


def reminder(i: int, n: int) -> str:
    return f"<system-reminder>call {i}: {n} messages so far; the working tree has {3 * i + 1} changed files</system-reminder>"


def shown(store: Any, cid: str) -> list[Any]:
    return [sm.message for seg in segments(store, cid) for t in seg.turns for sm in t.messages]


def openai_agent(c: Any, rounds: int, output: Any, *, stream: bool, max_tokens: int = 256) -> list[dict[str, Any]]:
    """A chat-completions loop that re-sends its history plus a fresh reminder message every call
    (the reminder is never kept in its own history)."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": "Find the retry logic. Never edit generated files."},
    ]
    for i in range(rounds):
        sent = [*history, {"role": "user", "content": reminder(i, len(history))}]
        if stream:
            chunks = list(c.chat.completions.create(model="gpt-4o-mini", messages=sent, max_tokens=max_tokens, tools=TOOLS, stream=True,
                                                    stream_options={"include_usage": True}))
            calls: dict[int, dict[str, Any]] = {}
            for ch in chunks:
                for tc in (ch.choices[0].delta.tool_calls or []) if ch.choices else []:
                    slot = calls.setdefault(tc.index, {"id": tc.id, "type": "function", "function": {"name": "", "arguments": ""}})
                    slot["function"]["name"] += tc.function.name or ""
                    slot["function"]["arguments"] += tc.function.arguments or ""
            msg: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [calls[k] for k in sorted(calls)]}
        else:
            r = c.chat.completions.create(model="gpt-4o-mini", messages=sent, max_tokens=max_tokens, tools=TOOLS)
            msg = r.choices[0].message.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"})
        history.append(msg)
        for call in msg.get("tool_calls") or []:
            history.append({"role": "tool", "tool_call_id": call["id"], "content": output(i)})
    return history


def grep_script(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": "retry", "n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=12)


@pytest.mark.parametrize("stream", [False, True])
def test_openai_client_with_a_changing_last_message_is_one_conversation_with_stable_prefixes(stream: bool) -> None:
    # small window: the conversation crosses the compaction trigger several times (cache clearing off,
    # so the breaks counted are the trigger's compaction events alone)
    with stack(grep_script, window=12_000, clip_budget=1_500, session=SessionConfig(cache=None)) as (up, px, store):
        openai_agent(oai(px), 20, lambda i: big_output(60, i), stream=stream, max_tokens=512)
        px.wait_idle()
        bodies = [r.body for r in up.requests]
        (conv,) = store.list_conversations()  # one conversation, not one per request
        breaks = 0
        for n, (prev, cur) in enumerate(itertools.pairwise(bodies)):
            # the reminder ends the request, or sits before the continuation note of a compaction
            at = max(k for k, m in enumerate(prev["messages"]) if "<system-reminder>" in json.dumps(m))
            assert at >= len(prev["messages"]) - 2
            kept = prev["messages"][:at]  # the request before, up to its reminder
            if cur["messages"][: len(kept)] != kept:
                breaks += 1  # only a compaction event may break the prefix, and it shrinks the request
                assert len(json.dumps(cur["messages"])) < len(json.dumps(prev["messages"])), n
        events = [e.name for e in store.list_events(conv.id)]
        assert 1 <= breaks <= events.count("compaction.applied"), (breaks, events.count("compaction.applied"))
        assert breaks <= len(bodies) // 3
        for b in bodies:
            assert valid(b, "openai") == []
            assert sum("<system-reminder>" in json.dumps(m) for m in b["messages"]) == 1  # no stale reminder sent
        usage = store.list_usage(conv.id)
        assert len(usage) == len(bodies) and all(u.cost_usd and u.cost_usd > 0 for u in usage)
        msgs = shown(store, conv.id)
        assert sum("<system-reminder>" in m.text for m in msgs) == 1  # the last request's; the others superseded
        assert msgs[-1].role == "assistant" and msgs[-1].tool_calls[0].id == f"call_{len(bodies[-1]['messages'])}"
        assert len(load_decisions(store, conv.id)) >= len(bodies) - 1


def anthropic_agent(a: Any, rounds: int, output: Any, *, stream: bool) -> list[dict[str, Any]]:
    """A Claude-Code-like loop: each request's last user message gets a reminder text block after
    its tool results, which the client does not keep in its own history."""
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Fix the flaky test."}]}]
    for i in range(rounds):
        sent = json.loads(json.dumps(history))
        sent[-1]["content"].append({"type": "text", "text": reminder(i, len(history)), "cache_control": {"type": "ephemeral"}})
        kw: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": "You are Claude Code.", "messages": sent,
                              "extra_headers": {"x-claude-code-session-id": "sess-rem"}}
        if stream:
            with a.messages.stream(**kw) as st:
                m = st.get_final_message()
        else:
            m = a.messages.create(**kw)
        blocks = [b.model_dump(exclude_none=True) for b in m.content]
        history.append({"role": "assistant", "content": blocks})
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": output(i)}
                                                    for b in blocks if b["type"] == "tool_use"]})
    return history


def bash_script(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(text=f"step {n}", tool_calls=(ToolCallSpec("Bash", {"command": "pytest -x"}, id=f"toolu_{n}"),), input_tokens=900, output_tokens=20)


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_client_with_a_reminder_block_in_its_last_message_is_one_conversation(stream: bool) -> None:
    with stack(bash_script, clip_budget=300) as (up, px, store):
        anthropic_agent(ant(px), 5, lambda i: big_output(300, i), stream=stream)
        px.wait_idle()
        bodies = [r.body for r in up.requests]
        (conv,) = store.list_conversations()
        for prev, cur in itertools.pairwise(bodies):
            last = prev["messages"][-1]
            assert last["content"][-1]["text"].startswith("<system-reminder>")
            kept = [*prev["messages"][:-1], {**last, "content": last["content"][:-1]}]  # without its reminder block
            now = cur["messages"][: len(kept)]
            # byte-identical up to the reminder: the first message (text) and every clipped tool result
            assert [json.dumps(m, sort_keys=True) for m in now[:-1]] == [json.dumps(m, sort_keys=True) for m in kept[:-1]]
            assert now[-1]["content"][: len(kept[-1]["content"])] == kept[-1]["content"]
        for b in bodies:
            assert valid(b, "anthropic") == []
        results = [blk["content"] for blk in bodies[2]["messages"][2]["content"] if blk["type"] == "tool_result"]
        assert "ofl_" in results[0] and results[0] == next(blk["content"] for blk in bodies[4]["messages"][2]["content"])
        assert len(store.list_usage(conv.id)) == len(bodies)
        msgs = shown(store, conv.id)
        assert [m.text.startswith("step") for m in msgs if m.role == "assistant"] == [True] * len(bodies)
        assert sum("<system-reminder>" in m.text for m in msgs) == 1


def test_replies_are_stored_from_streamed_and_whole_answers_in_each_protocol() -> None:
    def handler(req: Any) -> Reply:
        return Reply(text="The answer is 42.", input_tokens=100, output_tokens=7)

    with stack(handler) as (_up, px, store):
        c, a = oai(px), ant(px)
        c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "q1"}])
        list(c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "q2"}], stream=True))
        a.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=[{"role": "user", "content": "q3"}])
        with a.messages.stream(model="claude-sonnet-4-6", max_tokens=50, messages=[{"role": "user", "content": "q4"}]) as st:
            st.get_final_message()
        c.responses.create(model="gpt-4o-mini", input="q5")
        with c.responses.stream(model="gpt-4o-mini", input=[{"role": "user", "content": "q6"}]) as rs:
            rs.get_final_response()
        px.wait_idle()
        convs = store.list_conversations()
        assert len(convs) == 6
        for conv in convs:
            msgs = shown(store, conv.id)
            assert [m.role for m in msgs] == ["user", "assistant"], conv.title
            assert msgs[1].text == "The answer is 42."


def test_a_reply_the_client_sends_back_unchanged_is_not_stored_twice() -> None:
    with stack(lambda r: Reply(text=f"answer {len(r.body['messages'])}")) as (_up, px, store):
        a = ant(px)
        history: list[dict[str, Any]] = [{"role": "user", "content": "one"}]
        for q in ("two", "three"):
            m = a.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=history)
            history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in m.content]}, {"role": "user", "content": q}]
        px.wait_idle()
        (conv,) = store.list_conversations()
        assert [sm.message.text for sm in store.list(conv.id)] == ["one", "answer 1", "two", "answer 3"]
        assert store.get_state(conv.id, STATE_KEY) in (None, {})


def test_cache_breakpoints_stay_where_the_client_put_them_on_trimmed_and_confirmed_rows() -> None:
    def marked(body: dict[str, Any]) -> list[tuple[int, int]]:
        return [(i, k) for i, m in enumerate(body["messages"]) if isinstance(m["content"], list)
                for k, b in enumerate(m["content"]) if "cache_control" in b]

    with stack(bash_script, clip_budget=300) as (up, px, store):
        a = ant(px)
        history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Fix the flaky test."}]}]
        sent_marks = []
        for i in range(5):
            sent = json.loads(json.dumps(history))
            sent[-1]["content"].append({"type": "text", "text": reminder(i, len(history))})
            # like Claude Code: breakpoints on the newest messages, moved every request
            for m in sent[-3:]:
                m["content"][-1]["cache_control"] = {"type": "ephemeral"}
            sent_marks.append(marked({"messages": sent}))
            m = a.messages.create(model="claude-sonnet-4-6", max_tokens=512, messages=sent, extra_headers={"x-claude-code-session-id": "bp"})
            blocks = [b.model_dump(exclude_none=True) for b in m.content]
            history.append({"role": "assistant", "content": blocks})
            history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": big_output(200, i)}
                                                        for b in blocks if b["type"] == "tool_use"]})
        px.wait_idle()
        assert len(store.list_conversations()) == 1
        for n, r in enumerate(up.requests):
            assert marked(r.body) == sent_marks[n], n  # on the reminder, the re-sent reply and the trimmed results alike
            assert valid(r.body, "anthropic") == []
        assert len(sent_marks[-1]) == 3
