"""``ctxw proxy`` end to end: the official OpenAI and Anthropic SDKs as clients, through the proxy
(on a free loopback port), to a real local upstream server that records what it receives."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")

from contextwindow import turns  # noqa: E402
from contextwindow.curation import segments  # noqa: E402
from contextwindow.formats import get_format  # noqa: E402
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec  # noqa: E402
from contextwindow.prefix import payload_units  # noqa: E402
from contextwindow.proxy import Conversations  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.session import SessionConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from contextwindow.store.base import ConversationStore  # noqa: E402
from contextwindow.sync_state import load_decisions  # noqa: E402


@contextmanager
def stack(
    handler: Any, *, window: int | None = None, clip_budget: int | None = 4_000, token: str | None = None, store: ConversationStore | None = None,
    max_body: int | None = None, session: SessionConfig | None = None,
) -> Iterator[tuple[LocalProviderServer, BackgroundProxy, ConversationStore]]:
    store = store or open_store("memory://")
    with LocalProviderServer(handler) as up:
        cfg = ProxyConfig(upstream=up.base_url, port=0, token=token, **({"max_body": max_body} if max_body else {}))
        with BackgroundProxy(cfg, Conversations(store, window=window, clip_budget=clip_budget, config=session)) as px:
            yield up, px, store


def recorder() -> tuple[list[bytes], httpx.Client]:
    """An httpx client that keeps the exact bytes each request carried."""
    sent: list[bytes] = []

    def hook(request: httpx.Request) -> None:
        sent.append(request.read())

    return sent, httpx.Client(event_hooks={"request": [hook]})


def oai(px: BackgroundProxy, http: httpx.Client | None = None, **kw: Any) -> Any:
    return openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0, http_client=http, **kw)


def ant(px: BackgroundProxy, http: httpx.Client | None = None, **kw: Any) -> Any:
    return anthropic.Anthropic(base_url=px.url, api_key="sk-ant-test", max_retries=0, http_client=http, **kw)


def big_output(n: int, seed: int = 0) -> str:
    return "".join(f"src/module_{(i * 7 + seed) % 97}.py:{i}: def handler_{i}(request): return retry(request, attempt={i})\n" for i in range(n))


def valid(body: dict[str, Any], fmt: str) -> list[Any]:
    return turns.validate(get_format(fmt).from_payload(body), provider=fmt)


# --- pass-through and relay ------------------------------------------------------------------------


def test_unchanged_request_goes_upstream_byte_identical_and_answer_is_unaltered() -> None:
    sent, http = recorder()
    with stack(lambda r: Reply(text="The retry logic is in src/http.py.", input_tokens=120, output_tokens=9)) as (up, px, store):
        c = oai(px, http)
        raw = c.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Where is retry? ünïcode"}],
            temperature=0.2, max_tokens=50,
        )
        assert up.requests[0].raw == sent[0]  # byte-identical: nothing needed changing
        answer = raw.parse()
        assert answer.choices[0].message.content == "The retry logic is in src/http.py."
        assert json.loads(raw.content)["id"] == "chatcmpl-local-0"  # the upstream's own answer, relayed
        px.wait_idle()
        (conv,) = store.list_conversations()
        usage = store.list_usage(conv.id)
        assert [(u.input_tokens, u.output_tokens, u.model) for u in usage] == [(120, 9, "gpt-4o-mini")]
        assert usage[0].cost_usd is not None and usage[0].cost_usd > 0


def test_stream_is_relayed_event_by_event_and_accounted() -> None:
    text = "streamed answer " * 5
    with stack(lambda r: Reply(text=text, input_tokens=300, output_tokens=20, chunk_delay=0.001)) as (_up, px, store):
        c = oai(px)
        chunks = list(c.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "go"}], stream=True, stream_options={"include_usage": True}
        ))
        assert "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices) == text
        assert len(chunks) > 5  # event by event, not one buffered blob
        a = ant(px)
        with a.messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=[{"role": "user", "content": "go"}]) as st:
            events = [ev.type for ev in st]
            final = st.get_final_message()
        assert final.content[0].text == text
        assert "message_start" in events and "message_stop" in events
        px.wait_idle()
        usages = {c.id: store.list_usage(c.id) for c in store.list_conversations()}
        assert sorted((u.input_tokens, u.output_tokens) for us in usages.values() for u in us) == [(300, 20), (300, 20)]


def test_stream_bytes_reach_the_client_unaltered_pings_included() -> None:
    with stack(lambda r: Reply(text="abc" * 10, input_tokens=50, output_tokens=3)) as (up, px, _):
        body = {"model": "claude-sonnet-4-6", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        via = httpx.post(f"{px.url}/v1/messages", json=body, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
        direct = httpx.post(f"{up.base_url}/v1/messages", json=body)
        assert via.headers["content-type"] == "text/event-stream"
        assert b"event: ping" in via.content

        def strip_ids(raw: bytes) -> bytes:
            return raw.replace(b"msg_local_0", b"X").replace(b"msg_local_1", b"X")

        assert strip_ids(via.content) == strip_ids(direct.content)
        assert up.requests[0].headers["anthropic-version"] == "2023-06-01"
        assert up.requests[0].headers["x-api-key"] == "k"


def test_errors_429_and_5xx_are_relayed_as_the_upstream_sent_them() -> None:
    err = {"error": {"message": "Rate limit reached for gpt-4o-mini", "type": "requests", "code": "rate_limit_exceeded"}}
    script = [Reply.error(429, err, headers={"retry-after": "7"}), Reply.error(503, {"error": {"message": "overloaded"}})]
    with stack(script) as (up, px, store):
        c = oai(px)
        with pytest.raises(openai.RateLimitError) as e:
            c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
        assert e.value.response.headers["retry-after"] == "7"
        assert e.value.body == err["error"]
        with pytest.raises(openai.InternalServerError) as e5:
            c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
        assert e5.value.status_code == 503
        assert len(up.requests) == 2  # no retries of the proxy's own
        px.wait_idle()
        assert all(not store.list_usage(c.id) for c in store.list_conversations())


def test_unknown_paths_and_methods_pass_through() -> None:
    with stack(["unused"]) as (up, px, _):
        models = oai(px).models.list()
        assert [m.id for m in models.data] == ["local"]
        n = ant(px).messages.count_tokens(model="claude-sonnet-4-6", messages=[{"role": "user", "content": "count me"}])
        assert n.input_tokens > 0
        r = httpx.post(f"{px.url}/v1/embeddings?x=1", content=b"not even json")
        assert r.status_code == 404 and r.json()["error"]["message"] == "no route /v1/embeddings"
        assert up.requests == []  # nothing was scripted: every answer came from the pass-through routes


# --- bad input --------------------------------------------------------------------------------------


def test_malformed_json_and_history_get_400_in_the_provider_shape_naming_the_field() -> None:
    with stack(["unused"]) as (up, px, _):
        r = httpx.post(f"{px.url}/v1/chat/completions", content=b'{"model": "m", "messages": [', headers={"content-type": "application/json"})
        assert r.status_code == 400
        assert r.json()["error"]["param"] == "body" and "not valid JSON" in r.json()["error"]["message"]
        nan = b'{"model": "m", "messages": [{"role": "user", "content": "x", "n": NaN}]}'  # Python's json takes it; JSON does not
        r = httpx.post(f"{px.url}/v1/chat/completions", content=nan, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "NaN is not a JSON value" in r.json()["error"]["message"]
        r = httpx.post(f"{px.url}/v1/chat/completions", json={"model": "m", "messages": "hi"})
        assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
        r = httpx.post(f"{px.url}/v1/chat/completions", json={"model": "m", "messages": [{"content": "no role"}]})
        assert r.status_code == 400 and r.json()["error"]["param"] == "messages[0].role"
        r = httpx.post(f"{px.url}/v1/messages", json={"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": 5}]})
        assert r.status_code == 400
        assert r.json()["type"] == "error" and r.json()["error"]["type"] == "invalid_request_error"
        assert "messages[0].content" in r.json()["error"]["message"]
        with pytest.raises(anthropic.BadRequestError):
            ant(px).messages.create(model="m", max_tokens=5, messages=[{"role": "robot", "content": "x"}])
        assert up.requests == []


def test_upstream_unreachable_is_a_502_naming_it() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dead = f"http://127.0.0.1:{port}"
    with BackgroundProxy(ProxyConfig(upstream=dead, port=0), Conversations(open_store("memory://"))) as px:
        with pytest.raises(openai.APIStatusError) as e:
            oai(px).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
        assert e.value.status_code == 502
        assert dead in e.value.message
        r = httpx.get(f"{px.url}/v1/models")
        assert r.status_code == 502 and dead in r.json()["error"]["message"]


def test_body_over_the_limit_is_refused_with_413_without_reading_it() -> None:
    with stack(["unused"], max_body=1 << 20) as (up, px, _):
        r = httpx.post(f"{px.url}/v1/messages", content=b"x" * (2 << 20), headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["type"] == "request_too_large"

        def chunks() -> Iterator[bytes]:  # no content-length: the proxy counts as it reads
            for _ in range(64):
                yield b"y" * (64 << 10)

        r = httpx.post(f"{px.url}/v1/chat/completions", content=chunks())
        assert r.status_code == 413
        assert up.requests == []


def test_client_disconnect_mid_stream_cancels_the_upstream_call() -> None:
    started = threading.Event()

    def handler(req: Any) -> Reply:
        started.set()
        return Reply(text="x" * 4000, chunk_delay=0.02)

    with stack(handler) as (up, px, store):
        body = {"model": "gpt-4o-mini", "stream": True, "stream_options": {"include_usage": True},
                "messages": [{"role": "user", "content": "long answer please"}]}
        with httpx.stream("POST", f"{px.url}/v1/chat/completions", json=body) as r:
            it = r.iter_raw()
            next(it)
            next(it)
        # the upstream notices its reader went away (bounded wait on the event, not on a clock)
        for _ in range(400):
            if up.aborted_streams:
                break
            threading.Event().wait(0.05)
        assert up.aborted_streams == 1
        px.wait_idle()
        (conv,) = store.list_conversations()
        assert store.list_usage(conv.id) == []  # nothing half-written
        assert [sm.message.text for sm in store.list(conv.id)] == ["long answer please"]


def test_own_token_is_checked_first_and_never_forwarded() -> None:
    with stack(lambda r: Reply(text="ok"), token="s3cret") as (up, px, _):
        with pytest.raises(openai.AuthenticationError):
            oai(px).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
        assert up.requests == []
        ok = oai(px, default_headers={"x-ctxw-token": "s3cret"}).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}]
        )
        assert ok.choices[0].message.content == "ok"
        assert "x-ctxw-token" not in up.requests[0].headers
        assert up.requests[0].headers["authorization"] == "Bearer sk-test"


def test_binding_beyond_loopback_needs_a_token() -> None:
    from contextwindow.errors import ConfigError
    from contextwindow.proxy.server import ProxyServer

    with pytest.raises(ConfigError, match="needs a token"):
        ProxyServer(ProxyConfig(upstream="http://127.0.0.1:1", host="0.0.0.0"), Conversations(open_store("memory://")))
    ProxyServer(ProxyConfig(upstream="http://127.0.0.1:1", host="0.0.0.0", token="t"), Conversations(open_store("memory://")))


# --- identity and the store ----------------------------------------------------------------------


def agent_turns(c: Any, rounds: int, *, output: Callable[[int], str], headers: dict[str, str] | None = None, model: str = "gpt-4o-mini",
                max_tokens: int = 256) -> list[dict[str, Any]]:
    """An OpenAI-SDK agent loop: the model asks for a tool, the agent runs it and re-sends everything."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": "Find the retry logic. Never edit generated files."},
    ]
    for i in range(rounds):
        r = c.chat.completions.create(model=model, messages=history, max_tokens=max_tokens, extra_headers=headers or {},
                                      tools=[{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}])
        msg = r.choices[0].message
        history.append(msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}))
        for call in msg.tool_calls or []:
            history.append({"role": "tool", "tool_call_id": call.id, "content": output(i)})
    return history


