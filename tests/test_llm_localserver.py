"""The local provider server itself: routing, recording, bounds, shutdown."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from contextwindow.llm.localserver import LocalProviderServer, ReceivedRequest, Reply
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import user


def test_routes_and_records() -> None:
    with LocalProviderServer(lambda req: f"{req.protocol}:{req.body['model']}") as srv:
        a = httpx.post(f"{srv.base_url}/v1/chat/completions", json={"model": "m1", "messages": []}).json()
        b = httpx.post(f"{srv.base_url}/v1/messages", json={"model": "m2", "messages": [], "max_tokens": 5}).json()
        c = httpx.post(f"{srv.base_url}/chat/completions", json={"model": "m3", "messages": []}).json()
        missing = httpx.post(f"{srv.base_url}/v2/other", json={})
        get = httpx.get(f"{srv.base_url}/v1/messages")
    assert a["choices"][0]["message"]["content"] == "openai:m1" and a["object"] == "chat.completion"
    assert b["content"] == [{"type": "text", "text": "anthropic:m2"}] and b["type"] == "message"
    assert c["choices"][0]["message"]["content"] == "openai:m3"
    assert missing.status_code == 404 and get.status_code == 405
    assert [r.path for r in srv.requests] == ["/v1/chat/completions", "/v1/messages", "/chat/completions"]
    assert srv.bodies[1]["max_tokens"] == 5


def test_script_exhausted_and_handler_errors_answer_500() -> None:
    with LocalProviderServer(["only"]) as srv:
        httpx.post(f"{srv.openai_base_url}/chat/completions", json={})
        r = httpx.post(f"{srv.openai_base_url}/chat/completions", json={})
    assert r.status_code == 500 and "script exhausted" in r.json()["error"]["message"]

    def broken(req: ReceivedRequest) -> str:
        raise RuntimeError("oops")

    with LocalProviderServer(broken) as srv:
        r = httpx.post(f"{srv.openai_base_url}/chat/completions", json={})
    assert r.status_code == 500 and "oops" in r.json()["error"]["message"]


def test_body_bound_and_non_json_body() -> None:
    with LocalProviderServer(["a", "b"], max_body=100) as srv:
        big = httpx.post(f"{srv.openai_base_url}/chat/completions", content=b"x" * 101)
        odd = httpx.post(f"{srv.openai_base_url}/chat/completions", content=b"not json")
    assert big.status_code == 413
    assert odd.status_code == 200 and srv.requests[0].body is None and srv.requests[0].raw == b"not json"


def test_recorded_requests_are_bounded() -> None:
    with LocalProviderServer(lambda r: "x", max_recorded=2) as srv:
        for _ in range(4):
            assert httpx.post(f"{srv.openai_base_url}/chat/completions", json={}).status_code == 200
    assert len(srv.requests) == 2


def test_concurrent_requests() -> None:
    lock = threading.Lock()
    inflight = 0
    peak = 0
    together = threading.Event()

    def handler(r):
        nonlocal inflight, peak
        with lock:
            inflight += 1
            peak = max(peak, inflight)
            if inflight >= 2:
                together.set()
        together.wait(5)  # a serial server would never get here with two requests in flight
        with lock:
            inflight -= 1
        return Reply(text=r.body["messages"][-1]["content"])

    with LocalProviderServer(handler) as srv:
        model = OpenAICompatibleModel("m", base_url=srv.openai_base_url, retry=RetryPolicy(delays=()))
        out: dict[int, str] = {}

        def call(i: int) -> None:
            out[i] = model.complete([user(f"n{i}")]).text

        threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert out == {i: f"n{i}" for i in range(8)}
    assert peak >= 2  # served in parallel, not one after another


def test_close_ends_pending_delays_quickly() -> None:
    srv = LocalProviderServer([Reply(text="late", delay=30)]).start()
    errors: list[Exception] = []

    def call() -> None:
        try:
            httpx.post(f"{srv.openai_base_url}/chat/completions", json={}, timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    t = threading.Thread(target=call)
    t.start()
    while srv.in_flight == 0 and t.is_alive():  # the request is held by the server
        time.sleep(0.01)
    srv.close()
    t.join(timeout=20)
    assert not t.is_alive()  # the 30 s delay ended with the server, not when it ran out
    assert len(errors) == 1  # the connection was dropped, not answered


def test_port_needs_start() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = LocalProviderServer(["x"]).base_url
