"""AnthropicModel over real HTTP to the local provider server."""

from __future__ import annotations

import asyncio

import pytest

from contextwindow.errors import ConfigError, ContextOverflowError, RateLimitError
from contextwindow.llm.anthropic import AnthropicModel
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.llm.overflow import HTTPContextOverflowError
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    assistant,
    system,
    tool_result,
    user,
)
from contextwindow.tools import ToolSpec

PROMPT_TOO_LONG = {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 208310 tokens > 200000 maximum"}}
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def make(srv: LocalProviderServer, slept: list[float] | None = None) -> AnthropicModel:
    record = slept.append if slept is not None else (lambda s: pytest.fail(f"unexpected sleep {s}"))
    return AnthropicModel("claude-test", base_url=srv.base_url, api_key="ak-test", retry=RetryPolicy(sleep=record))


def test_success_payload_headers_and_usage() -> None:
    history = [
        system("Project rules: never push."),
        user("list files"),
        Message(
            role="assistant",
            parts=(
                ReasoningPart(text="I should call ls", signature="sig-1", provider="anthropic"),
                ReasoningPart(text="foreign reasoning", provider="openai"),
                ToolCallPart(id="toolu_1", name="ls", arguments='{"path": "."}'),
            ),
        ),
        tool_result("toolu_1", "a.py\nb.py", name="ls", is_error=False),
        user("thanks; now summarize"),
    ]
    reply = Reply(text="Two files.", input_tokens=5000, output_tokens=4, cache_read_tokens=4000, cache_write_tokens=600)
    with LocalProviderServer([reply]) as srv, make(srv) as model:
        out = model.complete(history, system="Be brief.", max_tokens=300, tools=[ToolSpec("ls", "List")])
    req = srv.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == "ak-test" and req.headers["anthropic-version"] == "2023-06-01"
    body = req.body
    assert body["system"] == [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Project rules: never push."}]
    assert body["max_tokens"] == 300 and body["model"] == "claude-test"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "I should call ls", "signature": "sig-1"},
        {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
    ]
    results, text = body["messages"][2]["content"]
    assert results == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py\nb.py"}
    assert text == {"type": "text", "text": "thanks; now summarize"}
    assert body["tools"] == [{"name": "ls", "description": "List", "input_schema": {"type": "object", "properties": {}}}]
    assert out.text == "Two files." and out.finish_reason == "end_turn"
    assert (out.usage.input_tokens, out.usage.cache_read_tokens, out.usage.cache_write_tokens, out.usage.output_tokens) == (5000, 4000, 600, 4)
    assert out.raw is not None and out.raw["usage"]["input_tokens"] == 400  # the fresh part only, on the wire


def test_response_blocks_parsed() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Calling."},
            {"type": "tool_use", "id": "toolu_9", "name": "grep", "input": {"q": "x"}},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    with LocalProviderServer([Reply(body=body), Reply(tool_calls=(ToolCallSpec("ls"),))]) as srv, make(srv) as model:
        out = model.complete([user("go")])
        plain = model.complete([user("go")])
    assert out.message is not None
    kinds = [p.kind for p in out.message.parts]
    assert kinds == ["reasoning", "reasoning", "text", "tool_call"]
    assert out.message.parts[1] == ReasoningPart(encrypted="opaque", provider="anthropic")
    assert out.message.extra["anthropic"]["unknown_blocks"][0]["type"] == "server_tool_use"
    assert out.text == "Calling." and out.usage.input_tokens == 10 and out.usage.model == "claude-x"
    assert plain.finish_reason == "tool_use" and plain.message is not None and plain.message.tool_calls[0].name == "ls"


@pytest.mark.parametrize(
    "reply",
    [Reply.error(400, PROMPT_TOO_LONG), Reply.error(413, {"type": "error", "error": {"type": "request_too_large", "message": "Request exceeds the maximum allowed number of bytes."}})],
    ids=["prompt-too-long", "413"],
)
def test_overflow_not_retried(reply: Reply) -> None:
    with LocalProviderServer([reply, "never"]) as srv, make(srv) as model, pytest.raises(ContextOverflowError) as info:
        model.complete([user("x")])
    assert len(srv.requests) == 1 and isinstance(info.value, HTTPContextOverflowError)
    if reply.status == 400:
        assert (info.value.info.requested, info.value.info.limit) == (208310, 200000)
        assert "anthropic" in str(info.value)


def test_overloaded_retried_then_success_and_exhausted() -> None:
    slept: list[float] = []
    with LocalProviderServer([Reply.error(529, OVERLOADED), "fine"]) as srv, make(srv, slept) as model:
        assert model.complete([user("x")]).text == "fine"
    assert slept == [1.0]
    slept.clear()
    with LocalProviderServer([Reply.error(529, OVERLOADED)] * 6) as srv, make(srv, slept) as model, pytest.raises(RateLimitError, match="overloaded"):
        model.complete([user("x")])
    assert slept == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_async() -> None:
    slept: list[float] = []

    async def record(s: float) -> None:
        slept.append(s)

    limited = Reply.error(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}, headers={"retry-after": "4"})
    with LocalProviderServer([limited, Reply(text="ok", input_tokens=30, cache_read_tokens=10)]) as srv:
        model = AnthropicModel("c", base_url=srv.base_url + "/v1", api_key="k", retry=RetryPolicy(async_sleep=record))
        out = asyncio.run(model.acomplete([user("x")]))
    assert out.text == "ok" and out.usage.input_tokens == 30 and out.usage.cache_read_tokens == 10
    assert slept == [4.0] and srv.requests[1].path == "/v1/messages"


def test_key_required_for_anthropic_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicModel("claude-sonnet-4-5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    with LocalProviderServer(["hi"]) as srv:
        AnthropicModel("c", base_url=srv.base_url).complete([user("x")])
    assert srv.requests[0].headers["x-api-key"] == "from-env"


def test_assistant_text_only_and_tool_error_flag() -> None:
    msgs = [
        user("q"),
        assistant("a", ToolCallPart(id="t1", name="run", arguments="not json")),
        Message(role="tool", parts=(ToolResultPart(call_id="t1", content=(TextPart("failed"),), is_error=True),)),
    ]
    with LocalProviderServer(["ok"]) as srv, make(srv) as model:
        model.complete(msgs)
    body = srv.bodies[0]
    assert body["messages"][1]["content"][1]["input"] == {"input": "not json"}
    assert body["messages"][2]["content"][0]["is_error"] is True
