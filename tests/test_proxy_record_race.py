"""The reply's record and the conversation's next request, forced into the order that forked a
conversation under load (docs/proxy.md, 2026-11-24): an SDK hangs up at a stream's last event,
which cancels the proxy's handler while the record of that answer is still to run. The record
must keep the conversation's lock: the next request waits for it, and finds the reply stored.

The interleaving is forced with events, not timing: the upstream holds the end of the first
stream (so the client hangs up before the proxy ends its answer), the store holds the reply's
append until either the next request has written (the race: the bug) or the proxy says that the
next request waits for the conversation's lock (the fix), and the client sends its next request
only once the proxy has said that it saw the hang-up."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import Reply, ToolCallSpec  # noqa: E402
from contextwindow.messages import Message  # noqa: E402
from contextwindow.session import SessionConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from contextwindow.sync import KIND_KEY, REPLY  # noqa: E402
from test_proxy import oai, stack, valid  # noqa: E402
from test_proxy_transient import TOOLS, reminder, shown  # noqa: E402


class HeldReplyStore:
    """A real store whose first append of a reply (stored from an answer) waits for ``release``;
    an append of the client's messages after the first one sets it (another writer got in)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.release = threading.Event()
        self.held = False
        self.appends = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def append(self, conversation_id: str, messages: list[Message], **kw: Any) -> Any:
        reply = any(m.meta.get(KIND_KEY) == REPLY for m in messages)
        if reply and not self.held:
            self.held = True
            self.release.wait()  # the suite's timeout bounds it
        out = self.inner.append(conversation_id, messages, **kw)
        if not reply:
            self.appends += 1
            if self.appends >= 2:  # the next request's messages went in while the reply waited
                self.release.set()
        return out


class Said(logging.Handler):
    """Sets an event when the proxy logs a line holding ``text``."""

    def __init__(self, text: str, event: threading.Event) -> None:
        super().__init__(logging.DEBUG)
        self.text, self.event = text, event

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.event.set()


@pytest.mark.parametrize("block_in_first", [False, True])
def test_the_next_request_waits_for_the_record_of_an_answer_whose_client_hung_up_at_its_end(block_in_first: bool) -> None:
    # block_in_first: the first request's only user message carries the per-call block as a second
    # part (as ctxw run over Anthropic sends it); its identity differs from the next requests' (an
    # alias of the same conversation), and the lock must still be the conversation's
    end = threading.Event()  # the upstream ends its first stream only at the end of the test
    first = 2 if block_in_first else 3

    def handler(req: Any) -> Reply:
        n = len(req.body["messages"])
        return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": "retry", "n": n}, id=f"call_{n}"),), input_tokens=40 * n,
                     output_tokens=12, end_gate=end if n == first else None)

    store = HeldReplyStore(open_store("memory://"))
    hung_up = threading.Event()
    log = logging.getLogger("contextwindow.proxy")
    level = log.level
    watchers = [Said("hung up after the answer's end event", hung_up), Said("waits for the request or answer record", store.release)]
    log.setLevel(logging.DEBUG)
    for w in watchers:
        log.addHandler(w)
    try:
        with stack(handler, store=store, session=SessionConfig(cache=None)) as (up, px, _):  # type: ignore[arg-type]
            c = oai(px)
            task = {"type": "text", "text": "Find the retry logic."}
            history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."},
                                             {"role": "user", "content": [task]}]
            for i in range(3):
                if block_in_first and i == 0:
                    sent = [history[0], {"role": "user", "content": [task, {"type": "text", "text": reminder(i, len(history))}]}]
                else:
                    sent = [*history, {"role": "user", "content": reminder(i, len(history))}]
                chunks = list(c.chat.completions.create(model="gpt-4o-mini", messages=sent, max_tokens=256, tools=TOOLS, stream=True,
                                                        stream_options={"include_usage": True}))
                deltas = [tc for ch in chunks if ch.choices for tc in ch.choices[0].delta.tool_calls or []]
                call_id, args = deltas[0].id, "".join(tc.function.arguments or "" for tc in deltas)
                if i == 0:
                    hung_up.wait()  # the SDK closed at [DONE]; the proxy's handler of that answer has ended
                history.append({"role": "assistant", "content": None,
                                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "grep", "arguments": args}}]})
                history.append({"role": "tool", "tool_call_id": call_id, "content": f"src/retry.py:{i}: def retry(): ..."})
            end.set()
            px.wait_idle()
            (conv,) = store.list_conversations()  # one conversation: the third request did not diverge
            rows = [sm.message for sm in store.list(conv.id)]
            # each answer stored once, before the client's messages that follow it (its tool result)
            lead = ["system", "user"] if block_in_first else ["system", "user", "user"]
            assert [m.role for m in rows] == [*lead, "assistant", "tool", "user", "assistant", "tool", "user", "assistant"]
            assert [m.tool_calls[0].id for m in rows if m.role == "assistant"] == [f"call_{first}", "call_5", "call_7"]
            msgs = shown(store, conv.id)
            assert [m.role for m in msgs] == ["system", "user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
            assert msgs[1].text == "Find the retry logic."
            for body in (r.body for r in up.requests):
                assert valid(body, "openai") == []
    finally:
        for w in watchers:
            log.removeHandler(w)
        log.setLevel(level)
