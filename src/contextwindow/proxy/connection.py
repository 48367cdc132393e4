"""The lean front's client connections (:mod:`.front`): an ``asyncio.Protocol`` that reads HTTP/1.1
requests with llhttp (the ``httptools`` package: keep-alive, pipelining, Content-Length and chunked
bodies) and hands each to its front's ``serve`` in turn, answering them in turn.

- A request the proxy reads (``POST`` to a managed endpoint, :data:`.protocols.BY_PATH`) is read
  whole: a body over ``max_body`` is refused with 413 (in the provider's shape) as soon as its
  length says so, or as soon as a chunked body passes it, and the connection closed: nothing past
  the bound is kept. Any other request with a body (a pass-through) is served as soon as its head is
  in, its body relayed as it arrives (:class:`.body.BodyStream`: any size, at most about
  ``body.HIGH_WATER`` bytes held), as ``ctxw proxy --front aiohttp`` streams it; if its answer is
  out before its body is all read, the connection is closed after it. A malformed request or an
  upgrade: 400, and closed.
- ``Expect: 100-continue`` is answered here (not while an earlier answer on the connection is
  being written).
- Memory: the connection reads no further while a request waits behind the one being served (the
  client's pipelined requests wait in its socket, not in the front's memory).
- A write to a client whose end was read (the transport closing, not yet lost) raises
  :class:`ConnectionResetError`, as one to a client gone: an answer written into it is not
  delivered. The client's end cancels the request being served (its upstream call is closed).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import TYPE_CHECKING

import httptools

from .body import BodyStream, WriteFlow
from .protocols import BY_PATH, Protocol, shape_for
from .wire import Head, path_of, whole_response

if TYPE_CHECKING:
    from .front import FrontServer

log = logging.getLogger("contextwindow.proxy")


def read_whole(head: Head) -> bool:
    """Whether the proxy reads this request's body (bounded by ``max_body``) rather than relay it as
    it comes: a ``POST`` to a managed endpoint, as :class:`~.server.ProxyServer` decides."""
    return head.method == "POST" and path_of(head.target) in BY_PATH


def error_bytes(shape: Protocol, status: int, message: str, *, kind: str = "invalid_request_error", close: bool = False) -> bytes:
    """An error answer in the provider's own shape, whole."""
    return whole_response(status, shape.error_bytes(message, kind=kind, param=None), close=close)


