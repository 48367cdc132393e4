"""Where a conversation keeps its sync decisions (:mod:`contextwindow.sync`): in its state, in
chunks, so that a request writes what it decided and not everything decided before it.

Every provisional row a later history superseded or trimmed keeps its decision for as long as the
conversation lives: the view leaves it out (or cuts it) on every build, and a reopened
conversation matches the client's history against it. A client that never sends the model's reply
back, or ends each request with a block it drops again, makes one or two decisions per request. Kept
as one state value rewritten whole, the bytes written per request grew with the conversation (the
sum over a conversation: quadratic). Here the decisions are split:

- ``transient`` (:data:`contextwindow.sync.STATE_KEY`): the *open* chunk, the newest decisions
  (fewer than :data:`CHUNK`), rewritten when a request decides something — the only value that is;
- ``transient.0``, ``transient.1``, …: *sealed* chunks of :data:`CHUNK` decisions each, written once;
- ``transient.sealed``: how many sealed chunks there are.

A request writes at most one open chunk, or (every :data:`CHUNK` decisions) one sealed chunk, its
count and an empty open chunk: bounded bytes, whatever the conversation's length. Reading (once per
Session: a reopened conversation, ``ctxw sessions show``) joins them in order, the open chunk last,
so a later decision on the same row wins. A store written before chunks has its decisions in
``transient`` alone, which reads as the open chunk. The writes go in this order: sealed chunk, count,
open chunk; a crash between two of them leaves a decision in two places (the same value) or a
sealed chunk not counted yet (its decisions still in the open chunk): nothing is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .store.base import ConversationInfo, ConversationStore
from .sync import STATE_KEY, left_out

log = logging.getLogger(__name__)

CHUNK = 32  # decisions per sealed chunk (a decision is ~40 bytes superseded, ~150 trimmed with the client's fingerprint)
SEALED_KEY = f"{STATE_KEY}.sealed"


def chunk_key(n: int) -> str:
    return f"{STATE_KEY}.{n}"


class SyncDecisions:
    """A conversation's decisions (row id -> ``[keep, the client's fingerprint, its message extra]``),
    read from the store on first use; :meth:`add` writes only what changed."""

    def __init__(self, store: ConversationStore, conversation_id: str) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.all: dict[str, Any] = {}  # every decision, the newest winning (what the view uses)
        self._open: dict[str, Any] = {}
        self._sealed = 0
        self._load()

    def _load(self) -> None:
        sealed = self.store.get_state(self.conversation_id, SEALED_KEY)
        self._sealed = sealed if isinstance(sealed, int) and sealed > 0 else 0
        missing = []
        for n in range(self._sealed):
            chunk = self.store.get_state(self.conversation_id, chunk_key(n))
            if isinstance(chunk, dict):
                self.all.update(chunk)
            else:
                missing.append(n)
        if missing:  # not made by this module; said, and the view shows those rows again
            log.warning("conversation %s: sync decision chunk(s) %s missing from the store: the rows they cut are shown whole",
                        self.conversation_id, missing)
        got = self.store.get_state(self.conversation_id, STATE_KEY)
        self._open = dict(got) if isinstance(got, dict) else {}
        self.all.update(self._open)

    def add(self, decided: Mapping[str, Any]) -> None:
        """Keep ``decided`` (row id -> decision) and write it: the open chunk, or a sealed one when full."""
        if not decided:
            return
        self.all.update(decided)
        self._open.update(decided)
        if len(self._open) < CHUNK:
            self.store.set_state(self.conversation_id, STATE_KEY, self._open)
            return
        self.store.set_state(self.conversation_id, chunk_key(self._sealed), self._open)
        self._sealed += 1
        self.store.set_state(self.conversation_id, SEALED_KEY, self._sealed)
        self._open = {}
        self.store.set_state(self.conversation_id, STATE_KEY, self._open)


def load_decisions(store: ConversationStore, conversation_id: str) -> dict[str, Any]:
    """Every sync decision of a conversation (row id -> decision), as :class:`SyncDecisions` reads them."""
    return SyncDecisions(store, conversation_id).all


@dataclass(frozen=True, slots=True)
class RowCounts:
    """A conversation's rows: ``stored`` in all, ``superseded`` by a client's later history (kept in
    the store, left out of its view and its turns), and ``shown`` (the others: what ``ctxw sessions``
    and the TUI count as its messages)."""

    stored: int
    superseded: int

    @property
    def shown(self) -> int:
        return self.stored - self.superseded


def row_counts(store: ConversationStore, info: ConversationInfo) -> RowCounts:
    """:class:`RowCounts` of the conversation ``info`` describes (its sync decisions read once)."""
    gone, _ = left_out(load_decisions(store, info.id).values())
    return RowCounts(info.message_count, gone)
