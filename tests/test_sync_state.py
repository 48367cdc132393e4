"""The sync decisions' storage (contextwindow/sync_state.py): a client that never sends the model's
reply back and ends every request with a block it drops again makes two decisions per request;
what a request writes to the conversation's state stays bounded (bytes), and a reopened
conversation reads every decision back. A real SQLite store; no HTTP (the proxy's use is in
test_proxy_transient.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from contextwindow.messages import Message, TextPart
from contextwindow.store import open_store
from contextwindow.sync import STATE_KEY
from contextwindow.sync_state import CHUNK, SEALED_KEY, load_decisions
from test_sync import U, reply, rt, session, view

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_sync_state import StateBytes  # a store that counts the state bytes written


def test_a_client_that_never_echoes_replies_writes_bounded_state_per_request(tmp_path: Path) -> None:
    store = StateBytes(open_store(f"sqlite:///{tmp_path / 'c.db'}"))
    s = session(store)
    history: list[Message] = [U]
    per_request: list[int] = []
    n = 4 * CHUNK
    for i in range(n):
        before = store.written
        got = s.sync([*history, rt(i)])
        assert got.diverged_at is None and got.superseded == (2 if i else 0)  # the last block and the stored reply
        per_request.append(store.written - before)
        s.add(reply(Message("assistant", (TextPart(f"answer {i}"),))))  # the proxy stores the reply from the answer
        # the client keeps its own rendering of the answer (not the stored one) and asks again
        history += [Message("assistant", (TextPart(f"Answer {i}."),)), Message("user", (TextPart(f"and {i}?"),))]
    decided = load_decisions(store, s.id)
    assert len(decided) == 2 * (n - 1) and all(v[0] == 0 for v in decided.values())
    # bounded: no request wrote more than one full chunk's worth, late requests no more than early ones
    biggest = max(len(json.dumps({k: v})) for k, v in decided.items())
    assert max(per_request) <= CHUNK * biggest + 64
    assert max(per_request[-CHUNK:]) <= max(per_request[CHUNK : 2 * CHUNK])
    # over the whole conversation: linear in the requests (one value per state key rewritten whole: quadratic, ~n * n * biggest)
    assert sum(per_request) <= n * (CHUNK // 2 + 2) * biggest
    assert store.get_state(s.id, SEALED_KEY) == len(decided) // CHUNK
    # a reopened conversation (a restarted proxy, `ctxw sessions show`) reads them all back
    again = session(store.inner, s.id)
    assert view(again) == view(s)
    assert [m for _, parts in view(again) for m in parts if "Iteration" in getattr(m, "text", "")] == [rt(n - 1).parts[0]]


def test_decisions_kept_before_chunks_are_read(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'c.db'}")
    s = session(store)
    s.sync([U, rt(1)])
    tail = store.list(s.id)[-1]
    store.set_state(s.id, STATE_KEY, {tail.id: [0, None, None]})  # one value, as stores written before kept them
    assert [parts for _, parts in view(session(store, s.id))] == [U.parts]
    assert load_decisions(store, s.id) == {tail.id: [0, None, None]}