class ClientConnection(WriteFlow, asyncio.Protocol):
    """One client connection: requests read in turn, answered in turn."""

    def __init__(self, front: FrontServer) -> None:
        self.front = front
        self._parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self._head = Head()
        self._url = b""
        self._body: list[bytes] = []
        self._size = 0
        self._too_large = False
        self._queue: collections.deque[tuple[Head, bytes | BodyStream, bool]] = collections.deque()
        self._stream: BodyStream | None = None  # the body of the request being read, relayed as it arrives
        self._task: asyncio.Task[None] | None = None
        self._writable: asyncio.Future[None] | None = None
        self.gone = False
        self.closing = False  # an answer framed by the connection's end was written: nothing may follow it
        self._paused = False  # reading paused while a request waits to be served
        self._body_held = False  # reading paused while a relayed body waits to be taken (body.HIGH_WATER)

    # --- reading --------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.gone:
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(400, "upgrades are not served")
            return
        except httptools.HttpParserError as exc:
            if self._stream is not None:
                self._stream.fail(ConnectionResetError(f"malformed HTTP request body: {exc}"))
            self._refuse(400, f"malformed HTTP request: {exc}", shape_for(path_of(self._url.decode("latin-1"))))
            return
        if self._too_large:
            path = path_of(self._url.decode("latin-1"))
            self._refuse(413, f"request body over the proxy's limit of {self.front.config.max_body} bytes", shape_for(path), "request_too_large")

    def _refuse(self, status: int, message: str, shape: Protocol | None = None, kind: str = "invalid_request_error") -> None:
        """Answer and close, once the answers before it are out (nothing more is read)."""
        self.gone = True
        self.front.stats["requests"] += 1  # answered (413, 400): counted as ctxw proxy counts it
        if self.transport is None:
            return
        self.transport.pause_reading()
        out = error_bytes(shape or shape_for(""), status, message, kind=kind, close=True)
        previous = self._task

        async def last() -> None:
            if previous is not None:
                await asyncio.wait([previous])
            if self.transport is not None and not self.transport.is_closing():
                self.transport.write(out)
                self.transport.close()

        self._task = asyncio.ensure_future(last())  # the connection's last work

    def on_message_begin(self) -> None:
        self._head = Head()
        self._url = b""
        self._body = []
        self._size = 0
        self._stream = None

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head.headers.append((name.decode("latin-1").lower(), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        head = self._head
        head.method = self._parser.get_method().decode("latin-1")
        head.target = self._url.decode("latin-1")
        for k, v in head.headers:
            if k == "content-length" and v.strip().isdigit():
                head.length = int(v)
        head.http10 = self._parser.get_http_version() == "1.0"
        whole = read_whole(head)
        if whole and head.length is not None and head.length > self.front.config.max_body:
            self._too_large = True  # refused at once (with Expect: 100-continue too: no body is asked for)
        elif (self._task is None and not self._queue and self.transport is not None and not head.http10
              and any(k == "expect" and v.strip().lower() == "100-continue" for k, v in head.headers)):
            # the client waits for this before it sends the body (curl: 1 s for a body over 1 MiB); not
            # while an earlier answer is being written on this connection (it would land inside it):
            # then the client sends the body once its own wait is over
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        chunked = any(k == "transfer-encoding" and "chunked" in v.lower() for k, v in head.headers)
        if not whole and not self._too_large and (chunked or (head.length or 0) > 0):  # relayed as it arrives
            self._stream = BodyStream(head.length, self._hold)
            self._queued(head, self._stream, bool(self._parser.should_keep_alive()))

    def _hold(self, flag: bool) -> None:
        self._body_held = flag
        self._reading()

    def _reading(self) -> None:
        """Read on only while no request waits behind the one served and no relayed body waits to be taken."""
        if self.transport is None or self.gone:
            return
        if self._paused or self._body_held:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def on_body(self, body: bytes) -> None:
        if self._stream is not None:
            self._stream.feed(body)
            return
        if self._too_large:
            return
        self._size += len(body)
        if self._size > self.front.config.max_body:
            self._too_large = True
            self._body = []
            return
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._too_large or self.gone:
            return
        if self._stream is not None:  # queued when its head was in
            self._stream.end()
            self._stream = None
            if self._queue and self.transport is not None and not self._paused:  # it waits behind the one served
                self._paused = True
                self.front.stats["read_paused"] += 1
                self._reading()
            return
        self._queued(self._head, b"".join(self._body), bool(self._parser.should_keep_alive()))
        self._body = []

    def _queued(self, head: Head, body: bytes | BodyStream, keep: bool) -> None:
        self._queue.append((head, body, keep))
        stats = self.front.stats
        stats["read_ahead_peak"] = max(stats["read_ahead_peak"], len(self._queue) - (self._task is None))
        if self._task is None:
            self._task = asyncio.ensure_future(self._serve())
        elif self.transport is not None and not self._paused and not isinstance(body, BodyStream):
            # a request waits behind the one being served: read no further until it is taken (the
            # client's pipelined requests wait in its socket, not in the front's memory; a relayed
            # body is read on to its bound, then waits likewise)
            self._paused = True
            stats["read_paused"] += 1
            self._reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.transport = None
        for _, body, _ in self._queue:
            if isinstance(body, BodyStream):
                body.fail(ConnectionResetError("the client went away before its request's body ended"))
        if self._stream is not None:
            self._stream.fail(ConnectionResetError("the client went away before its request's body ended"))
        if self._writable is not None and not self._writable.done():
            self._writable.set_exception(ConnectionResetError("the client went away"))
        if self._task is not None:
            self._task.cancel()  # its upstream connection is closed: the answer is cancelled

    async def _serve(self) -> None:
        try:
            while self._queue and self.transport is not None:
                head, body, keep = self._queue.popleft()
                if self._paused and not self.gone:
                    self._paused = False
                    self._reading()
                try:
                    await self.front.serve(self, head, body, keep)
                except (ConnectionError, TimeoutError) as exc:
                    # an answer broken off once its head was out (the upstream or the worker broke
                    # mid-answer, or the client went): nothing can end it well, so the connection is
                    # aborted (the client sees it; the requests pipelined behind it go with it)
                    if self.transport is not None:
                        if self.transport.is_closing() or (isinstance(body, BodyStream) and body.failed):
                            # the client went away (its end read), or sent a malformed body: nothing to say
                            log.debug("a client went away or broke off its body before its answer was written whole (%s)", exc)
                        else:
                            log.error("an answer was broken off mid-way (%s): the client's connection is closed", exc)
                        self.abort()
                    return
                if isinstance(body, BodyStream) and body.failed:  # malformed (_refuse answers it, after) or its client gone
                    return
                if not keep or self.closing or (isinstance(body, BodyStream) and not body.done):
                    # (answered before its body was all read: where the next request starts is not known)
                    if self.transport is not None:
                        self.transport.close()
                    return
        finally:
            self._task = None

    # --- writing --------------------------------------------------------------------------------
    def abort(self) -> None:
        self.gone = True
        if self.transport is not None:
            self.transport.abort()

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():  # its end seen (closing), not yet lost
            raise ConnectionResetError("the client went away")
        self.transport.write(data)

