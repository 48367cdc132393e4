"""The HTTP side of ``ctxw proxy``: the app, its routes, the proxy's own auth, and the handler
of a request, from its body to the forward.

aiohttp serves (asyncio: many slow streams at once, one thread). Managed endpoints (``POST
/v1/chat/completions``, ``/v1/responses``, ``/v1/messages``) go through
:class:`~.conversations.Conversations` under a per-conversation lock (:mod:`.locks`): the common
case (nothing to change) is decided on the loop and forwarded before its new messages are stored;
a build, which may compact, runs in a worker thread. Every other path and method is forwarded
untouched, its body streamed through. The rest is in its own module:

- :mod:`.config` — :class:`ProxyConfig`, the upstream URL and the headers forwarded;
- :mod:`.locks` — the per-conversation locks;
- :mod:`.forward` — the forward, the relay of the answer as it arrives, the overflow retry;
- :mod:`.record` — group commits and the record of an answer (usage, reply);
- :mod:`.relay` / :mod:`.reply` — the usage and the reply read from an answer (pure).

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
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web

from ..errors import ContextWindowError, PayloadError
from ..store.base import background_checkpoints_of
from . import worker
from .config import TOKEN_HEADER, ProxyConfig, authorized, is_loopback, join_url
from .conversations import Conversations, LockMoved, Request
from .forward import Forwarder, error_response, joined
from .history import parse_request
from .lane import Lane
from .locks import Locks
from .protocols import BY_PATH, Protocol, shape_for
from .record import GROUP_COMMIT_S, Commits, Recorder, Stored

__all__ = ["GROUP_COMMIT_S", "BackgroundProxy", "ProxyConfig", "ProxyServer", "calm_gc", "is_loopback", "join_url", "run"]

log = logging.getLogger("contextwindow.proxy")

#: How often a request whose conversation moved to another lock while it waited (an identity that
#: became another conversation's alias) takes the new lock and goes again before it is forwarded unmanaged.
LOCK_MOVES = 3


class _TooLarge(Exception):
    pass


class ProxyServer:
    """Serve until closed. ``await start()`` in a running loop, or use :class:`BackgroundProxy`."""

    def __init__(self, config: ProxyConfig, conversations: Conversations) -> None:
        config.check()
        self.config = config
        self.conversations = conversations
        self.stats = {"requests": 0, "managed": 0, "changed": 0, "passthrough": 0, "retries": 0, "cancelled": 0, "fast": 0}
        self._runner: web.AppRunner | None = None
        self.port = config.port
        self._inflight = 0
        self._idle: asyncio.Event | None = None
        self._stop_checkpoints: Callable[[], None] | None = None
        self._lane = Lane(defer=config.lane)  # bookkeeping waits while requests go upstream and answers come back (proxy/lane.py)
        self.locks = Locks(conversations, self._lane)
        conversations.lock_in_use = self.locks.in_use  # a conversation's lock key is forgotten only while no request uses it
        self._commits = Commits()
        self._recorder = Recorder(conversations, self.locks, self._lane, self._commits)
        #: the lean front's requests forwarded as sent, stored, whose answers it has not handed over yet (proxy/worker.py)
        self.front_pending: dict[str, Any] = {}
        self.handed = worker.Handed()  # the front's numbers of the latest requests taken, per conversation (late hand-overs)
        self._upstream = Forwarder(config, conversations, self._lane, self._commits, self._recorder, self.stats, lambda: self._inflight)

    def status(self) -> dict[str, int]:
        """What the proxy has done and what it holds now: the request counters (``stats``), the
        conversations live in memory, the lock keys remembered, the locks held or waited for (0
        once idle: more means a request or a record never gave its lock back) and bookkeeping
        jobs queued. ``ctxw proxy`` prints it when it stops."""
        return {**self.stats, **self.conversations.held(), "locks": len(self.locks), "queued": len(self._lane),
                "undelivered": self._recorder.undelivered, "unconfirmed": self._recorder.unconfirmed,
                "awaiting_delivery": len(self._recorder.deliveries)}

    # --- lifecycle ------------------------------------------------------------------------------
    async def wait_idle(self) -> None:
        """Return once no request is being handled (its usage recorded and committed, its lock released)."""
        if self._idle is not None:
            await self._idle.wait()
        await self._recorder.drain()
        self._lane.run_all()
        self._commits.flush_now()

    async def start(self) -> None:
        await asyncio.to_thread(self.conversations.warm)
        background = background_checkpoints_of(self.conversations.store)
        if background is not None and self._stop_checkpoints is None:  # SQLite: no checkpoint stalls the loop
            self._stop_checkpoints = background.checkpoint_in_background()
        self._commits.start(self.conversations.store)
        self._idle = asyncio.Event()
        self._idle.set()
        self._upstream.open()
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
        await self._recorder.drain()  # records of answers already relayed end before the last commit
        self._lane.run_all()
        await self._commits.stop()  # commits what is pending
        if self._stop_checkpoints is not None:
            await asyncio.to_thread(self._stop_checkpoints)
            self._stop_checkpoints = None
        await self._upstream.close()

    # --- helpers --------------------------------------------------------------------------------
    def _authorized(self, request: web.Request) -> bool:
        """The proxy's own token, or (a lean front's worker) the front's secret: the front asked
        the same question of its client's headers, ``Proxy-Authorization`` included, which it does
        not hand on (hop-by-hop)."""
        if worker.from_front(self.config, request):
            return True
        return authorized(self.config.token, request.headers.get(TOKEN_HEADER, ""), request.headers.get("proxy-authorization", ""))

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

    # --- the handler ----------------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.StreamResponse:
        assert self._idle is not None
        internal = self.config.worker_secret is not None and worker.is_internal(self, request)
        if internal and request.path == worker.IDLE_PATH:  # the lean front's drain: not a request of its own
            return await worker.idle(self)
        self._inflight += 1
        self._idle.clear()
        try:
            if internal:  # a request the lean front forwards as sent, or its answer (proxy/worker.py)
                if request.path == worker.DELIVERED_PATH:
                    return await worker.delivered(self, request)
                return await (worker.store if request.path == worker.STORE_PATH else worker.answer)(self, request)
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
            return error_response(shape, 401, f"the proxy needs its token: send it in the {TOKEN_HEADER} header", kind="authentication_error")
        proto = BY_PATH.get(request.path) if request.method == "POST" else None
        if proto is None:
            self.stats["passthrough"] += 1
            calm()  # not the burst's: streamed through as it comes
            return await self._upstream.passthrough(request)
        try:
            raw = await self._read_body(request)
        except _TooLarge:
            resp = error_response(proto, 413, f"request body over the proxy's limit of {self.config.max_body} bytes", kind="request_too_large")
            resp.force_close()
            return resp
        try:
            body, exact = parse_request(raw)  # the scan for long integers: in Conversations.parse (proxy/resend.py)
        except ValueError as exc:
            return error_response(proto, 400, f"the request body is not valid JSON: {exc}", param="body")
        if not isinstance(body, dict):
            return error_response(proto, 400, f"the request body must be a JSON object, got {type(body).__name__}", param="body")
        req = Request(proto, body, raw, {k.lower(): v for k, v in request.headers.items()}, exact)
        if proto.stateful(body):  # the provider holds the history: nothing to manage, forward as is
            self.stats["passthrough"] += 1
            return await self._upstream.forward(request, req, None, None, started, calm=calm)
        self.stats["managed"] += 1
        try:
            parsed = self.conversations.parse(req)  # pure and about a millisecond: a thread hop would cost more
        except PayloadError as exc:
            field = _field_path(proto, exc)
            return error_response(proto, 400, f"{field}: {exc}" if field else str(exc), param=field)
        self.handed.took(parsed.identity.key, worker.delivery_id(self.config, request))  # numbered by the lean front: in its order
        for attempt in range(LOCK_MOVES):
            key, lock = await self.locks.acquire(parsed.identity.key)
            stored: Stored | None = None
            moved = False
            try:
                try:
                    t0 = time.perf_counter()
                    try:
                        # the common case (nothing to build) is decided here, on the loop, and forwarded
                        # before its new messages are stored; a build, which may compact, runs in a worker thread
                        overflowed = worker.overflowed(self.config, request)  # the lean front sent it as sent: the provider said too long
                        quick = None if overflowed else self.conversations.quick(parsed, key)
                        if quick is not None:
                            fwd = await self._upstream.forward_first(request, req, quick, (lock, parsed, key), started, calm)
                            log.debug("conversation %s: forwarded as sent, its new messages stored in %.1f ms", quick.session.id, 1000 * (time.perf_counter() - t0))
                        else:
                            try:
                                prepared = await asyncio.to_thread(self.conversations.prepare, parsed, force=overflowed, lock=key)
                            finally:  # what prepare wrote before it failed is committed too, not left in an open group
                                stored = Stored(self._commits.written(), done=True)
                    except PayloadError as exc:
                        return error_response(proto, 400, str(exc), param=_field_path(proto, exc))
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
                    return await joined(fwd)
                if prepared is not None:
                    self.stats["changed"] += prepared.changed
                    log.debug("conversation %s: %d known + %d new messages, %d clipped, compacted=%s, changed=%s, fast=%s, prepared in %.1f ms",
                              prepared.conversation_id, prepared.known, prepared.added, prepared.clipped, prepared.compacted,
                              prepared.changed, prepared.fast, 1000 * (time.perf_counter() - t0))
                return await self._upstream.forward(request, req, prepared, (lock, parsed, key), started, stored=stored, calm=calm,
                                                    retried=overflowed)
            finally:
                self.locks.drop(key)
        raise AssertionError("unreachable: the last attempt returns or raises")


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
        self.server: Any
        if config.front == "lean":  # the lean front and its worker on this one loop (proxy/lean.py)
            from .lean import LeanProxy

            self.server = LeanProxy(config, conversations)
        else:
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
        if config.worker_secret:  # a lean front's worker: below the front, the upstream and the clients (proxy/worker.py)
            worker.lower_priority()
        server = ProxyServer(config, conversations)
        await server.start()
        calm_gc()
        if ready is not None and callable(ready.get("callback")):
            ready["callback"](server)
        stop = asyncio.Event()
        if config.worker_secret:  # a lean front's worker (proxy/lean.py): it stops, committing, when its front goes (stdin closes)
            loop = asyncio.get_running_loop()

            def watch_front() -> None:
                # the raw descriptor, not sys.stdin's buffered reader: a daemon thread blocked inside
                # that reader's lock made the interpreter's shutdown a fatal error (_enter_buffered_busy)
                with contextlib.suppress(OSError, ValueError):
                    while os.read(sys.stdin.fileno(), 65536):
                        pass
                loop.call_soon_threadsafe(stop.set)

            threading.Thread(target=watch_front, daemon=True, name="ctxw-front-watch").start()
        with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers on this platform/thread
            # `kill`, a service manager, `docker stop`: close as on Ctrl-C, so the open group of
            # writes (the last replies and usage rows) is committed, not lost with the process
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await server.close()

    asyncio.run(main())
