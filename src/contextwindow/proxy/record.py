"""After the forward: when the store's writes become durable (group commits), and the record of
an answer (its usage and the model's reply) under its conversation's lock.

Group commits (SQLite store): every write joins the store's open group, which the event loop
commits ``GROUP_COMMIT_S`` after its first write, or at once when someone needs it (an answer is
relayed only once its request's messages are committed). A record is made as soon as an answer is
whole: it takes the conversation's lock on its first step (before the client can send its next
request), waits for the client's last byte, then for its turn in the lane (proxy/lane.py), and
stores the answer's usage and reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..errors import ContextWindowError
from ..store.base import ConversationStore, GroupCommits, group_commits_of
from .conversations import Answer, Conversations, Prepared, Request
from .lane import Job, Lane
from .locks import Locks
from .protocols import Protocol

log = logging.getLogger("contextwindow.proxy")

#: group commits' window (SQLite store): a write is committed at most about this long after it (at
#: once when a request alone in the proxy stores its messages); an answer waits for its request's
#: writes to be (docs/proxy.md)
GROUP_COMMIT_S = 0.01


class Commits:
    """The store's group commits while the proxy runs (nothing to do for a store without them)."""

    def __init__(self) -> None:
        self._stop: Callable[[], None] | None = None  # ends group commits (SQLite), see start()
        self._commits: GroupCommits | None = None  # the store's group commits while they are on
        self._flush_at: asyncio.TimerHandle | None = None  # the open group's commit, scheduled

    def start(self, store: ConversationStore) -> None:
        commits = group_commits_of(store)
        if commits is not None and self._stop is None:  # SQLite: one commit carries many requests' writes
            self._stop = commits.group_commits()
            self._commits = commits

    async def stop(self) -> None:
        """Commit what is pending and end group commits."""
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None
        if self._stop is not None:
            await asyncio.to_thread(self._stop)
            self._stop = self._commits = None

    def written(self) -> int | None:
        """The store's open group of writes (those just made joined it), or None: nothing to wait
        for. Its commit is scheduled on the loop, ``GROUP_COMMIT_S`` after the group's first write
        seen here (no thread: a thread woken per group costs more than the commit)."""
        if self._commits is None:
            return None
        group = self._commits.pending()
        if group is not None and self._flush_at is None:
            self._flush_at = asyncio.get_running_loop().call_later(GROUP_COMMIT_S, self._flush_due)
        return group

    def _flush_due(self) -> None:
        self._flush_at = None
        self.flush_now()

    def durable(self, group: int | None) -> None:
        """Commit ``group`` unless it is already (the window is ~10 ms, and a request alone in the
        proxy commits at once: an upstream slower than that finds it done): the client never has
        an answer to a request whose messages are not durable."""
        if group is not None and self._commits is not None:
            self._commits.commit_through(group)

    def flush_now(self) -> None:
        """Commit the open group now (its window is over, or someone waits for it)."""
        if self._commits is not None:
            try:
                self._commits.flush()
            except ContextWindowError as exc:  # counted in the store's losses: Conversations reloads
                log.error("%s", exc)


class Stored(asyncio.Event):
    """Set once a request's new messages are stored; ``group`` is the store's group commit
    holding them (None: committed already, or no group commits); ``job``: the lane's job that
    stores them, while it may still be queued (proxy/lane.py)."""

    def __init__(self, group: int | None = None, *, done: bool = False) -> None:
        super().__init__()
        self.group = group
        self.job: Job | None = None
        if done:
            self.set()


#: how long a record waits for the lean front's word on whether its client had the answer
#: (:class:`Deliveries`) before it records the answer all the same (said in the log). The front
#: posts the word once the answer's last byte is written, before the end of its framing: it is
#: lost only when the hand-over fails, and the conversation's next request ends the wait sooner.
DELIVERY_WAIT_S = 5.0
EARLY_KEPT = 4096  # the front's words on requests not relayed here (yet), or given up on: the most kept


class Deliveries:
    """The lean front's word on the answers it relayed for the worker (proxy/worker.py: the
    ``/_ctxw/delivered`` hand-over): how many of the answer's bytes did its client take? The
    worker's relay to the front ends before the front knows (its client may be gone already, its
    end not seen yet), so an answer the front relays is recorded only once the front says its
    client had the bytes that hold it whole (to its last event: an SDK hangs up there). A word may
    come before the answer's relay asks for it (the front gave up on the request first), or after
    the record gave up waiting: kept, bounded (``EARLY_KEPT``)."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[int]] = {}
        self._early: dict[str, int] = {}

    def expect(self, rid: str) -> asyncio.Future[int]:
        """The front's word on request ``rid``: the answer's bytes its client was written (-1: none).
        Cancel the future to stop waiting for it (the record gave up: :meth:`Recorder._delivered`)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        if rid in self._early:
            future.set_result(self._early.pop(rid))
            return future
        self._waiting[rid] = future

        def given_up(f: asyncio.Future[int]) -> None:
            if f.cancelled() and self._waiting.get(rid) is f:
                del self._waiting[rid]

        future.add_done_callback(given_up)
        return future

    def settle(self, rid: str, delivered: int) -> None:
        future = self._waiting.pop(rid, None)
        if future is None or future.done():
            self._early[rid] = delivered
            while len(self._early) > EARLY_KEPT:  # words on requests never relayed here (the front gave up first)
                self._early.pop(next(iter(self._early)))
        else:
            future.set_result(delivered)

    def __len__(self) -> int:
        """Answers relayed whose word the worker still waits for (``awaiting_delivery`` in the status)."""
        return len(self._waiting)


