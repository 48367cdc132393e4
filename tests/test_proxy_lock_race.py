"""One conversation's requests never run side by side, even while its first request creates it
(docs/proxy.md, "the lock of a conversation being created", 2026-11-24).

The race: a request locked by its *identity* while its conversation did not exist yet, and a later
request of the same conversation, arriving once it did, locked by the conversation's id: two locks
for one conversation, so two syncs into it at once (the client's messages stored twice). Forced
with events, not timing, through the real proxy over HTTP: a real store whose chosen write waits
until either another request of the conversation has written (the race) or the proxy has said
that that request waits for the conversation's lock (serialized)."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")
pytest.importorskip("orjson")  # the proxy counts the requests it read (Conversations.reread) on its orjson path

from contextwindow.llm.localserver import Reply  # noqa: E402
from contextwindow.messages import Message  # noqa: E402
from contextwindow.session import SessionConfig  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from contextwindow.sync import KIND_KEY, REPLY  # noqa: E402
from test_proxy import oai, stack, valid  # noqa: E402

WAITS = "waits for the request or answer record"


class Gate:
    """A write the store holds: ``entered`` once it waits, and it goes on at ``release`` (set by
    the test, or by the store when another request writes into the same conversation meanwhile)."""

    def __init__(self, first_text: str, *, by_write: bool = True) -> None:
        self.first_text = first_text  # held: the first append of client messages starting with this text
        self.by_write = by_write
        self.entered = threading.Event()
        self.release = threading.Event()
        self.conversation: str | None = None

    def hold(self) -> None:
        assert self.release.wait(60), "the held write was never released"


class GatedStore:
    """A real store whose appends of client messages can be held (each gate once, at the first
    append it matches). An append into a conversation while a write of it is held releases that
    write (another request got into the conversation)."""

    def __init__(self, inner: Any, gates: list[Gate]) -> None:
        self.inner = inner
        self.gates = gates
        self.appended: list[tuple[str, list[str]]] = []  # (conversation, the texts appended), in the order they went in
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def append(self, conversation_id: str, messages: list[Message], **kw: Any) -> Any:
        if any(m.meta.get(KIND_KEY) == REPLY for m in messages):
            return self.inner.append(conversation_id, messages, **kw)
        with self._lock:
            for g in self.gates:  # a write while another of the conversation is held: the held one may go on
                if g.by_write and g.entered.is_set() and g.conversation == conversation_id:
                    g.release.set()
            gate = next((g for g in self.gates if not g.entered.is_set() and messages and messages[0].text == g.first_text), None)
            if gate is not None:
                gate.conversation = conversation_id
                gate.entered.set()
        if gate is not None:
            gate.hold()
        out = self.inner.append(conversation_id, messages, **kw)
        with self._lock:
            self.appended.append((conversation_id, [m.text for m in messages]))
        return out

    def texts(self, conversation_id: str) -> list[list[str]]:
        return [texts for cid, texts in self.appended if cid == conversation_id]


class Said(logging.Handler):
    """Counts the proxy's log lines holding ``text``; ``on[k]`` is set at the k-th (from 1)."""

    def __init__(self, text: str) -> None:
        super().__init__(logging.DEBUG)
        self.text = text
        self.on: dict[int, threading.Event] = {}
        self.n = 0

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.n += 1
            ev = self.on.get(self.n)
            if ev is not None:
                ev.set()


SYSTEM = {"role": "system", "content": "You are a careful coding agent."}
TASK = {"role": "user", "content": "Find the retry logic."}


def history(n: int) -> list[dict[str, Any]]:
    """The conversation's first ``n`` rounds: system, task, then (answer, follow-up) pairs."""
    out = [SYSTEM, TASK]
    for i in range(1, n):
        out += [{"role": "assistant", "content": f"Answer {i}."}, {"role": "user", "content": f"Follow-up {i}."}]
    return out


def send(px: Any, messages: list[dict[str, Any]], errors: list[BaseException]) -> threading.Thread:
    def go() -> None:
        try:
            oai(px).chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=64)
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


