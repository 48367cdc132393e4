"""A low-priority lane on the proxy's event loop: bookkeeping waits while requests are on their
way upstream or answers on their way back.

The proxy runs on one thread. When fifty clients send at once, the last request of the burst is
forwarded only after everything the loop runs before it; if that includes other requests'
bookkeeping (storing their new messages, a group commit, an answer's record), the burst's tail
pays for it. So that work is queued here as jobs and run only when no request is *urgent* — being
read, decided and forwarded, or having its answer relayed — or, never starved, once it has waited
``bound`` seconds. Jobs run in the order queued, a slice of at most ``slice_s`` seconds at a time;
between slices the lane yields a few loop iterations, so that requests that arrived meanwhile are
read (and counted urgent) before it goes on.

Whoever needs a job's effect now does not wait for the lane: :meth:`Lane.hurry` runs the queued
jobs of a key at once (the next request of a conversation, waiting for the lock its record holds),
and :meth:`Job.now` runs one job at once (an answer whose request's messages must be stored before
it is relayed; a handler cancelled while its commit is queued). A job runs once, whichever comes
first. Nothing here touches the store: the jobs are the caller's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

log = logging.getLogger("contextwindow.proxy")

#: a job waits at most this long for the urgent work to end (then it runs anyway)
BOUND_S = 0.05
#: the lane runs jobs back to back for at most this long before it looks for new requests again
SLICE_S = 0.0005
#: loop iterations the lane yields between slices: on Python 3.11 aiohttp reaches the handler of a
#: request two iterations after its bytes were read (its connection's task, then the handler's)
YIELDS = 3


class Job:
    """One piece of bookkeeping: ``fn()`` run once, its result or error in ``future``."""

    __slots__ = ("_lane", "fn", "future", "keys", "queued_at")

    def __init__(self, lane: Lane, fn: Callable[[], Any], keys: tuple[str, ...]) -> None:
        self.fn = fn
        self.keys = keys
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queued_at = time.monotonic()
        self._lane: Lane | None = lane

    @property
    def done(self) -> bool:
        return self._lane is None

    def now(self) -> None:
        """Run the job here and now unless it ran already (its error, if any, is the future's)."""
        lane = self._lane
        if lane is None:
            return
        self._lane = None
        lane._forget(self)
        try:
            result = self.fn()
        except Exception as exc:  # the waiter re-raises it
            if not self.future.done():
                self.future.set_exception(exc)
            return
        if not self.future.done():
            self.future.set_result(result)


class Lane:
    """The queue of low-priority jobs and the count of urgent requests (module docstring)."""

    def __init__(self, *, bound: float = BOUND_S, slice_s: float = SLICE_S) -> None:
        self.bound = bound
        self.slice_s = slice_s
        self.urgent = 0  # requests being read/decided/forwarded, or answers being relayed
        self.stats = {"jobs": 0, "hurried": 0, "overdue": 0}
        self._jobs: deque[Job] = deque()
        self._hurry: dict[str, int] = {}  # keys someone waits on: their jobs run as soon as they are queued
        self._calm: asyncio.Event | None = None  # set while nothing is urgent
        self._task: asyncio.Task[None] | None = None
        self._empty: asyncio.Event | None = None  # set while no job is queued

    # --- urgent work ---------------------------------------------------------------------------
    @contextmanager
    def urgent_work(self) -> Iterator[Callable[[], None]]:
        """Count the caller urgent until the block ends or it calls the function it is given (once
        its request is on its way upstream): bookkeeping waits meanwhile."""
        self._enter()
        left = False

        def leave() -> None:
            nonlocal left
            if not left:
                left = True
                self._leave()

        try:
            yield leave
        finally:
            leave()

    def _enter(self) -> None:
        self.urgent += 1
        if self._calm is not None:
            self._calm.clear()

    def _leave(self) -> None:
        self.urgent -= 1
        if not self.urgent and self._calm is not None:
            self._calm.set()

    @contextmanager
    def waiting_for(self, key: str) -> Iterator[None]:
        """The caller waits for ``key``'s lock, which bookkeeping may hold: it is not urgent meanwhile
        (it cannot go on), and that key's jobs run as soon as they are queued."""
        self._leave()
        self._hurry[key] = self._hurry.get(key, 0) + 1
        try:
            self.hurry(key)
            yield
        finally:
            n = self._hurry.pop(key, 1) - 1
            if n:
                self._hurry[key] = n
            self._enter()

    # --- jobs ----------------------------------------------------------------------------------
    def submit(self, fn: Callable[[], Any], *keys: str) -> Job:
        """Queue ``fn`` (synchronous; its result in ``job.future``); ``keys``: the locks it is done under."""
        job = Job(self, fn, keys)
        self.stats["jobs"] += 1
        if any(k in self._hurry for k in keys):
            self.stats["hurried"] += 1
            job.now()
            return job
        self._jobs.append(job)
        self._start()
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
            assert self._empty is not None
            await self._empty.wait()

    def _forget(self, job: Job) -> None:
        with suppress(ValueError):
            self._jobs.remove(job)
        if not self._jobs and self._empty is not None:
            self._empty.set()

    def _start(self) -> None:
        if self._calm is None:
            self._calm = asyncio.Event()
            self._empty = asyncio.Event()
            if not self.urgent:
                self._calm.set()
        assert self._empty is not None
        self._empty.clear()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        assert self._calm is not None
        loop = asyncio.get_running_loop()
        while self._jobs:
            for _ in range(YIELDS):  # let requests that arrived meanwhile be read first
                await asyncio.sleep(0)
            if not self._jobs:
                break
            wait = self._jobs[0].queued_at + self.bound - time.monotonic()
            if self.urgent and wait > 0:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._calm.wait(), wait)
                continue  # look again (new requests, jobs run by someone else meanwhile)
            end = loop.time() + self.slice_s
            overdue = bool(self.urgent)
            while self._jobs:
                job = self._jobs[0]
                if overdue:
                    if job.queued_at + self.bound > time.monotonic():
                        break  # only what waited its bound runs while requests are urgent
                    self.stats["overdue"] += 1
                job.now()
                if loop.time() >= end:
                    break
