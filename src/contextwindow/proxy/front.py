"""The lean front of ``ctxw proxy`` (``--front lean``): an ``asyncio.Protocol`` HTTP/1.1 server
that forwards what needs no change itself and hands everything else to a worker.

Why: at 50 phase-locked clients the serving loop's CPU per request decides the p99; ``ctxw proxy``
spends ~0.95 ms there, a bare relay ~0.1 ms (docs/proxy.md, "the floor under the 50-client p99").
So the front does per request only what a relay must, plus the byte-level "nothing to change"
decision (:mod:`.fastpath`) from state it keeps itself; the store and the Session live in the
worker (:class:`~.server.ProxyServer`, with the internal endpoints of :mod:`.worker`), in another
process under ``ctxw proxy --front lean`` or on the same loop for an embedded proxy.

Per request:

- HTTP/1.1 read by llhttp (``httptools``, in :mod:`.connection`): keep-alive, pipelining, Content-Length and chunked
  bodies; a managed endpoint's body over ``max_body`` is refused with 413 (in the provider's shape)
  as soon as its length says so, or as soon as a chunked body passes it, and the connection closed:
  nothing past the bound is kept; a pass-through body (any other path or method) goes to the
  worker as it arrives, whatever its size (:class:`.body.BodyStream`), as through ``--front
  aiohttp``. The proxy's own token is checked first (401), as :func:`.config.authorized` says for
  both fronts; the worker believes the front's secret instead.
- A managed request whose conversation the front knows and that passes :func:`fastpath.decide`
  goes upstream at once, byte for byte, on a kept connection (:mod:`.pool`); its answer is relayed
  as it arrives (server-sent events piece by piece), without waiting for the worker. The request
  goes to the worker as it goes upstream (``/_ctxw/store``: its new messages stored as ``ctxw
  proxy`` stores them), and the whole answer once relayed (``/_ctxw/answer``: usage and reply),
  in order per conversation; the worker's answer tells the front the room left.
- Anything else goes to the worker as it came (with the worker's secret, so its answer says
  whether the conversation's next request may go as sent), and its answer is relayed; then the
  front tells the worker how many of the answer's bytes its client was written
  (``/_ctxw/delivered``), and the worker records the answer only if that is all of it.
- A provider overflow error on a request the front sent goes to the worker whole, which compacts
  and retries once as always. Upstream unreachable: 502 naming it; no byte for ``read_timeout``
  seconds: 504; the worker unreachable: 502 naming it, and the records that could not be handed
  over are counted (``records_lost``) and logged; the conversation's next request then goes to
  the worker, which stores what the client re-sends (the messages come back; the usage of the lost
  answers does not).
- A client that goes away mid-answer closes the upstream connection (cancelling the answer);
  its request's messages are still handed to the worker, its answer is not.
- An upstream or worker that breaks off an answer whose head is out: the client's connection is
  aborted (logged); nothing can end that answer well. HEAD answers carry no body; an HTTP/1.0
  client gets an answer of unknown length unframed, then the connection closes. ``Expect:
  100-continue`` is answered here. A client's internal ``x-ctxw-*`` headers go nowhere; an encoded
  body goes to the worker.
- Memory: a connection reads no further while a request waits behind the one served; an answer is
  read at most ``body.HIGH_WATER`` ahead of its client; over ``HANDOVER_BYTES`` of hand-overs a
  request waits for the worker to take some (``HANDOVER_WAIT_S`` at most, then it goes to the worker).

What is not as with ``--front aiohttp``: a request forwarded as sent has its answer relayed
without waiting for the worker, so the client may have it before its messages are stored and
committed (``ctxw proxy`` relays an answer only once they are durable); the conversation's next
request that the worker serves waits for them, :meth:`FrontServer.drain` (``wait_idle``) waits for
every hand-over and the worker's commits, and a stop (SIGTERM, Ctrl-C) drains first. A front killed
outright (``kill -9``) loses the hand-overs it had not made: the messages come back with the
client's next request, the usage rows do not. A client that hangs up in the instant its answer's
last bytes are written may have that answer recorded, as with ``--front aiohttp``.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import Any

from ..llm.overflow import describe_error
from . import fastpath
from .body import BodyStream
from .config import TOKEN_HEADER, ProxyConfig, authorized, join_url
from .connection import ClientConnection, error_bytes
from .handover import Backlog, Handovers
from .pool import Pool, UpstreamBroken, UpstreamTimeout, pool_for
from .protocols import BY_PATH, Protocol, shape_for
from .wire import LAST_CHUNK, Head, chunk, encoded, path_of, request_headers, response_head
from .worker import (
    ANSWER_PATH,
    DELIVERED_PATH,
    IDLE_PATH,
    OVERFLOW_HEADER,
    RID_HEADER,
    ROOM_HEADER,
    SECRET_HEADER,
    STORE_PATH,
)

try:
    import orjson
except ImportError:  # without it the front decides nothing: every request goes to the worker
    orjson = None  # type: ignore[assignment]

log = logging.getLogger("contextwindow.proxy")

RETRY_STATUSES = frozenset({400, 413, 422})
KEPT = 4096  # conversations whose last body the front keeps
KEPT_BYTES = 64 << 20  # and their bytes in all
HANDOVER_BYTES = 64 << 20  # hand-overs not yet taken by the worker, above which a request waits for the worker to take some
#: how long at most (seconds); then it goes to the worker, behind its conversation's hand-overs. Sent there at
#: once, it waited for the worker's whole backlog: 12-19 s stalls at load ~10 (docs/proxy.md, 2026-11-25 02:00)
HANDOVER_WAIT_S = 30.0


def _parsed(body: bytes) -> Any:
    assert orjson is not None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _room(value: str, body: bytes) -> tuple[float, float, bool]:
    """The worker's ``x-ctxw-room`` (proxy/worker.py: ``room_headers``): the tokens the
    conversation's next request may add, tokens per byte that bound its count, and whether it was
    a room for the whole request (``/whole``, before the conversation's first report: what
    ``body``'s bytes leave of it; ``body``: the last one the front sent of it)."""
    tokens, per, whole = [*value.split("/"), "", ""][:3]
    room, by = float(tokens), float(per or 1.0)
    return (room - by * len(body) if whole == "whole" else room), by, whole == "whole"


def _kept(client: ClientConnection, body: bytes | BodyStream, keep: bool) -> bool:
    """Whether the connection is kept after an answer whose head goes out now: not when the
    request's relayed body has not ended (where the client's next request would start is not
    known: the head says ``connection: close``, and the connection closes after it)."""
    if isinstance(body, BodyStream) and not body.done:
        client.closing = True
        return False
    return keep


class FrontServer:
    """The lean front (module docstring): serves ``config.host:config.port``, hands over to the
    worker at ``worker_url``, whose internal endpoints answer ``secret``."""

    def __init__(self, config: ProxyConfig, worker_url: str, secret: str, *, clip_budget: int | None,
                 handover_cap: int = HANDOVER_BYTES, handover_wait: float = HANDOVER_WAIT_S) -> None:
        self.config = config
        self.secret = secret
        self.clip = clip_budget
        self.worker_url = worker_url
        self._worker = self._worker_pool(worker_url)
        self._pools: dict[str, Pool] = {}
        self.convs = fastpath.Table(KEPT, KEPT_BYTES)
        #: the whole-request room of a conversation's first request, by its shape (fastpath.shape_of), learned from the worker
        self.limits: collections.OrderedDict[bytes, tuple[float, float]] = collections.OrderedDict()
        self._ids = 0  # requests forwarded as sent or handed over whole, numbered in that order for the worker (worker.Handed)
        self.handovers = Handovers(self._post, ANSWER_PATH)
        self.backlog = Backlog(handover_cap, handover_wait)
        self.stats = {"requests": 0, "front_fast": 0, "delegated": 0, "records_lost": 0, "cancelled": 0,
                      "read_ahead_peak": 0, "read_paused": 0, "handover_capped": 0, "handover_waited": 0, "front_first": 0, "words_lost": 0}
        self.port = config.port
        self._server: asyncio.AbstractServer | None = None
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    # --- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: ClientConnection(self), self.config.host, self.config.port, reuse_address=True)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def drain(self) -> None:
        """Return once no request is being served, every request forwarded as sent has been handed
        to the worker, and the worker is idle with its writes committed (the tests' barrier)."""
        while True:
            await self._idle.wait()
            if self.handovers.held or self.handovers.tasks:
                await self.handovers.settle()
                continue
            break
        conn, head = await self._worker.send("POST", IDLE_PATH, [(SECRET_HEADER, self.secret)], b"")
        async for _ in conn.chunks():
            pass
        self._worker.release(conn)
        if head.status != 204:
            raise UpstreamBroken(f"the proxy's worker at {self.worker_url} did not go idle: {head.status}")

    async def close(self, grace: float = 30.0) -> None:
        """Stop: accept no more connections, wait up to ``grace`` seconds for the requests in flight,
        hand over every held answer and wait for the hand-overs, then close the connections."""
        if self._server is not None:
            self._server.close()
            self._server = None
        if not self._idle.is_set():
            try:
                await asyncio.wait_for(self._idle.wait(), grace)
            except TimeoutError:
                log.error("the front stopped with %d requests still in flight after %g s", self._inflight, grace)
        await self.handovers.settle()
        self._worker.close()
        for pool in self._pools.values():
            pool.close()

    def status(self) -> dict[str, int]:
        return {**self.stats, "front_conversations": len(self.convs)}

    def _worker_pool(self, worker_url: str) -> Pool:
        return pool_for(worker_url, connect_timeout=self.config.connect_timeout, read_timeout=self.config.read_timeout)

    def retarget(self, worker_url: str) -> None:
        """The worker listens elsewhere now (it was started again): what the front kept is
        forgotten, and the conversations' next requests go to the new worker."""
        lost = self.handovers.drop_held()  # answers the old worker would have recorded; the new one knows not their requests
        if lost:
            self.stats["records_lost"] += lost
            log.error("the proxy's worker was started again: %d answers not handed over are lost (their usage is not recorded)", lost)
        # (hand-overs under way to the old worker fail, and are counted, as their connections close)
        self._worker.close()
        self.worker_url = worker_url
        self._worker = self._worker_pool(worker_url)
        self.convs.clear()
        self.limits.clear()  # learned from the old worker's Sessions

    # --- a request ------------------------------------------------------------------------------
    async def serve(self, client: ClientConnection, head: Head, body: bytes | BodyStream, keep: bool) -> None:
        self._inflight += 1
        self._idle.clear()
        try:
            await self._serve(client, head, body, keep)
        except (ConnectionResetError, asyncio.CancelledError):
            self.stats["cancelled"] += 1
            raise
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()

    async def _serve(self, client: ClientConnection, head: Head, body: bytes | BodyStream, keep: bool) -> None:
        started = time.monotonic()
        self.stats["requests"] += 1
        path = path_of(head.target)
        if not authorized(self.config.token, head.get(TOKEN_HEADER), head.get("proxy-authorization")):  # the first of each, as aiohttp's
            client.write(error_bytes(shape_for(path), 401, f"the proxy needs its token: send it in the {TOKEN_HEADER} header",
                                kind="authentication_error", close=not _kept(client, body, keep)))
            return
        if isinstance(body, BodyStream):  # a pass-through body, relayed as it arrives (connection.read_whole)
            await self._delegate(client, head, body, keep, None, None, None)
            return
        hmap = dict(head.headers)
        proto = BY_PATH.get(path) if head.method == "POST" else None
        key: bytes | None = None
        bkey: bytes | None = None
        doc: Any = None
        plain = not encoded(head.headers)
        # the worker is behind (back-pressure; said on stderr): a managed request waits for room. Not one the worker
        # serves whatever the cap (no managed endpoint, an encoded body): it goes to it at once, not counted
        capped = proto is not None and plain and self.backlog.over(self.handovers.bytes, started)
        if capped:
            self.stats["handover_waited"] += 1
            capped = not await self.handovers.room(self.backlog.cap, self.backlog.wait)
        self.stats["handover_capped"] += capped
        if proto is not None and proto.name in fastpath.DECIDED and orjson is not None and plain and not capped:
            bkey = fastpath.byte_key(path, hmap, body)
            key = self.convs.by_bytes(bkey)
            conv = self.convs.get(key)
            got = None
            if conv is not None:  # found by its bytes: the new bytes alone decide, where they can
                got = fastpath.decide(conv, proto.name, body, None, self.clip)
            if got is None or got is fastpath.NEED_BODY:
                doc = _parsed(body)
                key = fastpath.key_of(path, hmap, doc) if isinstance(doc, dict) else None
                found = self.convs.get(key)
                if found is not conv or got is fastpath.NEED_BODY:
                    got = fastpath.decide(found, proto.name, body, doc, self.clip) if found is not None else None
                conv = found
                if got is None and key is not None and isinstance(doc, dict):  # a conversation's first request, or a re-opened one's
                    opened = fastpath.first(self.limits.get(fastpath.shape_of(path, doc) or b""), proto.name, body, doc, self.clip)
                    if opened is not None:
                        conv, got = opened
                        self.convs.remember(key, conv)
                        self.stats["front_first"] += 1
            if got is not None and got is not fastpath.NEED_BODY and conv is not None and key is not None:
                self.convs.alias_to(bkey, key, conv)
                await self._fast(client, head, body, keep, key, conv, got, proto, hmap, started)
                return
            bkey = None if key is None else bkey
        elif proto is not None and capped:  # it still waits for its conversation's hand-overs (else it may be served before them)
            bkey = fastpath.byte_key(path, hmap, body)
            key = self.convs.by_bytes(bkey)
            if key is None and self.handovers.chains and orjson is not None:
                doc = _parsed(body)
                key = fastpath.key_of(path, hmap, doc) if isinstance(doc, dict) else None
            bkey = None if key is None else bkey
        await self._delegate(client, head, body, keep, key, proto, doc, bkey=bkey)

    def _pool(self, path: str) -> tuple[Pool, str]:
        base = self.config.upstream_for(path)
        pool = self._pools.get(base)
        if pool is None:
            pool = self._pools[base] = pool_for(base, connect_timeout=self.config.connect_timeout, read_timeout=self.config.read_timeout)
        return pool, base

    async def _fast(self, client: ClientConnection, head: Head, body: bytes, keep: bool, key: bytes, conv: fastpath.Conv,
                    got: tuple[Any, float, list[Any]], proto: Protocol, hmap: dict[str, str], started: float) -> None:
        """Forward as sent (an opening request too, :func:`fastpath.first`: the worker tells a
        re-opened conversation's from a late hand-over by the request's number, ``worker.Handed``)."""
        sent, cost, new = got
        path = path_of(head.target)
        self.convs.sent(key, conv, sent)
        conv.room -= cost
        conv.call_ids |= fastpath.call_ids(proto.name, new)
        conv.last = fastpath.side(proto.name, new[-1])
        conv.pending.append(cost)
        self.stats["front_fast"] += 1
        self._ids += 1
        rid = str(self._ids)
        assert orjson is not None
        meta = orjson.dumps(hmap)
        headers = [("x-ctxw-id", rid), ("x-ctxw-path", path)]
        held = self.handovers.take(key)
        if held is None:
            self.handovers.post(key, STORE_PATH, [*headers, ("x-ctxw-split", f"{len(meta)},{len(meta) + len(body)}")], meta + body)
        else:  # the previous answer first, in the same hand-over
            self.handovers.post(key, STORE_PATH, [*headers, *held[0], ("x-ctxw-split", f"{len(meta)},{len(meta) + len(body)}")], meta + body + held[1])
        pool, base = self._pool(path)
        url = join_url(base, head.target)
        target = url[len(pool.name):]
        status, ctype, encoding, handed = 0, "", "", False
        pieces: list[bytes] = []
        try:
            try:
                conn, rh = await pool.send("POST", target, request_headers(head.headers), body)
            except UpstreamTimeout as exc:
                client.write(error_bytes(proto, 504, f"upstream {url} did not answer in time: {exc}", kind="api_error", close=not keep))
                return
            except UpstreamBroken as exc:
                client.write(error_bytes(proto, 502, f"upstream {url} unreachable or broken: {exc}", kind="api_error", close=not keep))
                return
            try:
                if rh.status in RETRY_STATUSES:
                    try:
                        err = b"".join([p async for p in conn.chunks()])
                    except (UpstreamBroken, UpstreamTimeout) as exc:  # nothing is out yet: said
                        code = 504 if isinstance(exc, UpstreamTimeout) else 502
                        client.write(error_bytes(proto, code, f"upstream {url} broke off its answer: {exc}", kind="api_error", close=not keep))
                        return
                    pool.release(conn)
                    if describe_error(rh.status, err, None).kind == "context_overflow":  # the worker compacts and retries
                        self.convs.forget(key)
                        handed = True
                        self.handovers.answered(key, rid, 0, "", "", b"", started)
                        log.info("the provider said the context is too long; the request goes to the worker, which compacts and retries")
                        await self._delegate(client, head, body, keep, key, proto, None, overflowed=True)
                        return
                    client.write(response_head(rh.status, rh.headers, length=len(err), close=not keep) + err)
                    return
                def whole() -> None:  # queued for the worker before the last drain: the client's next request comes after it
                    nonlocal handed
                    handed = True
                    self.handovers.answered(key, rid, rh.status, rh.get("content-type"), rh.get("content-encoding"), b"".join(pieces), started)

                await self._relay(client, head, conn, rh, keep, pieces, whole)
                pool.release(conn)
            except BaseException:
                conn.close()  # the client went away (or the upstream broke): the answer is cancelled
                raise
        finally:  # its messages are stored whatever happened; its answer is recorded when the client had it whole
            if not handed:
                self.handovers.answered(key, rid, status, ctype, encoding, b"".join(pieces), started)

    async def _relay(self, client: ClientConnection, req: Head, conn: Any, rh: Head, keep: bool, pieces: list[bytes] | None,
                     whole: Any = None, written: list[int] | None = None) -> None:
        """Relay an answer whose head is in; ``whole()`` is called once its body is all written (to a
        client whose end the front has not seen: :meth:`.connection.ClientConnection.write`), before the chunked framing's
        end and the last wait for the client to take it. An answer to HEAD has no body (whatever its headers
        say); an HTTP/1.0 client gets an answer of unknown length unframed, then the connection closes.
        ``written[0]`` counts the body's bytes written to the client (the worker's record compares it
        with the bytes that hold the whole answer: a client that hangs up at the last event had it)."""
        bodiless = req.method == "HEAD" or rh.status in (204, 304)
        unknown = rh.length is None and not bodiless
        chunked = unknown and not req.http10
        if unknown and req.http10:
            keep = False
            client.closing = True
        length = rh.length if rh.length is not None else (0 if rh.status in (204, 304) else None)
        client.write(response_head(rh.status, rh.headers, length=None if unknown else length, close=not keep,
                                   framed=chunked))
        if not bodiless:
            async for piece in conn.chunks():
                if pieces is not None:
                    pieces.append(piece)
                await client.drain()
                client.write(chunk(piece) if chunked else piece)
                if written is not None:
                    written[0] += len(piece)
        if whole is not None:  # every byte of the answer is written (a client that hangs up at its end had it)
            whole()
        if chunked:
            client.write(LAST_CHUNK)
        await client.drain()

    async def _delegate(self, client: ClientConnection, head: Head, body: bytes | BodyStream, keep: bool, key: bytes | None, proto: Protocol | None,
                        doc: Any, *, overflowed: bool = False, bkey: bytes | None = None) -> None:
        """``key``: the front's key of the request's conversation (None: not one the front decides);
        ``doc``: its parsed body, when parsed already; ``overflowed``: the front kept nothing of it."""
        self.stats["delegated"] += 1
        if key is not None:
            self.handovers.flush(key)
            chain = self.handovers.chains.get(key)
            if chain is not None:  # the worker serves it after the requests the front sent before it
                await asyncio.wait([chain])
        path = path_of(head.target)
        headers = request_headers(head.headers, drop_own=False)
        headers = [(k, v) for k, v in headers if k != SECRET_HEADER]
        if not path.startswith("/_ctxw/"):
            headers.append((SECRET_HEADER, self.secret))
            if overflowed:
                headers.append((OVERFLOW_HEADER, "1"))
        has_body = isinstance(body, BodyStream) or bool(body) or head.method in ("POST", "PUT", "PATCH")
        rid = None
        if proto is not None and not path.startswith("/_ctxw/"):  # the worker records its answer once told the client had it
            self._ids += 1
            rid = f"d{self._ids}"
            headers.append((RID_HEADER, rid))
        status, written = 200, [-1]  # the answer's body bytes the client was written (-1: no answer)
        reported = False

        def report() -> None:  # the worker's record of the answer waits for it, holding the conversation's lock
            nonlocal reported
            if rid is not None and status == 200 and not reported:  # (the worker records no answer of another status)
                reported = True
                # on its own, not after the conversation's hand-overs: a store queued before it waits for that lock
                self.handovers.post(b"\0" + rid.encode(), DELIVERED_PATH, [(RID_HEADER, rid), ("x-ctxw-delivered", str(written[0]))], b"")

        try:
            try:
                conn, rh = await self._worker.send(head.method, head.target, headers, body if has_body else None)
            except UpstreamTimeout as exc:
                client.write(error_bytes(proto or shape_for(path), 504, f"the proxy's worker at {self.worker_url} did not answer in time: {exc}",
                                    kind="api_error", close=not _kept(client, body, keep)))
                return
            except UpstreamBroken as exc:
                if isinstance(body, BodyStream) and body.failed:  # the client's body broke off, not the worker:
                    log.debug("a pass-through body broke off before the worker answered (%s)", exc)  # its connection answers (400) or is gone
                    return
                log.error("the proxy's worker at %s is unreachable: %s", self.worker_url, exc)
                client.write(error_bytes(proto or shape_for(path), 502, f"the proxy's worker at {self.worker_url} is unreachable: {exc}",
                                    kind="api_error", close=not _kept(client, body, keep)))
                return
            status, room = rh.status, rh.get(ROOM_HEADER)
            written[0] = 0
            try:
                # the word goes once the answer's last byte is written, not after the client took it all
                await self._relay(client, head, conn, rh, _kept(client, body, keep), None, report, written=written)
                self._worker.release(conn)
            except BaseException:
                conn.close()
                raise
        finally:
            report()  # the client went away (or the worker broke off) before: the bytes it was written
        if key is None:
            return
        if room and rh.status == 200 and proto is not None and not overflowed and isinstance(body, bytes):
            doc = _parsed(body) if doc is None else doc
            msgs = fastpath.history_of(proto.name, doc) if isinstance(doc, dict) else None
            if not isinstance(msgs, list):
                self.convs.forget(key)
                return
            sent = fastpath.resend.Sent(raw=body, count=len(msgs), fingerprints=(), clean=True)
            tokens, per, whole = _room(room, body)
            if whole and fastpath.opening(proto.name, msgs):
                self._learn(fastpath.shape_of(path, doc), room)
            conv = fastpath.Conv(sent, tokens, per, fastpath.call_ids(proto.name, msgs), last=fastpath.side(proto.name, msgs[-1]) if msgs else "")
            self.convs.remember(key, conv, bkey)
        else:
            self.convs.forget(key)

    def _learn(self, shape: bytes | None, room: str) -> None:
        """The worker's whole-request room for a first request of this shape (the next ones of the
        shape go from the front: :func:`fastpath.first`)."""
        if shape is None:
            return
        self.limits[shape] = _room(room, b"")[:2]
        self.limits.move_to_end(shape)
        while len(self.limits) > KEPT:
            self.limits.popitem(last=False)

    # --- hand-over to the worker ----------------------------------------------------------------
    async def _post(self, key: bytes, path: str, headers: list[tuple[str, str]], body: bytes, broken: bool = False) -> bool:
        """One hand-over (:mod:`.handover` orders them), and what the worker's answer says of the room;
        False when it failed. ``broken``: an earlier one of its chain failed: not posted (it could land
        before that one, which the worker may still take), counted."""
        if broken:
            self.stats["records_lost"] += 1
            self.convs.forget(key)
            log.error("a hand-over to the proxy's worker is dropped after an earlier one of its conversation failed: %s",
                      "its messages are stored with the conversation's next request" if path == STORE_PATH else "its usage is lost")
            return False
        try:
            conn, rh = await self._worker.send("POST", path, [(SECRET_HEADER, self.secret), *headers], body)
            async for _ in conn.chunks():
                pass
            self._worker.release(conn)
        except (UpstreamBroken, UpstreamTimeout) as exc:
            if path == DELIVERED_PATH:  # its answer is recorded all the same (proxy/record.py: Recorder._delivered)
                self.stats["words_lost"] += 1
                log.error("the word on whether the client had an answer the proxy's worker served could not be handed to it at %s (%s): "
                          "it records that answer at the conversation's next request, or in a few seconds", self.worker_url, exc)
                return False
            self.stats["records_lost"] += 1
            self.convs.forget(key)  # the conversation's next request goes to the worker, which stores what the client re-sends
            log.error("a request forwarded as sent could not be handed to the proxy's worker at %s (%s): %s", self.worker_url, exc,
                      "its messages are stored with the conversation's next request" if path == STORE_PATH else "its usage is lost")
            return False
        conv = self.convs.get(key)
        if conv is None or path == DELIVERED_PATH:  # (the room came with the answer itself)
            return True
        if path == STORE_PATH and conv.pending:
            conv.pending.popleft()  # its messages are in the worker's room now
        room = rh.get(ROOM_HEADER)
        if rh.status != 200 or not room:
            self.convs.forget(key)  # the worker decides the next one (a build is due, or it saw a change)
            return True
        tokens, conv.per_byte, whole = _room(room, conv.sent.raw)
        # the worker's room after this one, less what was sent since (a whole-request room: the last body sent is in it)
        conv.room = tokens - (0 if whole else sum(conv.pending))
        return True
