"""A hand-over of the lean front that reaches the worker late (review of 2026-11-24 ~19:00): request
N's history stored after request N+1's must not fork the conversation, and a failed hand-over ends
its conversation's chain so no later one lands before it. Real HTTP: the front and its worker in
front of ``llm/localserver.py``'s provider; :class:`Handovers` on its own event loop."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.proxy import Conversations
from contextwindow.proxy.handover import Handovers
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store

GUARD_S = 60  # a failure guard only


def _script(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=50 * n, output_tokens=7)


def _body(history: list[dict[str, Any]]) -> bytes:
    return json.dumps({"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}).encode()


def _turns(http: httpx.Client, url: str, n: int) -> list[list[dict[str, Any]]]:
    """``n`` requests of one conversation; the history each one sent."""
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Find retry."}]
    sent = []
    for _ in range(n):
        sent.append(list(history))
        r = http.post(f"{url}/v1/chat/completions", content=_body(history), headers={"content-type": "application/json"})
        assert r.status_code == 200, r.text
        msg = r.json()["choices"][0]["message"]
        history += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": "src/http.py:12: retry()"}]
    return sent


def _late(request: int, extra: dict[str, str] | None = None) -> None:
    """Three requests of one conversation through the lean front, then request ``request``'s
    history handed to the worker again, late, under the number the front gave it (its requests
    are numbered in the order it forwards them, fast or through the worker: 1, 2, 3), with its
    answer: one conversation, nothing stored twice, the late reply not appended."""
    store = open_store("memory://")
    with LocalProviderServer(_script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"),
                                                             Conversations(store, clip_budget=4_000)) as px, httpx.Client(timeout=GUARD_S) as http:
        sent = _turns(http, px.url, 3)
        px.wait_idle()
        (conv,) = store.list_conversations()
        rows = len(store.list_active(conv.id))
        lean = px.server
        worker = f"http://127.0.0.1:{lean.worker.port}"
        meta = json.dumps({"content-type": "application/json"}).encode()
        body = _body(sent[request - 1])
        r = httpx.post(f"{worker}/_ctxw/store", content=meta + body, timeout=GUARD_S,
                       headers={"x-ctxw-worker": lean._secret, "x-ctxw-id": str(request), "x-ctxw-path": "/v1/chat/completions",
                                "x-ctxw-split": f"{len(meta)},{len(meta) + len(body)}", **(extra or {})})
        assert r.status_code == 200
        answer = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [{
            "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "a late answer"}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 3, "total_tokens": 103}}).encode()
        r = httpx.post(f"{worker}/_ctxw/answer", content=answer, timeout=GUARD_S,
                       headers={"x-ctxw-worker": lean._secret, "x-ctxw-prev-id": str(request), "x-ctxw-status": "200",
                                "x-ctxw-type": "application/json"})
        assert r.status_code == 200
        px.wait_idle()
        st = px.server.status()
        assert [c.id for c in store.list_conversations()] == [conv.id], st
        assert len(store.list_active(conv.id)) == rows  # nothing stored twice, the late reply not appended
        assert st.get("late_store") == 1 and st.get("record_failed", 0) == 0, st


def test_a_late_store_of_an_earlier_history_keeps_one_conversation() -> None:
    """Before: the worker's store of request N's history after N+1's opened a second conversation
    (the history diverges from the stored one by ending early), and its reply went into it."""
    _late(2)


def test_a_late_store_of_an_opening_request_keeps_one_conversation() -> None:
    """The conversation's first request (an opening one: the front forwards it as one, and marked
    it ``x-ctxw-opened: 1`` until 2026-11-25) handed over after the later ones. Before: the mark
    made the worker skip its late-hand-over check, and the late history forked the conversation."""
    _late(1, {"x-ctxw-opened": "1"})


def test_the_aiohttp_front_sends_a_rewound_history_as_the_client_sent_it() -> None:
    """On the aiohttp front an earlier history only comes from the client itself (a rewind): it goes
    upstream as sent (not the stored conversation's later messages) and continues in a new one."""
    store = open_store("memory://")
    with LocalProviderServer(_script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="aiohttp"),
                                                             Conversations(store, clip_budget=4_000)) as px, httpx.Client(timeout=GUARD_S) as http:
        sent = _turns(http, px.url, 3)
        px.wait_idle()
        r = http.post(f"{px.url}/v1/chat/completions", content=_body(sent[1]), headers={"content-type": "application/json"})
        assert r.status_code == 200
        px.wait_idle()
        assert up.requests[-1].body["messages"] == sent[1]
        assert len(store.list_conversations()) == 2


def test_a_failed_hand_over_ends_its_chain() -> None:
    """Before: the hand-over after a failed one was posted anyway, and could reach the worker before
    the failed one (which the worker may still take, late)."""
    calls: list[tuple[bytes, bytes, bool]] = []

    async def send(key: bytes, path: str, headers: Any, body: bytes, broken: bool) -> bool:
        calls.append((key, body, broken))
        await asyncio.sleep(0)
        return body != b"n1"  # the first one of conversation a fails (e.g. timed out)

    async def run() -> None:
        h = Handovers(send, "/_ctxw/answer")
        for body in (b"n1", b"n2", b"n3"):
            h.post(b"a", "/_ctxw/store", [], body)
        h.post(b"b", "/_ctxw/store", [], b"m1")
        await asyncio.wait_for(h.settle(), GUARD_S)
        assert not h.chains and h.bytes == 0
        h.post(b"a", "/_ctxw/store", [], b"n4")  # a new chain (the front forgot the conversation meanwhile)
        await asyncio.wait_for(h.settle(), GUARD_S)

    asyncio.run(run())
    got = {(k, b): broken for k, b, broken in calls}
    assert got == {(b"a", b"n1"): False, (b"a", b"n2"): True, (b"a", b"n3"): True, (b"b", b"m1"): False, (b"a", b"n4"): False}


def test_a_request_over_the_cap_waits_for_the_worker_to_take_some() -> None:
    """Over ``front.HANDOVER_BYTES`` a request waits until the worker has taken enough
    (:meth:`Handovers.room`), not for the worker's whole backlog; it gives up after its timeout."""
    taken: dict[bytes, asyncio.Event] = {}

    async def send(key: bytes, path: str, headers: Any, body: bytes, broken: bool) -> bool:
        await taken[body].wait()  # the worker takes this hand-over when the test says
        return True

    async def run() -> None:
        h = Handovers(send, "/_ctxw/answer")
        for body in (b"a" * 40, b"b" * 40, b"c" * 40):
            taken[body] = asyncio.Event()
            h.post(body[:1], "/_ctxw/store", [], body)
        await asyncio.sleep(0)
        assert h.bytes == 120
        assert await h.room(100, 0.05) is False  # nothing taken: it gives up
        waiting = asyncio.ensure_future(h.room(100, GUARD_S))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        taken[b"a" * 40].set()  # one taken: 80 bytes left, under the limit, while two are still queued
        assert await asyncio.wait_for(waiting, GUARD_S) is True
        assert h.bytes == 80 and len(h.tasks) == 2
        assert await h.room(100, 0) is True  # under the limit: no wait
        for e in taken.values():
            e.set()
        await asyncio.wait_for(h.settle(), GUARD_S)

    asyncio.run(run())
