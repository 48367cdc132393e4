"""Cookies an upstream sets belong to the client that got them: the proxy relays them in the answer
and keeps none (a shared jar would send one client's cookie upstream with everyone's requests)."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.proxy import Conversations
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store

ANSWER = {"id": "c", "object": "chat.completion", "model": "gpt-4o-mini", "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10},
          "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}


def test_a_cookie_set_upstream_goes_to_its_client_and_is_not_kept() -> None:
    replies = [Reply(status=200, body=ANSWER, headers={"set-cookie": "affinity=client-a; Path=/"}), Reply(status=200, body=ANSWER)]
    with LocalProviderServer(replies) as up:
        upstream = up.base_url.replace("127.0.0.1", "localhost")  # a host name: a cookie jar would keep its cookies
        with BackgroundProxy(ProxyConfig(upstream=upstream, port=0), Conversations(open_store("memory://"))) as px:
            url = f"{px.url}/v1/chat/completions"
            first = httpx.post(url, json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "client a"}]}, timeout=30)
            assert first.status_code == 200 and first.headers["set-cookie"].startswith("affinity=client-a")
            second = httpx.post(url, json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "client b"}]}, timeout=30)
            assert second.status_code == 200 and "set-cookie" not in second.headers
    assert [r.body["messages"][0]["content"] for r in up.requests] == ["client a", "client b"]
    assert "cookie" not in up.requests[1].headers  # client b's request went upstream without client a's cookie
