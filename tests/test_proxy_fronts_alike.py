"""What both fronts of ``ctxw proxy`` (``aiohttp`` and ``lean``) must do alike: accept and refuse
the same credentials for the proxy's own token (``Proxy-Authorization`` included, on every path the
lean front takes: the worker's, its own fast path, pass-through), never let that token reach the
upstream, and stream a pass-through body of any size while a managed endpoint keeps its 413."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from aiohttp import web  # noqa: E402

from contextwindow.llm.localserver import LocalProviderServer  # noqa: E402
from contextwindow.proxy import Conversations  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from proxy_helpers import TOOLS, script  # noqa: E402

FRONTS = ["aiohttp", "lean"]
TOKEN = "s3cret"


class Recorder:
    """An upstream for every path but the chat one (``--anthropic-upstream``: ``/v1/messages/...``):
    records each request's method, path, headers, body size and digest (the body is read as it
    comes, not kept), and answers 200 with that record."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.url = ""

    async def _handle(self, request: web.Request) -> web.Response:
        digest, size = hashlib.sha256(), 0
        async for piece in request.content.iter_chunked(1 << 16):
            digest.update(piece)
            size += len(piece)
        seen = {"method": request.method, "path": request.path, "headers": {k.lower(): v for k, v in request.headers.items()},
                "size": size, "sha256": digest.hexdigest()}
        self.requests.append(seen)
        return web.json_response({"size": size, "sha256": seen["sha256"]})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    def __enter__(self) -> Recorder:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@contextmanager
def proxy(front: str, **kw: Any) -> Iterator[tuple[LocalProviderServer, Recorder, BackgroundProxy]]:
    with LocalProviderServer(script) as up, Recorder() as other:
        cfg = ProxyConfig(upstream=up.base_url, anthropic_upstream=other.url, port=0, front=front, **kw)
        with BackgroundProxy(cfg, Conversations(open_store("memory://"))) as px:
            yield up, other, px


def _own_token_absent(headers: list[dict[str, str]]) -> None:
    for h in headers:
        assert "proxy-authorization" not in h and "x-ctxw-token" not in h, h
        assert TOKEN not in " ".join(h.values())


# each: the client's headers, and whether the proxy takes them as its token
CREDENTIALS: list[tuple[list[tuple[str, str]], bool]] = [
    ([], False),
    ([("x-ctxw-token", TOKEN)], True),
    ([("x-ctxw-token", "nope")], False),
    ([("proxy-authorization", f"Bearer {TOKEN}")], True),
    ([("Proxy-Authorization", f"bearer {TOKEN}")], True),
    ([("proxy-authorization", f"Bearer  {TOKEN}")], True),
    ([("proxy-authorization", f"Basic {TOKEN}")], False),
    ([("proxy-authorization", TOKEN)], False),
    ([("proxy-authorization", "Bearer nope")], False),
    ([("x-ctxw-token", "nope"), ("proxy-authorization", f"Bearer {TOKEN}")], False),  # x-ctxw-token, when sent, decides
    ([("x-ctxw-token", ""), ("proxy-authorization", f"Bearer {TOKEN}")], True),
    ([("x-ctxw-token", "nope"), ("x-ctxw-token", TOKEN)], False),  # a header sent twice: the first one counts
    ([("x-ctxw-token", TOKEN), ("x-ctxw-token", "nope")], True),
]


@pytest.mark.parametrize("front", FRONTS)
def test_both_fronts_take_and_refuse_the_same_credentials(front: str) -> None:
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    with proxy(front, token=TOKEN) as (up, other, px):
        got = []
        for headers, _ in CREDENTIALS:
            for method, path, body in (("POST", "/v1/chat/completions", chat), ("GET", "/v1/models", None),
                                       ("POST", "/v1/messages/count_tokens", {"model": "m", "messages": []})):
                r = httpx.request(method, px.url + path, headers=headers, json=body, timeout=60)
                got.append((headers, path, r.status_code))
        want = [(h, p, 200 if ok else 401) for h, ok in CREDENTIALS for p in ("/v1/chat/completions", "/v1/models", "/v1/messages/count_tokens")]
        assert got == want
        taken = sum(ok for _, ok in CREDENTIALS)
        assert len(up.requests) == taken and len(other.requests) == taken  # nothing refused went upstream
        _own_token_absent([r.headers for r in up.requests] + [r["headers"] for r in other.requests])


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("stream", [False, True])
def test_proxy_authorization_serves_a_whole_conversation_and_never_goes_upstream(front: str, stream: bool) -> None:
    with proxy(front, token=TOKEN) as (up, _, px):
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0,
                          default_headers={"Proxy-Authorization": f"Bearer {TOKEN}"})
        history: list[Any] = [{"role": "system", "content": "You are a careful coding agent."},
                              {"role": "user", "content": "Find the retry logic."}]
        for i in range(5):
            if stream:
                calls: dict[int, Any] = {}
                for ev in c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS, stream=True):
                    for tc in (ev.choices[0].delta.tool_calls or []) if ev.choices else []:
                        calls.setdefault(tc.index, tc)
                call = calls[0]
            else:
                call = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS).choices[0].message.tool_calls[0]
            history += [{"role": "assistant", "content": None, "tool_calls": [
                {"id": call.id, "type": "function", "function": {"name": "grep", "arguments": call.function.arguments}}]},
                {"role": "tool", "tool_call_id": call.id, "content": f"src/http.py:{i}: retry()"}]
        px.wait_idle()
        assert len(up.requests) == 5
        if front == "lean":
            st = px.server.status()
            assert st["front_fast"] >= 1 and st["delegated"] >= 1  # both of the lean front's paths were taken
        _own_token_absent([r.headers for r in up.requests])
        assert all(r.headers["authorization"] == "Bearer sk-test" for r in up.requests)  # the provider's own auth goes on