def tool_script(req: Any) -> Reply:
    return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": "retry", "n": len(req.body["messages"])}, id=f"call_{len(req.body['messages'])}"),))


def test_re_sent_history_is_recognised_and_only_new_messages_are_appended() -> None:
    with stack(tool_script) as (_up, px, store):
        history = agent_turns(oai(px), 4, output=lambda i: f"found {i}")
        px.wait_idle()
        (conv,) = store.list_conversations()
        # the conversation as shown: everything the client sent, then the model's last reply, stored
        # from the answer (the client has not sent it back yet); the last tool output never left the client
        shown = [sm for seg in segments(store, conv.id) for t in seg.turns for sm in t.messages]
        assert [sm.message.role for sm in shown] == [m["role"] for m in history[:-1]]
        assert shown[-1].message.tool_calls[0].id == history[-2]["tool_calls"][0]["id"]
        # the SDK re-sends a reply without the answer's null fields: its copy stands in the view, the
        # provider's copy stays in the record (append-only), superseded
        superseded = load_decisions(store, conv.id)
        assert len(store.list(conv.id)) == len(shown) + len(superseded) and all(v[0] == 0 for v in superseded.values())
        assert conv.metadata["proxy"]["source"] == "head" and conv.title.startswith("proxy: Find the retry logic")
        assert len(store.list_usage(conv.id)) == 4


