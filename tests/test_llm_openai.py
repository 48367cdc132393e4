"""OpenAICompatibleModel over real HTTP to the local provider server."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from contextwindow.errors import ConfigError, ContextOverflowError, ProviderError, ProviderTimeoutError, RateLimitError
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.overflow import HTTPConnectionError, HTTPContextOverflowError, HTTPProviderError
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    assistant,
    tool_result,
    user,
)
from contextwindow.tools import ToolSpec

OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. "
        "Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


def make(srv: LocalProviderServer, slept: list[float] | None = None, **kw: object) -> OpenAICompatibleModel:
    record = slept.append if slept is not None else (lambda s: pytest.fail(f"unexpected sleep {s}"))
    return OpenAICompatibleModel("local-model", base_url=srv.openai_base_url, api_key="sk-test", retry=RetryPolicy(sleep=record), **kw)  # type: ignore[arg-type]


def test_success_payload_shape_and_usage() -> None:
    history = [
        user("read the file"),
        assistant("", ToolCallPart(id="call_1", name="read_file", arguments='{"path":"a.py"}')),
        tool_result("call_1", "print('hi')", name="read_file"),
        Message(role="user", parts=(TextPart("and this picture"), ImagePart(source="base64", data="AAAA", media_type="image/png"))),
    ]
    reply = Reply(text="done", input_tokens=1200, output_tokens=7, cache_read_tokens=1024)
    with LocalProviderServer([reply]) as srv, make(srv) as model:
        out = model.complete(history, system="You are terse.", max_tokens=256, tools=[ToolSpec("read_file", "Read a file")])
    body = srv.bodies[0]
    assert body["model"] == "local-model" and body["max_tokens"] == 256
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert body["messages"][0]["content"] == "You are terse."
    assert body["messages"][2]["tool_calls"] == [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a.py"}'}}]
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "print('hi')"}
    assert body["messages"][4]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert srv.requests[0].headers["authorization"] == "Bearer sk-test"
    assert out.text == "done" and out.finish_reason == "stop"
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.cache_read_tokens) == (1200, 7, 1024)
    assert out.usage.model == "local-model" and out.usage.latency_s is not None and out.usage.latency_s > 0
    assert out.raw is not None and out.raw["id"] == "chatcmpl-local-0"


def test_usage_estimated_from_request_size_when_not_set() -> None:
    with LocalProviderServer(["a", "b"]) as srv, make(srv) as model:
        small = model.complete([user("x")]).usage.input_tokens
        big = model.complete([user("y" * 8000)]).usage.input_tokens
    assert big - small >= 1900


def test_tool_calls_and_reasoning_parsed() -> None:
    reasoning_body = {
        "id": "r",
        "model": "qwen",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "42", "reasoning_content": "think"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 2}},
    }
    with LocalProviderServer([Reply(tool_calls=(ToolCallSpec("grep", {"q": "x"}, id="c9"),)), Reply(body=reasoning_body)]) as srv, make(srv) as model:
        calls = model.complete([user("find x")])
        thought = model.complete([user("why")])
    assert calls.finish_reason == "tool_calls" and calls.text == ""
    assert calls.message is not None and calls.message.tool_calls == (ToolCallPart(id="c9", name="grep", arguments='{"q": "x"}'),)
    assert thought.text == "42" and thought.usage.reasoning_tokens == 2 and thought.usage.model == "qwen"
    assert thought.message is not None and isinstance(thought.message.parts[0], ReasoningPart)


def test_429_with_retry_after_then_success() -> None:
    slept: list[float] = []
    limited = Reply.error(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}, headers={"Retry-After": "2"})
    with LocalProviderServer([limited, limited, "finally"]) as srv, make(srv, slept) as model:
        assert model.complete([user("hi")]).text == "finally"
    assert slept == [2.0, 2.0] and len(srv.requests) == 3
    assert srv.bodies[0] == srv.bodies[2]  # the same request is sent again


def test_5xx_retries_exhausted_gives_typed_error() -> None:
    slept: list[float] = []
    down = Reply.error(503, {"error": {"message": "The engine is currently overloaded", "type": "server_error"}})
    with LocalProviderServer([down] * 6) as srv, make(srv, slept) as model, pytest.raises(ProviderError) as info:
        model.complete([user("hi")])
    assert slept == [1.0, 2.0, 4.0, 8.0, 16.0] and len(srv.requests) == 6
    assert info.value.status == 503 and "overloaded" in str(info.value)
    assert not isinstance(info.value, (RateLimitError, ContextOverflowError))


def test_rate_limit_exhausted_is_rate_limit_error() -> None:
    slept: list[float] = []
    limited = Reply.error(429, {"error": {"message": "slow down", "code": "rate_limit_exceeded"}})
    with LocalProviderServer([limited] * 3) as srv, pytest.raises(RateLimitError, match="rate limited"):
        OpenAICompatibleModel("m", base_url=srv.openai_base_url, retry=RetryPolicy(delays=(1, 1), sleep=slept.append)).complete([user("x")])
    assert slept == [1, 1]


def test_timeout_is_provider_timeout_error() -> None:
    slept: list[float] = []
    slow = Reply(text="late", delay=5.0)
    with LocalProviderServer([slow, slow]) as srv:
        model = OpenAICompatibleModel("m", base_url=srv.openai_base_url, timeout=0.2, retry=RetryPolicy(delays=(0.5,), sleep=slept.append))
        with pytest.raises(ProviderTimeoutError, match=r"after 0\.2s"):
            model.complete([user("x")])
    # the client gave up on both attempts (the server still owed each a reply 5 s later)
    assert slept == [0.5] and len(srv.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        Reply.error(400, OVERFLOW),
        Reply.error(400, {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 9100, "n_ctx": 8192}}),
        Reply.error(500, {"error": {"code": 500, "message": "the request exceeds the available context size. try increasing the context size or enable context shift", "type": "server_error"}}),
    ],
    ids=["openai", "llamacpp-400", "llamacpp-500"],
)
def test_overflow_is_not_retried(reply: Reply) -> None:
    with LocalProviderServer([reply, "never"]) as srv, make(srv) as model, pytest.raises(ContextOverflowError) as info:
        model.complete([user("x")])
    assert len(srv.requests) == 1
    err = info.value
    assert isinstance(err, HTTPContextOverflowError) and err.status == reply.status
    assert err.body is not None and "context" in err.body
    if reply.status == 400:
        assert (err.info.requested, err.info.limit) == (9100, 8192)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply.garbage(b"<html><body>Bad gateway page</body></html>"), "response is not JSON"),
        (Reply.garbage(b"", content_type="application/json"), "empty response body"),
        (Reply(body={"id": "x", "object": "chat.completion"}), "unexpected response shape"),
        (Reply(body={"choices": [{"message": {"content": 5}}]}), "unexpected response shape"),
        (Reply.garbage(b"[1, 2]", content_type="application/json"), "JSON list"),
    ],
    ids=["html", "empty", "no-choices", "bad-content", "list"],
)
def test_garbage_is_a_clear_provider_error(reply: Reply, message: str) -> None:
    with LocalProviderServer([reply]) as srv, make(srv) as model, pytest.raises(ProviderError, match=message) as info:
        model.complete([user("x")])
    assert info.value.status == 200 and len(srv.requests) == 1


def test_error_body_with_200_status() -> None:
    slept: list[float] = []
    with LocalProviderServer([Reply(body=OVERFLOW), Reply(body={"error": {"message": "upstream hiccup"}}), "ok"]) as srv, make(srv, slept) as model:
        with pytest.raises(ContextOverflowError):
            model.complete([user("x")])
        assert model.complete([user("x")]).text == "ok"  # an unknown error in a 200 is retried as a server error
    assert slept == [1.0]


def test_auth_error_not_retried() -> None:
    body = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}
    with LocalProviderServer([Reply.error(401, body)]) as srv, make(srv) as model, pytest.raises(HTTPProviderError, match="authentication failed") as info:
        model.complete([user("x")])
    assert info.value.info.kind == "auth" and len(srv.requests) == 1


def test_connection_refused_is_retried_then_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    slept: list[float] = []
    model = OpenAICompatibleModel("m", base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(delays=(0.1, 0.2), sleep=slept.append))
    with pytest.raises(HTTPConnectionError, match="could not connect"):
        model.complete([user("x")])
    assert slept == [0.1, 0.2]


def test_async_success_retry_and_overflow() -> None:
    slept: list[float] = []

    async def record(s: float) -> None:
        slept.append(s)

    limited = Reply.error(429, {"error": {"message": "slow", "code": "rate_limit_exceeded"}}, headers={"retry-after-ms": "1500"})
    with LocalProviderServer([Reply(text="one", input_tokens=50), limited, "two", Reply.error(400, OVERFLOW)]) as srv:
        model = OpenAICompatibleModel("local-model", base_url=srv.openai_base_url, retry=RetryPolicy(async_sleep=record))

        async def go() -> tuple[str, str]:
            a = await model.acomplete([user("a")], system="s")
            b = await model.acomplete([user("b")])
            with pytest.raises(ContextOverflowError):
                await model.acomplete([user("c")])
            return a.text, b.text

        assert asyncio.run(go()) == ("one", "two")
    assert slept == [1.5] and len(srv.requests) == 4
    assert srv.bodies[0]["messages"][0] == {"role": "system", "content": "s"}


def test_async_timeout() -> None:
    with LocalProviderServer([Reply(delay=5.0)]) as srv:
        model = OpenAICompatibleModel("m", base_url=srv.openai_base_url, timeout=0.2, retry=RetryPolicy(delays=()))
        with pytest.raises(ProviderTimeoutError):
            asyncio.run(model.acomplete([user("x")]))


def test_keys_and_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAICompatibleModel("gpt-4o")
    with pytest.raises(ConfigError, match="base_url"):
        OpenAICompatibleModel("m", base_url="localhost:8000/v1")
    with pytest.raises(ConfigError, match="timeout"):
        OpenAICompatibleModel("m", base_url="http://x/v1", timeout=0)
    assert OpenAICompatibleModel("gpt-4o", api_key="k").max_tokens_field == "max_completion_tokens"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    with LocalProviderServer(["a", "b"]) as srv:
        OpenAICompatibleModel("m", base_url=srv.openai_base_url).complete([user("x")])
        with pytest.raises(ConfigError, match="max_tokens"):
            OpenAICompatibleModel("m", base_url=srv.openai_base_url).complete([user("x")], max_tokens=0)
        OpenAICompatibleModel("m", base_url=srv.openai_base_url, api_key="", extra_body={"temperature": 0}).complete([user("x")])
    assert srv.requests[0].headers["authorization"] == "Bearer sk-env"
    assert "authorization" not in srv.requests[1].headers  # api_key="" sends none
    assert srv.bodies[1]["temperature"] == 0
    assert json.loads(srv.requests[0].raw)["max_tokens"] == 1024