@pytest.mark.parametrize("front", FRONTS)
def test_a_pass_through_body_over_max_body_is_streamed_and_a_managed_one_refused(front: str) -> None:
    limit = 64 << 10
    blob = hashlib.sha256(b"seed").digest() * (40 * limit // 32)  # 40 times the limit
    want = {"size": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}

    def pieces() -> Iterator[bytes]:  # no Content-Length: chunked
        for at in range(0, len(blob), 100_000):
            yield blob[at:at + 100_000]

    with proxy(front, max_body=limit) as (up, other, px):
        with httpx.Client(timeout=60) as http:
            for body in (blob, pieces()):
                r = http.post(f"{px.url}/v1/messages/count_tokens?beta=true", content=body, headers={"content-type": "application/json"})
                assert r.status_code == 200 and r.json() == want
            r = http.put(f"{px.url}/v1/messages/batches/upload", content=blob)  # any method, any path
            assert r.status_code == 200 and r.json() == want
            # the same keep-alive connection serves on after a relayed body
            r = http.post(f"{px.url}/v1/messages/count_tokens", content=b'{"model":"m","messages":[]}')
            assert r.status_code == 200 and r.json()["size"] == 27
        assert [(q["method"], q["path"], q["size"]) for q in other.requests] == [
            ("POST", "/v1/messages/count_tokens", len(blob)), ("POST", "/v1/messages/count_tokens", len(blob)),
            ("PUT", "/v1/messages/batches/upload", len(blob)), ("POST", "/v1/messages/count_tokens", 27)]
        assert other.requests[0]["headers"]["content-length"] == str(len(blob))  # streamed through, not re-chunked
        for path in ("/v1/chat/completions", "/v1/messages"):  # a body the proxy must read: 413, as before
            try:
                r = httpx.post(f"{px.url}{path}", content=blob, timeout=60)
                assert r.status_code == 413 and r.json()["error"]["type"] in ("request_too_large", "invalid_request_error")
            except (httpx.WriteError, httpx.RemoteProtocolError, httpx.ReadError):
                pass  # answered 413 and closed while the client was still sending
        assert up.requests == []


def test_a_client_gone_mid_body_leaves_the_lean_front_serving() -> None:
    import socket

    with proxy("lean", max_body=64 << 10) as (_up, other, px):
        with socket.create_connection(("127.0.0.1", px.server.port), timeout=30) as s:
            s.sendall(b"POST /v1/messages/count_tokens HTTP/1.1\r\nhost: x\r\ncontent-length: 10000000\r\n\r\n" + b"x" * (2 << 20))
        r = httpx.post(f"{px.url}/v1/messages/count_tokens", content=b"{}", timeout=60)
        assert r.status_code == 200 and r.json()["size"] == 2
        px.wait_idle()
        assert [q["size"] for q in other.requests][-1] == 2 and all(q["size"] != 10_000_000 for q in other.requests)
        # an answer out before its body ended (here: the proxy's 401): said, then the connection closed
    with proxy("lean", token=TOKEN, max_body=64 << 10) as (_up, other, px):
        with socket.create_connection(("127.0.0.1", px.server.port), timeout=30) as s:
            s.sendall(b"POST /v1/messages/count_tokens HTTP/1.1\r\nhost: x\r\ncontent-length: 10000000\r\n\r\n" + b"x" * 100_000)
            out = b""
            while piece := s.recv(65536):
                out += piece
        assert out.startswith(b"HTTP/1.1 401") and other.requests == []
