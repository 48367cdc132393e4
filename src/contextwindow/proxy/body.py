"""Flow control shared by the lean front's connections (:class:`WriteFlow`), and a body the lean
front relays as it arrives (:class:`BodyStream`), the one piece queue between a connection that
reads and a task that takes: a pass-through request's body (any size, bounded memory: the client's
connection, :mod:`.connection`, feeds it; the connection that carries it on, :mod:`.pool`, takes
it), and every answer's body (:class:`.pool.Conn` feeds it; the front takes it for its client).

Memory: at most about ``HIGH_WATER`` bytes wait between the two; above it the reading connection
reads no further (``hold(True)``), below ``LOW_WATER`` it reads on (``hold(False)``): a slow
upstream for a request's body, a slow client for an answer's.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable

HIGH_WATER = 1 << 20
LOW_WATER = 256 << 10


class WriteFlow:
    """An ``asyncio.Protocol``'s writing side: :meth:`drain` waits while its transport's buffer is
    over its high-water mark (``pause_writing`` until ``resume_writing``)."""

    _writable: asyncio.Future[None] | None = None

    async def drain(self) -> None:
        if self._writable is not None:
            await self._writable

    def pause_writing(self) -> None:
        self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._writable = None


class BodyStream:
    """One body as it comes: ``length`` (its Content-Length; None: chunked, or not known), ``feed``,
    ``end`` or ``fail`` from the reading side; iterated once by the taking side. ``hold(flag)``
    asks the reading side to stop (True) or go on (False) reading."""

    __slots__ = ("_buffered", "_error", "_held", "_hold", "_more", "_pieces", "done", "length", "taken")

    def __init__(self, length: int | None, hold: Callable[[bool], None]) -> None:
        self.length = length
        self._hold = hold
        self._pieces: collections.deque[bytes] = collections.deque()
        self._buffered = 0
        self._held = False
        self._more: asyncio.Future[None] | None = None
        self.done = False  # the whole body was read from the client
        self.taken = 0  # bytes given to the sending side
        self._error: BaseException | None = None

    # --- the reading side -----------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        if self.done or self._error is not None:
            return
        self._pieces.append(data)
        self._buffered += len(data)
        if self._buffered > HIGH_WATER and not self._held:
            self._held = True
            self._hold(True)
        self._wake()

    def end(self) -> None:
        self.done = True
        self._wake()

    def restart(self) -> None:
        """Ready for the next body on the same connection (the taker is done with this one; a
        held reading side is told to go on)."""
        self._pieces.clear()
        self._buffered = 0
        self.done = False
        self.taken = 0
        self._error = None
        self._more = None
        if self._held:
            self._held = False
            self._hold(False)

    def fail(self, exc: BaseException, *, keep: bool = False) -> None:
        """The body will not come whole (the client went away, or sent a malformed one; the
        upstream broke off its answer). What waits is dropped, or with ``keep`` taken first (an
        answer's: its client gets what the upstream sent before the break, then the error, even
        when it came after the answer's end: its request's body broke off)."""
        if self._error is None and (keep or not self.done):
            self._error = exc
            if not keep:
                self._pieces.clear()
                self._buffered = 0
            self._wake()

    @property
    def failed(self) -> bool:
        """It broke off (:meth:`fail`): its client went away, or sent it malformed."""
        return self._error is not None

    @property
    def held(self) -> bool:
        """The reading side was asked to stop (over ``HIGH_WATER``) and not yet to go on."""
        return self._held

    def _wake(self) -> None:
        if self._more is not None and not self._more.done():
            self._more.set_result(None)

    # --- the taking side ------------------------------------------------------------------------
    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            while self._pieces:
                piece = self._pieces.popleft()
                self._buffered -= len(piece)
                self.taken += len(piece)
                if self._held and self._buffered < LOW_WATER:
                    self._held = False
                    self._hold(False)
                yield piece
            if self._error is not None:
                raise self._error
            if self.done:
                return
            self._more = asyncio.get_running_loop().create_future()
            await self._more
            self._more = None
