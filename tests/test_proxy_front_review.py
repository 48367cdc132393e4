"""The lean front (``--front lean``) against what a review found (2026-11-24 ~15:30): answers broken
off mid-way, internal headers from a client, encoded bodies, HEAD and HTTP/1.0 framing, ``Expect:
100-continue``. Each goes through real HTTP: the front and its worker in front of an upstream that
misbehaves on purpose (a small threaded server here) or ``llm/localserver.py``'s."""

from __future__ import annotations

import gzip
import json
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.proxy import Conversations
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store

GUARD_S = 60  # a failure guard only: a test that passes never waits for it


def _answer(n: int) -> bytes:
    return json.dumps({"id": f"c{n}", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                           "role": "assistant", "content": None,
                           "tool_calls": [{"id": f"call_{n}", "type": "function", "function": {"name": "grep", "arguments": "{}"}}]}}],
                       "usage": {"prompt_tokens": 50 * n, "completion_tokens": 7, "total_tokens": 50 * n + 7}}).encode()


class Unruly:
    """An upstream speaking just enough HTTP/1.1 for chat completions: a whole JSON answer each
    time, until ``breaks`` says to break off the next answer after its head and half a chunk."""

    def __init__(self) -> None:
        self.breaks = 0
        self.bodies: list[bytes] = []
        self.gate: threading.Event | None = None  # set: each answer waits for it
        self.got = threading.Event()  # a request came
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    length = 0
                    while (h := self.rfile.readline()) not in (b"\r\n", b""):
                        k, _, v = h.decode("latin-1").partition(":")
                        if k.strip().lower() == "content-length":
                            length = int(v)
                    body = self.rfile.read(length)
                    outer.bodies.append(body)
                    outer.got.set()
                    if outer.gate is not None:
                        outer.gate.wait(GUARD_S)
                    n = len(json.loads(body)["messages"])
                    if outer.breaks:
                        outer.breaks -= 1
                        self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
                                         b"40\r\n" + _answer(n)[:20])
                        self.wfile.flush()
                        return  # the connection closes mid-chunk
                    data = _answer(n)
                    self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%b" % (len(data), data))
                    self.wfile.flush()

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def front(upstream: str) -> Iterator[BackgroundProxy]:
    cfg = ProxyConfig(upstream=upstream, port=0, front="lean")
    with BackgroundProxy(cfg, Conversations(open_store("memory://"), clip_budget=4_000)) as px:
        yield px


def _post(http: httpx.Client, url: str, history: list[dict[str, Any]], **headers: str) -> httpx.Response:
    body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}).encode()
    return http.post(f"{url}/v1/chat/completions", content=body, headers={"content-type": "application/json", **headers})


def _grow(history: list[dict[str, Any]], r: httpx.Response) -> None:
    msg = r.json()["choices"][0]["message"]
    history += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": "src/http.py:12: retry()"}]


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=GUARD_S) as s:
        s.sendall(data)
        out = b""
        while piece := s.recv(65536):
            out += piece
        return out


@pytest.mark.parametrize("where", ["worker", "fast"])
def test_an_answer_broken_off_mid_way_closes_the_clients_connection(where: str) -> None:
    """Before: the half-written chunked answer never ended and the client waited for ever (here: until
    httpx's read timeout); the front's connection task died with the error unseen."""
    up = Unruly()
    try:
        with front(up.url) as px, httpx.Client(timeout=GUARD_S) as http:
            history: list[dict[str, Any]] = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Find retry."}]
            for _ in range(0 if where == "worker" else 3):
                r = _post(http, px.url, history)
                assert r.status_code == 200, r.text
                _grow(history, r)
            px.wait_idle()
            before = px.server.status()
            up.breaks = 1
            with pytest.raises(httpx.RemoteProtocolError):  # not a ReadTimeout
                _post(http, px.url, history)
            st = px.server.status()
            took = "front_fast" if where == "fast" else "delegated"
            assert st[took] == before[took] + 1, (before, st)
            r = _post(http, px.url, history)  # the proxy goes on serving
            assert r.status_code == 200 and r.json()["choices"][0]["message"]["tool_calls"]
    finally:
        up.close()


