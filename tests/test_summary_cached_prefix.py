"""A model summary rides the conversation's cached prefix (folding/cached.py), over real HTTP.

The summary request re-sends the previous request's system prompt, tools and messages byte for
byte and appends the brief instruction as a last user turn; it is a valid payload for the provider;
the brief comes back into the fold. Without a previous payload, or when the prefix cannot carry
the request, the flat transcript is sent as before.
"""

from __future__ import annotations

import json
from typing import Any

from contextwindow.budget import BudgetConfig
from contextwindow.folding import LLMSummarizer
from contextwindow.folding.base import CachedPrefix, SummaryRequest
from contextwindow.formats.rules import check
from contextwindow.llm.anthropic import AnthropicModel
from contextwindow.llm.localserver import LocalProviderServer, ReceivedRequest, Reply
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.tools import ToolSpec

BRIEF = "## Goal\nPort the CLI.\n## Progress\nRan grep over src0 and src1.\n## Remaining\nstep 2\n## Constraints & preferences\n- Never push to main."
TOOLS = [ToolSpec("bash", "Run a shell command", {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]})]
SYSTEM = "You are a careful coding agent."


def history() -> list[Message]:
    out = [Message("user", (TextPart("Port the CLI. Never push to main."),))]
    for i in range(2):
        cid = f"call_{i}"
        out.append(Message("assistant", (TextPart(f"step {i}"), ToolCallPart(cid, "bash", json.dumps({"cmd": f"grep -rn handler src{i}"})))))
        out.append(Message("tool", (ToolResultPart(cid, (TextPart("\n".join(f"src{i}/f{j}.py:{j}: def handler_{j}()" for j in range(40))),)),)))
    return out


def session(fmt: str, summarizer_model: object, window: int = 60_000) -> Session:
    cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None)
    s = Session(open_store("memory:"), window=window, max_output=1_000, system=SYSTEM, tools=TOOLS, format=fmt, config=cfg)
    s.summarizer = LLMSummarizer(summarizer_model, window=window, count=s.counter.count_text)
    return s