def test_identity_from_header_client_session_and_head() -> None:
    with stack(lambda r: Reply(text="ok")) as (up, px, store):
        c = oai(px)
        msgs = [{"role": "user", "content": "same start"}]
        c.chat.completions.create(model="gpt-4o-mini", messages=msgs, extra_headers={"x-ctxw-conversation": "alpha"})
        c.chat.completions.create(model="gpt-4o-mini", messages=msgs, extra_headers={"x-ctxw-conversation": "beta"})
        c.chat.completions.create(model="gpt-4o-mini", messages=msgs, user="u1")
        c.chat.completions.create(model="gpt-4o-mini", messages=msgs, user="u2")
        a = ant(px)
        a.messages.create(model="claude-sonnet-4-6", max_tokens=5, messages=msgs, extra_headers={"x-claude-code-session-id": "S1"})
        # a side request under the same client session with another system prompt is another conversation
        a.messages.create(model="claude-haiku-4-5", max_tokens=5, system="Write a title.", messages=msgs,
                          extra_headers={"x-claude-code-session-id": "S1"})
        a.messages.create(model="claude-sonnet-4-6", max_tokens=5, messages=[*msgs, {"role": "assistant", "content": "ok"},
                          {"role": "user", "content": "more"}], extra_headers={"x-claude-code-session-id": "S1"})
        keys = sorted(c.metadata["proxy"]["key"] for c in store.list_conversations())
        assert len(keys) == 6
        assert any(k == "x:alpha" for k in keys) and any(k.startswith("c:u1:") for k in keys)
        assert "x-ctxw-conversation" not in up.requests[0].headers
        s1 = [c for c in store.list_conversations() if c.metadata["proxy"]["key"].startswith("c:S1:") and c.metadata["model"] == "claude-sonnet-4-6"]
        px.wait_idle()
        # the 3 messages sent, then the model's last reply (the "ok" the client re-sent as a string
        # stands in the view for the provider's block-list copy)
        assert len(s1) == 1 and [sm.message.text for seg in segments(store, s1[0].id) for t in seg.turns for sm in t.messages] == [
            "same start", "ok", "more", "ok"]


