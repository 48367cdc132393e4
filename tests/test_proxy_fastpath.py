"""The proxy's fast path: a request that needs nothing goes upstream before its new messages are
stored. The decision must be exact (what ``Session.add`` would do, without doing it), and the
store must end up the same as on the slow path, whatever the client does meanwhile."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import httpx
import pytest

from contextwindow import Session
from contextwindow.clipping import clip
from contextwindow.clipping.model import RETRIEVE_TOOL_NAME
from contextwindow.clipping.router import keeps
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import SessionConfig
from contextwindow.store import open_store
from contextwindow.tokens import counter_for


def _text(rng: random.Random, tokens: int) -> str:
    words = ["retry", "src/http.py:12:", "def", "handler(request):", "ünïcode", "{\"k\": [1, 2]}", "ERROR", "\n", "Traceback", "😀"]
    return " ".join(rng.choice(words) for _ in range(tokens))


def test_keeps_says_what_clip_does() -> None:
    rng = random.Random(15)
    count = counter_for("gpt-4o-mini").count_text
    for i in range(120):
        budget = rng.choice([50, 200, 400])
        text = _text(rng, rng.randint(budget // 6, budget // 2))  # about as many under the budget as over
        name = rng.choice([None, "grep", RETRIEVE_TOOL_NAME])
        part = ToolResultPart(f"c{i}", (TextPart(text),), name=name)
        res = clip(part, budget, count=count, hard_cap_tokens=budget + 100)
        assert keeps(part, budget, count=count, hard_cap_tokens=budget + 100) == (res.part is part), (i, budget, name)


def test_stores_as_given_says_what_add_does() -> None:
    rng = random.Random(7)
    store = open_store("memory://")
    s = Session(store, model="gpt-4o-mini", config=SessionConfig(clip_budget_tokens=120))
    s.add(Message("user", (TextPart("find the retry logic"),)))
    for i in range(40):
        call = Message("assistant", (ToolCallPart(f"c{i}", "grep", "{}"),))
        result = Message("tool", (ToolResultPart(f"c{i}", (TextPart(_text(rng, rng.randint(15, 80))),)),))
        for m in (call, result):
            predicted = s.stores_as_given(m)
            (stored,) = s.add(m)
            assert predicted == (stored.message.parts == m.parts), i


# --- through the proxy -------------------------------------------------------------------------------

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec  # noqa: E402
from contextwindow.proxy import Conversations  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from proxy_raw import send_then_hang_up  # noqa: E402


@pytest.mark.parametrize("front", ["aiohttp", "lean"])
def test_a_client_gone_before_the_answer_still_leaves_its_messages_stored_whole(front: str) -> None:
    """Through the lean front request 3 is served by its worker, whose relay to the front may end
    before the front has seen its client go: before the front's word on delivery (worker.py,
    ``/_ctxw/delivered``) that answer was recorded (its reply stored) most runs."""
    arrived, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def handler(req: Any) -> Reply:
        n = len(req.body["messages"])
        calls.append(n)
        if len(calls) == 3:
            arrived.set()
            release.wait(30)  # hold the third answer until the client has gone
        return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)

    store = open_store("memory://")
    history: list[dict[str, Any]] = [{"role": "user", "content": "Find the retry logic."}]
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front=front), Conversations(store)) as px:
        url = f"{px.url}/v1/chat/completions"
        for i in range(3):
            body = {"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}
            if i < 2:
                msg = httpx.post(url, json=body, timeout=30).json()["choices"][0]["message"]
                history = [*history, msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": f"src/http.py:{i}: retry()"}]
                px.wait_idle()
                continue
            # the client gives up once the upstream holds its request (an event, not a timeout: a loaded
            # machine may take longer than any fixed wait to forward it)
            send_then_hang_up(px, body, arrived)
        release.set()
        px.wait_idle()
        assert px.server.stats["fast"] == 2  # requests 2 and 3 went upstream before their messages were stored
        (conv,) = store.list_conversations()
        stored = [sm.message.role for sm in store.list(conv.id)]
        assert stored == [m["role"] for m in history]  # the abandoned request's messages: stored, whole
        assert len(store.list_usage(conv.id)) == 2  # its answer never reached the client: not accounted


def test_tool_definitions_are_converted_and_counted_once_per_distinct_set() -> None:

    from contextwindow.proxy.conversations import Request
    from contextwindow.proxy.protocols import BY_PATH
    from contextwindow.tools import ToolSpec

    def req(tools: list[dict[str, Any]]) -> Request:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
        return Request(BY_PATH["/v1/chat/completions"], json.loads(json.dumps(body)), b"", {})  # fresh objects each time

    def tool(name: str, desc: str) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {"type": "object"}}}

    convs = Conversations(open_store("memory://"))
    a, b = convs._tool_specs(req([tool("grep", "search")])), convs._tool_specs(req([tool("grep", "search")]))
    c = convs._tool_specs(req([tool("grep", "search the tree, every file")]))
    assert a is b and a is not c and [t.name for t in c] == ["grep"]
    s = Session(open_store("memory://"), model="gpt-4o-mini")
    s.tools = a
    small = s.budget().tools
    s.tools = c  # another list: counted again
    assert s.budget().tools > small > 0
    s.tools = [ToolSpec("grep", "search the tree, every file", {"type": "object"})]  # equal content, another list
    assert s.budget().tools == s.counter.count_tools(c)
