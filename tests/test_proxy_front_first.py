"""A conversation's second request through the lean front: before its first answer's usage is
recorded, the worker tells the front a room for the whole request (``x-ctxw-room: T/P/whole``), so
the second request goes from the front when the bytes of the whole body bound it under 90% of the
trigger, and to the worker when they do not (docs/proxy.md, "the cold bursts")."""

from __future__ import annotations

from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.curation import segments  # noqa: E402
from contextwindow.llm.localserver import LocalProviderServer  # noqa: E402
from contextwindow.proxy import Conversations  # noqa: E402
from contextwindow.proxy.front import _room  # noqa: E402
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from proxy_helpers import TOOLS, script  # noqa: E402

WINDOW = 16_000


def run(task: str, turns: int) -> tuple[dict[str, int], list[bytes], list[bytes], Conversations]:
    """``turns`` requests of one conversation through an embedded lean proxy; its status, what the
    client sent and what reached the upstream."""
    import httpx

    sent: list[bytes] = []
    convs = Conversations(open_store("memory://"), window=WINDOW)
    with LocalProviderServer(script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"), convs) as px:
        http = httpx.Client(event_hooks={"request": [lambda r: sent.append(r.read())]})
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0, http_client=http)
        history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}, {"role": "user", "content": task}]
        for _ in range(turns):
            r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS)  # type: ignore[arg-type]
            msg = r.choices[0].message
            history.append(msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}))
            history += [{"role": "tool", "tool_call_id": call.id, "content": "src/http.py:12: retry()"} for call in msg.tool_calls or []]
        px.wait_idle()
        return px.server.status(), sent, [r.raw for r in up.requests], convs


def test_the_second_request_goes_from_the_front_before_the_first_report() -> None:
    st, sent, upstream, _ = run("Find the retry logic.", 2)
    # before: the first answer's room waited for its usage, so the second request went to the worker too
    assert (st["delegated"], st["front_fast"]) == (1, 1), st
    assert upstream == sent and st.get("misjudged", 0) == 0 and st["records_lost"] == 0


def test_a_second_request_whose_bytes_do_not_bound_it_under_the_trigger_goes_to_the_worker() -> None:
    # ~40 kB of text, ~7,000 tokens: under 90% of the trigger by its tokens (the worker sends it as
    # it is), over it by its bytes (the front cannot tell, before the first report)
    task = "Find the retry logic. " + "retry " * 6_500
    st, sent, upstream, _ = run(task, 3)
    assert st["delegated"] >= 2 and st["front_fast"] <= 1, st
    assert upstream == sent and st.get("misjudged", 0) == 0  # nothing needed changing, and the front claimed nothing it could not bound


def test_a_whole_request_room_is_what_the_last_body_leaves_of_it() -> None:
    assert _room("1000/1.0/whole", b"x" * 300) == (700.0, 1.0, True)
    assert _room("1000/2.5/whole", b"x" * 300) == (250.0, 2.5, True)
    assert _room("1000/2.5", b"x" * 300) == (1000.0, 2.5, False)  # a room for the new messages: the body is not in it


def agents(tasks: list[str], tools: list[list[dict[str, Any]]], turns: int = 2) -> tuple[dict[str, int], list[bytes], list[bytes], Any]:
    """One conversation per task, one after the other, through one embedded lean proxy."""
    import httpx

    sent: list[bytes] = []
    store = open_store("memory://")
    with LocalProviderServer(script) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0, front="lean"),
                                                           Conversations(store, window=WINDOW)) as px:
        http = httpx.Client(event_hooks={"request": [lambda r: sent.append(r.read())]})
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0, http_client=http)
        for task, specs in zip(tasks, tools, strict=True):
            history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}, {"role": "user", "content": task}]
            for _ in range(turns):
                r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=specs)  # type: ignore[arg-type]
                msg = r.choices[0].message
                history.append(msg.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"}))
                history += [{"role": "tool", "tool_call_id": call.id, "content": "ok"} for call in msg.tool_calls or []]
            px.wait_idle()
        return px.server.status(), sent, [r.raw for r in up.requests], store


def test_a_first_request_of_a_known_shape_goes_from_the_front_and_is_stored() -> None:
    st, sent, upstream, store = agents(["Find the retry logic.", "Fix the flaky test.", "Rename the module."], [TOOLS] * 3)
    # the first conversation teaches the front its shape's room; the next two open from the front
    assert st["front_first"] == 2 and st["delegated"] == 1 and st["front_fast"] == 5, st
    assert upstream == sent and st.get("misjudged", 0) == 0 and st["records_lost"] == 0
    convs = store.list_conversations()
    assert len(convs) == 3
    for conv in convs:  # each stored whole, as the first (served by the worker): what was sent, the last reply, the usage rows
        shown = [sm.message.role for seg in segments(store, conv.id) for t in seg.turns for sm in t.messages]
        assert shown == ["system", "user", "assistant", "tool", "assistant"]
        assert len(store.list_usage(conv.id)) == 2


def test_a_first_request_of_another_shape_or_not_plain_goes_to_the_worker() -> None:
    other = [{"type": "function", "function": {"name": "edit", "parameters": {"type": "object"}}}]
    st, sent, upstream, _ = agents(["Find the retry logic.", "Fix the flaky test."], [TOOLS, other])
    assert st["front_first"] == 0 and st["delegated"] == 2, st  # other tools: another budget, not known yet
    big = "Find the retry logic. " + "retry " * 6_500  # under the trigger by its tokens, not by its bytes
    st, sent, upstream, _ = agents(["Find the retry logic.", big], [TOOLS, TOOLS])
    assert st["front_first"] == 0 and upstream == sent and st.get("misjudged", 0) == 0, st


def test_a_re_opened_conversation_opens_from_the_front_and_continues_in_a_new_one() -> None:
    """The same system prompt and task again (a client that starts over, a second run of one job):
    the opening request goes from the front like any first request of a known shape, and the
    worker stores it as the aiohttp front does: a new conversation whose parent is the old one
    (not a late hand-over of the old one, whose history it is a prefix of)."""
    st, sent, upstream, store = agents(["Find the retry logic.", "Find the retry logic."], [TOOLS] * 2)
    # before: the front found the conversation, saw a body that does not extend it, and sent it to the worker
    assert st["front_first"] == 1 and st["delegated"] == 1 and st["front_fast"] == 3, st
    assert upstream == sent and st.get("misjudged", 0) == 0 and st.get("late_store", 0) == 0 and st["records_lost"] == 0, st
    old, new = sorted(store.list_conversations(), key=lambda c: c.parent_id is not None)
    assert new.parent_id == old.id
    for conv in (old, new):
        shown = [sm.message.role for seg in segments(store, conv.id) for t in seg.turns for sm in t.messages]
        assert shown == ["system", "user", "assistant", "tool", "assistant"]
        assert len(store.list_usage(conv.id)) == 2
