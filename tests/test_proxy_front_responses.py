"""Responses requests (``POST /v1/responses``, Codex's) through the lean front: an unchanged one
goes upstream from the front byte for byte, as Chat and Messages requests do, and the worker
stores it; what the front cannot bound (reasoning items, images, outputs over the clip budget, a
history the provider keeps) or what would change a stored message goes to the worker
(docs/proxy.md, "The lean front")."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.curation import segments  # noqa: E402
from contextwindow.formats import get_format  # noqa: E402
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec  # noqa: E402
from contextwindow.proxy import Conversations, fastpath, resend  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402

CODEX = Path("/work/shared/fixtures/transcripts/codex")
TOOLS = [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}]
PATH = "/v1/responses"


def script(req: Any) -> Reply:
    n = len(req.body["input"])
    return Reply(tool_calls=(ToolCallSpec("shell", {"command": f"rg retry -n {n}"}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=9,
                 stream=bool(req.body.get("stream")))


def codex_turns(c: Any, turns: int, *, stream: bool) -> list[dict[str, Any]]:
    """A Codex-like loop: the output's calls appended as Codex keeps them (no ``id`` / ``status``),
    then their outputs; the whole input re-sent every turn, ``store: false``."""
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: workspace-write."}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Find the retry logic and fix it."}]}]
    for t in range(turns):
        kw: dict[str, Any] = dict(model="gpt-4o-mini", instructions="You are Codex, a coding agent.", input=items, tools=TOOLS,
                                  store=False, max_output_tokens=256, extra_headers={"session_id": "codex-session-1"})
        if stream:
            with c.responses.stream(**kw) as s:
                out = s.get_final_response().output
        else:
            out = c.responses.create(**kw).output
        for it in out:
            items.append({"type": "function_call", "name": it.name, "arguments": it.arguments, "call_id": it.call_id})
            items.append({"type": "function_call_output", "call_id": it.call_id, "output": f"src/http.py:{t}: retry()"})
    return items


@pytest.mark.parametrize("stream", [False, True], ids=["json", "streamed"])
def test_unchanged_responses_requests_go_from_the_front_byte_identical_and_are_stored(stream: bool) -> None:
    import httpx

    store = open_store("memory://")
    sent: list[bytes] = []
    http = httpx.Client(event_hooks={"request": [lambda r: sent.append(r.read())]})
    with LocalProviderServer(script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"), Conversations(store)) as px:
        items = codex_turns(openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0, http_client=http), 6, stream=stream)
        px.wait_idle()
        st = px.server.status()
        # before: every Responses request went to the worker (front_fast 0, delegated 6)
        assert st["front_fast"] >= 4 and st["delegated"] <= 2, st
        assert st.get("misjudged", 0) == 0 and st["records_lost"] == 0 and st.get("record_failed", 0) == 0, st
        assert [r.raw for r in up.requests] == sent  # nothing needed changing: every body went as the client sent it
        (conv,) = store.list_conversations()
        shown = [sm.message for seg in segments(store, conv.id) for t in seg.turns for sm in t.messages]
        want = get_format("openai_responses").from_payload({"instructions": "You are Codex, a coding agent.", "input": items[:-2]})
        assert [(m.role, m.text) for m in shown[: len(want)]] == [(m.role, m.text) for m in want]  # stored in order, no fork
        assert [u.input_tokens for u in store.list_usage(conv.id)] == [80, 160, 240, 320, 400, 480]


def _body(items: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o-mini", "instructions": "You are Codex.", "input": items, "tools": TOOLS, "store": False, **extra}


def _raw(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def _conv(body: dict[str, Any], room: float = 1e9) -> fastpath.Conv:
    items = body["input"]
    sent = resend.Sent(raw=_raw(body), count=len(items), fingerprints=(), clean=True)
    return fastpath.Conv(sent, room, 1.0, fastpath.call_ids("openai_responses", items), last=fastpath.side("openai_responses", items[-1]))


USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Find the retry logic."}]}
CALL = {"type": "function_call", "name": "shell", "arguments": "{\"command\":\"rg retry\"}", "call_id": "call_1"}
OUT = {"type": "function_call_output", "call_id": "call_1", "output": "src/http.py:12: retry()"}


def test_the_decision_on_responses_items() -> None:
    base = _body([USER])
    conv = _conv(base)
    got = fastpath.decide(conv, "openai_responses", _raw(_body([USER, CALL, OUT])), _body([USER, CALL, OUT]), 4000)
    assert got is not None and got[0].count == 3 and got[2] == [CALL, OUT]
    refused = {
        "reasoning": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB" + "x" * 40},
        "image": {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]},
        "web search": {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "retry"}},
        "developer": {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "new rules"}]},
        "non-string arguments": {**CALL, "call_id": "call_2", "arguments": {"command": "rg"}},
    }
    for why, item in refused.items():
        items = [USER, item] if "call" not in why else [USER, item, {**OUT, "call_id": "call_2"}]
        assert fastpath.decide(conv, "openai_responses", _raw(_body(items)), _body(items), 4000) is None, why
    big = [USER, CALL, {**OUT, "output": "x" * 5000}]  # over the clip budget by its bytes
    assert fastpath.decide(conv, "openai_responses", _raw(_body(big)), _body(big), 4000) is None
    orphan = [USER, {**OUT, "call_id": "zz"}]
    assert fastpath.decide(conv, "openai_responses", _raw(_body(orphan)), _body(orphan), 4000) is None
    assert fastpath.decide(_conv(base, room=10), "openai_responses", _raw(_body([USER, CALL, OUT])), _body([USER, CALL, OUT]), 4000) is None
    # a history the provider keeps, or an input string: no key, so never kept nor decided by the front
    assert fastpath.key_of(PATH, {}, _body([USER], previous_response_id="resp_1")) is None
    assert fastpath.key_of(PATH, {}, _body([USER], conversation="conv_1")) is None
    assert fastpath.key_of(PATH, {}, {"model": "m", "input": "hi"}) is None
    k = fastpath.key_of(PATH, {}, base)
    assert k is not None and k == fastpath.key_of(PATH, {}, _body([USER, CALL, OUT]))
    assert k != fastpath.key_of(PATH, {"session_id": "s2"}, base) and k != fastpath.key_of(PATH, {}, {**base, "instructions": "Other."})


def test_new_items_that_would_join_the_last_stored_message_go_to_the_worker() -> None:
    # the worker converts a run of outputs (or of calls and assistant messages) into one message:
    # an output spliced after an output would change the stored tool message, not add one
    calls = [USER, CALL, {**CALL, "call_id": "call_2"}, OUT]
    conv = _conv(_body(calls))
    assert conv.last == "tool"
    more = [*calls, {**OUT, "call_id": "call_2"}]
    assert fastpath.decide(conv, "openai_responses", _raw(_body(more)), _body(more), 4000) is None
    fmt = get_format("openai_responses")
    assert len(fmt.from_payload({"input": more})) == len(fmt.from_payload({"input": calls}))  # what the refusal protects
    # after an assistant message, a call joins it too; after a tool output it is a message of its own
    said = [USER, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]}]
    later = [*said, CALL, OUT]
    assert fastpath.decide(_conv(_body(said)), "openai_responses", _raw(_body(later)), _body(later), 4000) is None
    asked = [*said, USER]
    assert fastpath.decide(_conv(_body(said)), "openai_responses", _raw(_body(asked)), _body(asked), 4000) is not None


def _requests(items: list[dict[str, Any]]) -> list[int]:
    """Where a Codex client sends a request: after each output or user message that the model's
    next item (a call, a message of its own, reasoning) follows."""
    ends = []
    for i in range(1, len(items)):
        if fastpath.side("openai_responses", items[i - 1]) != "assistant" and fastpath.side("openai_responses", items[i]) == "assistant":
            ends.append(i)
    return [*ends, len(items)]


@pytest.mark.skipif(not CODEX.is_dir(), reason="the Codex rollouts under /work/shared/fixtures are not on this machine")
def test_on_real_codex_rollouts_the_front_forwards_only_what_the_worker_stores_as_appended() -> None:
    """Each rollout's response items replayed as the requests Codex made (the whole input each
    time): every request the front would forward as sent converts to the previous request's
    messages plus new ones (nothing stored changes), and every one holding a reasoning item, a web
    search call or an output over the clip budget goes to the worker."""
    fmt = get_format("openai_responses")
    passed = refused = 0
    for path in sorted(CODEX.glob("*.jsonl")):
        items = [json.loads(line)["payload"] for line in path.open() if json.loads(line)["type"] == "response_item"]
        items = [it for it in items if it.get("type") != "message" or it.get("role") != "developer"]  # (a developer prompt: at the head only)
        cuts = _requests(items)
        conv = _conv(_body(items[: cuts[0]]))
        for a, b in itertools.pairwise(cuts):
            body = _body(items[:b])
            got = fastpath.decide(conv, "openai_responses", _raw(body), body, 4000)
            new = items[a:b]
            unbounded = any(it.get("type") not in ("message", *fastpath.CALLS, *fastpath.OUTPUTS) for it in new) or any(
                it.get("type") in fastpath.OUTPUTS and len(str(it.get("output")).encode()) > 4000 for it in new)
            assert (got is None) == unbounded, new  # every plain request goes from the front, nothing else does
            if got is None:
                refused += 1
                conv = _conv(body)  # the worker served it and gave a room
                continue
            before, after = fmt.from_payload(_body(items[:a])), fmt.from_payload(body)
            assert after[: len(before)] == before and len(after) > len(before)
            passed += 1
            conv.sent, conv.last = got[0], fastpath.side("openai_responses", new[-1])
            conv.call_ids |= fastpath.call_ids("openai_responses", new)
    assert (passed, refused) == (31, 52)  # 36 requests carry a reasoning item, 16 an output over the clip budget
