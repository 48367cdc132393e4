"""Forwarding a request upstream and relaying its answer back as it arrives.

Managed requests go as the conversation's prepared body (or the client's own bytes); an answer is
relayed chunk by chunk (server-sent events included, pings and all) while :class:`~.relay.UsageTap`
reads its usage on the side, and it goes out only once its request's new messages are stored and
committed. A provider overflow error (400/413/422 classified as ``context_overflow``) gets one
forced compaction and one retry; any other answer goes back as the upstream sent it. Every other
path and method is streamed through untouched (:meth:`Forwarder.passthrough`). A client that goes
away mid-answer closes the upstream connection, cancelling its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
from aiohttp import web

from ..errors import ContextWindowError, StoreError
from ..llm.overflow import describe_error
from . import worker
from .config import HOP_BY_HOP, ProxyConfig, forward_headers, join_url
from .conversations import Conversations, Prepared, Quick, Request
from .lane import Lane
from .protocols import Protocol, shape_for
from .record import Commits, Recorder, Stored
from .relay import UsageTap

log = logging.getLogger("contextwindow.proxy")

RETRY_STATUSES = frozenset({400, 413, 422})


def error_response(shape: Protocol, status: int, message: str, *, kind: str = "invalid_request_error", param: str | None = None) -> web.Response:
    """An error in the provider's own shape (the client's SDK reads it as the provider's)."""
    return web.Response(status=status, body=shape.error_bytes(message, kind=kind, param=param), content_type="application/json")


class Sent:
    """Set once a request's body has been handed to the upstream connection (or the attempt is
    over). One future, awaited directly: no task and no ``asyncio.wait`` per request. Setting it
    twice, or after its waiter went away (then the future is cancelled), is a no-op."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def set(self, _: object = None) -> None:
        if not self.future.done():
            self.future.set_result(None)


class SentBody(aiohttp.BytesPayload):
    """A request body that says when it has been handed to the connection."""

    def __init__(self, value: bytes, sent: Sent) -> None:
        super().__init__(value)  # as aiohttp wraps plain bytes
        self._sent = sent

    async def write(self, writer: Any) -> None:
        try:
            await super().write(writer)
        finally:
            self._sent.set()

    async def write_with_length(self, writer: Any, content_length: int | None) -> None:
        try:
            await super().write_with_length(writer, content_length)
        finally:
            self._sent.set()


async def joined(fwd: asyncio.Future[web.StreamResponse]) -> web.StreamResponse:
    """Await a forward running in its own task; the handler's cancellation (the client went away) cancels it."""
    try:
        return await asyncio.shield(fwd)
    except asyncio.CancelledError:
        fwd.cancel()
        raise


def response_headers(resp: aiohttp.ClientResponse) -> dict[str, str]:
    out = {k: v for k, v in resp.headers.items() if k.lower() not in HOP_BY_HOP}
    if resp.headers.get("content-encoding"):
        out["Content-Encoding"] = resp.headers["content-encoding"]
    return out


