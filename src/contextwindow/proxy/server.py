"""The HTTP side of ``ctxw proxy``: routing, the proxy's own auth, forwarding, relaying, retry.

aiohttp serves (asyncio: many slow streams at once, one thread) and calls upstream. Managed
endpoints (``POST /v1/chat/completions``, ``/v1/responses``, ``/v1/messages``) go through
:class:`~.conversations.Conversations` in a worker thread, under a per-conversation lock; every
other path and method is forwarded untouched, its body streamed through. Answers are relayed as
they arrive (server-sent events included, pings and all); usage is read on the side
(:class:`~.relay.UsageTap`) and recorded after the client has the last byte.

Errors: malformed JSON or a malformed history → 400 in the provider's own shape naming the field;
a body over ``max_body`` → 413 before it is read past the bound; upstream unreachable → 502 naming
it; no answer in time → 504; a provider overflow error → one forced compaction and one retry,
then the provider's error as it was. A client that goes away mid-answer cancels the upstream call
(its connection is closed) and nothing of that answer is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import ipaddress
import logging
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import aiohttp
from aiohttp import web

from ..errors import ConfigError, ContextWindowError, PayloadError, StoreError
from ..llm.overflow import describe_error
from ..store.base import GroupCommits, background_checkpoints_of, group_commits_of
from .conversations import Answer, Conversations, LockMoved, Prepared, Quick, Request
from .history import parse_request
from .lane import Job, Lane
from .protocols import BY_PATH, Protocol, shape_for
from .relay import UsageTap

log = logging.getLogger("contextwindow.proxy")

HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
    "transfer-encoding", "upgrade", "host", "content-length", "content-encoding",
})
OWN_HEADERS = ("x-ctxw-token", "x-ctxw-conversation")
TOKEN_HEADER = "x-ctxw-token"
DEFAULT_MAX_BODY = 32 * 1024 * 1024  # Anthropic's own request limit
RETRY_STATUSES = frozenset({400, 413, 422})
#: group commits' window (SQLite store): a write is committed at most about this long after it (at
#: once when a request alone in the proxy stores its messages); an answer waits for its request's
#: writes to be (docs/proxy.md)
GROUP_COMMIT_S = 0.01
#: How often a request whose conversation moved to another lock while it waited (an identity that
#: became another conversation's alias) takes the new lock and goes again before it is forwarded unmanaged.
LOCK_MOVES = 3


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    upstream: str
    anthropic_upstream: str | None = None
    host: str = "127.0.0.1"
    port: int = 8787
    token: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    connect_timeout: float = 10.0
    read_timeout: float = 600.0  # seconds without a byte from upstream
    #: bookkeeping deferred while requests are urgent (proxy/lane.py); off by default: no p99 gain
    #: measured, and 3-8% more CPU per request at load 9-14 (docs/proxy.md, 2026-11-24 08:50-10:30)
    lane: bool = False

    def check(self) -> None:
        for name, url in (("--upstream", self.upstream), ("--anthropic-upstream", self.anthropic_upstream)):
            if url is not None and not url.startswith(("http://", "https://")):
                raise ConfigError(f"{name} must be an http:// or https:// base URL, got {url!r}")
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(f"binding to {self.host} (not loopback) needs a token: set --token-env VAR to a variable holding one")
        if self.max_body <= 0:
            raise ConfigError(f"max_body must be positive, got {self.max_body}")


def is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_url(base: str, path_qs: str) -> str:
    """``base`` + the path the client sent; a base already ending in ``/v1`` is not doubled."""
    base = base.rstrip("/")
    if base.endswith("/v1") and (path_qs.startswith("/v1/") or path_qs == "/v1"):
        base = base[:-3]
    return base + path_qs


class _TooLarge(Exception):
    pass


class ProxyServer:
    """Serve until closed. ``await start()`` in a running loop, or use :class:`BackgroundProxy`."""

    def __init__(self, config: ProxyConfig, conversations: Conversations) -> None:
        config.check()
        self.config = config
        self.conversations = conversations
        self.stats = {"requests": 0, "managed": 0, "changed": 0, "passthrough": 0, "retries": 0, "cancelled": 0, "fast": 0}
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None
        self.port = config.port
        self._inflight = 0
        self._tasks: set[asyncio.Future[None]] = set()
        self._idle: asyncio.Event | None = None
        self._stop_checkpoints: Callable[[], None] | None = None
        self._stop_group: Callable[[], None] | None = None  # group commits (SQLite), see start()
        self._commits: GroupCommits | None = None  # the store's group commits while they are on
        self._flush_at: asyncio.TimerHandle | None = None  # the open group's commit, scheduled
        self._lane = Lane(defer=config.lane)  # bookkeeping waits while requests go upstream and answers come back (proxy/lane.py)

    # --- lifecycle ------------------------------------------------------------------------------
    async def wait_idle(self) -> None:
        """Return once no request is being handled (its usage recorded and committed, its lock released)."""
        if self._idle is not None:
            await self._idle.wait()
        await self._drain()
        self._lane.run_all()
        self._flush_now()

    async def _drain(self) -> None:
        """Wait for the records of answers already relayed (their usage and replies stored)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def start(self) -> None:
        await asyncio.to_thread(self.conversations.warm)
        background = background_checkpoints_of(self.conversations.store)
        if background is not None and self._stop_checkpoints is None:  # SQLite: no checkpoint stalls the loop
            self._stop_checkpoints = background.checkpoint_in_background()
        commits = group_commits_of(self.conversations.store)
        if commits is not None and self._stop_group is None:  # SQLite: one commit carries many requests' writes
            self._stop_group = commits.group_commits()
            self._commits = commits
        self._idle = asyncio.Event()
        self._idle.set()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.config.connect_timeout, sock_read=self.config.read_timeout)
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300)
        # no cookie jar: cookies an upstream sets are the client's (relayed in the answer's headers),
        # never kept here and sent with other clients' requests; and none to look up per request
        # no header of aiohttp's own either (User-Agent, Accept-Encoding): the upstream gets the client's,
        # and an answer is compressed only when the client asked for it (the bytes are relayed as they come)
        self._client = aiohttp.ClientSession(timeout=timeout, connector=connector, auto_decompress=False, skip_auto_headers=("User-Agent", "Accept-Encoding"),
                                             cookie_jar=aiohttp.DummyCookieJar())
        app = web.Application(client_max_size=self.config.max_body)
        for path in BY_PATH:  # plain routes resolve by a dict look-up; the catch-all by a regex over the path
            app.router.add_route("*", path, self.handle)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.config.host, self.config.port, reuse_address=True)
        await site.start()
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await self._drain()  # records of answers already relayed end before the last commit
        self._lane.run_all()
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None
        if self._stop_group is not None:  # commits what is pending
            await asyncio.to_thread(self._stop_group)
            self._stop_group = self._commits = None
        if self._stop_checkpoints is not None:
            await asyncio.to_thread(self._stop_checkpoints)
            self._stop_checkpoints = None
        if self._client is not None:
            await self._client.close()
            self._client = None

    # --- helpers --------------------------------------------------------------------------------
    def _upstream(self, path: str) -> str:
        if path.startswith("/v1/messages") and self.config.anthropic_upstream:
            return self.config.anthropic_upstream
        return self.config.upstream

    def _authorized(self, request: web.Request) -> bool:
        token = self.config.token
        if not token:
            return True
        given = request.headers.get(TOKEN_HEADER, "")
        auth = request.headers.get("proxy-authorization", "")
        if not given and auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        return hmac.compare_digest(given.encode(), token.encode())

    @staticmethod
    def _forward_headers(request: web.Request) -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in request.headers.items():
            lk = k.lower()
            if lk in HOP_BY_HOP or lk in OWN_HEADERS:
                continue
            out[k] = v
        return out

    @staticmethod
    def _error(shape: Protocol, status: int, message: str, *, kind: str = "invalid_request_error", param: str | None = None) -> web.Response:
        return web.Response(status=status, body=shape.error_bytes(message, kind=kind, param=param), content_type="application/json")

    async def _read_body(self, request: web.Request) -> bytes:
        limit = self.config.max_body
        if request.content_length is not None and request.content_length > limit:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > limit:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    # --- group commits: when the store's writes become durable --------------------------------
    def _written(self) -> int | None:
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
        self._flush_now()

    def _durable(self, group: int | None) -> None:
        """Commit ``group`` unless it is already (the window is ~10 ms, and a request alone in the
        proxy commits at once: an upstream slower than that finds it done): the client never has
        an answer to a request whose messages are not durable."""
        if group is not None and self._commits is not None:
            self._commits.commit_through(group)

    def _flush_now(self) -> None:
        """Commit the open group now (its window is over, or someone waits for it)."""
        if self._commits is not None:
            try:
                self._commits.flush()
            except ContextWindowError as exc:  # counted in the store's losses: Conversations reloads
                log.error("%s", exc)

    async def _acquire(self, identity_key: str) -> tuple[str, asyncio.Lock]:
        """Take the lock of a request's conversation (``Conversations.lock_key``): a request's lock
        is looked up before it waits and again once it holds it. A request that waited under its
        identity while another created the conversation holds that conversation's lock (the
        creator took the identity's key as the conversation's); one that waited under an identity
        that became an alias of another conversation meanwhile moves to that one's lock. Returns
        the key (its reference held: released by ``_unlock``) and the acquired lock."""
        key = self.conversations.lock_key(identity_key)
        while True:
            lock = self._lock(key)
            try:
                if lock.locked():
                    log.debug("conversation %s: waits for the request or answer record before it", key[:24])
                    with self._lane.waiting_for(key):  # the record may wait in the lane (proxy/lane.py): it runs now
                        await lock.acquire()
                else:
                    await lock.acquire()
            except BaseException:
                self._unlock(key)
                raise
            try:
                now = self.conversations.lock_key(identity_key)
            except BaseException:
                lock.release()
                self._unlock(key)
                raise
            if now == key:
                return key, lock
            lock.release()
            self._unlock(key)
            log.debug("conversation %s: its conversation is %s's now; takes that lock", key[:24], now[:24])
            key = now

    def locks_in_use(self) -> int:
        """Entries of the lock table: one per conversation a request or an answer's record holds or waits for."""
        return len(self._locks)

    def _lock(self, key: str) -> asyncio.Lock:
        lock, n = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, n + 1)
        return lock

    def _unlock(self, key: str) -> None:
        lock, n = self._locks[key]
        if n <= 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, n - 1)

    # --- the handler ----------------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.StreamResponse:
        assert self._idle is not None
        self._inflight += 1
        self._idle.clear()
        try:
            with self._lane.urgent_work() as urgent:  # until its body is on its way upstream
                return await self._handle(request, urgent.end)
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()

    async def _handle(self, request: web.Request, calm: Callable[[], None]) -> web.StreamResponse:
        started = time.monotonic()  # kept here, not in the request's mapping (aiohttp warns on str keys, per request)
        self.stats["requests"] += 1
        shape = shape_for(request.path)
        if not self._authorized(request):
            return self._error(shape, 401, f"the proxy needs its token: send it in the {TOKEN_HEADER} header", kind="authentication_error")
        proto = BY_PATH.get(request.path) if request.method == "POST" else None
        if proto is None:
            self.stats["passthrough"] += 1
            calm()  # not the burst's: streamed through as it comes
            return await self._passthrough(request)
        try:
            raw = await self._read_body(request)
        except _TooLarge:
            resp = self._error(proto, 413, f"request body over the proxy's limit of {self.config.max_body} bytes", kind="request_too_large")
            resp.force_close()
            return resp
        try:
            body, exact = parse_request(raw)  # the scan for long integers: in Conversations.parse (proxy/resend.py)
        except ValueError as exc:
            return self._error(proto, 400, f"the request body is not valid JSON: {exc}", param="body")
        if not isinstance(body, dict):
            return self._error(proto, 400, f"the request body must be a JSON object, got {type(body).__name__}", param="body")
        req = Request(proto, body, raw, {k.lower(): v for k, v in request.headers.items()}, exact)
        if proto.stateful(body):  # the provider holds the history: nothing to manage, forward as is
            self.stats["passthrough"] += 1
            return await self._forward(request, req, None, None, started, calm=calm)
        self.stats["managed"] += 1
        try:
            parsed = self.conversations.parse(req)  # pure and about a millisecond: a thread hop would cost more
        except PayloadError as exc:
            field = _field_path(proto, exc)
            return self._error(proto, 400, f"{field}: {exc}" if field else str(exc), param=field)
        for attempt in range(LOCK_MOVES):
            key, lock = await self._acquire(parsed.identity.key)
            stored: Stored | None = None
            moved = False
            try:
                try:
                    t0 = time.perf_counter()
                    try:
                        # the common case (nothing to build) is decided here, on the loop, and forwarded
                        # before its new messages are stored; a build, which may compact, runs in a worker thread
                        quick = self.conversations.quick(parsed, key)
                        if quick is not None:
                            fwd = await self._forward_first(request, req, quick, (lock, parsed, key), started, calm)
                            log.debug("conversation %s: forwarded as sent, its new messages stored in %.1f ms", quick.session.id, 1000 * (time.perf_counter() - t0))
                        else:
                            try:
                                prepared = await asyncio.to_thread(self.conversations.prepare, parsed, lock=key)
                            finally:  # what prepare wrote before it failed is committed too, not left in an open group
                                stored = Stored(self._written(), done=True)
                    except PayloadError as exc:
                        return self._error(proto, 400, str(exc), param=_field_path(proto, exc))
                    except LockMoved as exc:  # nothing was written: take the conversation's lock and go again
                        moved = attempt + 1 < LOCK_MOVES
                        if moved:
                            log.info("%s; takes the conversation's lock and goes again", exc)
                        else:
                            log.warning("request not managed (%s, %d times); forwarded as sent", exc, LOCK_MOVES)
                        quick, prepared = None, None
                    except ContextWindowError as exc:
                        log.warning("request not managed (%s); forwarded as sent", exc)
                        quick, prepared = None, None
                finally:
                    lock.release()
                if moved:
                    continue
                if quick is not None:
                    return await _joined(fwd)
                if prepared is not None:
                    self.stats["changed"] += prepared.changed
                    log.debug("conversation %s: %d known + %d new messages, %d clipped, compacted=%s, changed=%s, fast=%s, prepared in %.1f ms",
                              prepared.conversation_id, prepared.known, prepared.added, prepared.clipped, prepared.compacted,
                              prepared.changed, prepared.fast, 1000 * (time.perf_counter() - t0))
                return await self._forward(request, req, prepared, (lock, parsed, key), started, stored=stored, calm=calm)
            finally:
                self._unlock(key)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _forward_first(self, request: web.Request, req: Request, quick: Quick, ctx: Any, started: float,
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
        fwd = asyncio.ensure_future(self._forward(request, req, prepared, ctx, started, sent=sent, stored=stored, calm=calm))
        fwd.add_done_callback(sent.set)  # a forward that ends before its body went out (an error) ends the wait too

        def commit() -> None:
            try:
                done = self.conversations.commit(quick)  # synchronous: whole or not at all
                prepared.known, prepared.added, prepared.tokens = done.known, done.added, done.tokens
                stored.group = self._written()
                if self._inflight <= 1:  # alone: made durable now, while the upstream works
                    # a failure here is _forward's to report (it commits again before relaying): raised
                    # from here, after the body went out, the request would be forwarded a second time
                    with contextlib.suppress(StoreError):
                        self._durable(stored.group)
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

    async def _forward(self, request: web.Request, req: Request, prepared: Prepared | None, ctx: Any, started: float,
                       sent: Sent | None = None, stored: Stored | None = None, calm: Callable[[], None] | None = None) -> web.StreamResponse:
        """Send the request upstream and relay the answer; ``sent`` is set once the body is
        handed to the connection (or the attempt is over), and then ``calm`` is called (the
        request is no longer urgent: proxy/lane.py); relaying the answer is urgent again. The
        answer waits for ``stored`` and its group commit (the client never has an answer to a
        request whose messages are not stored yet, durably)."""
        assert self._client is not None
        url = join_url(self._upstream(request.path), request.path_qs)
        headers = self._forward_headers(request)
        data: Any = prepared.data if prepared is not None else req.raw
        if sent is None:
            sent = Sent()
        if calm is not None:
            sent.future.add_done_callback(lambda _: calm())
        data = SentBody(data, sent)
        proto = req.protocol
        retried = False
        while True:
            try:
                upstream_cm = self._client.request("POST", url, data=data, headers=headers)
                try:
                    resp = await upstream_cm.__aenter__()
                finally:
                    sent.set()
            except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
                return self._error(proto, 504, f"upstream {url} did not answer in time: {exc}", kind="api_error")
            except aiohttp.ClientError as exc:
                return self._error(proto, 502, f"upstream {url} unreachable or broken: {exc}", kind="api_error")
            try:
                with self._lane.urgent_work():  # the answer is back: relayed before any bookkeeping
                    if stored is not None:
                        if stored.job is not None:
                            stored.job.now()  # its messages, still queued in the lane, are stored now
                        await stored.wait()
                        self._durable(stored.group)
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
                                    self._durable(self._written())
                        if again is not None:
                            retried = True
                            self.stats["retries"] += 1
                            log.info("conversation %s: the provider said the context is too long; compacted and retried", again.conversation_id)
                            prepared, data = again, again.data
                            await upstream_cm.__aexit__(None, None, None)
                            continue
                        await upstream_cm.__aexit__(None, None, None)
                        return self._relay_buffered(resp, err)
                    out = await self._relay(request, resp, req, prepared, ctx, started)
            except BaseException:
                resp.close()  # the client went away (or we failed): drop the upstream connection, cancelling its answer
                raise
            await upstream_cm.__aexit__(None, None, None)
            return out

    @staticmethod
    def _response_headers(resp: aiohttp.ClientResponse) -> dict[str, str]:
        out = {k: v for k, v in resp.headers.items() if k.lower() not in HOP_BY_HOP}
        if resp.headers.get("content-encoding"):
            out["Content-Encoding"] = resp.headers["content-encoding"]
        return out

    def _relay_buffered(self, resp: aiohttp.ClientResponse, body: bytes) -> web.Response:
        return web.Response(status=resp.status, body=body, headers=self._response_headers(resp))

    async def _relay(self, request: web.Request, resp: aiohttp.ClientResponse, req: Request, prepared: Prepared | None, ctx: Any,
                     started: float) -> web.StreamResponse:
        streaming = "text/event-stream" in resp.headers.get("content-type", "")
        # the headers go out at prepare(), before the record below is made: a client already gone
        # fails there, and its answer is not accounted (buffering them into the first write, as
        # web.Response does, measured no cheaper and would let that record through)
        out = web.StreamResponse(status=resp.status, reason=resp.reason, headers=self._response_headers(resp))
        length = resp.headers.get("content-length")
        if length and length.isdigit() and not streaming:
            out.content_length = int(length)
        tap = UsageTap(streaming=streaming, encoding=resp.headers.get("content-encoding"))
        whole = out.content_length
        completed = False
        done: asyncio.Future[None] | None = None
        relayed = asyncio.Event()  # the client has the answer's last byte (or will get no more)
        try:
            await out.prepare(request)
            async for chunk in resp.content.iter_any():
                tap.feed(chunk)
                if done is None and (tap.finished or (whole is not None and tap.bytes >= whole)):
                    # the answer is whole before its last bytes go out: the record's task is made now,
                    # and takes the conversation's lock on its first step, before the client can
                    # send its next request (an SDK goes on at the stream's last event, while the
                    # upstream's end of the body may still be on its way)
                    done = self._account(req, resp.status, tap, prepared, ctx, started, relayed)
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
                done = self._account(req, resp.status, tap, prepared, ctx, started, relayed)
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

    def _account(self, req: Request, status: int, tap: Any, prepared: Prepared | None, ctx: Any, started: float,
                 relayed: asyncio.Event) -> asyncio.Future[None] | None:
        """The task that records a whole answer (its usage and reply), under the conversation's lock.
        The task holds its own reference to the lock (released when it ends): the handler of the
        request may end first (an SDK hangs up at the stream's last event, which cancels it), and
        the conversation's next request must still find the lock the record holds, not a new one."""
        if status != 200 or prepared is None or ctx is None:
            return None
        # the handler's lock (its reference is still held here: the same lock as ctx[0]), which is
        # the conversation's (Conversations.prepare and quick checked it under the lock)
        keys = [ctx[2]]
        locks = [self._lock(k) for k in keys]
        done = asyncio.ensure_future(self._record(locks, keys, req, tap, prepared, time.monotonic() - started, relayed))
        self._tasks.add(done)
        done.add_done_callback(self._recorded)
        return done

    def _recorded(self, done: asyncio.Future[None]) -> None:
        self._tasks.discard(done)
        if not done.cancelled() and done.exception() is not None:
            log.error("the record of an answer failed", exc_info=done.exception())

    async def _record(self, locks: list[asyncio.Lock], keys: list[str], req: Request, tap: Any, prepared: Prepared, latency: float,
                      relayed: asyncio.Event) -> None:
        try:
            async with contextlib.AsyncExitStack() as held:
                for lock in locks:  # in this order everywhere; a request holds one lock only: no cycle
                    await held.enter_async_context(lock)
                await self._record_locked(req, tap, prepared, latency, relayed, keys)
        finally:
            for key in keys:
                self._unlock(key)

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
            answer = Answer(req.protocol.name, tap.data() if tap.streaming else tap.body(), tap.streaming)
            if prepared.fast:
                self.conversations.record(prepared.conversation_id, usage, fast=True, answer=answer)
                self._written()  # its commit scheduled
                return None
            return asyncio.ensure_future(asyncio.to_thread(self.conversations.record, prepared.conversation_id, usage, answer=answer,
                                                           id_map=prepared.id_map))

        built = await self._lane.submit(record, *keys).future
        if built is not None:  # after a build: Session.record (calibration) in a worker thread
            await built
            self._written()

    async def _passthrough(self, request: web.Request) -> web.StreamResponse:
        assert self._client is not None
        url = join_url(self._upstream(request.path), request.path_qs)
        body: AsyncIterator[bytes] | None = request.content.iter_chunked(1 << 16) if request.body_exists else None
        headers = self._forward_headers(request)
        if body is not None and request.content_length is not None:
            headers["Content-Length"] = str(request.content_length)  # streamed through, not re-chunked
        try:
            async with self._client.request(request.method, url, data=body, headers=headers) as resp:
                out = web.StreamResponse(status=resp.status, reason=resp.reason, headers=self._response_headers(resp))
                length = resp.headers.get("content-length")
                if length and length.isdigit():
                    out.content_length = int(length)
                await out.prepare(request)
                async for chunk in resp.content.iter_any():
                    await out.write(chunk)
                await out.write_eof()
                return out
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            return self._error(shape_for(request.path), 504, f"upstream {url} did not answer in time: {exc}", kind="api_error")
        except aiohttp.ClientError as exc:
            return self._error(shape_for(request.path), 502, f"upstream {url} unreachable or broken: {exc}", kind="api_error")


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


async def _joined(fwd: asyncio.Future[web.StreamResponse]) -> web.StreamResponse:
    """Await a forward running in its own task; the handler's cancellation (the client went away) cancels it."""
    try:
        return await asyncio.shield(fwd)
    except asyncio.CancelledError:
        fwd.cancel()
        raise


def proto_usage(proto: Protocol, tap: Any, model: str | None) -> Any:
    if tap.streaming:
        return proto.usage_from_events(tap.events, model)
    return proto.usage_from_body(tap.body(), model)


def _field_path(proto: Protocol, exc: PayloadError) -> str | None:
    key = "input" if proto.name == "openai_responses" else "messages"
    if exc.index is not None:
        return f"{key}[{exc.index}]" + (f".{exc.field}" if exc.field else "")
    return exc.field


class BackgroundProxy:
    """A proxy on its own event loop in a daemon thread (tests, benchmarks, embedding)::

        with BackgroundProxy(ProxyConfig(upstream=url, port=0), conversations) as proxy:
            client = OpenAI(base_url=f"{proxy.url}/v1", api_key="...")
    """

    def __init__(self, config: ProxyConfig, conversations: Conversations) -> None:
        self.server = ProxyServer(config, conversations)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="ctxw-proxy")

    @property
    def url(self) -> str:
        return f"http://{self.server.config.host}:{self.server.port}"

    def __enter__(self) -> BackgroundProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(timeout=60)
        return self

    def wait_idle(self, timeout: float = 120.0) -> None:
        """Block until the proxy handles no request (usage of answers already relayed is recorded)."""
        asyncio.run_coroutine_threadsafe(self.server.wait_idle(), self._loop).result(timeout=timeout)

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self._loop).result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


