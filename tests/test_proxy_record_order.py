"""The model's reply is stored before the client's next request is read, even when the client goes
on at the stream's last event while the upstream has not ended the body yet (an SDK stops reading at
``[DONE]`` / ``message_stop``). Before, the record was made only once the upstream closed the body:
the next request could be synced first, and the reply landed after the messages that answer it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import Reply, ToolCallSpec
from proxy_helpers import TOOLS
from test_proxy import stack
from test_proxy_transient import shown

END_DELAY = 0.6  # the upstream's body ends this long after its last event


def script(r: Any) -> Reply:
    n = len(r.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": f"p{n}"}, id=f"call_{n}"),), stream=True, end_delay=END_DELAY,
                 input_tokens=40 * n, output_tokens=5)


def until_done(lines: Iterator[str]) -> dict[str, Any]:
    """Read the stream up to ``[DONE]`` (not to the end of the body) and join the tool call."""
    call: dict[str, Any] = {"type": "function", "function": {"name": "", "arguments": ""}}
    for line in lines:
        if line == "data: [DONE]":
            return {"role": "assistant", "content": None, "tool_calls": [call]}
        if line.startswith("data: "):
            for choice in json.loads(line[6:]).get("choices") or []:
                for tc in choice.get("delta", {}).get("tool_calls") or []:
                    call["id"] = tc.get("id") or call.get("id")
                    call["function"]["name"] += (tc.get("function") or {}).get("name") or ""
                    call["function"]["arguments"] += (tc.get("function") or {}).get("arguments") or ""
    raise AssertionError("the stream ended without [DONE]")


def test_reply_is_stored_before_the_next_request_of_a_client_that_goes_on_at_the_last_event() -> None:
    with stack(script) as (up, px, store), httpx.Client(base_url=px.url, timeout=30) as http:
        history: list[dict[str, Any]] = [{"role": "system", "content": "Be careful."}, {"role": "user", "content": "Find the retry logic."}]
        still_open: list[tuple[httpx.Response, Iterator[str]]] = []
        for i in range(3):  # each request goes on at the [DONE] of the one before, whose body is still open
            body = {"model": "gpt-4o-mini", "max_tokens": 64, "messages": history, "tools": TOOLS, "stream": True}
            resp = http.send(http.build_request("POST", "/v1/chat/completions", json=body), stream=True)
            lines = resp.iter_lines()
            reply = until_done(lines)
            still_open.append((resp, lines))  # the next request goes on another connection
            history += [reply, {"role": "tool", "tool_call_id": reply["tool_calls"][0]["id"], "content": f"src/http.py:{i}: retry()"}]
        for resp, lines in still_open:
            assert not "".join(lines).strip()  # the rest of the body: its end
            resp.close()
        px.wait_idle()
        (conv,) = store.list_conversations()  # one conversation: no request diverged
        msgs = shown(store, conv.id)
        calls = [m.tool_calls[0].id for m in msgs if m.role == "assistant"]
        assert calls == ["call_2", "call_4", "call_6"]  # each reply where the client put it, once
        roles = [m.role for m in msgs]
        assert all(a != b for a, b in itertools.pairwise(roles)), roles  # no two replies in a row
        assert len(store.list_usage(conv.id)) == 3
        assert len(up.requests) == 3