def test_a_rewritten_history_continues_in_a_new_conversation() -> None:
    with stack(lambda r: Reply(text="ok")) as (_up, px, store):
        c = oai(px)
        h = [{"role": "user", "content": "start"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "two"}]
        hdr = {"x-ctxw-conversation": "rw"}
        c.chat.completions.create(model="gpt-4o-mini", messages=h, extra_headers=hdr)
        c.chat.completions.create(model="gpt-4o-mini", messages=[h[0], {"role": "assistant", "content": "edited"}], extra_headers=hdr)
        convs = store.list_conversations()
        assert len(convs) == 2
        newer, older = convs
        assert newer.parent_id == older.id
        # what each was sent, then the reply stored from its answer
        px.wait_idle()
        assert len(store.list(older.id)) == 3 + 1 and len(store.list(newer.id)) == 2 + 1


# --- what the proxy does to a request ---------------------------------------------------------------


def test_tool_results_are_clipped_once_and_resent_byte_identical() -> None:
    with stack(tool_script, clip_budget=300) as (up, px, store):
        agent_turns(oai(px), 4, output=lambda i: big_output(400, i))
        bodies = [r.body for r in up.requests]
        first_tool = next(m for m in bodies[1]["messages"] if m["role"] == "tool")["content"]
        assert len(first_tool) < len(big_output(400, 0)) // 4 and "ofl_" in first_tool
        for later in bodies[2:]:
            assert next(m for m in later["messages"] if m["role"] == "tool")["content"] == first_tool
        for b in bodies:
            assert valid(b, "openai") == []
        # the originals are kept: the marker's ref reads back the full output
        ref = first_tool[first_tool.index("ofl_") : first_tool.index("ofl_") + 20]
        assert store.get_offload(ref).content == big_output(400, 0)


