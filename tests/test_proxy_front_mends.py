"""The review's proxy findings (issue 15), through the lean front: a client's target never reaches
the worker's internal endpoints with the front's secret however it is spelt; a malformed chunked
pass-through body is the client's fault (400 in the provider's shape, no error logged), not the
worker's; an answer out before its request's relayed body ended says ``connection: close``."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.proxy.worker import SECRET_HEADER
from test_proxy_fronts_alike import FRONTS, TOKEN, proxy


def _read_all(s: socket.socket) -> bytes:
    out = b""
    with contextlib.suppress(OSError):  # (a reset, or no more within the socket's timeout)
        while piece := s.recv(65536):
            out += piece
    return out


def _raw(port: int, request: bytes, *, wait: float = 30.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(request)
        return _read_all(s)


def _post(target: str, extra: str = "") -> bytes:
    return f"POST {target} HTTP/1.1\r\nhost: x\r\n{extra}content-length: 0\r\nconnection: close\r\n\r\n".encode()


# spellings of the worker's internal endpoints that aiohttp decodes to them
FORGED = ["/%5Fctxw/idle", "http://x/_ctxw/idle", "/%5Fctxw/store", "/_ctxw%2Fanswer", "/%5f%63txw/delivered", "/_ctxw/idle"]


@pytest.mark.parametrize("front", FRONTS)
def test_a_client_target_never_reaches_the_internal_endpoints(front: str) -> None:
    with proxy(front, token=TOKEN) as (_up, _other, px):
        for target in FORGED:
            out = _raw(px.server.port, _post(target, f"x-ctxw-token: {TOKEN}\r\n"))
            status = int(out.split(b" ", 2)[1])
            # passed through to the upstream, which knows no such path (the worker would say 204, or 500 on a bodiless store)
            assert status == 404, (target, out[:300])
        assert px.server.status().get("record_failed", 0) == 0


def test_the_worker_takes_its_internal_endpoints_only_as_the_front_spells_them() -> None:
    with proxy("lean") as (_up, _other, px):
        front = px.server.front  # the worker's secret and port, as the front holds them
        port = int(front.worker_url.rsplit(":", 1)[1])
        for target in ["/%5Fctxw/idle", "http://x/_ctxw/idle", "/_ctxw%2Fidle", "/_ctxw/idle?x=1"]:
            out = _raw(port, _post(target, f"{SECRET_HEADER}: {front.secret}\r\n"))
            assert int(out.split(b" ", 2)[1]) == 404, (target, out[:300])
        assert _raw(port, _post("/_ctxw/idle", f"{SECRET_HEADER}: {front.secret}\r\n")).startswith(b"HTTP/1.1 204")


def test_a_malformed_chunked_pass_through_body_is_a_400_not_the_workers_fault(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="contextwindow.proxy")
    with proxy("lean") as (_up, _other, px), socket.create_connection(("127.0.0.1", px.server.port), timeout=30) as s:
        s.sendall(b"POST /v1/messages/count_tokens HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n")
        s.settimeout(2)
        assert _read_all(s) == b""  # the head went on to the worker with what came of its body; nothing answered yet
        s.settimeout(30)
        s.sendall(b"zz-not-hex\r\n")
        out = _read_all(s)
    assert re.findall(rb"HTTP/1.1 \d+", out) == [b"HTTP/1.1 400"], out
    head, body = out.split(b"\r\n\r\n", 1)
    assert b"connection: close" in head.lower()
    err = json.loads(body)
    assert err["type"] == "error" and err["error"]["type"] == "invalid_request_error"  # Anthropic's shape: its path's
    assert "malformed" in err["error"]["message"]
    proxy_errors = [r for r in caplog.records if r.name == "contextwindow.proxy" and r.levelno >= logging.WARNING]
    assert not proxy_errors, [r.getMessage() for r in proxy_errors]


@pytest.mark.parametrize("target", ["/v1/files/x", "/v1/messages/batches"])
def test_an_answer_before_the_relayed_body_ended_closes_the_connection(target: str) -> None:
    with proxy("lean", token=TOKEN) as (_up, _other, px), socket.create_connection(("127.0.0.1", px.server.port), timeout=30) as s:
        s.sendall(f"PUT {target} HTTP/1.1\r\nhost: x\r\ncontent-length: 100000000\r\n\r\n".encode())  # no token: 401
        s.settimeout(5)
        with contextlib.suppress(OSError):
            for _ in range(64):  # 4 MiB of it, or until the proxy closed
                s.sendall(b"x" * 65536)
        out = _read_all(s)
    assert out.startswith(b"HTTP/1.1 401"), out[:200]
    assert b"\r\nconnection: close\r\n" in out.split(b"\r\n\r\n", 1)[0].lower() + b"\r\n"
