"""The lean front (``ProxyConfig(front="lean")``, ``ctxw proxy --front lean``): requests that need
no change go upstream from the front byte for byte and are stored by the worker; everything else
is served by the worker; HTTP edge cases of the front itself (413, 401, 502, a worker gone)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.curation import segments  # noqa: E402
from contextwindow.llm.localserver import LocalProviderServer, Reply  # noqa: E402
from contextwindow.proxy import Conversations, fastpath, resend  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from contextwindow.store.base import ConversationStore  # noqa: E402
from proxy_helpers import TOOLS, script  # noqa: E402


@contextmanager
def lean(handler: Any, *, clip_budget: int | None = 4_000, token: str | None = None, max_body: int | None = None,
         store: ConversationStore | None = None) -> Iterator[tuple[LocalProviderServer, BackgroundProxy, ConversationStore]]:
    store = store or open_store("memory://")
    with LocalProviderServer(handler) as up:
        cfg = ProxyConfig(upstream=up.base_url, port=0, token=token, front="lean", **({"max_body": max_body} if max_body else {}))
        with BackgroundProxy(cfg, Conversations(store, clip_budget=clip_budget)) as px:
            yield up, px, store


def sent_bytes() -> tuple[list[bytes], httpx.Client]:
    sent: list[bytes] = []
    return sent, httpx.Client(event_hooks={"request": [lambda r: sent.append(r.read())]})


def turns(c: Any, rounds: int, output: Any = lambda i: f"src/http.py:{i}: retry()", **kw: Any) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."},
                                     {"role": "user", "content": "Find the retry logic."}]
    for i in range(rounds):
        r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS, **kw)
        msg = r.choices[0].message
        history.append(msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}))
        for call in msg.tool_calls or []:
            history.append({"role": "tool", "tool_call_id": call.id, "content": output(i)})
    return history


def test_unchanged_requests_go_from_the_front_byte_identical_and_the_worker_stores_them() -> None:
    with lean(script) as (up, px, store):
        sent, http = sent_bytes()
        history = turns(openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0, http_client=http), 8)
        px.wait_idle()
        st = px.server.status()
        assert st["front_fast"] >= 5 and st["delegated"] <= 3 and st["records_lost"] == 0, st
        assert st.get("misjudged", 0) == 0 and st["locks"] == 0
        assert [r.raw for r in up.requests] == sent  # nothing needed changing: every body went as the client sent it
        (conv,) = store.list_conversations()
        shown = [sm.message.role for seg in segments(store, conv.id) for t in seg.turns for sm in t.messages]
        assert shown == [m["role"] for m in history[:-1]]  # everything sent is stored, in order, and the last reply
        assert len(store.list_usage(conv.id)) == 8  # one usage row per answer, the front's included


def test_a_streamed_answer_is_relayed_and_recorded() -> None:
    def handler(req: Any) -> Reply:
        n = len(req.body["messages"])
        return Reply(text=f"step {n}", stream=True, input_tokens=30 * n, output_tokens=3)

    with lean(handler) as (_up, px, store):
        c = anthropic.Anthropic(base_url=px.url, api_key="sk-ant-test", max_retries=0)
        history: list[dict[str, Any]] = [{"role": "user", "content": "Plan the refactor."}]
        texts = []
        for _ in range(5):
            with c.messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=history) as s:  # type: ignore[arg-type]
                text = s.get_final_text()
            texts.append(text)
            history += [{"role": "assistant", "content": text}, {"role": "user", "content": "go on"}]
        px.wait_idle()
        assert texts == [f"step {n}" for n in (1, 3, 5, 7, 9)]
        assert px.server.status()["front_fast"] >= 2
        (conv,) = store.list_conversations()
        assert [u.input_tokens for u in store.list_usage(conv.id)] == [30, 90, 150, 210, 270]


def test_a_tool_result_over_the_clip_budget_goes_to_the_worker_and_is_clipped() -> None:
    big = "\n".join(f"src/mod{k}.py:{k}: def retry_{k}(): pass  # {'x' * 40}" for k in range(400))
    with lean(script, clip_budget=500) as (up, px, _store):
        turns(openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0), 6, output=lambda i: big if i == 3 else f"ok {i}")
        px.wait_idle()
        last = up.requests[-1].body["messages"]
        clipped = [m["content"] for m in last if m.get("role") == "tool" and len(m["content"]) < len(big) and "mod" in m["content"]]
        assert clipped, "the big result went upstream unclipped"
        assert px.server.status().get("misjudged", 0) == 0


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def test_a_body_over_max_body_is_refused_before_it_is_read() -> None:
    with lean(script, max_body=10_000) as (up, px, _store):
        head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 50000000\r\n\r\n"
        out = _raw(px.server.port, head + b"{" * 20_000)
        assert out.startswith(b"HTTP/1.1 413") and b'"type":"error"' in out.replace(b" ", b"")  # the Anthropic shape
        # chunked: refused once the chunks pass the bound
        chunks = b"".join(b"%x\r\n%b\r\n" % (4000, b"x" * 4000) for _ in range(4)) + b"0\r\n\r\n"
        out = _raw(px.server.port, b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n" + chunks)
        assert out.startswith(b"HTTP/1.1 413") and b"10000 bytes" in out
        assert up.requests == []


def test_a_chunked_request_body_within_the_bound_is_served() -> None:
    with lean(script) as (up, px, _store):
        body = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}).encode()
        half = len(body) // 2
        chunks = b"%x\r\n%b\r\n%x\r\n%b\r\n0\r\n\r\n" % (half, body[:half], len(body) - half, body[half:])
        out = _raw(px.server.port, b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n" + chunks)
        assert out.startswith(b"HTTP/1.1 200") and b"call_1" in out
        assert up.requests[0].raw == body


def test_the_proxy_token_is_checked_by_the_front() -> None:
    with lean(script, token="s3cret") as (up, px, _store):
        r = httpx.post(f"{px.url}/v1/chat/completions", json={"model": "m", "messages": []})
        assert r.status_code == 401 and r.json()["error"]["type"] == "authentication_error"
        r = httpx.post(f"{px.url}/v1/chat/completions", headers={"x-ctxw-token": "s3cret"},
                       json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]})
        assert r.status_code == 200 and "x-ctxw-token" not in up.requests[0].headers


def test_an_upstream_gone_is_a_502_naming_it_on_the_fast_path() -> None:
    up = LocalProviderServer(script)
    up.__enter__()
    store = open_store("memory://")
    with BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"), Conversations(store)) as px:
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0)
        history = turns(c, 4)
        px.wait_idle()
        assert px.server.status()["front_fast"] >= 1
        where = up.base_url.split("//")[1].split("/")[0]
        up.__exit__(None, None, None)
        with pytest.raises(openai.APIStatusError) as err:
            c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS)  # type: ignore[arg-type]
        assert err.value.status_code == 502 and where in str(err.value)
        px.wait_idle()
        (conv,) = store.list_conversations()
        assert len(store.list(conv.id)) >= len(history)  # the request's messages are stored all the same


def test_a_worker_gone_is_said_not_silent() -> None:
    with lean(script) as (_up, px, _store):
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0)
        history = turns(c, 4)
        px.wait_idle()
        asyncio.run_coroutine_threadsafe(px.server.worker.close(), px._loop).result(30)  # the worker stops listening
        r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS)  # type: ignore[arg-type]
        assert r.choices[0].message.tool_calls  # the upstream's answer still reaches the client
        fut = asyncio.run_coroutine_threadsafe(asyncio.sleep(0.2), px._loop)  # the loop goes round (no barrier: the worker is gone)
        fut.result(30)
        for _ in range(50):
            if px.server.status()["records_lost"]:
                break
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0.05), px._loop).result(30)
        assert px.server.status()["records_lost"] >= 1  # counted (and logged)
        with pytest.raises(openai.APIStatusError) as err:  # the next one goes to the worker: a 502 naming it
            c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS)  # type: ignore[arg-type]
        assert err.value.status_code == 502 and "worker" in str(err.value)


# --- the decision, on bytes --------------------------------------------------------------------------


def _conv(body: dict[str, Any], room: int = 100_000) -> tuple[fastpath.Conv, bytes]:
    raw = json.dumps(body, separators=(",", ":")).encode()
    return fastpath.Conv(resend.Sent(raw=raw, count=len(body["messages"]), fingerprints=(), clean=True), room,
                         call_ids=fastpath.call_ids("openai", body["messages"])), raw


def _next(body: dict[str, Any], *new: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    nb = {**body, "messages": [*body["messages"], *new]}
    return json.dumps(nb, separators=(",", ":")).encode(), nb


BASE = {"model": "gpt-4o-mini", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "find it"}], "tools": TOOLS}
CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}}]}


def test_the_decision_passes_plain_growth_only() -> None:
    conv, _ = _conv(BASE)
    raw, body = _next(BASE, CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"})
    got = fastpath.decide(conv, "openai", raw, body, 4000)
    assert got is not None and got[0].count == 4
    # over the clip budget by bytes, or over the room: the worker decides
    raw2, body2 = _next(BASE, CALL, {"role": "tool", "tool_call_id": "c1", "content": "x" * 5000})
    assert fastpath.decide(conv, "openai", raw2, body2, 4000) is None
    assert fastpath.decide(_conv(BASE, room=10)[0], "openai", raw, body, 4000) is None
    # an image, an edited earlier message, a reused call id, an orphan tool result, another protocol
    img = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}
    assert fastpath.decide(conv, "openai", *_next(BASE, img), 4000) is None
    edited = {**BASE, "messages": [BASE["messages"][0], {"role": "user", "content": "find it now"}]}
    assert fastpath.decide(conv, "openai", *_next(edited, CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"}), 4000) is None
    conv_with_c1, _ = _conv({**BASE, "messages": [*BASE["messages"], CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]})
    again = {**BASE, "messages": [*BASE["messages"], CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}
    assert fastpath.decide(conv_with_c1, "openai", *_next(again, CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"}), 4000) is None
    assert fastpath.decide(conv, "openai", *_next(BASE, {"role": "tool", "tool_call_id": "zz", "content": "ok"}), 4000) is None
    assert fastpath.decide(conv, "openai_responses", raw, body, 4000) is None


def test_the_estimators_tokens_per_byte_bound_its_count_of_adversarial_messages() -> None:
    import random

    from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
    from contextwindow.proxy.bound import per_byte
    from contextwindow.tokens.estimate import Estimator

    rng = random.Random(15)
    alphabet = ["a", "Z", "7", "12345678901234567890", " ", "\n", "\t", "    ", "{", "}", '"', ",", ":", "→", "  12→", "é", "中", "😀",
                "aGVsbG8gd29ybGQ=", "deadbeef", "camelCase", "x" * 40, "\u2028", "\\"]
    for family in ("anthropic", "openai", "generic", "gemini"):
        est = Estimator(family)
        per = per_byte(est)
        assert per is not None
        for _ in range(300):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
            for m in (Message("user", (TextPart(text),)), Message("tool", (ToolResultPart("c1", (TextPart(text),)),)),
                      Message("assistant", (ToolCallPart("c1", "grep", json.dumps({"q": text})),))):
                js = {"role": m.role, "content": text}
                assert est.count_message(m) <= per * len(json.dumps(js, ensure_ascii=False).encode()), (family, text)


def test_the_front_keys_follow_identity() -> None:
    k = fastpath.key_of("/v1/chat/completions", {}, BASE)
    assert k == fastpath.key_of("/v1/chat/completions", {}, {**BASE, "messages": [*BASE["messages"], CALL]})
    assert k != fastpath.key_of("/v1/chat/completions", {"x-ctxw-conversation": "a"}, BASE)
    assert k != fastpath.key_of("/v1/messages", {}, BASE)
    assert fastpath.key_of("/v1/chat/completions", {}, {"model": "m"}) is None

    def raw(b: dict[str, Any]) -> bytes:
        return json.dumps(b, separators=(",", ":")).encode()

    long_task = {**BASE, "messages": [BASE["messages"][0], {"role": "user", "content": "find it " * 100}]}
    grown = {**long_task, "messages": [*long_task["messages"], CALL]}
    b = fastpath.byte_key("/v1/chat/completions", {}, raw(grown))
    assert b is not None and b == fastpath.byte_key("/v1/chat/completions", {}, raw({**grown, "messages": [*grown["messages"], CALL]}))
    assert b != fastpath.byte_key("/v1/chat/completions", {"x-ctxw-conversation": "a"}, raw(grown))
    assert b != fastpath.byte_key("/v1/messages", {}, raw(grown))
    assert fastpath.byte_key("/v1/chat/completions", {}, b'{"model":"m"}') is None


def test_once_the_anchor_is_known_the_new_bytes_alone_decide() -> None:
    conv, _ = _conv(BASE)
    raw, body = _next(BASE, CALL, {"role": "tool", "tool_call_id": "c1", "content": "ok"})
    assert fastpath.decide(conv, "openai", raw, None, 4000) is fastpath.NEED_BODY  # the first extension: parsed whole
    got = fastpath.decide(conv, "openai", raw, body, 4000)
    assert got is not None and got[0].anchor is not None
    conv.sent = got[0]
    call2 = {**CALL, "tool_calls": [{**CALL["tool_calls"][0], "id": "c2"}]}
    raw2, body2 = _next(body, call2, {"role": "tool", "tool_call_id": "c2", "content": "ok 2"})
    got2 = fastpath.decide(conv, "openai", raw2, None, 4000)
    assert got2 is not None and got2[0].count == 6 and got2[2] == body2["messages"][4:]
    # bytes that are not objects spliced at the anchor, or a changed tail, are not taken
    assert fastpath.decide(conv, "openai", raw[:-1] + b',1]}', None, 4000) is None
    assert fastpath.decide(conv, "openai", raw2.replace(b'"tools":[', b'"tools": ['), None, 4000) is None


# --- ctxw proxy --front lean: the worker in its own process ------------------------------------------


def test_ctxw_proxy_front_lean_serves_with_its_worker_process(tmp_path: Any) -> None:
    db = tmp_path / "p.db"
    with LocalProviderServer(script) as up:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        proc = subprocess.Popen([sys.executable, "-m", "contextwindow.cli.main", "proxy", "--front", "lean", "--upstream", up.base_url,
                                 "--port", "0", "--store", f"sqlite:///{db}"], stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stderr is not None
            line = ""
            while "listening on" not in line:
                line = proc.stderr.readline()
                assert line, "ctxw proxy --front lean exited"
            url = line.split("listening on ")[1].split()[0]
            turns(openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0), 5)
        finally:
            proc.terminate()  # SIGTERM: the front hands over what it holds, the worker commits and stops
            _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "5 requests" in err and "records lost 0" in err and "0 of them while its hand-overs were over their cap" in err, err
        store = open_store(f"sqlite:///{db}")
        (conv,) = store.list_conversations()
        assert len(store.list_usage(conv.id)) == 5


@pytest.mark.parametrize("front", ["aiohttp", "lean"])
def test_what_is_kept_beside_a_live_session_leaves_with_it(front: str) -> None:
    """The output reserves and no-build flags of conversations evicted from memory are pruned:
    memory per live conversation stays bounded however many conversations pass (either front)."""
    store = open_store("memory://")
    with LocalProviderServer(script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front=front),
                                                            Conversations(store, max_live=3)) as px:
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0)
        for k in range(9):
            history: list[dict[str, Any]] = [{"role": "user", "content": f"task {k}: find the retry logic"}]
            for _ in range(2):
                r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=64, tools=TOOLS)  # type: ignore[arg-type]
                msg = r.choices[0].message
                history += [msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}),
                            {"role": "tool", "tool_call_id": msg.tool_calls[0].id, "content": "ok"}]  # type: ignore[index]
            px.wait_idle()
        st = px.server.status()
        assert len(store.list_conversations()) == 9 and st["live"] == 3
        assert 1 <= st["per_live"] <= 3, st  # was 9 before the pruning (one entry per conversation ever seen)


def test_paths_the_front_does_not_decide_go_to_the_worker() -> None:
    """A Responses request, an unknown path and a GET are served by the worker through the front."""

    def handler(req: Any) -> Reply:
        return Reply(text="ok", input_tokens=5, output_tokens=1)

    with lean(handler) as (up, px, _store):
        r = httpx.post(f"{px.url}/v1/responses", json={"model": "gpt-4o-mini", "input": "hi"}, timeout=30)
        assert r.status_code == 200, r.text
        r = httpx.get(f"{px.url}/v1/models", timeout=30)
        assert r.status_code in (200, 404)
        assert up.requests[0].path == "/v1/responses"
        px.wait_idle()
        assert px.server.status()["delegated"] == 2
