"""Keep-alive HTTP/1.1 client connections for the lean front (:mod:`.front`): to the upstream and
to the worker. One request at a time per connection; idle connections are kept per host and port.

An answer is read as it arrives: :meth:`Conn.request` returns once the head is in, and
:meth:`Conn.chunks` yields the body's pieces (chunked framing taken off, content encoding left on:
the bytes are relayed as they came) from a :class:`.body.BodyStream` (reading pauses while more
than its ``HIGH_WATER`` waits for a slow taker). A connection that goes quiet for ``read_timeout`` seconds is
closed with :class:`UpstreamTimeout`; one that cannot be opened or breaks is :class:`UpstreamBroken`.
A kept connection the server closed meanwhile (it answered nothing) is retried once on a new one.

A request body relayed as it arrives (:class:`.body.BodyStream`, a pass-through's) goes on a new
connection (it cannot be sent twice), framed by its Content-Length or else chunked, as the server
takes it (the connection's write buffer, not the front's memory, holds what the server has not
read); the answer's head may come before its end. A body that breaks off (its client went away)
breaks the connection: :class:`UpstreamBroken`.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator, Iterable

import httptools

from .body import BodyStream, WriteFlow
from .wire import LAST_CHUNK, Head, chunk, request_bytes, request_head

KEEP_IDLE = 64  # idle connections kept per host and port


class UpstreamBroken(ConnectionError):
    pass


class UpstreamTimeout(TimeoutError):
    pass


class Conn(WriteFlow, asyncio.Protocol):
    """One client connection."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self._parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self._head: Head | None = None
        self._name = ""
        self._ready: asyncio.Future[Head] | None = None
        self._answer = BodyStream(None, self._hold_reading)  # the answer's body, read but not yet taken
        self._done = False  # this answer is whole
        self._error: BaseException | None = None
        self.reusable = False
        self.answered = False  # a byte of this answer came back
        self._seen = 0.0  # monotonic time of the last byte
        self._timer: asyncio.TimerHandle | None = None
        self._head_only = False
        self._writable: asyncio.Future[None] | None = None  # set while the server is behind taking the request's body
        self._pump: asyncio.Task[None] | None = None  # a relayed request body being sent

    # --- asyncio.Protocol -----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.answered = True
        self._seen = time.monotonic()
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(UpstreamBroken(f"malformed answer: {exc}"))

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self.resume_writing()
        head = self._head
        if head is not None and not self._done and head.length is None and not head.chunked and head.status >= 200 and exc is None:
            self._end()  # an answer framed by the end of the connection ends here
            self.reusable = False
        if not self._done:
            self._fail(UpstreamBroken(f"connection closed: {exc}" if exc else "connection closed before the answer ended"))
        self._pool.forget(self)

    # --- httptools callbacks --------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self._head = Head()

    def on_header(self, name: bytes, value: bytes) -> None:
        assert self._head is not None
        self._head.headers.append((name.decode("latin-1").lower(), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        head = self._head
        assert head is not None
        head.status = self._parser.get_status_code()
        for k, v in head.headers:
            if k == "content-length" and v.isdigit():
                head.length = int(v)
            elif k == "transfer-encoding" and "chunked" in v.lower():
                head.chunked = True
        if head.status < 200:  # 1xx: an interim answer, not this one
            self._head = None
            return
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(head)
        if self._head_only or head.status in (204, 304):
            self._end()

    def on_body(self, body: bytes) -> None:
        if not self._done:
            self._answer.feed(body)

    def on_message_complete(self) -> None:
        if self._head is not None:
            self._end()

    # --- the request ----------------------------------------------------------------------------
    def _end(self) -> None:
        if self._done:
            return
        self._done = True
        self._stop_timer()
        try:
            keep = self._parser.should_keep_alive()
        except Exception:
            keep = False
        self.reusable = bool(keep) and not self._head_only and self._error is None and (self._pump is None or self._pump.done())
        self._answer.end()

    def _fail(self, exc: BaseException) -> None:
        self._error = exc
        self.reusable = False
        self._stop_timer()
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(exc)
        self._answer.fail(exc, keep=True)
        if self.transport is not None:
            self.transport.abort()

    def _tick(self) -> None:
        self._timer = None
        if self._done or self._error is not None:
            return
        if self._answer.held:  # waiting for the answer's taker, not for the server
            self._seen = time.monotonic()
        quiet = time.monotonic() - self._seen
        if quiet >= self._pool.read_timeout:
            self._fail(UpstreamTimeout(f"no byte in {self._pool.read_timeout:g} s"))
        else:
            self._timer = asyncio.get_running_loop().call_later(self._pool.read_timeout - quiet, self._tick)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def request(self, method: str, target: str, headers: Iterable[tuple[str, str]], body: bytes | BodyStream | None) -> Head:
        """Send one request; the answer's head (a relayed body: sent meanwhile, and on after it)."""
        assert self.transport is not None
        loop = asyncio.get_running_loop()
        self._head, self._done, self._error, self.answered, self.reusable = None, False, None, False, False
        self._answer.restart()
        self._pump = None
        self._head_only = method == "HEAD"
        self._ready = loop.create_future()
        self._seen = time.monotonic()
        self._timer = loop.call_later(self._pool.read_timeout, self._tick)
        if isinstance(body, BodyStream):
            self.transport.write(request_head(method, target, self._name, headers, body.length))
            self._pump = asyncio.ensure_future(self._send_body(body))
        else:
            self.transport.write(request_bytes(method, target, self._name, headers, body))
        return await self._ready

    async def _send_body(self, body: BodyStream) -> None:
        framed = body.length is None
        try:
            async for piece in body:
                if self.transport is None or self.transport.is_closing():
                    return
                self.transport.write(chunk(piece) if framed else piece)
                self._seen = time.monotonic()  # the request going out is not the server gone quiet
                await self.drain()
            if framed and self.transport is not None and not self.transport.is_closing():
                self.transport.write(LAST_CHUNK)
        except ConnectionError as exc:  # the body broke off (its client went away): nothing can end this request well
            self._fail(UpstreamBroken(f"the request's body broke off: {exc}"))

    def chunks(self) -> AsyncIterator[bytes]:
        """The answer's body as it arrives (then the error that broke it, or its request, off)."""
        return self._answer.__aiter__()

    def _hold_reading(self, flag: bool) -> None:
        """The answer's taker is behind (True: pause reading) or caught up (False: read on)."""
        if self.transport is None or self.transport.is_closing():
            return
        if flag:
            self.transport.pause_reading()
        else:
            self._seen = time.monotonic()
            self.transport.resume_reading()

    def close(self) -> None:
        self.reusable = False
        if self._pump is not None and not self._pump.done():
            self._pump.cancel()
        if self.transport is not None:
            self.transport.abort()


class Pool:
    """Connections to one host and port, kept between requests."""

    def __init__(self, host: str, port: int, *, connect_timeout: float, read_timeout: float, tls: ssl.SSLContext | None = None,
                 name: str = "") -> None:
        self.host, self.port, self.tls = host, port, tls
        self.name = name or f"{host}:{port}"
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._idle: list[Conn] = []
        self._all: set[Conn] = set()

    async def _open(self) -> Conn:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await asyncio.wait_for(loop.create_connection(lambda: Conn(self), self.host, self.port, ssl=self.tls), self.connect_timeout)
        except (OSError, TimeoutError) as exc:
            raise UpstreamBroken(f"cannot connect to {self.name}: {exc}") from exc
        conn._name = self.host if self.port in (80, 443) else f"{self.host}:{self.port}"
        self._all.add(conn)
        return conn

    async def send(self, method: str, target: str, headers: Iterable[tuple[str, str]], body: bytes | BodyStream | None) -> tuple[Conn, Head]:
        """Send a request on a kept connection (or a new one; always, for a relayed body); the
        connection and the answer's head. Give the connection back with :meth:`release` once its
        answer is read."""
        headers = list(headers)
        while self._idle and not isinstance(body, BodyStream):
            conn = self._idle.pop()
            if conn.transport is None or conn.transport.is_closing():
                continue
            try:
                return conn, await conn.request(method, target, headers, body)
            except UpstreamBroken:
                if conn.answered:
                    raise
                # closed by the server while it was kept, before it answered a byte: a new connection
            except BaseException:
                conn.close()  # cancelled (the client went away): the request is dropped with its connection
                raise
        conn = await self._open()
        try:
            return conn, await conn.request(method, target, headers, body)
        except BaseException:
            conn.close()
            raise

    def release(self, conn: Conn) -> None:
        if conn.reusable and conn.transport is not None and not conn.transport.is_closing() and len(self._idle) < KEEP_IDLE:
            self._idle.append(conn)
        else:
            conn.close()
            self._all.discard(conn)

    def forget(self, conn: Conn) -> None:
        self._all.discard(conn)
        if conn in self._idle:
            self._idle.remove(conn)

    def close(self) -> None:
        for conn in list(self._all):
            conn.close()
        self._all.clear()
        self._idle.clear()


def pool_for(url: str, *, connect_timeout: float, read_timeout: float) -> Pool:
    """A pool to the host of ``url`` (``http://`` or ``https://``; the path is the caller's)."""
    from urllib.parse import urlsplit

    u = urlsplit(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    tls = ssl.create_default_context() if u.scheme == "https" else None
    return Pool(u.hostname, u.port or (443 if tls else 80), connect_timeout=connect_timeout, read_timeout=read_timeout, tls=tls,
                name=f"{u.scheme}://{u.netloc}")
