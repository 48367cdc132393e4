"""What :meth:`Session.sync` keeps between a client's requests (the proxy's conversations).

A client that re-sends its whole history on every call is lined up with the stored rows by
:mod:`contextwindow.sync` (pure). What a Session keeps from one request to the next lives here:
what sync knows of every stored row, where the rows that may still be provisional start (the
resume point), the match :meth:`SyncState.known_prefix` made (the proxy's sync of the same
history comes next and reuses it), the last synced history's alignment (a history that starts
the same is walked for its end only), the decisions on superseded and trimmed rows (kept in the
store by :mod:`contextwindow.sync_state`) and the client's fingerprints on rows where they are not
the row's own. :meth:`SyncState.visible` applies the decisions to the active rows a view is made of.
The Session does the appending and the ledger; nothing here writes a message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import sync as resync
from .errors import ConfigError
from .messages import Message
from .messages import dumps as dumps_message
from .store.base import ConversationStore, StoredMessage, content_hash
from .sync_state import SyncDecisions

FINGERPRINT_KEY = "fp"  # meta key: the content hash a message had when sync first added it (before clipping)
KEPT = 256  # rows whose client fingerprint is kept: the newest, where breakpoints go (a cut row's message is kept as long as its cut)


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What :meth:`Session.sync` did with a history the caller holds in full."""

    known: int  # leading messages of the history the store already held
    added: list[StoredMessage]
    diverged_at: int | None = None  # where the history stops extending the store (nothing appended then)
    superseded: int = 0  # provisional rows (an earlier request's tail, a reply) this history left out
    trimmed: int = 0  # provisional rows it kept only the leading parts of (still in the view, cut)


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What a history asks of the store, once lined up (:meth:`SyncState.plan`): the Session
    appends ``new`` and enters ``said`` (the rules of tails now confirmed) in its ledger."""

    match: resync.Match
    history: Sequence[Message]
    fingerprints: list[str]
    new: list[Message]  # the history's messages the store does not hold, marked with their fingerprints
    said: list[str]  # what the user said in the provisional tails this history confirmed
    decided: bool  # rows were superseded or trimmed: the view changes


class SyncState:
    """The sync bookkeeping of one Session's conversation (see the module docstring)."""

    def __init__(self, store: ConversationStore, conversation_id: str) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.rows: list[resync.Row] | None = None  # what sync knows of the stored messages (sync.py)
        self.start = 0  # rows from here on may still be provisional
        self.matched: tuple[Any, ...] | None = None  # known_prefix's match, for a sync of the same history next
        self.aligned: tuple[Any, list[str], list[int]] | None = None  # the last synced history: rows, fingerprints, the row of each
        self.transient: dict[str, Any] | None = None  # row id -> [keep, fp, extra]: the view's cut of provisional rows
        self.decisions: SyncDecisions | None = None  # where they are kept in the store (sync_state.py)
        self.client_fps: dict[str, str] = {}  # row id -> the client's fingerprint, where it is not the row's own
        self.as_sent: dict[str, tuple[Any, Message]] = {}  # row id -> (its cut and fingerprint, the message the view uses)

    def cuts(self) -> dict[str, Any]:
        """Provisional rows the client's later history left out or trimmed (row id -> [keep, fp])."""
        if self.transient is None:
            self.decisions = SyncDecisions(self.store, self.conversation_id)
            self.transient = self.decisions.all
        return self.transient

    def load_rows(self) -> list[resync.Row]:
        """What sync knows of every stored row (read from the store once per Session)."""
        if self.rows is None:
            cuts = self.cuts()
            stored = self.store.list(self.conversation_id)
            self.rows = [resync.Row.of(sm, FINGERPRINT_KEY, cuts) for sm in stored]
            self.start = resync.provisional_start(self.rows)
            self.client_fps.update((r.id, r.fp) for r, sm in zip(self.rows, stored, strict=True)
                                   if r.fp and r.keep != 0 and r.fp != sm.message.meta.get(FINGERPRINT_KEY))
        return self.rows

    def added(self, stored: Sequence[StoredMessage]) -> None:
        """Rows the Session appended (by sync or not): known to the next match."""
        if self.rows is not None:
            self.rows.extend(resync.Row.of(sm, FINGERPRINT_KEY) for sm in stored)

    def visible(self, active: list[StoredMessage], count: Callable[[Message], int], counts: dict[str, int]) -> list[StoredMessage]:
        """The active messages as the view uses them: provisional rows a later history superseded
        are left out, trimmed ones cut to what the client kept (:mod:`contextwindow.sync`); the
        count of a cut row goes into ``counts``."""
        cuts = self.cuts()
        if not cuts and not self.client_fps:
            return active
        out = resync.visible(active, cuts) if cuts else list(active)
        for n, sm in enumerate(out):
            fp = self.client_fps.get(sm.id)
            if sm.id not in cuts and fp is None:
                continue
            # the client's fingerprint on it, so this request's cache breakpoints find it (proxy/breakpoints.py);
            # made once per row and cut: the same object on every view (caches keyed by object stay warm)
            key = (str(cuts.get(sm.id)), fp)
            hit = self.as_sent.get(sm.id)
            if hit is None or hit[0] != key:
                m = sm.message if fp is None else replace(sm.message, meta={**sm.message.meta, FINGERPRINT_KEY: fp})
                hit = self.as_sent[sm.id] = (key, m)
                if sm.id in cuts:
                    counts[sm.id] = count(m)
            out[n] = replace(sm, message=hit[1])
        if len(self.as_sent) > len(out) + KEPT:  # rows a compaction took out of the view: their memo goes
            live = {sm.id for sm in out}
            for gone in [k for k in self.as_sent if k not in live]:
                del self.as_sent[gone]
        return out

    def match(self, rows: list[resync.Row], fps: Sequence[str], history: Sequence[Message]) -> resync.Match:
        """:func:`contextwindow.sync.match`, resumed after the leading messages the last sync lined
        up with rows that no sync changes any more (before the provisional ones) when this history
        starts with the same fingerprints: a client re-sending its whole history is walked for its
        end only."""
        al = self.aligned
        resume: Sequence[int] = ()
        if al is not None and al[0] is rows:
            old, rows_for = al[1], al[2]
            k = len(rows_for)
            while k and rows_for[k - 1] >= self.start:
                k -= 1
            if k and isinstance(fps, list) and len(fps) >= k and fps[:k] == old[:k]:
                resume = rows_for[:k]
        return resync.match(rows, self.start, fps, history, resume=resume)

    def known_prefix(self, fingerprints: Sequence[str], history: Sequence[Message]) -> tuple[int, bool]:
        """See :meth:`Session.known_prefix`."""
        rows = self.load_rows()
        got = self.match(rows, fingerprints, history)
        self.matched = (fingerprints, history, rows, len(rows), self.start, got)  # the proxy's sync of it comes next
        return got.known, got.diverged_at is None

    def plan(self, history: Sequence[Message], fingerprints: Sequence[str] | None, user_words: Callable[[Message], str | None]) -> SyncPlan:
        """Line ``history`` up with the stored rows and keep what it decided (superseded and trimmed
        rows, in the store too); the Session then appends :attr:`SyncPlan.new` and calls :meth:`finish`."""
        fps = list(fingerprints) if fingerprints is not None else [content_hash(dumps_message(m)) for m in history]
        if len(fps) != len(history):
            raise ConfigError(f"sync got {len(history)} messages but {len(fps)} fingerprints")
        rows = self.load_rows()
        memo, self.matched = self.matched, None
        if (memo is not None and memo[0] is fingerprints and memo[1] is history and memo[2] is rows and memo[3] == len(rows)
                and memo[4] == self.start):  # nothing moved since known_prefix matched this very history
            got = memo[5]
        else:
            got = self.match(rows, fps, history)
        if got.diverged_at is not None:
            return SyncPlan(got, history, fps, [], [], False)
        decided: dict[str, Any] = {}
        for i, (keep, fp, extra) in got.decided.items():
            rows[i].keep, rows[i].fp, rows[i].message = keep, fp or rows[i].fp, None
            decided[rows[i].id] = [keep, fp, extra]
        for i, fp in got.confirmed.items():
            rows[i].fp, rows[i].message = fp, None
            self.client_fps[rows[i].id] = fp
        self.client_fps.update((rows[i].id, fp) for i, (keep, fp, _) in got.decided.items() if keep and fp)
        if decided:
            self.cuts()
            assert self.decisions is not None
            self.decisions.add(decided)  # what this history decided, not all decided before (sync_state.py)
        self._bound(self.cuts())
        said = [s for j in got.tails if (s := user_words(history[j]))]
        known = got.known
        new = [replace(m, meta={**m.meta, FINGERPRINT_KEY: fp}) for m, fp in zip(history[known:], fps[known:], strict=True)]
        if new and _user_side(history):
            tail = new[-1]
            meta = {**tail.meta, resync.KIND_KEY: resync.TAIL}
            if len(tail.parts) > 1:
                meta[resync.PARTS_KEY] = list(resync.part_fingerprints(tail))
            new[-1] = replace(tail, meta=meta)
        return SyncPlan(got, history, fps, new, said, bool(decided))

    def _bound(self, cuts: dict[str, Any]) -> None:
        """Keep the client's fingerprints of the newest :data:`KEPT` rows (where breakpoints go); a
        row that loses its fingerprint loses its memo too, unless it is cut (the view uses its cut
        message on every call, so it stays: evicting it would rebuild and recount it on every sync
        once more than KEPT rows are cut)."""
        while len(self.client_fps) > KEPT:
            old = next(iter(self.client_fps))
            del self.client_fps[old]
            if old not in cuts:
                self.as_sent.pop(old, None)

    def finish(self, plan: SyncPlan, added: list[StoredMessage]) -> SyncResult:
        """Where the next request's match resumes, once the Session appended ``plan.new`` as ``added``."""
        got, rows = plan.match, self.load_rows()
        if got.diverged_at is not None:
            return SyncResult(got.known, [], got.diverged_at)
        if _user_side(plan.history):  # the row standing for the history's last message, and what comes after it
            self.start = len(rows) - 1 if plan.new else got.rows_for[-1]
        else:
            self.start = len(rows)
        self.aligned = (rows, plan.fingerprints, got.rows_for + list(range(len(rows) - len(added), len(rows))))
        gone, cut = resync.left_out(got.decided.values())
        return SyncResult(got.known, added, None, superseded=gone, trimmed=cut)


def _user_side(history: Sequence[Message]) -> bool:
    """The history ends on the user side (its last message is a provisional tail)."""
    return bool(history) and history[-1].role not in ("assistant", "system")
