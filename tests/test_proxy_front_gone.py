"""A client of the lean front that hangs up before its answer comes (issue 15: "a client that
disconnects mid-stream: upstream call cancelled, nothing half-written"): its request's messages are
stored whole and its answer is not recorded, whether the front forwarded the request as sent or its
worker served it (one test each). Real HTTP: the front and its worker before ``llm/localserver.py``'s provider; the
client a raw socket closed once the upstream holds its request (an event, not a timeout)."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.proxy import Conversations
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store

GUARD_S = 60  # a failure guard only


def _message(sse: str) -> dict[str, Any]:
    """The assistant message of a streamed chat completion (its tool calls put together)."""
    calls: dict[int, dict[str, Any]] = {}
    for line in sse.splitlines():
        if not line.startswith("data: {"):
            continue
        for choice in json.loads(line[6:]).get("choices", []):
            for d in choice.get("delta", {}).get("tool_calls") or []:
                call = calls.setdefault(d["index"], {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                call["id"] += d.get("id") or ""
                call["function"]["name"] += d.get("function", {}).get("name") or ""
                call["function"]["arguments"] += d.get("function", {}).get("arguments") or ""
    return {"role": "assistant", "content": None, "tool_calls": [calls[i] for i in sorted(calls)]}


@pytest.mark.parametrize("streamed", [False, True])
def test_a_request_forwarded_as_sent_whose_client_left_is_stored_not_recorded(streamed: bool) -> None:
    """The client's end and the upstream's answer reach the front in one turn of its loop, the
    answer first (the loop is held while both arrive). Before: the front wrote the answer into the
    connection whose end it had just read (the transport closing, not yet lost) and handed it to
    the worker as delivered (status 200): its reply was stored and its usage recorded."""
    arrived, release = threading.Event(), threading.Event()
    hold = 8  # the request with this many messages is held until its client has gone

    def handler(req: Any) -> Reply:
        n = len(req.body["messages"])
        if n == hold:
            arrived.set()
            release.wait(GUARD_S)
        return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)

    store = open_store("memory://")
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Find the retry logic."}]
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"),
                                                             Conversations(store)) as px, httpx.Client(timeout=GUARD_S) as http:
        url = f"{px.url}/v1/chat/completions"
        while True:  # the same JSON spelling every time (the front compares bytes)
            body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 64, "messages": history, "stream": streamed}).encode()
            if len(history) == hold:
                break
            r = http.post(url, content=body, headers={"content-type": "application/json"})
            assert r.status_code == 200, r.text
            msg = _message(r.text) if streamed else r.json()["choices"][0]["message"]
            history += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": f"src/http.py:{len(history)}: retry()"}]
            px.wait_idle()
        fast = px.server.stats["front_fast"]
        _answer_then_hang_up(px, up, body, arrived, release)
        px.wait_idle()
        st = px.server.status()
        assert st["front_fast"] == fast + 1, st  # the front sent it as sent
        (conv,) = store.list_conversations()
        assert [sm.message.role for sm in store.list(conv.id)] == [m["role"] for m in history], st  # its messages: whole, no reply
        assert len(store.list_usage(conv.id)) == (hold - 2) // 2, st  # its answer never reached the client: not accounted


@pytest.mark.parametrize("streamed", [False, True])
def test_a_request_the_worker_served_whose_client_left_is_stored_not_recorded(streamed: bool) -> None:
    """The same race on a request the front hands to its worker (a conversation's first request on
    a new proxy: the front knows nothing of it): the worker's answer reaches the front after its
    client's end. The worker relays the answer to the front whole, so only the front's word
    (``/_ctxw/delivered``: the bytes its client was written) keeps it from being recorded."""
    arrived, release = threading.Event(), threading.Event()

    def handler(req: Any) -> Reply:
        arrived.set()
        release.wait(GUARD_S)
        return Reply(tool_calls=(ToolCallSpec("grep", {"n": 1}, id="call_1"),), input_tokens=80, output_tokens=5)

    store = open_store("memory://")
    history = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Find the retry logic."}]
    body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 64, "messages": history, "stream": streamed}).encode()
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"),
                                                             Conversations(store)) as px:
        _answer_then_hang_up(px, up, body, arrived, release)
        px.wait_idle()
        st = px.server.status()
        assert st["delegated"] == 1 and st["front_fast"] == 0, st  # the worker served it
        (conv,) = store.list_conversations()
        assert [sm.message.role for sm in store.list(conv.id)] == ["system", "user"], st  # its messages: whole, no reply
        assert store.list_usage(conv.id) == [], st  # not accounted (without the front's word it was: checked)
        assert st["undelivered"] == 1 and st["awaiting_delivery"] == 0, st  # the front said its client had not the answer whole


def _answer_then_hang_up(px: Any, up: Any, body: bytes, arrived: threading.Event, release: threading.Event) -> None:
    """Send ``body`` on a raw connection, hold the proxy's loop while the upstream answers and the
    client hangs up, so the proxy sees the answer and the client's end in one turn of its loop."""
    held, unhold = threading.Event(), threading.Event()
    head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    sock = socket.create_connection((px.server.config.host, px.server.port))
    try:
        sock.sendall(head.encode() + body)
        assert arrived.wait(GUARD_S), "the upstream never received the request"
        px._loop.call_soon_threadsafe(lambda: (held.set(), unhold.wait(GUARD_S)))  # the proxy's loop does nothing meanwhile
        assert held.wait(GUARD_S)
        release.set()
        assert up.wait_idle(GUARD_S)  # the answer is in the proxy's socket (the front's or the worker's)
    finally:
        sock.close()  # and then the client's end
        unhold.set()
