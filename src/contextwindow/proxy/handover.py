"""The lean front's hand-overs to its worker (:mod:`.front`, :mod:`.worker`): what the front
forwarded as sent, and the answers to it, posted to the worker in order per conversation.

- :meth:`Handovers.post` queues one hand-over after the conversation's earlier ones (a chain of
  tasks per conversation: the worker stores request N before N+1, and records N's answer after
  storing N). The bytes queued and not yet taken by the worker are counted (:attr:`Handovers.bytes`:
  the front's back-pressure, ``front.HANDOVER_BYTES``; :meth:`Handovers.room` waits for them to drop).
- :meth:`Handovers.answered` holds the answer to a request forwarded as sent, to ride to the worker
  with the conversation's next request (one hand-over per request, not two: :meth:`take`); it goes
  alone after ``HOLD_S`` seconds (:meth:`flush`), before a request the worker serves, and on a drain.

- :class:`Backlog` watches the cap on those bytes (``front.HANDOVER_BYTES``): while over it, a
  request waits for the worker to take some (``front.HANDOVER_WAIT_S`` at most), then goes to the
  worker (after its conversation's hand-overs: delayed, not dropped); the front says so on stderr
  when the cap is hit and again when the worker caught up, with how many requests found it over
  meanwhile and for how long.

The posting itself (the worker's connection, what its answer says) is the front's: ``send``. A
hand-over that failed (``send`` returned False: the worker may take it late, or never) ends its
chain: the ones queued after it are not posted (``send`` is called with ``broken=True`` to count
them), so none lands before it; the conversation's next request goes to the worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger("contextwindow.proxy")

HOLD_S = 0.5  # an answer waits this long at most for its conversation's next request to ride with

Headers = list[tuple[str, str]]
Send = Callable[[bytes, str, Headers, bytes, bool], Awaitable[bool]]


class Handovers:
    """Hand-overs per conversation key, in order (module docstring); ``send(key, path, headers,
    body, broken)`` posts one to the worker (it handles its own failures, and returns False on
    one; ``broken``: an earlier one of the chain failed, so this one is only counted)."""

    def __init__(self, send: Send, answer_path: str) -> None:
        self._send = send
        self._answer_path = answer_path
        self.chains: dict[bytes, asyncio.Future[bool]] = {}  # conversation → its last hand-over
        self.tasks: set[asyncio.Future[bool]] = set()  # every hand-over not done
        self.held: dict[bytes, tuple[Headers, bytes]] = {}  # conversation → its last answer, not handed over yet
        self.bytes = 0  # bytes of hand-overs not yet taken by the worker
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []  # callers of room(): (their limit, woken under it)

    def post(self, key: bytes, path: str, headers: Headers, body: bytes) -> asyncio.Future[bool]:
        """Post to the worker after the conversation's earlier hand-overs."""
        prev = self.chains.get(key)
        task = asyncio.ensure_future(self._after(prev, key, path, headers, body))
        self.chains[key] = task
        self.tasks.add(task)
        self.bytes += len(body)

        def done(t: asyncio.Future[bool]) -> None:
            self.bytes -= len(body)
            self.tasks.discard(t)
            if self.chains.get(key) is t:
                del self.chains[key]
            if self._waiting:  # woken once there is room: not each of them at every hand-over taken
                kept = []
                for limit, w in self._waiting:
                    if w.done():
                        continue
                    if self.bytes <= limit:
                        w.set_result(None)
                    else:
                        kept.append((limit, w))
                self._waiting = kept

        task.add_done_callback(done)
        return task

    async def _after(self, prev: asyncio.Future[bool] | None, key: bytes, path: str, headers: Headers, body: bytes) -> bool:
        broken = False
        if prev is not None:
            await asyncio.wait([prev])
            broken = prev.cancelled() or prev.exception() is not None or not prev.result()
        return await self._send(key, path, headers, body, broken) and not broken  # a broken chain stays broken

    async def room(self, limit: int, timeout: float) -> bool:
        """Wait until at most ``limit`` bytes of hand-overs are not yet taken by the worker; False
        if ``timeout`` seconds passed first."""
        if self.bytes <= limit:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((limit, waiter))
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return False
        finally:  # timed out or cancelled: not left for a hand-over to find (a hung worker takes none)
            with contextlib.suppress(ValueError):
                self._waiting.remove((limit, waiter))
        return True

    @property
    def waiting(self) -> int:
        """How many callers of :meth:`room` wait for it."""
        return len(self._waiting)

    def take(self, key: bytes) -> tuple[Headers, bytes] | None:
        """The conversation's held answer, to ride with its next request (None: none held)."""
        return self.held.pop(key, None)

    def answered(self, key: bytes, rid: str, status: int, ctype: str, encoding: str, answer: bytes, started: float) -> None:
        """The answer to request ``rid``, forwarded as sent (status 0: the client had none), held
        (module docstring)."""
        self.flush(key)
        headers = [("x-ctxw-prev-id", rid), ("x-ctxw-status", str(status)), ("x-ctxw-type", ctype), ("x-ctxw-encoding", encoding),
                   ("x-ctxw-latency", f"{time.monotonic() - started:.6f}")]
        self.held[key] = (headers, answer)
        asyncio.get_running_loop().call_later(HOLD_S, self.flush, key, rid)

    def flush(self, key: bytes, rid: str | None = None) -> None:
        """Hand a held answer over on its own (``rid``: only if it is still that one)."""
        held = self.held.get(key)
        if held is None or (rid is not None and held[0][0][1] != rid):
            return
        del self.held[key]
        self.post(key, self._answer_path, held[0], held[1])

    def flush_all(self) -> None:
        for key in list(self.held):
            self.flush(key)

    async def settle(self) -> None:
        """Hand over every held answer and wait until every hand-over is done."""
        while True:
            self.flush_all()
            if not self.tasks:
                return
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    def drop_held(self) -> int:
        """Forget the held answers (the worker that would have recorded them is gone); how many."""
        n = len(self.held)
        self.held.clear()
        return n


class Backlog:
    """The cap on hand-overs not yet taken by the worker, watched (module docstring): :meth:`over`
    per request; ``capped`` counts the requests that found it over; ``wait``: how long at most a
    request waits for room (``front.HANDOVER_WAIT_S``; said on stderr)."""

    def __init__(self, cap: int, wait: float) -> None:
        self.cap = cap
        self.wait = wait
        self.capped = 0
        self._since: float | None = None  # when the current spell over the cap began
        self._before = 0  # ``capped`` when it began

    def over(self, pending: int, now: float) -> bool:
        """``pending`` bytes not yet taken by the worker at ``now`` (monotonic seconds): over the cap?"""
        if pending > self.cap:
            self.capped += 1
            if self._since is None:
                self._since, self._before = now, self.capped - 1
                log.warning("the worker is behind: %d MiB of hand-overs not yet taken (its cap is %d MiB); requests wait up to "
                            "%.0f s for it to take some, then go to it after their conversation's hand-overs, until it catches up "
                            "(their records are delayed, not dropped)", pending >> 20, self.cap >> 20, self.wait)
            return True
        if self._since is not None:
            log.warning("the worker caught up with its hand-overs after %.1f s; %d requests found them over the cap meanwhile", now - self._since,
                        self.capped - self._before)
            self._since = None
        return False