@pytest.fixture
def said() -> Any:
    log = logging.getLogger("contextwindow.proxy")
    level = log.level
    watcher = Said(WAITS)
    log.setLevel(logging.DEBUG)
    log.addHandler(watcher)
    yield watcher
    log.removeHandler(watcher)
    log.setLevel(level)


def answers(req: Any) -> Reply:
    return Reply(text=f"Answer to {len(req.body['messages'])} messages.", input_tokens=30, output_tokens=5)


def only_conversation(store: GatedStore, up: Any, px: Any, lead: str = SYSTEM["content"]) -> str:
    px.wait_idle()
    convs = [c for c in store.list_conversations() if store.list(c.id)[0].message.text == lead]
    assert len(convs) == 1, f"the conversation forked: {len(convs)} conversations"
    rows = [sm.message for sm in store.list(convs[0].id) if sm.message.meta.get(KIND_KEY) != REPLY]
    # every message the clients sent is stored once, in order: no request synced beside another
    assert [m.text for m in rows] == [m["content"] for m in history(3)]
    for r in up.requests:
        assert valid(r.body, "openai") == []
    assert px.server.status()["locks"] == 0  # the lock table keeps no entry once no request uses it
    return convs[0].id


def test_a_request_arriving_while_the_first_one_writes_the_new_conversation_waits_for_it(said: Any) -> None:
    # the first request has created the conversation and is writing its messages; the second
    # (the same conversation, further on) arrives now. It must wait for the first's lock.
    first = Gate(SYSTEM["content"])
    store = GatedStore(open_store("memory://"), [first])
    said.on[1] = first.release  # the proxy says the second request waits: the first goes on
    errors: list[BaseException] = []
    with stack(answers, store=store, session=SessionConfig(cache=None)) as (up, px, _):  # type: ignore[arg-type]
        a = send(px, history(1), errors)
        assert first.entered.wait(60)
        b = send(px, history(3), errors)
        a.join(60)
        b.join(60)
        assert not errors, errors
        cid = only_conversation(store, up, px)
        # the first request's messages went in first, then the second's new ones (not all of its history again)
        assert store.texts(cid) == [[m["content"] for m in history(1)], [m["content"] for m in history(3)[2:]]]


def until(cond: Any) -> None:
    """Wait for ``cond`` (made true by the proxy's loop thread); a hang guard, not a time limit."""
    ev = threading.Event()
    for _ in range(12_000):
        if cond():
            return
        ev.wait(0.005)
    raise AssertionError("the proxy never got there")


def default_workers() -> int:
    """The size of asyncio's default executor (``ThreadPoolExecutor()``), where the proxy runs its builds."""
    count = getattr(os, "process_cpu_count", os.cpu_count)
    return min(32, (count() or 1) + 4)


def test_a_request_queued_on_the_identity_and_one_on_the_conversation_do_not_run_together(said: Any) -> None:
    # the proxy's worker threads are all busy (other conversations' builds), so the first request
    # of a conversation holds its lock, its build not started yet; the second request of it queues
    # behind, under the same identity. The third arrives once the first has created the
    # conversation, while the second writes. Before the fix it locked the conversation's id, not
    # the identity, and ran beside the second.
    others = [Gate(f"Busy conversation {i}.", by_write=False) for i in range(default_workers())]
    second = Gate("Answer 1.")
    store = GatedStore(open_store("memory://"), [*others, second])
    waits = {1: threading.Event()}
    said.on.update(waits)
    said.on[2] = second.release  # the third request waits: the second goes on writing
    errors: list[BaseException] = []
    with stack(answers, store=store, session=SessionConfig(cache=None)) as (up, px, _):  # type: ignore[arg-type]
        busy = [send(px, [{"role": "system", "content": g.first_text}, TASK], errors) for g in others]
        for g in others:
            assert g.entered.wait(60)
        read = sum(px.server.conversations.reread)
        a = send(px, history(1), errors)
        until(lambda: sum(px.server.conversations.reread) > read)  # the first request is read, so it holds its lock
        b = send(px, history(2), errors)
        assert waits[1].wait(60)  # the second request waits for the first, which waits for a worker
        for g in others:
            g.release.set()
        assert second.entered.wait(60)
        c = send(px, history(3), errors)
        for t in (*busy, a, b, c):
            t.join(60)
        assert not errors, errors
        cid = only_conversation(store, up, px)
        assert store.texts(cid) == [[m["content"] for m in history(1)], ["Answer 1.", "Follow-up 1."], ["Answer 2.", "Follow-up 2."]]


