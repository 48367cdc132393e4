"""The memory store's shared read of a conversation's state (``MemoryStore.get_state_shared``),
which the Session's sticky view uses on every build: the value ``get_state`` gives, decoded once
per write and handed to every reader until the next write; and a Session over it sends what a
Session over a store without it sends, call by call, on seeded sessions that compact and clear."""

from __future__ import annotations

import pytest

from contextwindow.events import Event
from contextwindow.messages import Message
from contextwindow.session import Session
from contextwindow.store.memory import MemoryStore
from contextwindow.usage import Usage
from test_growing_build import _seeded_session


class UnsharedStore(MemoryStore):
    """A memory store whose every state read decodes afresh (as the SQL stores do)."""

    get_state_shared = None  # type: ignore[assignment]


def test_shared_read_is_the_state_decoded_once_per_write() -> None:
    store = MemoryStore()
    cid = store.create_conversation()
    assert store.get_state_shared(cid, "k") is None
    store.set_state(cid, "k", {"replace": {"a": {"role": "user"}}, "drop": ["b"]})
    first = store.get_state_shared(cid, "k")
    assert first == store.get_state(cid, "k") == {"replace": {"a": {"role": "user"}}, "drop": ["b"]}
    assert store.get_state_shared(cid, "k") is first  # no second decode
    fresh = store.get_state(cid, "k")
    fresh["drop"].append("c")  # get_state's value is the caller's own
    assert store.get_state_shared(cid, "k") == {"replace": {"a": {"role": "user"}}, "drop": ["b"]}
    store.set_state(cid, "k", {"drop": []})
    again = store.get_state_shared(cid, "k")
    assert again == {"drop": []} and again is not first
    assert first == {"replace": {"a": {"role": "user"}}, "drop": ["b"]}  # an earlier reader's value stays as it was


def _drive(store: MemoryStore, seed: int) -> tuple[list[list[Message]], list[tuple[str, dict[str, object]]]]:
    session = _seeded_session(seed)
    s = Session(store, model="gpt-4o", window=9_000, max_output=1_000, title="shared-state")
    said: list[Event] = []
    s.events.subscribe(said.append)
    sent: list[list[Message]] = []
    cursor = 0
    for call in sorted(session.calls, key=lambda c: c.index):
        s.add(*session.messages[cursor : call.index])
        built = s.build()
        sent.append(list(built.messages))
        reply = session.messages[call.index : call.reply_end]
        s.record(reply[0], Usage(input_tokens=built.tokens, output_tokens=10, model="gpt-4o"))
        cursor = call.reply_end
    return sent, [(e.name, {k: v for k, v in e.data.items() if k != "duration_s"}) for e in said]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_session_over_the_shared_read_sends_what_it_sends_without(seed: int) -> None:
    shared, events = _drive(MemoryStore(deterministic=True), seed)
    unshared, events_unshared = _drive(UnsharedStore(deterministic=True), seed)
    assert shared == unshared
    assert events == events_unshared
    assert any(name == "compaction.applied" for name, _ in events), "the sticky state was never written"
