"""The lean front's per-answer cost of its piece queue (issue 15, the review's item 1): an upstream
answer's body in ``pool.Conn`` as a ``body.BodyStream`` (restarted per answer, iterated directly)
against the queue ``Conn`` kept itself before (a deque and a future, reproduced here as the
reference), and against a ``BodyStream`` made per answer and iterated through a wrapping async
generator (the first version of the change). One answer: one 600-byte piece fed, the end, the
pieces taken; the loop's own work only (no sockets). Same run, alternated, median of 9 passes of
50,000 answers each; printed as microseconds per answer and the ratio to the reference.

    python benchmarks/bench_piece_queue.py
"""

from __future__ import annotations

import asyncio
import collections
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

from contextwindow.proxy.body import HIGH_WATER, LOW_WATER, BodyStream

PIECE = b"x" * 600


class Before:
    """``pool.Conn``'s own queue before the change (its answer side only)."""

    def __init__(self) -> None:
        self._pieces: collections.deque[bytes] = collections.deque()
        self._more: asyncio.Future[None] | None = None
        self._done, self._buffered, self._paused = False, 0, False
        self._error: BaseException | None = None

    def start(self) -> None:
        self._pieces.clear()
        self._buffered, self._done = 0, False

    def feed(self, data: bytes) -> None:
        if self._done:
            return
        self._pieces.append(data)
        self._buffered += len(data)
        if self._buffered > HIGH_WATER and not self._paused:
            self._paused = True
        self._wake()

    def end(self) -> None:
        self._done = True
        self._wake()

    def _wake(self) -> None:
        if self._more is not None and not self._more.done():
            self._more.set_result(None)

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            while self._pieces:
                piece = self._pieces.popleft()
                self._buffered -= len(piece)
                if self._paused and self._buffered < LOW_WATER:
                    self._paused = False
                yield piece
            if self._error is not None:
                raise self._error
            if self._done:
                return
            self._more = asyncio.get_running_loop().create_future()
            await self._more
            self._more = None


class PerAnswer:
    """A ``BodyStream`` made per answer, taken through a wrapping async generator."""

    def __init__(self) -> None:
        self.s = BodyStream(None, lambda flag: None)

    def start(self) -> None:
        self.s = BodyStream(None, lambda flag: None)

    def feed(self, data: bytes) -> None:
        self.s.feed(data)

    def end(self) -> None:
        self.s.end()

    async def chunks(self) -> AsyncIterator[bytes]:
        async for piece in self.s:
            yield piece


class Restarted(PerAnswer):
    """As ``pool.Conn`` does now: one ``BodyStream``, restarted per answer, iterated directly."""

    def start(self) -> None:
        self.s.restart()

    def chunks(self) -> AsyncIterator[bytes]:  # type: ignore[override]
        return self.s.__aiter__()


async def per_answer(q: Any, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        q.start()
        q.feed(PIECE)
        q.end()
        async for _ in q.chunks():
            pass
    return (time.perf_counter() - t) / n * 1e6


async def main() -> None:
    kinds = {"before (deque in Conn)": Before, "BodyStream per answer, wrapped": PerAnswer, "BodyStream restarted (pool.Conn now)": Restarted}
    got: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(9):
        for name, cls in kinds.items():
            got[name].append(await per_answer(cls(), 50_000))
    ref = statistics.median(got["before (deque in Conn)"])
    for name, times in got.items():
        med = statistics.median(times)
        print(f"{name:40s} {med:6.2f} µs/answer  x{med / ref:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
