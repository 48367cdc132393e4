"""Review of the model clients as a demanding user meets them: real HTTP to LocalProviderServer,
retries recorded (never waited), errors typed and readable, secrets never shown."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import threading
import time

import pytest

from contextwindow.errors import ContextOverflowError, ProviderTimeoutError, RateLimitError
from contextwindow.llm import (
    NO_RETRY,
    AnthropicModel,
    LocalProviderServer,
    OpenAICompatibleModel,
    Reply,
    RetryPolicy,
    ToolCallSpec,
    describe_error,
)
from contextwindow.llm.localserver import ReceivedRequest
from contextwindow.llm.overflow import HTTPConnectionError, HTTPProviderError, HTTPStatusError
from contextwindow.messages import ToolCallPart, user

KEY = "sk-test-SECRET-0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _openai(srv: LocalProviderServer, slept: list[float], **kw: object) -> OpenAICompatibleModel:
    return OpenAICompatibleModel("m", base_url=srv.openai_base_url, api_key=KEY, retry=RetryPolicy(sleep=slept.append), **kw)  # type: ignore[arg-type]


def _anthropic(srv: LocalProviderServer, slept: list[float]) -> AnthropicModel:
    return AnthropicModel("m", base_url=srv.base_url, api_key=KEY, retry=RetryPolicy(sleep=slept.append))


RATE = {"error": {"type": "rate_limit_error", "message": "slow down"}}


# --- retries -----------------------------------------------------------------------------------


def test_retry_after_as_http_date_is_honoured() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    slept: list[float] = []
    with LocalProviderServer([Reply.error(429, RATE, headers={"retry-after": when}), "ok"]) as srv, _openai(srv, slept) as m:
        assert m.complete([user("x")]).text == "ok"
    assert len(slept) == 1 and 25 <= slept[0] <= 30


def test_absurd_retry_after_is_capped_and_unreadable_falls_back_to_backoff() -> None:
    slept: list[float] = []
    script: list[Reply | str] = [
        Reply.error(429, RATE, headers={"retry-after": "99999999"}),
        Reply.error(429, RATE, headers={"retry-after": "nan"}),
        Reply.error(429, RATE, headers={"retry-after": "soon"}),
        "ok",
    ]
    with LocalProviderServer(script) as srv, _openai(srv, slept) as m:
        assert m.complete([user("x")]).text == "ok"
    assert slept == [120.0, 2.0, 4.0]


def test_insufficient_quota_is_not_retried() -> None:
    body = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
    slept: list[float] = []
    with LocalProviderServer([Reply.error(429, body), "never"]) as srv, _openai(srv, slept) as m:
        with pytest.raises(RateLimitError, match="exceeded your current quota"):
            m.complete([user("x")])
        assert len(srv.requests) == 1 and slept == []


def test_5xx_then_success_anthropic_529_and_error_in_200() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    script: list[Reply | str] = [Reply.error(503, "upstream down"), Reply.error(529, overloaded), Reply(status=200, body=overloaded), "fine"]
    slept: list[float] = []
    with LocalProviderServer(script) as srv, _anthropic(srv, slept) as m:
        assert m.complete([user("x")]).text == "fine"
    assert slept == [1.0, 2.0, 4.0]


def test_connection_refused_with_the_default_policy_fails_fast_and_says_why() -> None:
    slept: list[float] = []
    port = _free_port()
    m = OpenAICompatibleModel("m", base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, retry=RetryPolicy(sleep=slept.append))
    with pytest.raises(HTTPConnectionError) as err:
        m.complete([user("x")])
    # nothing listening: a few quick retries (a server restarting), not 31 s of backoff
    assert sum(slept) <= 3.0, slept
    assert f"127.0.0.1:{port}" in str(err.value) and "running" in str(err.value)
    assert KEY not in str(err.value)


def test_connection_reset_mid_request_keeps_the_full_retry_budget() -> None:
    policy = RetryPolicy(sleep=lambda s: None)
    from contextwindow.llm.overflow import ErrorInfo, error_from_info

    reset = error_from_info(ErrorInfo(kind="connection", message="ReadError: reset"))
    calls = 0

    def fn() -> str:
        nonlocal calls
        calls += 1
        raise reset

    with pytest.raises(HTTPConnectionError):
        policy.run(fn)
    assert calls == policy.attempts


def test_timeout_is_typed_and_retried() -> None:
    slept: list[float] = []
    arrived = threading.Semaphore(0)

    def late(req: object) -> Reply:
        arrived.release()  # the server's thread has read (and recorded) this request
        return Reply(text="late", delay=2.0)

    with LocalProviderServer(late) as srv:
        m = OpenAICompatibleModel("m", base_url=srv.openai_base_url, timeout=0.2, retry=RetryPolicy(delays=(0.0,), sleep=slept.append))
        with pytest.raises(ProviderTimeoutError, match="no answer in time"):
            m.complete([user("x")])
        assert slept == [0.0]  # one retry: two attempts, both sent
        # the server reads them when its threads get to run (on a loaded machine, maybe after the
        # client gave up): wait for both by count, not by clock, then count exactly
        arrived.acquire()
        arrived.acquire()
        assert len(srv.requests) == 2


# --- strange 200s ------------------------------------------------------------------------------


def test_a_200_error_object_with_a_4xx_code_is_not_retried() -> None:
    body = {"error": {"message": "Invalid model 'nope'", "code": 400}}
    slept: list[float] = []
    with LocalProviderServer([Reply(status=200, body=body), "never"]) as srv, _openai(srv, slept) as m:
        with pytest.raises(HTTPStatusError, match="Invalid model") as err:
            m.complete([user("x")])
        assert err.value.info.kind == "bad_request"
        assert len(srv.requests) == 1 and slept == []


def test_a_200_error_object_with_401_is_auth_and_with_502_is_retried() -> None:
    slept: list[float] = []
    script = [Reply(status=200, body={"error": {"message": "upstream 502", "code": 502}}), Reply(status=200, body={"error": {"message": "No auth credentials found", "code": 401}})]
    with LocalProviderServer(script) as srv, _openai(srv, slept) as m, pytest.raises(HTTPStatusError, match="authentication failed") as err:
        m.complete([user("x")])
    assert err.value.info.kind == "auth" and slept == [1.0]


def test_a_200_with_non_json_is_a_clear_typed_error_not_retried() -> None:
    slept: list[float] = []
    with LocalProviderServer([Reply.garbage(b"<html>hello</html>"), "never"]) as srv, _openai(srv, slept) as m:
        with pytest.raises(HTTPStatusError, match="not JSON"):
            m.complete([user("x")])
        assert len(srv.requests) == 1


def _sse(*events: tuple[str | None, object]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
    return "".join(out).encode()


def test_an_openai_stream_sent_despite_stream_false_is_assembled() -> None:
    def chunk(delta: dict[str, object], finish: str | None = None, usage: dict[str, object] | None = None) -> dict[str, object]:
        c: dict[str, object] = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            c["usage"] = usage
        return c

    raw = _sse(
        (None, chunk({"role": "assistant", "content": "Hel"})),
        (None, chunk({"content": "lo"})),
        (None, chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"pa'}}]})),
        (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'th": "a.py"}'}}]})),
        (None, chunk({}, "tool_calls", {"prompt_tokens": 900, "completion_tokens": 12, "prompt_tokens_details": {"cached_tokens": 512}})),
        (None, "[DONE]"),
    )
    slept: list[float] = []
    with LocalProviderServer([Reply.garbage(raw, content_type="text/event-stream")]) as srv, _openai(srv, slept) as m:
        out = m.complete([user("x")])
    assert out.text == "Hello" and out.finish_reason == "tool_calls"
    assert out.message is not None and out.message.tool_calls == (ToolCallPart("call_1", "read", '{"path": "a.py"}'),)
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.cache_read_tokens) == (900, 12, 512)


def test_an_anthropic_stream_is_assembled() -> None:
    raw = _sse(
        ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None,
                                                              "usage": {"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("ping", {"type": "ping"}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi "}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "there"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"dir": '}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '"src"}'}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}}),
        ("message_stop", {"type": "message_stop"}),
    )
    slept: list[float] = []
    with LocalProviderServer([Reply.garbage(raw, content_type="text/event-stream")]) as srv, _anthropic(srv, slept) as m:
        out = m.complete([user("x")])
    assert out.text == "Hi there" and out.finish_reason == "tool_use"
    assert out.message is not None and [(c.id, c.name, c.parsed_arguments()) for c in out.message.tool_calls] == [("toolu_1", "ls", {"dir": "src"})]
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.cache_read_tokens, out.usage.cache_write_tokens) == (1110, 42, 1000, 100)


def test_a_stream_that_is_not_json_or_not_a_stream_shape_is_a_typed_error() -> None:
    bad = [b"data: {not json\n\n", b"data: [1, 2]\n\n", b"event: message_delta\ndata: {}\n\n", b": keep-alive\n\n"]
    slept: list[float] = []
    for wire in ("openai", "anthropic"):
        with LocalProviderServer([Reply.garbage(b, content_type="text/event-stream") for b in bad]) as srv:
            model = _openai(srv, slept) if wire == "openai" else _anthropic(srv, slept)
            with model:
                for _ in bad:
                    with pytest.raises(HTTPStatusError, match=r"event stream|response shape"):
                        model.complete([user("x")])
    assert slept == []


def test_an_error_event_inside_a_stream_is_a_typed_error() -> None:
    raw = _sse(("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    slept: list[float] = []
    with LocalProviderServer([Reply.garbage(raw, content_type="text/event-stream"), "fine"]) as srv, _anthropic(srv, slept) as m:
        assert m.complete([user("x")]).text == "fine"
    assert slept == [1.0]


# --- tool calls and usage ----------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_parallel_tool_calls_and_cache_usage_come_back_whole(wire: str) -> None:
    reply = Reply(
        text="let me look",
        tool_calls=(ToolCallSpec("read_file", {"path": "a.py"}, id="c1"), ToolCallSpec("grep", {"q": "déjà vu", "n": 3}, id="c2")),
        input_tokens=5000,
        output_tokens=30,
        cache_read_tokens=4000,
        cache_write_tokens=600 if wire == "anthropic" else 0,
    )
    slept: list[float] = []
    with LocalProviderServer([reply]) as srv:
        model = _openai(srv, slept) if wire == "openai" else _anthropic(srv, slept)
        with model:
            out = model.complete([user("x")])
    assert out.message is not None
    assert [(c.id, c.name, c.parsed_arguments()) for c in out.message.tool_calls] == [
        ("c1", "read_file", {"path": "a.py"}),
        ("c2", "grep", {"q": "déjà vu", "n": 3}),
    ]
    assert out.text == "let me look"
    assert out.usage.input_tokens == 5000  # the whole prompt, cached part included
    assert out.usage.cache_read_tokens == 4000
    assert out.usage.cache_write_tokens == (600 if wire == "anthropic" else 0)


def test_async_calls_run_concurrently_and_keep_their_answers() -> None:
    # every request is held until all 12 are in the server at once: a client that sent them one
    # after another would break the barrier (a 500, so the gather fails) instead of passing slowly
    fan_out = 12
    everyone_in = threading.Barrier(fan_out, timeout=60)

    def answer(r: ReceivedRequest) -> Reply:
        everyone_in.wait()
        return Reply(text=r.body["messages"][-1]["content"])

    async def main(srv: LocalProviderServer) -> list[str]:
        m = OpenAICompatibleModel("m", base_url=srv.openai_base_url, retry=NO_RETRY)
        outs = await asyncio.gather(*(m.acomplete([user(f"q{i}")]) for i in range(fan_out)))
        return [o.text for o in outs]

    with LocalProviderServer(answer) as srv:
        assert srv.backlog >= fan_out  # the listen queue takes the whole burst
        assert asyncio.run(main(srv)) == [f"q{i}" for i in range(fan_out)]
        assert srv.max_in_flight == fan_out  # all overlapped on the server side
        assert srv.wait_idle()  # and every one left (a handler leaves just after its last byte: waited for, not raced)


def test_async_overflow_is_not_retried() -> None:
    body = {"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "code": "context_length_exceeded"}}
    slept: list[float] = []

    async def record(s: float) -> None:
        slept.append(s)

    async def main() -> None:
        with LocalProviderServer([Reply.error(400, body), "never"]) as srv:
            m = OpenAICompatibleModel("m", base_url=srv.openai_base_url, retry=RetryPolicy(async_sleep=record))
            with pytest.raises(ContextOverflowError) as err:
                await m.acomplete([user("x")])
            assert (err.value.info.requested, err.value.info.limit) == (9000, 8192)  # type: ignore[attr-defined]
            assert len(srv.requests) == 1

    asyncio.run(main())
    assert slept == []


# --- the overflow table: near misses ------------------------------------------------------------

NOT_OVERFLOW = [
    ("openai-bad-tool-schema", 400, {"error": {"message": "Invalid schema for function 'get_weather': In context=('properties', 'loc'), 'required' is required to be supplied.", "type": "invalid_request_error", "param": "tools[0].function.parameters", "code": "invalid_function_parameters"}}, "bad_request"),
    ("anthropic-image-too-big", 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes"}}, "bad_request"),
    ("anthropic-image-dimensions", 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "messages.3.content.0.image.source: image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}, "bad_request"),
    ("openai-bad-image", 400, {"error": {"message": "You uploaded an unsupported image. Please make sure your image is below 20 MB in size.", "type": "invalid_request_error", "code": "invalid_image_format"}}, "bad_request"),
    ("openai-string-too-long", 400, {"error": {"message": "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.", "code": "string_above_max_length"}}, "bad_request"),
    ("anthropic-bad-input-schema", 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12"}}, "bad_request"),
    ("proxy-413-html", 413, "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n", "bad_request"),
    ("gemini-quota-429", 429, {"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.", "status": "RESOURCE_EXHAUSTED",
                                         "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count"}]}]}}, "rate_limit"),
    ("gemini-quota-no-status", None, {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}, "rate_limit"),
    ("bedrock-throttle-tokens", None, {"__type": "ThrottlingException", "message": "Too many tokens, please wait before trying again."}, "rate_limit"),
]


@pytest.mark.parametrize(("case", "status", "body", "kind"), NOT_OVERFLOW, ids=[c[0] for c in NOT_OVERFLOW])
def test_near_misses_are_not_overflow(case: str, status: int | None, body: object, kind: str) -> None:
    assert describe_error(status, body).kind == kind, case  # type: ignore[arg-type]


def test_gemini_overflow_is_overflow_with_numbers() -> None:
    body = {"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}
    for wrapped in (body, [body]):
        info = describe_error(400, wrapped)
        assert (info.kind, info.requested, info.limit) == ("context_overflow", 1200000, 1048576)


def test_an_html_error_page_gives_a_readable_message() -> None:
    html = NOT_OVERFLOW[6][2]
    slept: list[float] = []
    with LocalProviderServer([Reply.garbage(str(html).encode(), status=413)]) as srv, _openai(srv, slept) as m, pytest.raises(HTTPStatusError) as err:
        m.complete([user("x")])
    msg = str(err.value)
    assert "413 Request Entity Too Large" in msg and "<" not in msg.split("(HTTP 413):", 1)[1]


def test_vllm_max_tokens_too_large_counts_input_plus_output() -> None:
    body = {"error": {"message": "'max_tokens' or 'max_completion_tokens' is too large: 5000. This model's maximum context length is 4096 tokens "
                      "and your request has 100 input tokens (5000 > 4096 - 100).", "type": "BadRequestError", "param": None, "code": 400}}
    info = describe_error(400, body)
    assert info.kind == "context_overflow"
    assert (info.requested, info.limit) == (5100, 4096)  # the request is over the window by 1004, not under it


# --- secrets -------------------------------------------------------------------------------------


def test_an_api_key_echoed_by_the_server_is_not_in_the_error() -> None:
    body = {"error": {"message": f"Incorrect API key provided: {KEY}. Header was 'Bearer {KEY}'", "type": "invalid_request_error", "code": "invalid_api_key"}}
    slept: list[float] = []
    for wire in ("openai", "anthropic"):
        with LocalProviderServer([Reply.error(401, body)]) as srv:
            model = _openai(srv, slept) if wire == "openai" else _anthropic(srv, slept)
            with model, pytest.raises(HTTPProviderError, match="authentication failed") as err:
                model.complete([user("x")])
            sent = srv.requests[0].headers
        assert KEY in sent.get("authorization", "") + sent.get("x-api-key", "")  # it was sent...
        e = err.value
        assert KEY not in str(e) and KEY not in (e.body or "") and KEY not in e.info.message  # ...and never shown


def test_a_secret_header_echoed_in_a_garbage_body_is_not_in_the_error() -> None:
    token = "azure-KEY-9f8e7d6c5b4a39281706"
    slept: list[float] = []
    garbage = Reply.garbage(f"bad request, api-key={token}".encode())
    with (
        LocalProviderServer([garbage]) as srv,
        OpenAICompatibleModel("m", base_url=srv.openai_base_url, headers={"api-key": token}, retry=RetryPolicy(sleep=slept.append)) as m,
        pytest.raises(HTTPStatusError) as err,
    ):
        m.complete([user("x")])
    assert token not in str(err.value) and token not in (err.value.body or "")


def test_credentials_in_the_base_url_are_not_shown() -> None:
    port = _free_port()
    m = OpenAICompatibleModel("m", base_url=f"http://bob:pw-SECRET-77@127.0.0.1:{port}/v1", retry=NO_RETRY)
    assert "pw-SECRET-77" not in repr(m)
    with pytest.raises(HTTPConnectionError) as err:
        m.complete([user("x")])
    assert "pw-SECRET-77" not in str(err.value) and f"127.0.0.1:{port}" in str(err.value)