def test_a_request_whose_identity_becomes_another_conversations_alias_while_it_waits_moves_to_that_lock(said: Any) -> None:
    # X starts a conversation with a per-call block in its only user message: its key is the head
    # with the block, and the head without it becomes an alias (identity.py). Two requests come
    # under that alias while X waits for a worker: the first holds the alias's lock, the second
    # waits behind it. X creates the conversation, alias included. The first then finds its
    # identity is the conversation's, whose lock it does not hold: it writes nothing, takes the
    # conversation's lock and goes again; the second, once it holds the alias's lock, moves to the conversation's.
    others = [Gate(f"Busy conversation {i}.", by_write=False) for i in range(default_workers())]
    store = GatedStore(open_store("memory://"), others)
    waits = threading.Event()
    said.on[1] = waits
    moved, taken = Said("moved to another lock"), Said("takes that lock")
    log = logging.getLogger("contextwindow.proxy")
    for w in (moved, taken):
        log.addHandler(w)
    errors: list[BaseException] = []
    block = {"role": "user", "content": [{"type": "text", "text": TASK["content"]}, {"type": "text", "text": "# Runtime: call 1"}]}
    try:
        with stack(answers, store=store, session=SessionConfig(cache=None)) as (up, px, _):  # type: ignore[arg-type]
            busy = [send(px, [{"role": "system", "content": g.first_text}, TASK], errors) for g in others]
            for g in others:
                assert g.entered.wait(60)
            read = px.server.conversations.reread
            for body in ([SYSTEM, block], history(2)):  # X, then the first under the alias: each holds its lock
                before = sum(read)
                t = send(px, body, errors)
                busy.append(t)
                until(lambda before=before: sum(read) > before)  # type: ignore[misc]
            last = send(px, history(3), errors)
            assert waits.wait(60)  # the second under the alias waits for the first
            others[0].release.set()  # one worker: X's build, then the first's, then the second's, in that order
            last.join(60)
            for g in others:
                g.release.set()
            for t in busy:
                t.join(60)
            assert not errors, errors
            px.wait_idle()
            assert (moved.n, taken.n) == (1, 1)
            (conv,) = [c for c in store.list_conversations() if store.list(c.id)[0].message.text == SYSTEM["content"]]
            assert px.server.conversations.lock_key(conv.metadata["proxy"]["aliases"][0]) == conv.metadata["proxy"]["key"]
            stored = store.list(conv.id)
            client = [sm.message.text for sm in stored if sm.message.meta.get(KIND_KEY) != REPLY]
            # X's messages, then the new ones of the one that moved (it wrote nothing under the wrong
            # lock, took the conversation's and went again) and of the last; a reply and a usage row
            # for each of the three: no call goes upstream unrecorded
            assert client == [SYSTEM["content"], TASK["content"] + "\n# Runtime: call 1", *(m["content"] for m in history(3)[2:])]
            assert sorted(sm.message.text for sm in stored if sm.message.meta.get(KIND_KEY) == REPLY) == [
                "Answer to 2 messages.", "Answer to 4 messages.", "Answer to 6 messages."]
            assert len(store.list_usage(conv.id)) == 3
            assert sum(r.body["messages"] == history(2) for r in up.requests) == 1  # the one that moved: once, as sent
            assert px.server.status()["locks"] == 0
    finally:
        for w in (moved, taken):
            log.removeHandler(w)