#: gen-0 threshold of the proxy process (CPython's default is 700): a request allocates thousands of
#: short-lived objects (its parsed body), freed by reference counting; with the default, young
#: collections ran hundreds of times a second and each full one walked every live Session
GC_YOUNG = 10_000


def calm_gc() -> None:
    """Tune the collector of a process that is only the proxy (``ctxw proxy``; not done for an
    embedded :class:`BackgroundProxy`, whose process is not ours): everything loaded at start (the
    model registry, tokenizers, modules) is frozen out of collection, and young collections run
    every ``GC_YOUNG`` allocations. Measured at 50 clients: collection CPU 0.70 s → 0.07 s over
    2,000 requests, and no more full collections of ~65 ms in the middle of answers (docs/proxy.md)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, max(middle, 20), max(old, 20))


def run(config: ProxyConfig, conversations: Conversations, ready: Mapping[str, Any] | None = None) -> None:
    """Serve in the foreground until interrupted (``ctxw proxy``)."""

    async def main() -> None:
        server = ProxyServer(config, conversations)
        await server.start()
        calm_gc()
        if ready is not None and callable(ready.get("callback")):
            ready["callback"](server)
        stop = asyncio.Event()
        with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers on this platform/thread
            # `kill`, a service manager, `docker stop`: close as on Ctrl-C, so the open group of
            # writes (the last replies and usage rows) is committed, not lost with the process
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await server.close()

    asyncio.run(main())
