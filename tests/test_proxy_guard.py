"""The proxy's map guard is never held across store I/O (docs/proxy.md, "Module layout").

``Conversations._guard`` protects its in-memory maps; the event loop takes it for every request
(the lock key, the no-build decision). A conversation being created in the store (a slow
PostgreSQL round trip, a busy SQLite file) must not stall the requests of other conversations,
and two requests of one identity that race to create it must still make one conversation.
Forced with a real store whose chosen ``create_conversation`` waits until the test lets it go."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from contextwindow.proxy import Conversations, Request
from contextwindow.proxy.history import parse_request
from contextwindow.proxy.protocols import BY_PATH
from contextwindow.store import open_store

CHAT = BY_PATH["/v1/chat/completions"]


class HeldCreate:
    """A real store whose ``create_conversation`` of a conversation titled with ``marker`` waits
    for ``release`` (``entered`` set once one waits; ``created`` counts those made)."""

    def __init__(self, inner: Any, marker: str) -> None:
        self.inner = inner
        self.marker = marker
        self.entered = threading.Event()
        self.release = threading.Event()
        self.created = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def create_conversation(self, title: str | None = None, metadata: dict[str, Any] | None = None, parent_id: str | None = None) -> str:
        if self.marker in (title or ""):
            self.entered.set()
            assert self.release.wait(60), "the held creation was never released"
            self.created += 1
        return self.inner.create_conversation(title=title, metadata=metadata, parent_id=parent_id)


def request(task: str) -> Request:
    raw = (b'{"model":"gpt-4o-mini","max_tokens":32,"messages":[{"role":"system","content":"Be brief."},'
           b'{"role":"user","content":"' + task.encode() + b'"}]}')
    body, exact = parse_request(raw)
    return Request(CHAT, body, raw, {}, exact)


def in_thread(fn: Any, *args: Any, **kw: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def go() -> None:
        try:
            out.append(fn(*args, **kw))
        except BaseException as exc:  # the test re-raises it
            out.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, out


def test_other_conversations_are_looked_up_while_one_is_created_in_the_store() -> None:
    store = HeldCreate(open_store("memory://"), "Held task")
    conv = Conversations(store)
    conv.warm()
    other = conv.prepare(conv.parse(request("Other task")))  # a live conversation
    held = conv.parse(request("Held task"))
    creating, _ = in_thread(conv.prepare, held, lock=conv.lock_key(held.identity.key))
    assert store.entered.wait(60)
    try:
        # with the creation held in the store: the lock keys, the parse and the no-build decision
        # of another conversation's request (what the event loop runs for every request)
        looked, got = in_thread(lambda: (conv.lock_key(other.identity.key), conv.quick(conv.parse(request("Other task")))))
        looked.join(60)
        assert not looked.is_alive(), "a look-up waited for another conversation's creation in the store"
        assert not isinstance(got[0], BaseException), got
        assert got[0][0] == other.identity.key
        assert creating.is_alive()  # and the creation was still held all along
    finally:
        store.release.set()
        creating.join(60)
    assert len(store.list_conversations()) == 2


def test_two_requests_of_one_identity_racing_to_create_it_make_one_conversation() -> None:
    # callers that hold no lock (the server's requests hold their conversation's): the second
    # waits for the first's creation and takes its conversation, as when creation held the guard
    store = HeldCreate(open_store("memory://"), "Held task")
    conv = Conversations(store)
    first, a = in_thread(conv.prepare, conv.parse(request("Held task")))
    assert store.entered.wait(60)
    second, b = in_thread(conv.prepare, conv.parse(request("Held task")))
    # let the first go only once the second waits to create it too (its stack in Conversations._create),
    # so the look-up again under the creation lock is what makes it take the first's conversation
    for _ in range(6000):
        frame = sys._current_frames().get(second.ident or -1)
        names = set()
        while frame is not None:
            names.add(frame.f_code.co_name)
            frame = frame.f_back
        if "_create" in names or not second.is_alive():
            break
        time.sleep(0.01)
    assert "_create" in names, "the second request never came to create its conversation"
    store.release.set()
    first.join(60)
    second.join(60)
    assert not isinstance(a[0], BaseException) and not isinstance(b[0], BaseException), (a, b)
    assert a[0].conversation_id == b[0].conversation_id
    assert store.created == 1 and len(store.list_conversations()) == 1
