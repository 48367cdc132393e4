"""A low-priority lane on the proxy's event loop: bookkeeping waits while requests are on their
way upstream or answers on their way back.

The proxy runs on one thread. When fifty clients send at once, the last request of the burst is
forwarded only after everything the loop runs before it; if that includes other requests'
bookkeeping (storing their new messages, a group commit, an answer's record), the burst's tail
pays for it. So that work is queued here as jobs and run only when no request is *urgent* — being
read, decided and forwarded, or having its answer relayed — or, never starved, once it has waited
``bound`` seconds. Jobs run in the order queued, a slice of at most ``slice_s`` seconds at a time;
before each slice the lane lets the loop go round a few times, so that requests that arrived
meanwhile are read (and counted urgent) first.

Whoever needs a job's effect now does not wait for the lane: :meth:`Lane.hurry` runs the queued
jobs of a key at once (the next request of a conversation, waiting for the lock its record holds),
and :meth:`Job.now` runs one job at once (an answer whose request's messages must be stored before
it is relayed; a handler cancelled while its commit is queued). A job runs once, whichever comes
first. The lane is plain loop callbacks (no task, no event per request); nothing here touches the
store: the jobs are the caller's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any

#: a job waits at most this long for the urgent work to end (then it runs anyway)
BOUND_S = 0.015
#: the lane runs jobs back to back for at most this long before it looks for new requests again
SLICE_S = 0.001
#: loop passes the lane lets go by before a slice: on Python 3.11 aiohttp reaches the handler of a
#: request two passes after its bytes were read (its connection's task, then the handler's)
PASSES = 3


class Job:
    """One piece of bookkeeping: ``fn()`` run once, its result or error in ``future``."""

    __slots__ = ("_lane", "fn", "future", "keys", "queued_at")

    def __init__(self, lane: Lane, fn: Callable[[], Any], keys: tuple[str, ...], loop: asyncio.AbstractEventLoop) -> None:
        self.fn = fn
        self.keys = keys
        self.future: asyncio.Future[Any] = loop.create_future()
        self.queued_at = time.monotonic()
        self._lane: Lane | None = lane

    def now(self) -> None:
        """Run the job here and now unless it ran already (its error goes to ``future``)."""
        lane = self._lane
        if lane is None:
            return
        self._lane = None
        lane._forget(self)
        fn, self.fn = self.fn, _ran  # the job's closure often refers back to the job: no cycle left for the collector
        try:
            result = fn()
        except Exception as exc:  # the waiter re-raises it
            if not self.future.done():
                self.future.set_exception(exc)
            return
        if not self.future.done():
            self.future.set_result(result)


def _ran() -> None:
    raise AssertionError("a lane job runs once")


class Urgent:
    """One request's urgent stretch (a context manager); :meth:`end` ends it early, once."""

    __slots__ = ("_lane", "_on")

    def __init__(self, lane: Lane) -> None:
        self._lane = lane
        self._on = True
        lane.urgent += 1

    def end(self) -> None:
        if self._on:
            self._on = False
            self._lane._calmer()

    def __enter__(self) -> Urgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()


