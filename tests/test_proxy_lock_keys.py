"""A conversation's lock key is remembered only while it matters: the table of them stays
bounded however many conversations pass through, and a conversation whose key was forgotten
still takes one lock for all its requests (its own id) and stays one conversation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contextwindow.proxy import Conversations, Request
from contextwindow.proxy.history import parse_request
from contextwindow.proxy.protocols import BY_PATH
from contextwindow.store import open_store

CHAT = BY_PATH["/v1/chat/completions"]


def request(n: int, follow_up: bool = False) -> Request:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": f"Task {n}."}]
    if follow_up:
        messages += [{"role": "assistant", "content": f"Done {n}."}, {"role": "user", "content": "And then?"}]
    raw = json.dumps({"model": "gpt-4o-mini", "max_tokens": 32, "messages": messages}).encode()
    body, exact = parse_request(raw)
    return Request(CHAT, body, raw, {}, exact)


def test_lock_keys_in_use_are_kept_and_the_idle_ones_forgotten_past_the_bound() -> None:
    store = open_store("memory://")
    conv = Conversations(store, max_live=4)
    busy: set[str] = set()
    conv.lock_in_use = busy.__contains__
    keys = []
    for n in range(30):
        parsed = conv.parse(request(n))
        key = conv.lock_key(parsed.identity.key)
        busy.add(key)  # held by its request while it creates the conversation, as the server's table says
        conv.prepare(parsed, lock=key)
        if n not in (1, 2):  # the first conversations' requests 1 and 2 still hold theirs
            busy.discard(key)
        keys.append((parsed.identity.key, key))
        assert conv.held()["lock_keys"] <= 2 * 4 + 1
    cids = {k: conv.lock_key(k) for k, _ in keys}
    # a key still in use is remembered: its conversation's requests keep taking it
    assert all(cids[keys[n][0]] == keys[n][1] for n in (1, 2))
    # a forgotten one: the conversation locks under its own id, the same for every request of it
    forgotten = [k for k, held in keys[:20] if cids[k] != held]
    assert forgotten, "no lock key was forgotten"
    ids = {c.id for c in store.list_conversations()}
    assert all(cids[k] in ids for k in forgotten)


def test_a_conversation_whose_lock_key_was_forgotten_is_still_one_conversation_through_the_proxy() -> None:
    pytest.importorskip("openai")
    pytest.importorskip("aiohttp")
    from contextwindow.llm.localserver import LocalProviderServer, Reply
    from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
    from test_proxy import oai

    store = open_store("memory://")
    answer = lambda r: Reply(text=f"Done {len(r.body['messages'])}.", input_tokens=20, output_tokens=3)  # noqa: E731
    # a small bound (live Sessions and lock keys), so that the first conversations' keys are forgotten
    with LocalProviderServer(answer) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0), Conversations(store, max_live=3)) as px:
        client = oai(px)
        for n in range(12):
            client.chat.completions.create(model="gpt-4o-mini", max_tokens=32, messages=request(n).body["messages"])
        px.wait_idle()
        assert px.server.status()["lock_keys"] <= 2 * 3 + 1
        assert px.server.status()["locks"] == 0
        for n in range(3):  # the first conversations go on: recognised, only the new messages stored
            client.chat.completions.create(model="gpt-4o-mini", max_tokens=32, messages=request(n, follow_up=True).body["messages"])
        px.wait_idle()
        convs = store.list_conversations()
        assert len(convs) == 12  # nothing forked
        for c in convs:
            texts = [sm.message.text for sm in store.list(c.id)]
            assert texts.count("Be brief.") == 1
        assert px.server.status()["locks"] == 0
