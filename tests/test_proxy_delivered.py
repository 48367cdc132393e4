"""The lean front's word on an answer its worker served (``/_ctxw/delivered``, proxy/record.py:
``Deliveries``): unit tests of the bookkeeping, and the worker over real HTTP before
``llm/localserver.py``'s provider, the test acting as the front (it holds the worker's secret)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.proxy import Conversations
from contextwindow.proxy.record import EARLY_KEPT, Deliveries
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.proxy.worker import DELIVERED_PATH, RID_HEADER, SECRET_HEADER
from contextwindow.store import open_store

GUARD_S = 60  # a failure guard only
SECRET = "s3cret"


# --- Deliveries -----------------------------------------------------------------------------------
def test_a_word_before_the_wait_is_kept_and_answers_it() -> None:
    async def run() -> None:
        d = Deliveries()
        d.settle("d1", 120)
        f = d.expect("d1")
        assert f.done() and f.result() == 120 and len(d) == 0

    asyncio.run(run())


def test_a_word_while_waited_for_settles_it() -> None:
    async def run() -> None:
        d = Deliveries()
        f = d.expect("d1")
        assert not f.done() and len(d) == 1
        d.settle("d1", -1)
        assert f.result() == -1 and len(d) == 0

    asyncio.run(run())


def test_a_wait_given_up_is_forgotten_and_a_late_word_is_kept_bounded() -> None:
    async def run() -> None:
        d = Deliveries()
        f = d.expect("d1")
        f.cancel()  # the record stopped waiting (timeout, or the conversation's next request came)
        await asyncio.sleep(0)  # the done callbacks run
        assert len(d) == 0  # before: the entry stayed for good
        d.settle("d1", 7)  # the late word: kept among the early ones, not an error
        assert d.expect("d1").result() == 7

    asyncio.run(run())


def test_early_words_are_bounded() -> None:
    async def run() -> None:
        d = Deliveries()
        for i in range(EARLY_KEPT + 1):
            d.settle(f"d{i}", i)
        assert not d.expect("d0").done()  # the oldest went
        assert d.expect(f"d{EARLY_KEPT}").result() == EARLY_KEPT
        assert len(d) == 1

    asyncio.run(run())


# --- the worker -----------------------------------------------------------------------------------
def _handler(req: Any) -> Reply:
    return Reply(text=f"answer {len(req.body['messages'])}", input_tokens=30, output_tokens=5)


def _post(http: httpx.Client, url: str, history: list[dict[str, Any]], rid: str) -> httpx.Response:
    body = {"model": "gpt-4o-mini", "max_tokens": 32, "messages": history}
    r = http.post(f"{url}/v1/chat/completions", json=body, headers={SECRET_HEADER: SECRET, RID_HEADER: rid})
    assert r.status_code == 200, r.text
    return r


def _word(http: httpx.Client, url: str, rid: str | None, written: int) -> httpx.Response:
    headers = {SECRET_HEADER: SECRET, "x-ctxw-delivered": str(written)}
    if rid is not None:
        headers[RID_HEADER] = rid
    return http.post(f"{url}{DELIVERED_PATH}", headers=headers)


@contextlib.contextmanager
def _worker(store: Any) -> Iterator[tuple[BackgroundProxy, httpx.Client]]:
    with LocalProviderServer(_handler) as up, \
            BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, worker_secret=SECRET, front="aiohttp"), Conversations(store)) as px, \
            httpx.Client(timeout=GUARD_S) as http:
        yield px, http


def test_an_answer_is_recorded_only_when_its_whole_bytes_were_written() -> None:
    store = open_store("memory://")
    history: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello."}]
    with _worker(store) as (px, http):
        r = _post(http, px.url, history, "d1")
        assert _word(http, px.url, "d1", len(r.content) - 1).status_code == 200  # one byte short of whole
        px.wait_idle()
        st = px.server.status()
        assert st["undelivered"] == 1 and st["awaiting_delivery"] == 0, st
        (conv,) = store.list_conversations()
        assert store.list_usage(conv.id) == []
        r = _post(http, px.url, history, "d2")  # the client's retry, had whole
        assert _word(http, px.url, "d2", len(r.content)).status_code == 200
        px.wait_idle()
        st = px.server.status()
        assert st["undelivered"] == 1 and st["unconfirmed"] == 0 and st["awaiting_delivery"] == 0, st
        assert len(store.list_usage(conv.id)) == 1


def test_a_lost_word_does_not_hold_up_the_conversations_next_request(caplog: pytest.LogCaptureFixture) -> None:
    """Before: the record held the conversation's lock while it waited (30 s) for the word, so the
    next request waited that long, and the record then logged that no word came in time. Now the
    next request ends the wait: the answer is recorded at once, before the next one's."""
    caplog.set_level(logging.INFO, logger="contextwindow.proxy")
    store = open_store("memory://")
    history: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello."}]
    with _worker(store) as (px, http):
        r = _post(http, px.url, history, "d1")  # its word is lost: never posted
        history += [r.json()["choices"][0]["message"], {"role": "user", "content": "And then?"}]
        r = _post(http, px.url, history, "d2")
        assert _word(http, px.url, "d2", len(r.content)).status_code == 200
        px.wait_idle()
        st = px.server.status()
    text = caplog.text
    assert "no word from the lean front" not in text, text  # the wait did not run out
    assert "its next request came before the lean front's word" in text, text
    assert st["unconfirmed"] == 1 and st["undelivered"] == 0 and st["awaiting_delivery"] == 0, st
    (conv,) = store.list_conversations()
    assert len(store.list_usage(conv.id)) == 2
    assert [sm.message.role for sm in store.list(conv.id)] == ["system", "user", "assistant", "user", "assistant"]


def test_a_word_naming_no_request_is_a_400() -> None:
    store = open_store("memory://")
    with _worker(store) as (px, http):
        r = _word(http, px.url, None, 10)
        assert r.status_code == 400 and RID_HEADER in r.text, r.text  # before: a KeyError, a 500
        assert px.server.status()["awaiting_delivery"] == 0