class Lane:
    """The queue of low-priority jobs and the count of urgent requests (module docstring)."""

    def __init__(self, *, defer: bool = True, bound: float = BOUND_S, slice_s: float = SLICE_S) -> None:
        self.defer = defer  # False: every job runs as it is submitted (the order of a proxy without the lane)
        self.bound = bound
        self.slice_s = slice_s
        self.urgent = 0  # requests being read/decided/forwarded, or answers being relayed
        self.stats = {"jobs": 0, "hurried": 0, "overdue": 0, "slices": 0}
        self._jobs: deque[Job] = deque()
        self._hurry: dict[str, int] = {}  # keys someone waits on: their jobs run as soon as they are queued
        self._passes = 0  # loop passes still to let go by before the next slice (0: none scheduled)
        self._timer: asyncio.TimerHandle | None = None  # the oldest job's bound
        self._empty: asyncio.Event | None = None  # set while no job is queued

    def __len__(self) -> int:
        """Jobs queued."""
        return len(self._jobs)

    # --- urgent work ---------------------------------------------------------------------------
    def urgent_work(self) -> Urgent:
        """Count the caller urgent until the ``with`` block ends or it calls ``end()`` (its request
        is on its way upstream): bookkeeping waits meanwhile."""
        return Urgent(self)

    def _calmer(self) -> None:
        self.urgent -= 1
        if not self.urgent and self._jobs and not self._passes:
            self._passes = PASSES
            asyncio.get_running_loop().call_soon(self._pass)

    def waiting_for(self, key: str) -> _Waiting:
        """The caller waits for ``key``'s lock, which bookkeeping may hold: it is not urgent meanwhile
        (it cannot go on), and that key's jobs run as soon as they are queued (a context manager)."""
        return _Waiting(self, key)

    # --- jobs ----------------------------------------------------------------------------------
    def submit(self, fn: Callable[[], Any], *keys: str) -> Job:
        """Queue ``fn`` (synchronous; its result in ``job.future``); ``keys``: the locks it is done under."""
        loop = asyncio.get_running_loop()
        job = Job(self, fn, keys, loop)
        self.stats["jobs"] += 1
        if not self.defer or (self._hurry and any(k in self._hurry for k in keys)):
            self.stats["hurried"] += self.defer
            job.now()
            return job
        self._jobs.append(job)
        if self._empty is not None:
            self._empty.clear()
        if self._timer is None:
            self._timer = loop.call_at(loop.time() + self.bound, self._due)
        if not self.urgent and not self._passes:
            self._passes = PASSES
            loop.call_soon(self._pass)
        return job

    def hurry(self, key: str) -> None:
        """Run every queued job done under ``key`` now, in the order queued."""
        for job in [j for j in self._jobs if key in j.keys]:
            self.stats["hurried"] += 1
            job.now()

    def run_all(self) -> None:
        """Run every queued job now (closing, or someone waits for the proxy to be idle)."""
        while self._jobs:
            self._jobs[0].now()

    async def idle(self) -> None:
        """Return once no job is queued."""
        while self._jobs:
            if self._empty is None:
                self._empty = asyncio.Event()
            await self._empty.wait()

    def _forget(self, job: Job) -> None:
        if self._jobs and self._jobs[0] is job:
            self._jobs.popleft()
        else:
            with contextlib.suppress(ValueError):
                self._jobs.remove(job)
        if not self._jobs:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._empty is not None:
                self._empty.set()

    def _pass(self) -> None:
        """One loop pass gone by; after the last, a slice of jobs if nothing is urgent."""
        self._passes -= 1
        if self.urgent or not self._jobs:
            self._passes = 0  # the next request's end (or the bound) starts it again
            return
        if self._passes:
            asyncio.get_running_loop().call_soon(self._pass)
            return
        self._slice(overdue_only=False)
        if self._jobs and not self.urgent:
            self._passes = PASSES
            asyncio.get_running_loop().call_soon(self._pass)

    def _due(self) -> None:
        """The oldest job waited its bound: what waited as long runs now, in slices."""
        self._timer = None
        self._slice(overdue_only=True)
        if self._jobs:
            loop = asyncio.get_running_loop()
            oldest = self._jobs[0].queued_at + self.bound - time.monotonic()
            # overdue jobs left (the slice ended): go on after one pass; else at the next one's bound
            self._timer = loop.call_at(loop.time() + max(oldest, 0.0), self._due)

    def _slice(self, *, overdue_only: bool) -> None:
        self.stats["slices"] += 1
        end = time.monotonic() + self.slice_s
        while self._jobs:
            job = self._jobs[0]
            now = time.monotonic()
            if overdue_only:
                if job.queued_at + self.bound > now:
                    break
                self.stats["overdue"] += 1
            job.now()
            if time.monotonic() >= end:
                break


class _Waiting:
    __slots__ = ("_key", "_lane")

    def __init__(self, lane: Lane, key: str) -> None:
        self._lane = lane
        self._key = key

    def __enter__(self) -> None:
        lane = self._lane
        lane._hurry[self._key] = lane._hurry.get(self._key, 0) + 1
        lane._calmer()
        lane.hurry(self._key)

    def __exit__(self, *exc: object) -> None:
        lane = self._lane
        n = lane._hurry.pop(self._key, 1) - 1
        if n:
            lane._hurry[self._key] = n
        lane.urgent += 1