def test_compaction_keeps_prefixes_identical_between_events_and_requests_valid() -> None:
    # the trigger-driven compaction events alone: the per-call cache clearing (compaction/cache.py)
    # breaks the prefix whenever a clear pays for itself, which at gpt-4o-mini's prices is often
    with stack(tool_script, window=12_000, clip_budget=1_500, session=SessionConfig(cache=None)) as (up, px, store):
        agent_turns(oai(px), 24, output=lambda i: big_output(60, i), max_tokens=512)
        bodies = [r.body for r in up.requests]
        (_conv,) = store.list_conversations()
        units = [payload_units({"messages": b["messages"]}) for b in bodies]
        sizes = [len(json.dumps(b["messages"])) for b in bodies]
        breaks = 0
        for n, (prev, cur) in enumerate(itertools.pairwise(units)):
            if cur[: len(prev)] != prev:  # only a compaction event may break the prefix, and it shrinks the request
                breaks += 1
                assert sizes[n + 1] < sizes[n]
        assert 1 <= breaks <= len(bodies) // 3, f"{breaks} prefix breaks in {len(bodies)} requests"
        assert any("summarized here are kept in the conversation store" in json.dumps(b["messages"]) for b in bodies)
        for b in bodies:
            assert valid(b, "openai") == []
        assert max(sizes) < 12_000 * 4  # the history stayed under the window (chars ≈ 4 per token)


def test_overflow_error_forces_compaction_and_one_retry() -> None:
    overflow = {"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
                          "type": "invalid_request_error", "code": "context_length_exceeded"}}
    calls = {"n": 0}

    def handler(req: Any) -> Reply:
        calls["n"] += 1
        if len(req.raw) > 12_000:
            return Reply.error(400, overflow)
        return tool_script(req)

    with stack(handler, window=200_000, clip_budget=100_000) as (up, px, _store):
        agent_turns(oai(px), 8, output=lambda i: big_output(30, i))
        raws = [len(r.raw) for r in up.requests]
        assert any(n > 12_000 for n in raws), raws
        # every overflow was followed by one smaller retry that succeeded
        for i, n in enumerate(raws):
            if n > 12_000:
                assert raws[i + 1] < n
        for r in up.requests:
            assert valid(r.body, "openai") == []

    with stack([Reply.error(400, overflow), Reply.error(400, overflow), "never"]) as (up, px, _):
        with pytest.raises(openai.BadRequestError) as e:
            oai(px).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x" * 100}])
        assert e.value.body == overflow["error"]
        assert len(up.requests) == 2  # one bounded retry


def anthropic_agent(a: Any, rounds: int, output: Callable[[int], str]) -> list[dict[str, Any]]:
    """A Claude-Code-like loop: thinking blocks with signatures, cache breakpoints moved to the newest message."""
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Fix the flaky test."}]}]
    system = [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}]
    for i in range(rounds):
        sent = json.loads(json.dumps(history))
        last = sent[-1]["content"][-1]
        last["cache_control"] = {"type": "ephemeral"}
        m = a.messages.create(model="claude-sonnet-4-6", max_tokens=1024, system=system, messages=sent,
                              extra_headers={"x-claude-code-session-id": "sess-1", "anthropic-beta": "interleaved-thinking-2025-05-14"})
        blocks = [{"type": "thinking", "thinking": f"step {i}", "signature": f"sig+/{i}=="}, *[b.model_dump(exclude_none=True) for b in m.content]]
        history.append({"role": "assistant", "content": blocks})
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": output(i)}
                                                    for b in blocks if b["type"] == "tool_use"]})
    return history


