"""The proxy on a SQLite store commits in groups (store/sqlite.py ``group_commits``): a client
still never has an answer to a request whose messages are not durable, replies and usage are
committed once the proxy is idle, and a group the store loses is recovered from the clients'
next histories."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
openai = pytest.importorskip("openai")

from contextwindow.curation import segments  # noqa: E402
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec  # noqa: E402
from contextwindow.proxy import Conversations  # noqa: E402
from contextwindow.proxy.conversations import Answer, Request  # noqa: E402
from contextwindow.proxy.history import parse_body  # noqa: E402
from contextwindow.proxy.protocols import BY_PATH  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.store.sqlite import SQLiteStore  # noqa: E402
from contextwindow.usage import Usage  # noqa: E402
from proxy_helpers import TOOLS  # noqa: E402


def _committed_texts(path: Path) -> set[str]:
    """Every text a second connection reads from the store's messages (committed rows only)."""
    conn = sqlite3.connect(path)
    try:
        bodies = [json.loads(b) for (b,) in conn.execute("SELECT b.body FROM messages m JOIN blobs b ON b.hash = m.hash")]
    finally:
        conn.close()
    out: set[str] = set()
    for body in bodies:
        for part in body["parts"]:
            out.add(part.get("text") or "".join(p.get("text", "") for p in part.get("content", ())))
    return out


def _call(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)


@pytest.mark.parametrize("front", ["aiohttp", "lean"])
def test_an_answer_comes_only_after_its_request_is_durable_and_replies_once_idle(tmp_path: Path, front: str) -> None:
    """``ctxw proxy`` relays an answer once its request is durable. The lean front relays an answer
    forwarded as sent without waiting for its worker (docs/proxy.md, "the lean front"): its
    guarantee is that once idle (``wait_idle``) every request's messages are committed."""
    path = tmp_path / "proxy.db"
    store = SQLiteStore(path)
    errors: list[BaseException] = []
    sent_all: list[str] = []
    with LocalProviderServer(_call) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front=front), Conversations(store)) as px:

        def agent(k: int) -> None:
            try:
                c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="x", max_retries=0)
                history: list[dict[str, Any]] = [{"role": "user", "content": f"task {k}: find the retry logic"}]
                for i in range(4):
                    r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=64, tools=TOOLS)  # type: ignore[arg-type]
                    # the answer is here: everything this request sent is committed (another connection reads it)
                    sent = {m["content"] for m in history if m.get("content")}
                    sent_all.extend(sent)
                    if front == "aiohttp":
                        assert sent <= _committed_texts(path), (k, i, sent - _committed_texts(path))
                    msg = r.choices[0].message
                    history.append(msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}))
                    history.append({"role": "tool", "tool_call_id": msg.tool_calls[0].id, "content": f"result {k}.{i}: src/http.py:{i}"})  # type: ignore[index]
            except BaseException as exc:  # raised in the test's thread below
                errors.append(exc)

        threads = [threading.Thread(target=agent, args=(k,)) for k in range(4)]  # concurrent: writes share groups
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[0]
        px.wait_idle()
        assert set(sent_all) <= _committed_texts(path)  # idle: everything any request sent is committed
        assert px.server.stats["fast"] >= 8  # most requests took the path that stores while the upstream works
        conn = sqlite3.connect(path)
        try:  # idle: the replies and the usage rows are committed too
            assert conn.execute("SELECT COUNT(*) FROM usage").fetchone() == (16,)
            assert conn.execute("SELECT COUNT(*) FROM conversations").fetchone() == (4,)
        finally:
            conn.close()
    assert store.pending() is None  # closing committed everything; writes are one by one again
    store.close()


def _body(turns: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the failing test"}]
    for t in range(turns):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{t}", "type": "function", "function": {"name": "grep", "arguments": json.dumps({"t": t})}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{t}", "content": f"src/m.py:{t}: retry()"})
    return {"model": "gpt-4o-mini", "max_tokens": 64, "messages": messages}


def _request(conv: Conversations, turns: int) -> str:
    """One request through the proxy's conversation logic, as the server runs it (no HTTP)."""
    body = _body(turns)
    raw = json.dumps(body).encode()
    parsed = conv.parse(Request(BY_PATH["/v1/chat/completions"], parse_body(raw), raw, {}))
    quick = conv.quick(parsed)
    done = conv.commit(quick) if quick is not None else conv.prepare(parsed)
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": _body(turns + 1)["messages"][-2]["tool_calls"]}}]}
    conv.record(done.conversation_id, Usage(input_tokens=40 * len(body["messages"]), output_tokens=5, model="gpt-4o-mini"),
                fast=done.fast, answer=Answer("openai", reply, False))
    return done.conversation_id


def test_a_lost_group_is_recovered_from_the_next_history(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "proxy.db")
    stop = store.group_commits()
    conv = Conversations(store)
    for t in range(3):
        cid = _request(conv, t)
    store.flush()
    for t in range(3, 5):  # these writes are in the open group...
        _request(conv, t)
    with pytest.raises(RuntimeError), store._transaction(True) as q:  # ...which an I/O error ends (by hand here)
        q.run("ROLLBACK")
        raise RuntimeError("disk I/O error")
    assert store.losses == 1
    assert _request(conv, 5) == cid  # the live state was dropped: reloaded from the store, same conversation
    stop()
    shown = [sm.message for seg in segments(store, cid) for t in seg.turns for sm in t.messages]
    sent = _body(5)["messages"]
    assert [m.role for m in shown] == [m["role"] for m in sent] + ["assistant"]  # every message once, the last reply after
    assert [m.tool_results[0].text for m in shown if m.role == "tool"] == [m["content"] for m in sent if m["role"] == "tool"]
    assert len(store.list_usage(cid)) == 4  # the two lost usage rows stay lost (the group held them); said in docs
    store.close()