class Recorder:
    """The records of answers relayed: their tasks, and what each stores."""

    def __init__(self, conversations: Conversations, locks: Locks, lane: Lane, commits: Commits) -> None:
        self.conversations = conversations
        self._locks = locks
        self._lane = lane
        self._commits = commits
        self._tasks: set[asyncio.Future[None]] = set()
        self.deliveries = Deliveries()
        self.undelivered = 0  # answers relayed whole to the lean front whose client had gone: not recorded
        self.unconfirmed = 0  # answers recorded with no word from the front (its next request came first, or none in time)

    async def drain(self) -> None:
        """Wait for the records of answers already relayed (their usage and replies stored)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def account(self, req: Request, status: int, tap: Any, prepared: Prepared | None, ctx: Any, started: float,
                relayed: asyncio.Event, delivered: asyncio.Future[int] | None = None) -> asyncio.Future[None] | None:
        """The task that records a whole answer (its usage and reply), under the conversation's lock.
        The task holds its own reference to the lock (released when it ends): the handler of the
        request may end first (an SDK hangs up at the stream's last event, which cancels it), and
        the conversation's next request must still find the lock the record holds, not a new one.
        ``delivered``: the lean front's word on the bytes its client had (:class:`Deliveries`), which
        must reach the answer's bytes read so far (``tap.bytes``: those that hold it whole)."""
        if status != 200 or prepared is None or ctx is None:
            return None
        # the handler's lock (its reference is still held here: the same lock as ctx[0]), which is
        # the conversation's (Conversations.prepare and quick checked it under the lock)
        keys = [ctx[2]]
        locks = [self._locks.take(k) for k in keys]
        needed = (delivered, tap.bytes) if delivered is not None else None
        done = asyncio.ensure_future(self._record(locks, keys, req, tap, prepared, time.monotonic() - started, relayed, needed))
        self._tasks.add(done)
        done.add_done_callback(self._recorded)
        return done

    def _recorded(self, done: asyncio.Future[None]) -> None:
        self._tasks.discard(done)
        if not done.cancelled() and done.exception() is not None:
            log.error("the record of an answer failed", exc_info=done.exception())

    async def _record(self, locks: list[asyncio.Lock], keys: list[str], req: Request, tap: Any, prepared: Prepared, latency: float,
                      relayed: asyncio.Event, needed: tuple[asyncio.Future[int], int] | None) -> None:
        try:
            async with contextlib.AsyncExitStack() as held:
                for lock in locks:  # in this order everywhere; a request holds one lock only: no cycle
                    await held.enter_async_context(lock)
                if needed is not None and not await self._delivered(*needed, keys[0], prepared):
                    return
                await self._record_locked(req, tap, prepared, latency, relayed, keys)
        finally:
            for key in keys:
                self._locks.drop(key)

    async def _delivered(self, delivered: asyncio.Future[int], whole: int, key: str, prepared: Prepared) -> bool:
        """Wait (holding the conversation's lock) for the front's word: did its client have the
        answer's first ``whole`` bytes? The wait ends, and the answer is recorded, when the
        conversation's next request comes first (it waits for this lock: a lost word does not hold
        it up) or after ``DELIVERY_WAIT_S``."""
        if not delivered.done():
            nxt: asyncio.Future[Any] = asyncio.ensure_future(self._locks.wanted(key))
            try:
                await asyncio.wait([delivered, nxt], timeout=DELIVERY_WAIT_S, return_when=asyncio.FIRST_COMPLETED)
                came = nxt.done()
            finally:
                nxt.cancel()
            if not delivered.done():
                delivered.cancel()  # not waited for any more (Deliveries forgets it; a late word is kept as an early one)
                self.unconfirmed += 1
                if not came:
                    log.warning("conversation %s: no word from the lean front in %g s on whether its client had an answer; recorded",
                                prepared.conversation_id, DELIVERY_WAIT_S)
                else:
                    log.info("conversation %s: its next request came before the lean front's word on the answer before it; recorded",
                             prepared.conversation_id)
                return True
        if delivered.result() >= whole:
            return True
        self.undelivered += 1
        log.info("conversation %s: the lean front's client went away before it had the answer: not recorded", prepared.conversation_id)
        return False

    async def _record_locked(self, req: Request, tap: Any, prepared: Prepared, latency: float, relayed: asyncio.Event,
                             keys: list[str]) -> None:
        """The answer's usage and reply into the store (the locks are held from the task's first
        step; the work waits for the client's last byte, then for its turn in the lane)."""
        await relayed.wait()

        def record() -> Any:
            tap.close()  # the usage and the reply (proxy/reply.py) are read from the answer only now
            usage = proto_usage(req.protocol, tap, req.model)
            if usage is not None:
                usage = replace(usage, latency_s=latency)
            # a late store's reply stands already in the history a later request brought: not stored again
            answer = None if prepared.late else Answer(req.protocol.name, tap.data() if tap.streaming else tap.body(), tap.streaming)
            if prepared.fast:
                self.conversations.record(prepared.conversation_id, usage, fast=True, answer=answer)
                self._commits.written()  # its commit scheduled
                return None
            return asyncio.ensure_future(asyncio.to_thread(self.conversations.record, prepared.conversation_id, usage, answer=answer,
                                                           id_map=prepared.id_map))

        built = await self._lane.submit(record, *keys).future
        if built is not None:  # after a build: Session.record (calibration) in a worker thread
            await built
            self._commits.written()


def proto_usage(proto: Protocol, tap: Any, model: str | None) -> Any:
    if tap.streaming:
        return proto.usage_from_events(tap.events, model)
    return proto.usage_from_body(tap.body(), model)
