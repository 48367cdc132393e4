"""The proxy's low-priority lane (proxy/lane.py): bookkeeping waits while requests are urgent,
runs once its bound is over, at once for whoever needs it; and a burst of clients through the
real proxy gets every answer, with every message stored once, in order, the abandoned one's too."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.proxy import Conversations
from contextwindow.proxy.lane import PASSES, Lane
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store
from proxy_raw import send_then_hang_up


async def passes(n: int) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def test_jobs_wait_while_work_is_urgent_and_run_in_order_once_it_ends() -> None:
    async def main() -> list[str]:
        lane, ran = Lane(bound=60.0), []
        urgent = lane.urgent_work()
        a = lane.submit(lambda: ran.append("a") or 1, "k1")
        b = lane.submit(lambda: ran.append("b") or 2, "k2")
        await passes(PASSES + 5)
        assert ran == []  # urgent: nothing ran, however many loop passes went by
        urgent.end()
        assert await a.future == 1 and await b.future == 2
        return ran

    assert asyncio.run(main()) == ["a", "b"]


def test_a_new_request_during_the_passes_holds_the_jobs_back() -> None:
    async def main() -> None:
        lane, ran = Lane(bound=60.0), []
        lane.submit(lambda: ran.append("a"))
        await passes(PASSES - 1)  # the request arrives before the lane's passes are over
        with lane.urgent_work():
            await passes(PASSES + 5)
            assert ran == []
        await passes(PASSES + 1)
        assert ran == ["a"]

    asyncio.run(main())


def test_a_job_is_never_starved_its_bound_runs_it_while_work_stays_urgent() -> None:
    async def main() -> None:
        lane, ran = Lane(bound=0.02), []
        with lane.urgent_work():
            job = lane.submit(lambda: ran.append("a"))
            await asyncio.wait_for(job.future, 5)  # the suite's wall clock is not asserted on: only that it ran
            assert ran == ["a"] and lane.urgent == 1 and lane.stats["overdue"] == 1

    asyncio.run(main())


def test_hurry_runs_a_keys_jobs_at_once_and_a_waiter_on_the_key_runs_new_ones_as_queued() -> None:
    async def main() -> None:
        lane, ran = Lane(bound=60.0), []
        with lane.urgent_work():
            lane.submit(lambda: ran.append("other"), "conv:b")
            lane.submit(lambda: ran.append("a1"), "x:1", "conv:a")
            lane.hurry("conv:a")
            assert ran == ["a1"]
            with lane.waiting_for("conv:a"):
                assert lane.urgent == 0  # a request waiting for a lock is not urgent: it cannot go on
                lane.submit(lambda: ran.append("a2"), "conv:a")
                assert ran == ["a1", "a2"]  # queued while someone waits on its key: run as submitted
            assert lane.urgent == 1
            lane.submit(lambda: ran.append("a3"), "conv:a")
            assert ran == ["a1", "a2"]
        lane.run_all()
        assert ran == ["a1", "a2", "other", "a3"]

    asyncio.run(main())


def test_a_job_runs_once_and_its_error_goes_to_its_waiter() -> None:
    async def main() -> None:
        lane, ran = Lane(bound=60.0), []

        def boom() -> None:
            ran.append("boom")
            raise ValueError("the store said no")

        with lane.urgent_work():
            job = lane.submit(boom)
            job.now()
            job.now()
            lane.run_all()
        assert ran == ["boom"]
        with pytest.raises(ValueError, match="the store said no"):
            await job.future

    asyncio.run(main())


# --- a burst through the real proxy --------------------------------------------------------------


def _answer(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)


def _client(url: str, c: int, turns: int, histories: dict[int, list[dict[str, Any]]], errors: list[str], start: threading.Barrier) -> None:
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful agent."},
                                     {"role": "user", "content": f"Client {c}: find the retry logic in module {c}."}]
    with httpx.Client(timeout=60) as http:
        start.wait(30)
        for t in range(turns):
            r = http.post(url, json={"model": "gpt-4o-mini", "max_tokens": 64, "messages": history})
            if r.status_code != 200:
                errors.append(f"client {c} turn {t}: HTTP {r.status_code} {r.text[:200]}")
                return
            msg = r.json()["choices"][0]["message"]
            history = [*history, msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": f"src/m{c}.py:{t}: retry()"}]
    histories[c] = history


@pytest.mark.parametrize("lane", [True, False])
def test_a_burst_of_clients_is_answered_every_message_stored_once_in_order(tmp_path: Any, lane: bool) -> None:
    clients, turns = 12, 5
    store = open_store(f"sqlite:///{tmp_path / 'lane.db'}")  # group commits, as `ctxw proxy` runs it
    histories: dict[int, list[dict[str, Any]]] = {}
    errors: list[str] = []
    with LocalProviderServer(_answer) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, lane=lane), Conversations(store)) as px:
        url = f"{px.url}/v1/chat/completions"
        start = threading.Barrier(clients)
        threads = [threading.Thread(target=_client, args=(url, c, turns, histories, errors, start)) for c in range(clients)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        px.wait_idle()
        assert not errors
        assert px.server.stats["fast"] >= clients * (turns - 2)  # the later requests went upstream before their messages were stored
        jobs = px.server._lane
        assert jobs.defer is lane and jobs.stats["jobs"] > 0 and not jobs._jobs
    convs = {c.title: c.id for c in store.list_conversations()}
    assert len(convs) == clients
    for c, history in histories.items():
        (cid,) = [cid for title, cid in convs.items() if f"Client {c}:" in title]
        stored = [sm.message for sm in store.list(cid)]
        # every message the client sent (the last tool result never went out) plus the replies, once, in order
        sent = history[:-1]
        assert [m.role for m in stored] == [m["role"] for m in sent]
        assert [m.text for m in stored if m.role == "tool"] == [m["content"] for m in sent if m["role"] == "tool"]
        assert [tc.id for m in stored for tc in m.tool_calls] == [tc["id"] for m in sent for tc in m.get("tool_calls") or ()]
        assert len(store.list_usage(cid)) == turns  # each answer recorded once


@pytest.mark.parametrize(("lane", "front"), [(True, "aiohttp"), (False, "aiohttp"), (True, "lean"), (False, "lean")])
def test_a_client_gone_during_a_burst_leaves_its_messages_stored_whole(tmp_path: Any, lane: bool, front: str) -> None:
    arrived, release = threading.Event(), threading.Event()
    held: list[int] = []

    def handler(req: Any) -> Reply:
        if "Client 0:" in json.dumps(req.body["messages"][1]) and len(req.body["messages"]) == 6:
            held.append(1)
            arrived.set()
            release.wait(30)  # client 0's third request is held until that client has gone
        return _answer(req)

    store = open_store(f"sqlite:///{tmp_path / 'gone.db'}")
    histories: dict[int, list[dict[str, Any]]] = {}
    errors: list[str] = []
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, lane=lane, front=front), Conversations(store)) as px:
        url = f"{px.url}/v1/chat/completions"
        start = threading.Barrier(7)
        others = [threading.Thread(target=_client, args=(url, c, 4, histories, errors, start)) for c in range(1, 7)]
        for th in others:
            th.start()
        history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful agent."},
                                         {"role": "user", "content": "Client 0: find the retry logic in module 0."}]
        with httpx.Client(timeout=60) as http:
            start.wait(30)
            for t in range(2):
                msg = http.post(url, json={"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}).json()["choices"][0]["message"]
                history = [*history, msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": f"src/m0.py:{t}: retry()"}]
        send_then_hang_up(px, {"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}, arrived)
        release.set()
        for th in others:
            th.join(120)
        px.wait_idle()
        assert not errors and held == [1]
    (cid,) = [c.id for c in store.list_conversations() if "Client 0:" in c.title]
    assert [sm.message.role for sm in store.list(cid)] == [m["role"] for m in history]  # the abandoned request's messages: stored, whole
    assert len(store.list_usage(cid)) == 2  # its answer never reached the client: not accounted


def test_without_deferral_every_job_runs_as_it_is_submitted() -> None:
    async def main() -> None:
        lane, ran = Lane(defer=False), []
        with lane.urgent_work():
            job = lane.submit(lambda: ran.append("a") or 7, "k")
            assert ran == ["a"] and job.future.result() == 7 and not lane._jobs

    asyncio.run(main())
