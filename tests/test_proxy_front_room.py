"""The lean front's wait for hand-over room (the review of 2026-11-25 ~02:40): only a request the
front could serve itself waits and is counted; a request the worker serves whatever the cap (no
managed endpoint, an encoded body) goes to it at once, uncounted; a waiter that gave up is not kept.
The real front and its worker before ``llm/localserver.py``'s provider, built with a cap no backlog
can meet (``handover_cap=-1``: every request finds the worker behind); :class:`Handovers` on its own."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.cli.proxy_cmd import front_stopped
from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.proxy import Conversations
from contextwindow.proxy.config import ProxyConfig
from contextwindow.proxy.front import FrontServer
from contextwindow.proxy.handover import Handovers
from contextwindow.proxy.lean import worker_config
from contextwindow.proxy.server import ProxyServer
from contextwindow.store import open_store

GUARD_S = 60  # a failure guard only


def test_only_requests_the_front_could_serve_wait_for_room_and_are_counted() -> None:
    body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 64,
                       "messages": [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Find retry."}]}).encode()

    async def run(upstream: str) -> dict[str, int]:
        config = ProxyConfig(upstream=upstream, port=0, front="lean")
        worker = ProxyServer(worker_config(config, "s3cret"), Conversations(open_store("memory://"), clip_budget=4_000))
        await worker.start()
        front = FrontServer(config, f"http://127.0.0.1:{worker.port}", "s3cret", clip_budget=4_000, handover_cap=-1, handover_wait=0.01)
        await front.start()
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{front.port}", timeout=GUARD_S) as http:
                await http.get("/v1/models")  # no managed endpoint: the worker's whatever the cap
                st = dict(front.stats)
                assert (st["handover_waited"], st["handover_capped"]) == (0, 0)
                r = await http.post("/v1/chat/completions", content=gzip.compress(body),
                                    headers={"content-type": "application/json", "content-encoding": "gzip"})
                assert r.status_code == 200, r.text  # an encoded body: the worker's whatever the cap, no wait
                st = dict(front.stats)
                assert (st["handover_waited"], st["handover_capped"]) == (0, 0)
                r = await http.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"})
                assert r.status_code == 200, r.text  # waited, gave up, went to the worker
                assert front.handovers.waiting == 0
                assert front.backlog.capped == 1  # the stderr line's count: the managed, unencoded request only
                return front.status()
        finally:
            await front.close()
            await worker.close()

    with LocalProviderServer(lambda req: Reply(text="found it", input_tokens=40, output_tokens=3)) as up:
        st = asyncio.run(run(up.base_url))
    assert (st["requests"], st["handover_waited"], st["handover_capped"], st["delegated"]) == (3, 1, 1, 3)
    assert "3 served by the worker (1 of them while its hand-overs were over their cap), 1 waited for the worker to take some" in front_stopped(st)


def test_a_waiter_that_gave_up_is_not_kept_while_the_worker_takes_nothing() -> None:
    """Before: each timed-out (or cancelled) :meth:`Handovers.room` left its future listed until a
    hand-over ended; with a hung worker the list grew by one per request over the cap."""
    hung = asyncio.Event()

    async def send(key: bytes, path: str, headers: Any, body: bytes, broken: bool) -> bool:
        await hung.wait()  # the worker takes nothing
        return True

    async def run() -> None:
        h = Handovers(send, "/_ctxw/answer")
        h.post(b"k", "/_ctxw/store", [], b"x" * 100)
        await asyncio.sleep(0)
        assert [await h.room(10, 0.01) for _ in range(5)] == [False] * 5
        assert h.waiting == 0
        cancelled = asyncio.ensure_future(h.room(10, GUARD_S))
        await asyncio.sleep(0.01)
        assert h.waiting == 1
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert h.waiting == 0
        hung.set()
        await asyncio.wait_for(h.settle(), GUARD_S)

    asyncio.run(run())