def ant_script(req: Any) -> Reply:
    return Reply(tool_calls=(ToolCallSpec("Bash", {"command": "pytest -x"}, id=f"toolu_{len(req.body['messages'])}"),))


def test_anthropic_breakpoints_signatures_and_clipping() -> None:
    with stack(ant_script, clip_budget=300) as (up, px, store):
        anthropic_agent(ant(px), 5, output=lambda i: big_output(300, i))
        bodies = [r.body for r in up.requests]
        for n, b in enumerate(bodies):
            assert valid(b, "anthropic") == []
            marked = [blk for m in b["messages"] for blk in (m["content"] if isinstance(m["content"], list) else []) if "cache_control" in blk]
            assert len(marked) == 1 and marked[0] is b["messages"][-1]["content"][-1]  # where the client put it this time
            assert b["system"][0]["cache_control"] == {"type": "ephemeral"}
            thinking = [blk for m in b["messages"] for blk in m["content"] if isinstance(blk, dict) and blk.get("type") == "thinking"]
            assert [t["signature"] for t in thinking] == [f"sig+/{i}==" for i in range(n)]
        results = [blk["content"] for blk in bodies[2]["messages"][2]["content"]]
        assert "ofl_" in results[0] and results[0] == next(blk["content"] for blk in bodies[4]["messages"][2]["content"])
        assert up.requests[-1].headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
        (conv,) = store.list_conversations()
        assert conv.metadata["proxy"]["source"].startswith("client:")


def test_responses_api_function_calls_clipped_and_streamed() -> None:
    def handler(req: Any) -> Reply:
        n = len(req.body["input"]) if isinstance(req.body["input"], list) else 1
        return Reply(tool_calls=(ToolCallSpec("shell", {"cmd": "ls"}, id=f"call_{n}"),), text="" if n < 6 else "done")

    with stack(handler, clip_budget=300) as (up, px, store):
        c = oai(px)
        items: list[Any] = [{"role": "user", "content": "list the files"}]
        for i in range(3):
            r = c.responses.create(model="gpt-4o-mini", instructions="Be terse.", input=items)
            for out in r.output:
                if out.type == "function_call":
                    items.append({"type": "function_call", "call_id": out.call_id, "name": out.name, "arguments": out.arguments})
                    items.append({"type": "function_call_output", "call_id": out.call_id, "output": big_output(300, i)})
        outputs = [it["output"] for it in up.requests[-1].body["input"] if it.get("type") == "function_call_output"]
        assert all("ofl_" in o for o in outputs) and len(outputs) == 2
        assert up.requests[-1].body["instructions"] == "Be terse."
        with c.responses.stream(model="gpt-4o-mini", input=items) as st:
            kinds = {ev.type for ev in st}
        assert "response.completed" in kinds
        px.wait_idle()
        for q in up.requests:
            assert valid(q.body, "openai_responses") == []
        assert sum(len(store.list_usage(cv.id)) for cv in store.list_conversations()) == 4


def test_stateful_responses_requests_are_forwarded_as_sent() -> None:
    sent, http = recorder()
    with stack(lambda r: Reply(text="ok")) as (up, px, store):
        oai(px, http).responses.create(model="gpt-4o-mini", previous_response_id="resp_1", input=[{"role": "user", "content": big_output(300)}])
        assert up.requests[0].raw == sent[0]
        assert store.list_conversations() == []


def test_proxied_conversations_show_in_sessions_list_and_show(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from contextwindow.cli.main import cli

    url = f"sqlite:///{tmp_path / 'p.db'}"
    store = open_store(url)
    with stack(lambda r: Reply(text="ok", input_tokens=1000, output_tokens=10), store=store) as (_, px, _s):
        oai(px).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "visible while running"}])
        px.wait_idle()
        out = CliRunner().invoke(cli, ["sessions", "list", "--store", url])
        assert out.exit_code == 0 and "proxy: visible while running" in out.output
        cid = store.list_conversations()[0].id
        show = CliRunner().invoke(cli, ["sessions", "show", cid, "--store", url])
        assert "usage[main]: 1 calls, 1000 in / 10 out tokens, $0.0002" in show.output
    store.close()