def test_openai_fold_resends_the_previous_request_and_appends_the_instruction() -> None:
    with LocalProviderServer([Reply(text="step 1 done"), Reply(text=BRIEF, input_tokens=2_000, output_tokens=60)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        s = session("openai", model)
        s.add(*history())
        s.call(model)
        cp = s.fold()
        first, summary = srv.requests[0].body, srv.requests[1].body
    sent = first["messages"]
    # the whole previous request, byte for byte, then the reply stored since, then the instruction
    assert json.dumps(summary["messages"][: len(sent)]) == json.dumps(sent)
    assert summary["tools"] == first["tools"] and summary["messages"][0] == {"role": "system", "content": SYSTEM}
    assert summary["messages"][len(sent)]["role"] == "assistant"
    ask = summary["messages"][-1]
    assert ask["role"] == "user" and len(summary["messages"]) == len(sent) + 2
    text = ask["content"] if isinstance(ask["content"], str) else ask["content"][0]["text"]
    assert "## Goal" in text and "Summarize the 6 messages from the user message that begins \"Port the CLI." in text
    assert "<transcript>" not in text  # no flat copy of what the prompt already holds
    assert check("openai", summary) == []
    assert "Ran grep over src0 and src1." in cp.summary.text and "Never push to main." in cp.summary.text
    assert s.store.usage_by_role(s.id)["summarizer"]["input_tokens"] == 2_000


def unmarked(obj: Any) -> Any:
    """``obj`` without ``cache_control`` anywhere."""
    if isinstance(obj, dict):
        return {k: unmarked(v) for k, v in obj.items() if k != "cache_control"}
    return [unmarked(v) for v in obj] if isinstance(obj, list) else obj


def last_block(body: dict[str, Any]) -> dict[str, Any]:
    content = body["messages"][-1]["content"]
    return content[-1] if isinstance(content, list) else {}


def test_anthropic_instruction_merges_into_the_last_user_turn_after_tool_results() -> None:
    msgs = history()
    with LocalProviderServer(["ok", Reply(text=BRIEF)]) as srv:
        model = AnthropicModel("local", base_url=srv.base_url, api_key="x", retry=RetryPolicy(delays=()))
        model.complete(msgs, system=SYSTEM, tools=TOOLS, max_tokens=500)  # the conversation's own call
        prefix = CachedPrefix(tuple(msgs), SYSTEM, tuple(TOOLS), "anthropic", tokens=2_000, sent=len(msgs))
        out = LLMSummarizer(model, window=60_000).summarize(SummaryRequest(messages=msgs[:3], prefix=prefix, budget_tokens=500))
        first, summary = srv.requests[0].body, srv.requests[1].body
    assert out.method == "llm" and out.ok and out.extra["request"] == "cached_prefix"
    assert summary["system"] == first["system"] and summary["tools"] == first["tools"]
    # the same content but for the cache breakpoints, which move (formats/cache_marks.py); the
    # summary request carries its own at its end, so the provider finds the conversation's entry
    assert "cache_control" in last_block(summary) and "cache_control" in last_block(first)
    sent, summary = unmarked(first)["messages"], unmarked(summary)
    assert len(summary["messages"]) == len(sent)  # merged: no new turn, the roles still alternate
    assert json.dumps(summary["messages"][:-1]) == json.dumps(sent[:-1])
    last_sent, last = sent[-1]["content"], summary["messages"][-1]["content"]
    assert json.dumps(last[: len(last_sent)]) == json.dumps(last_sent)  # the tool_result blocks as sent
    assert last_sent[-1]["type"] == "tool_result" and last[-1]["type"] == "text"
    assert "through the result of tool call call_0" in last[-1]["text"]  # names where the span ends
    assert check("anthropic", summary) == []


def test_without_a_previous_payload_the_flat_transcript_is_sent() -> None:
    with LocalProviderServer([Reply(text=BRIEF)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        s = session("openai", model)
        s.add(*history())
        s.record(Message("assistant", (TextPart("step 1 done"),)))
        s.fold()
        sent = srv.requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert "<transcript>" in sent[1]["content"] and "USER: Port the CLI." in sent[1]["content"]


def test_a_prefix_larger_than_the_summarizer_window_falls_back_to_flat() -> None:
    msgs = history()
    with LocalProviderServer([Reply(text=BRIEF)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        prefix = CachedPrefix(tuple(msgs), SYSTEM, tuple(TOOLS), "openai", tokens=50_000, sent=len(msgs))
        out = LLMSummarizer(model, window=8_000).summarize(SummaryRequest(messages=msgs, prefix=prefix, budget_tokens=500))
        sent = srv.requests[0].body
    assert len(srv.requests) == 1 and "tools" not in sent and "<transcript>" in sent["messages"][-1]["content"]
    assert out.ok and out.extra == {"request": "flat", "cached_prefix_calls": 0}


def test_an_answer_over_the_prefix_that_is_no_brief_is_asked_again_flat() -> None:
    msgs = history()
    with LocalProviderServer([Reply(text="Sure, running the next grep now."), Reply(text=BRIEF)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        prefix = CachedPrefix(tuple(msgs), SYSTEM, tuple(TOOLS), "openai", tokens=2_000, sent=len(msgs))
        out = LLMSummarizer(model, window=60_000).summarize(SummaryRequest(messages=msgs, prefix=prefix, budget_tokens=500))
        bodies = [r.body for r in srv.requests]
    assert len(bodies) == 2 and "tools" in bodies[0] and "<transcript>" in bodies[1]["messages"][-1]["content"]
    assert out.method == "llm" and out.extra == {"request": "flat", "cached_prefix_calls": 1} and "Ran grep" in out.text


def test_an_invalid_prefix_is_not_sent() -> None:
    msgs = history()[:2]  # ends with a tool call that has no result: the provider would refuse it
    with LocalProviderServer([Reply(text=BRIEF)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        prefix = CachedPrefix(tuple(msgs), SYSTEM, tuple(TOOLS), "openai", tokens=500, sent=len(msgs))
        out = LLMSummarizer(model, window=60_000).summarize(SummaryRequest(messages=msgs, prefix=prefix, budget_tokens=500))
    assert len(srv.requests) == 1 and out.extra["request"] == "flat"


# --- replay billing (replay/summaries.py) -----------------------------------------------------


def test_the_replay_bills_a_request_over_the_prefix_at_the_read_price_and_the_rest_at_the_input_price() -> None:
    from contextwindow.folding.cached import instruction
    from contextwindow.folding.extractive import ExtractiveSummarizer
    from contextwindow.replay.summaries import MeteredSummarizer, summary_billed_tokens
    from contextwindow.tokens import counter_for

    counter = counter_for("gpt-4o")
    msgs = history()
    prefix = CachedPrefix(tuple(msgs), SYSTEM, tuple(TOOLS), "openai", tokens=counter.count_messages(msgs), sent=3)
    request = SummaryRequest(messages=msgs[:3], prefix=prefix, budget_tokens=500)
    meter = MeteredSummarizer(ExtractiveSummarizer(counter.count_text), counter, window=60_000)
    out = meter.summarize(request)
    read, fresh, written = meter.sizes[0]
    assert read == counter.count_messages(msgs[:3])  # the last payload: in the cache
    assert fresh == counter.count_messages(msgs[3:]) + counter.count_text(instruction(request, prefix))  # stored since + the ask
    assert written == counter.count_text(out.text)
    billed = summary_billed_tokens(meter, policy="default", overhead=1_000, read=0.1, output=5.0)
    assert billed == (1_000 + read) * 0.1 + fresh + 5.0 * written
    # too large for the summarizer's window with the summary's room: the flat transcript, all at the input price
    small = MeteredSummarizer(ExtractiveSummarizer(counter.count_text), counter, window=prefix.tokens)
    small.summarize(request)
    assert small.sizes[0] == (0, counter.count_messages(msgs[:3]), written)


def test_the_policy_prices_the_summary_input_at_the_read_price_unless_told() -> None:
    """A pass that re-sends the cached prompt to summarize pays back sooner: after 10 calls of 3k
    growth a deep pass pays at the read price (trigger T* ~ 71k) but not at the input price (the
    latest trigger, 90k, holds)."""
    from dataclasses import replace

    from contextwindow.budget import Budget
    from contextwindow.compaction.cache import CacheConfig
    from contextwindow.compaction.economics import Growth, cost_budget

    budget = Budget(200_000, 20_000, 0, 0, 0, 0, 100_000, 0, 90_000, 50_000, None)
    growth = Growth(calls=10, grown=30_000)
    cfg = CacheConfig(deep_target=0.2, min_trigger=0.1, max_trigger=0.9)  # the numbers above; the defaults are fitted (docs/replay.md)
    assert cfg.summary_input_weight is None  # follows the read weight: the request rides the cache
    riding, why = cost_budget(budget, growth, cfg, summary_tokens=4_000)
    assert cost_budget(budget, growth, replace(cfg, summary_input_weight=cfg.read_weight), summary_tokens=4_000)[0] == riding
    flat, why_flat = cost_budget(budget, growth, replace(cfg, summary_input_weight=1.0), summary_tokens=4_000)
    assert 60_000 < riding.trigger_tokens < 80_000 and flat.trigger_tokens == 90_000, (why, why_flat)


def test_an_in_flight_summary_rides_the_previous_call_and_lands_in_the_next() -> None:
    """build() compacts with the summarize strategy (prose turns: nothing to clear or mask); the
    summary request is the previous main request as sent, the turn stored since, and the ask."""
    brief = "## Goal\nWrite the report.\n## Progress\nEarly turns discussed the layout.\n## Remaining\nthe rest"

    def reply(req: ReceivedRequest) -> Reply:
        return Reply(text=brief) if "Write a handoff brief" in json.dumps(req.body["messages"][-1]) else Reply(text="noted " + "word " * 300)

    with LocalProviderServer(reply) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None)
        s = Session(open_store("memory:"), window=8_000, max_output=1_000, system=SYSTEM, format="openai", config=cfg)
        s.summarizer = LLMSummarizer(model, window=16_000, count=s.counter.count_text)
        for t in range(12):
            s.add(Message("user", (TextPart(f"turn {t}: " + "please look at this " * 60),)))
            s.call(model)
        bodies = srv.bodies
    asks = [i for i, b in enumerate(bodies) if "Write a handoff brief" in json.dumps(b["messages"][-1])]
    assert asks and all("<transcript>" not in json.dumps(b) for b in bodies)
    i = asks[0]
    before = bodies[i - 1]["messages"]
    assert json.dumps(bodies[i]["messages"][: len(before)]) == json.dumps(before)
    assert [m["role"] for m in bodies[i]["messages"][len(before) :]] == ["assistant", "user", "user"]  # reply, new turn, ask
    assert check("openai", bodies[i]) == []
    assert "Early turns discussed the layout." in json.dumps(bodies[i + 1]["messages"])  # the fold reached the next call