def _script(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=50 * n, output_tokens=7)


def test_internal_headers_from_a_client_do_not_reach_the_worker() -> None:
    """Before: a client's ``x-ctxw-overflowed: 1`` went to the worker beside the front's secret, which
    believed it: the request was compacted by force and counted as the front's retry."""
    with LocalProviderServer(_script) as up, front(up.base_url) as px, httpx.Client(timeout=GUARD_S) as http:
        history: list[dict[str, Any]] = [{"role": "user", "content": "Find the retry logic."}]
        r = _post(http, px.url, history, **{"x-ctxw-overflowed": "1", "x-ctxw-room": "1/1", "x-ctxw-conversation": "mine"})
        assert r.status_code == 200, r.text
        px.wait_idle()
        st = px.server.status()
        assert st["retries"] == 0 and st["delegated"] == 1, st
        assert not any(k.startswith("x-ctxw-") for k in up.requests[0].headers)


def test_a_gzip_body_is_served_and_never_forwarded_as_sent() -> None:
    """Before: ``content-encoding`` was dropped as hop-by-hop, so the worker read gzip bytes as JSON."""
    with LocalProviderServer(_script) as up, front(up.base_url) as px, httpx.Client(timeout=GUARD_S) as http:
        history: list[dict[str, Any]] = [{"role": "user", "content": "Find the retry logic."}]
        for _ in range(3):
            plain = json.dumps({"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}).encode()
            r = http.post(f"{px.url}/v1/chat/completions", content=gzip.compress(plain),
                          headers={"content-type": "application/json", "content-encoding": "gzip"})
            assert r.status_code == 200, r.text
            _grow(history, r)
            px.wait_idle()
        st = px.server.status()
        assert st["front_fast"] == 0 and st["delegated"] == 3, st
        assert [json.loads(q.raw)["messages"][-1]["role"] for q in up.requests] == ["user", "tool", "tool"]


def _mini(status: int, headers: bytes, body: bytes = b"") -> Any:
    """An upstream answering every request with these bytes (keep-alive)."""

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            while line := self.rfile.readline():
                length = 0
                while (h := self.rfile.readline()) not in (b"\r\n", b""):
                    k, _, v = h.decode("latin-1").partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v)
                self.rfile.read(length)
                head_only = line.startswith(b"HEAD ")
                self.wfile.write(b"HTTP/1.1 %d X\r\n%b\r\n%b" % (status, headers, b"" if head_only else body))
                self.wfile.flush()

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_head_and_http10_answers_are_framed_for_their_client() -> None:
    """Before: an answer to HEAD without a length went out chunked with a ``0`` chunk as its body (the
    keep-alive request behind it read that as its answer), and an HTTP/1.0 client got chunked framing."""
    server = _mini(200, b"content-type: text/plain\r\ntransfer-encoding: chunked\r\n", b"5\r\nhello\r\n0\r\n\r\n")
    try:
        with front(f"http://127.0.0.1:{server.server_address[1]}/v1") as px:
            out = _raw(px.server.port, b"HEAD /v1/models HTTP/1.1\r\nhost: x\r\n\r\nGET /v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            first, _, rest = out.partition(b"\r\n\r\n")
            assert first.startswith(b"HTTP/1.1 200") and b"chunked" not in first.lower()
            assert rest.startswith(b"HTTP/1.1 200") and rest.endswith(b"5\r\nhello\r\n0\r\n\r\n"), out  # the GET's own answer, whole
            out = _raw(px.server.port, b"GET /v1/models HTTP/1.0\r\nhost: x\r\n\r\n")
            head, _, body = out.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200") and b"chunked" not in head.lower() and body == b"hello", out
    finally:
        server.shutdown()
        server.server_close()


def test_expect_100_continue_is_answered_and_not_forwarded() -> None:
    """Before: the front never answered ``Expect: 100-continue`` (curl waits a second per body over
    1 MiB; a client that waits for it waited for ever) and forwarded it upstream."""
    with LocalProviderServer(_script) as up, front(up.base_url) as px:
        body = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}).encode()
        with socket.create_connection(("127.0.0.1", px.server.port), timeout=GUARD_S) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\n"
                      b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body))
            interim = s.recv(64)  # the body is sent only once this came
            assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), interim
            s.sendall(body)
            out = b""
            while piece := s.recv(65536):
                out += piece
        assert out.startswith(b"HTTP/1.1 200") and b"call_1" in out, out
        assert "expect" not in up.requests[0].headers