def test_session_sync_recognises_the_stored_prefix_clips_once_and_reports_divergence() -> None:
    from contextwindow import Session
    from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
    from contextwindow.session import SessionConfig

    store = open_store("memory://")
    s = Session(store, window=64_000, config=SessionConfig(clip_budget_tokens=200))
    h = [Message("user", (TextPart("find retry"),)), Message("assistant", (ToolCallPart("c1", "grep", "{}"),)),
         Message("tool", (ToolResultPart("c1", (TextPart(big_output(300)),)),))]
    first = s.sync(h)
    assert (first.known, len(first.added), first.diverged_at) == (0, 3, None)
    clipped = store.list(s.id)[2].message.text
    assert "ofl_" in clipped and len(clipped) < len(big_output(300)) // 4
    again = s.sync([*h, Message("assistant", (TextPart("done"),))])
    assert (again.known, len(again.added)) == (3, 1)
    assert store.list(s.id)[2].message.text == clipped  # stored once, clipped once
    # a fresh Session over the same conversation recognises it from the store alone
    s2 = Session(store, s.id, window=64_000, config=SessionConfig(clip_budget_tokens=200))
    assert s2.sync([*h, Message("assistant", (TextPart("done"),))]).added == []
    rewritten = s2.sync([h[0], Message("assistant", (TextPart("other"),))])
    assert rewritten.diverged_at == 1 and rewritten.added == []
    assert len(store.list(s.id)) == 4


def test_a_conversation_that_needs_nothing_is_forwarded_byte_identical_request_after_request() -> None:
    sent, http = recorder()
    with stack(tool_script, window=200_000) as (up, px, store):
        agent_turns(oai(px, http), 8, output=lambda i: f"src/http.py:{i}: def retry(): ...")
        assert len(up.requests) == 8
        assert [r.raw for r in up.requests] == sent  # every request as the client sent it, byte for byte
        px.wait_idle()
        (conv,) = store.list_conversations()
        assert len(store.list_usage(conv.id)) == 8
        # shown: the 16 messages sent, then the last reply; recorded besides: the provider's copies of the
        # 7 replies the SDK re-sent in its own form (superseded, never sent upstream)
        assert sum(len(t.messages) for seg in segments(store, conv.id) for t in seg.turns) == 2 + 2 * 7 + 1
        assert len(store.list(conv.id)) == 2 + 2 * 7 + 1 + 7
        assert px.server.stats["fast"] == 7  # all but the first went upstream before their messages were stored
    # ... and once a tool result must be clipped, the same conversation is built again (and stays valid)
    sent, http = recorder()
    with stack(tool_script, window=200_000, clip_budget=300) as (up, px, store):
        agent_turns(oai(px, http), 5, output=lambda i: "short" if i < 3 else big_output(300, i))
        assert [r.raw == s for r, s in zip(up.requests, sent, strict=True)] == [True, True, True, True, False]
        assert "ofl_" in json.dumps(up.requests[-1].body) and valid(up.requests[-1].body, "openai") == []


def test_a_running_proxied_conversation_shows_in_the_tui(tmp_path: Any) -> None:
    pytest.importorskip("textual")
    import asyncio

    from textual.widgets import OptionList, Static

    from contextwindow.tui import CurateApp

    store = open_store(f"sqlite:///{tmp_path / 'tui.db'}")
    with stack(tool_script, store=store) as (_, px, _s):
        agent_turns(oai(px), 3, output=lambda i: f"found {i}")
        px.wait_idle()
        (conv,) = store.list_conversations()
        app = CurateApp(store)

        async def main() -> None:
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.pause()
                titles = [o.prompt.plain for o in app.query_one("#conversations", OptionList).options]  # type: ignore[union-attr]
                assert any(t.startswith("proxy: Find the retry logic") for t in titles)
                await pilot.press("tab")
                await pilot.pause()
                assert app.conversation_id == conv.id
                account = app.query_one("#account", Static).content.plain  # type: ignore[union-attr]
                assert "main: 3 calls" in account and "$" in account

        asyncio.run(main())
    store.close()
