"""The proxy adds no request header of its own: what the upstream gets is what the client sent
(hop-by-hop headers aside). aiohttp's client adds ``Accept-Encoding: gzip, deflate`` and a
``User-Agent`` by default; an upstream would then compress an answer the client never asked to
have compressed, and the proxy relays the answer's bytes as they come."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer
from contextwindow.proxy import Conversations
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store


def _post(host: str, port: int, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}).encode()
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.putrequest("POST", "/v1/chat/completions", skip_accept_encoding=True)
    for k, v in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
        conn.putheader(k, v)
    conn.endheaders(body)
    resp = conn.getresponse()
    out = resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    conn.close()
    return out


def test_no_accept_encoding_or_user_agent_is_added() -> None:
    seen: list[dict[str, str]] = []

    def handler(req: Any) -> str:
        seen.append({k.lower(): v for k, v in req.headers.items()})
        return "hello"

    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0), Conversations(open_store("memory://"))) as px:
        host, port = px.server.config.host, px.server.port
        status, headers, raw = _post(host, port, {})
        assert status == 200 and "content-encoding" not in headers
        assert json.loads(raw)["choices"][0]["message"]["content"] == "hello"
        _post(host, port, {"Accept-Encoding": "identity", "User-Agent": "agent/1.0"})
    assert "accept-encoding" not in seen[0] and "user-agent" not in seen[0]
    assert seen[1]["accept-encoding"] == "identity" and seen[1]["user-agent"] == "agent/1.0"  # the client's own, kept


def test_no_cache_breakpoints_of_its_own_whatever_config_it_is_given() -> None:
    """The proxy relays its clients' own cache_control marks and adds none, also when the caller
    passes a SessionConfig of its own (whose default places them; found in review)."""
    from contextwindow.session import SessionConfig

    assert Conversations(open_store("memory://")).config.cache_marks == "off"
    assert Conversations(open_store("memory://"), config=SessionConfig()).config.cache_marks == "off"