def test_a_worker_that_keeps_failing_stops_the_front_with_a_clear_error(tmp_path: Any) -> None:
    """Before: a worker that exited right after it listened was started again in a tight loop for
    ever, and one that could not be started killed the watch unseen (every request then a 502)."""
    import asyncio
    import sys

    from contextwindow.errors import WorkerError
    from contextwindow.proxy.lean import serve_split

    mark = tmp_path / "started"
    crash = ("import pathlib, sys\n"
             f"p = pathlib.Path({str(mark)!r})\n"
             "if p.exists(): sys.exit(4)  # started again: it never listens\n"
             "p.write_text('1')\n"
             "print('listening on http://127.0.0.1:9', file=sys.stderr, flush=True)\n"
             "sys.exit(3)\n")
    cfg = ProxyConfig(upstream="http://127.0.0.1:9/v1", port=0, front="lean")
    with pytest.raises(WorkerError, match=r"failed 3 times in a row \(last: could not be started"):
        asyncio.run(asyncio.wait_for(serve_split(cfg, [sys.executable, "-c", crash], None, restarts=3, backoff=0.01), GUARD_S))


def test_an_answer_naming_a_request_the_worker_never_stored_is_counted() -> None:
    """Before: the worker dropped it silently (a worker started again forgets what the front holds)."""
    with LocalProviderServer(_script) as up, front(up.base_url) as px:
        lean = px.server
        r = httpx.post(f"http://127.0.0.1:{lean.worker.port}/_ctxw/answer", content=b"{}", timeout=GUARD_S,
                       headers={"x-ctxw-worker": lean._secret, "x-ctxw-prev-id": "999", "x-ctxw-status": "200"})
        assert r.status_code == 200
        assert px.server.status().get("record_failed", 0) == 1


def test_pipelined_requests_wait_in_the_clients_socket_not_in_the_front() -> None:
    """Before: while one request was served, the front read and queued every request pipelined
    behind it (memory without bound); now it reads no further until the waiting one is taken."""
    import asyncio

    up = Unruly()
    up.gate = threading.Event()
    try:
        with front(up.url) as px, socket.create_connection(("127.0.0.1", px.server.port), timeout=GUARD_S) as s:
            def req(k: int, last: bool = False) -> bytes:
                body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"{k} " + "x" * 300_000}]}).encode()
                return (b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n%bcontent-length: %d\r\n\r\n%b"
                        % (b"connection: close\r\n" if last else b"", len(body), body))

            s.sendall(req(0))
            assert up.got.wait(GUARD_S)  # the first is being served (its answer waits for the gate)
            rest = b"".join(req(k, last=k == 6) for k in range(1, 7))
            sender = threading.Thread(target=s.sendall, args=(rest,), daemon=True)
            sender.start()
            for _ in range(100_000):  # the front paused, or it took every byte (before)
                if px.server.status()["read_paused"] or not sender.is_alive():
                    break
                asyncio.run_coroutine_threadsafe(asyncio.sleep(0), px._loop).result(GUARD_S)
            for _ in range(50):  # the loop goes round: what was read is parsed
                asyncio.run_coroutine_threadsafe(asyncio.sleep(0), px._loop).result(GUARD_S)
            peak = px.server.status()["read_ahead_peak"]
            up.gate.set()
            out = b""
            while piece := s.recv(1 << 16):
                out += piece
            sender.join(GUARD_S)
        assert out.count(b"HTTP/1.1 200") == 7, out[:300]
        assert peak <= 2, peak  # one waiting (two when one read held the end of one and a whole next)
    finally:
        up.close()