class Forwarder:
    """The upstream side of the proxy: its client session, the forward, the relay, the retry."""

    def __init__(self, config: ProxyConfig, conversations: Conversations, lane: Lane, commits: Commits, recorder: Recorder,
                 stats: dict[str, int], inflight: Callable[[], int]) -> None:
        self.config = config
        self.conversations = conversations
        self._lane = lane
        self._commits = commits
        self._recorder = recorder
        self.stats = stats
        self._inflight = inflight  # requests the proxy is handling
        self._client: aiohttp.ClientSession | None = None

    def open(self) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.config.connect_timeout, sock_read=self.config.read_timeout)
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300)
        # no cookie jar: cookies an upstream sets are the client's (relayed in the answer's headers),
        # never kept here and sent with other clients' requests; and none to look up per request
        # no header of aiohttp's own either (User-Agent, Accept-Encoding): the upstream gets the client's,
        # and an answer is compressed only when the client asked for it (the bytes are relayed as they come)
        self._client = aiohttp.ClientSession(timeout=timeout, connector=connector, auto_decompress=False, skip_auto_headers=("User-Agent", "Accept-Encoding"),
                                             cookie_jar=aiohttp.DummyCookieJar())

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _url(self, request: web.Request) -> str:
        return join_url(self.config.upstream_for(request.path), request.path_qs)

    async def forward_first(self, request: web.Request, req: Request, quick: Quick, ctx: Any, started: float,
                            calm: Callable[[], None]) -> asyncio.Future[web.StreamResponse]:
        """Send ``req`` upstream as it came, then store its new messages while the upstream works
        (under the conversation's lock, which the caller holds; the usage record waits for it).
        Storing them is bookkeeping (proxy/lane.py): it waits while other requests are on their
        way upstream, and runs at once when the answer comes back first, when the conversation's
        next request waits for the lock, or when the client goes away meanwhile (the store is
        written then too, as when it is written first)."""
        self.stats["fast"] += 1
        prepared = Prepared(data=req.raw, changed=False, conversation_id=quick.session.id, identity=quick.parsed.identity, fast=True)
        sent, stored = Sent(), Stored()
        fwd = asyncio.ensure_future(self.forward(request, req, prepared, ctx, started, sent=sent, stored=stored, calm=calm))
        fwd.add_done_callback(sent.set)  # a forward that ends before its body went out (an error) ends the wait too

        def commit() -> None:
            try:
                done = self.conversations.commit(quick)  # synchronous: whole or not at all
                prepared.known, prepared.added, prepared.tokens = done.known, done.added, done.tokens
                stored.group = self._commits.written()
                if self._inflight() <= 1:  # alone: made durable now, while the upstream works
                    # a failure here is forward's to report (it commits again before relaying): raised
                    # from here, after the body went out, the request would be forwarded a second time
                    with contextlib.suppress(StoreError):
                        self._commits.durable(stored.group)
            finally:
                stored.set()

        try:
            await sent.future
        except BaseException:
            fwd.cancel()
            commit()
            raise
        job = self._lane.submit(commit, ctx[2])
        stored.job = job
        try:
            await job.future  # the lock is held until the messages are stored
        except asyncio.CancelledError:
            job.now()  # the client went away: stored now, before the lock is released
            raise
        except ContextWindowError as exc:  # the body went out: the answer is relayed all the same
            log.error("conversation %s: the new messages of a request forwarded as sent were not stored: %s", quick.session.id, exc)
        return fwd

    async def forward(self, request: web.Request, req: Request, prepared: Prepared | None, ctx: Any, started: float,
                      sent: Sent | None = None, stored: Stored | None = None, calm: Callable[[], None] | None = None,
                      retried: bool = False) -> web.StreamResponse:
        """Send the request upstream and relay the answer; ``sent`` is set once the body is
        handed to the connection (or the attempt is over), and then ``calm`` is called (the
        request is no longer urgent: proxy/lane.py); relaying the answer is urgent again. The
        answer waits for ``stored`` and its group commit (the client never has an answer to a
        request whose messages are not stored yet, durably)."""
        assert self._client is not None
        url = self._url(request)
        headers = forward_headers(request.headers.items())
        data: Any = prepared.data if prepared is not None else req.raw
        if sent is None:
            sent = Sent()
        if calm is not None:
            sent.future.add_done_callback(lambda _: calm())
        data = SentBody(data, sent)
        proto = req.protocol
        if retried:
            self.stats["retries"] += 1  # the lean front's first attempt was the one the provider refused
        while True:
            try:
                upstream_cm = self._client.request("POST", url, data=data, headers=headers)
                try:
                    resp = await upstream_cm.__aenter__()
                finally:
                    sent.set()
            except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
                return error_response(proto, 504, f"upstream {url} did not answer in time: {exc}", kind="api_error")
            except aiohttp.ClientError as exc:
                return error_response(proto, 502, f"upstream {url} unreachable or broken: {exc}", kind="api_error")
            try:
                with self._lane.urgent_work():  # the answer is back: relayed before any bookkeeping
                    if stored is not None:
                        if stored.job is not None:
                            stored.job.now()  # its messages, still queued in the lane, are stored now
                        await stored.wait()
                        self._commits.durable(stored.group)
                    if resp.status in RETRY_STATUSES and prepared is not None and not retried and ctx is not None:
                        err = await resp.content.read(1 << 20)
                        info = describe_error(resp.status, err, None)
                        again = None
                        if info.kind == "context_overflow":
                            lock, parsed, key = ctx
                            async with lock:
                                try:
                                    again = await asyncio.to_thread(self.conversations.prepare, parsed, force=True, lock=key)
                                except ContextWindowError as exc:  # the provider's own answer goes back, not a 500
                                    log.warning("conversation %s: no compacted retry after the provider's overflow (%s)", key[:24], exc)
                                finally:
                                    self._commits.durable(self._commits.written())
                        if again is not None:
                            retried = True
                            self.stats["retries"] += 1
                            log.info("conversation %s: the provider said the context is too long; compacted and retried", again.conversation_id)
                            prepared, data = again, again.data
                            await upstream_cm.__aexit__(None, None, None)
                            continue
                        await upstream_cm.__aexit__(None, None, None)
                        return web.Response(status=resp.status, body=err, headers=response_headers(resp))
                    out = await self._relay(request, resp, req, prepared, ctx, started)
            except BaseException:
                resp.close()  # the client went away (or we failed): drop the upstream connection, cancelling its answer
                raise
            await upstream_cm.__aexit__(None, None, None)
            return out

    async def _relay(self, request: web.Request, resp: aiohttp.ClientResponse, req: Request, prepared: Prepared | None, ctx: Any,
                     started: float) -> web.StreamResponse:
        streaming = "text/event-stream" in resp.headers.get("content-type", "")
        # the headers go out at prepare(), before the record below is made: a client already gone
        # fails there, and its answer is not accounted (buffering them into the first write, as
        # web.Response does, measured no cheaper and would let that record through)
        headers = response_headers(resp)
        if (self.config.worker_secret is not None and prepared is not None and not prepared.changed and resp.status == 200
                and worker.from_front(self.config, request)):  # the lean front may send the conversation's next request as sent
            headers.update(worker.room_headers(self.conversations, prepared.conversation_id))
        out = web.StreamResponse(status=resp.status, reason=resp.reason, headers=headers)
        length = resp.headers.get("content-length")
        if length and length.isdigit() and not streaming:
            out.content_length = int(length)
        tap = UsageTap(streaming=streaming, encoding=resp.headers.get("content-encoding"))
        whole = out.content_length
        completed = False
        done: asyncio.Future[None] | None = None
        relayed = asyncio.Event()  # the client has the answer's last byte (or will get no more)
        rid = worker.delivery_id(self.config, request)  # relayed to the lean front: recorded once it says its client had it
        delivered = self._recorder.deliveries.expect(rid) if rid is not None and resp.status == 200 else None

        account = functools.partial(self._recorder.account, delivered=delivered)
        try:
            await out.prepare(request)
            async for chunk in resp.content.iter_any():
                tap.feed(chunk)
                if done is None and (tap.finished or (whole is not None and tap.bytes >= whole)):
                    # the answer is whole before its last bytes go out: the record's task is made now,
                    # and takes the conversation's lock on its first step, before the client can
                    # send its next request (an SDK goes on at the stream's last event, while the
                    # upstream's end of the body may still be on its way)
                    done = account(req, resp.status, tap, prepared, ctx, started, relayed)
                await out.write(chunk)
            completed = True
        except (ConnectionResetError, aiohttp.ClientConnectionResetError, asyncio.CancelledError):
            if not tap.finished:
                self.stats["cancelled"] += 1
            elif prepared is not None:
                log.debug("conversation %s: the client hung up after the answer's end event", prepared.conversation_id)
            raise
        finally:
            # an answer the client had whole (SDKs hang up right after the last event) is accounted;
            # one cut short is not: nothing half-written
            if done is None and (completed or tap.finished):
                done = account(req, resp.status, tap, prepared, ctx, started, relayed)
            if not completed:
                relayed.set()
        # the client's answer ends first; the record (which holds the lock already) runs later, in
        # the lane (proxy/lane.py), so a later request of the conversation, which waits for it,
        # still builds with this usage and finds this reply. The handler does not wait for it: the
        # next request on this connection would (aiohttp serves a connection's requests in turn)
        try:
            await out.write_eof()
        finally:
            relayed.set()
        return out

    async def passthrough(self, request: web.Request) -> web.StreamResponse:
        """Any other path or method: streamed through both ways, untouched."""
        assert self._client is not None
        url = self._url(request)
        body: AsyncIterator[bytes] | None = request.content.iter_chunked(1 << 16) if request.body_exists else None
        headers = forward_headers(request.headers.items())
        if body is not None and request.content_length is not None:
            headers["Content-Length"] = str(request.content_length)  # streamed through, not re-chunked
        try:
            async with self._client.request(request.method, url, data=body, headers=headers) as resp:
                out = web.StreamResponse(status=resp.status, reason=resp.reason, headers=response_headers(resp))
                length = resp.headers.get("content-length")
                if length and length.isdigit():
                    out.content_length = int(length)
                await out.prepare(request)
                async for chunk in resp.content.iter_any():
                    await out.write(chunk)
                await out.write_eof()
                return out
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            return error_response(shape_for(request.path), 504, f"upstream {url} did not answer in time: {exc}", kind="api_error")
        except aiohttp.ClientError as exc:
            return error_response(shape_for(request.path), 502, f"upstream {url} unreachable or broken: {exc}", kind="api_error")

