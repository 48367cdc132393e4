"""The worker behind the lean front: ``ctxw proxy``'s own server (:class:`~.server.ProxyServer`)
with two internal endpoints, answered only to the front that holds the worker's secret.

- ``POST /_ctxw/store``: a request the front is forwarding as sent. Its new messages are stored as
  for a request the worker forwarded itself (:meth:`Conversations.quick` then
  :meth:`~Conversations.commit`; or, when the Session sees a change the front's byte-level test
  did not, :meth:`~Conversations.prepare`, which stores them as it would have sent them, counted
  as ``misjudged`` and logged: that request went upstream as the client sent it).
- ``POST /_ctxw/answer``: that request's answer once relayed (status 0: none reached the client):
  its usage and reply recorded (:class:`~.record.Recorder`). Its answer tells the front the room
  left before the compaction trigger (``x-ctxw-room``: tokens, and tokens per byte that bound the
  counter's count) when the conversation's next request may go as sent again.
- ``POST /_ctxw/delivered``: whether the front's client had, whole, the answer to a request it
  handed over whole (``x-ctxw-rid`` names it; ``x-ctxw-delivered``: the answer's bytes its client
  was written, -1: none): that answer is recorded only once the front says its client had the bytes
  that hold it whole (:class:`~.record.Deliveries`; the relay to the front ends before the front
  knows whether its client went away).
- ``POST /_ctxw/idle``: returns once the worker handles nothing and has committed its writes
  (:meth:`ProxyServer.wait_idle`): the front's drain, and through it the tests' barrier.

A request the front hands over whole (any other) is served as always; when it went upstream as
the client sent it and the conversation may go on without a build, the answer carries
``x-ctxw-room`` too (the front takes it off).
"""

from __future__ import annotations

import asyncio
import collections
import hmac
import logging
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from ..errors import ContextWindowError
from .history import parse_request
from .protocols import BY_PATH
from .relay import UsageTap
from .request import LockMoved, Request

if TYPE_CHECKING:
    from .config import ProxyConfig
    from .conversations import Conversations
    from .server import ProxyServer

log = logging.getLogger("contextwindow.proxy")

SECRET_HEADER = "x-ctxw-worker"
ROOM_HEADER = "x-ctxw-room"
STORE_PATH = "/_ctxw/store"
ANSWER_PATH = "/_ctxw/answer"
IDLE_PATH = "/_ctxw/idle"
DELIVERED_PATH = "/_ctxw/delivered"
INTERNAL_PATHS = frozenset({STORE_PATH, ANSWER_PATH, IDLE_PATH, DELIVERED_PATH})
RID_HEADER = "x-ctxw-rid"  # a request the front hands over whole: its id, named again by its /_ctxw/delivered
PENDING_KEPT = 10_000  # requests stored whose answers the front has not handed over
NICE_ENV = "CTXW_PROXY_WORKER_NICE"
#: the worker process's niceness under ``ctxw proxy --front lean`` (its front sets the variable;
#: docs/proxy.md, "the worker off the burst"): no fast-path answer waits for the worker, so at a
#: burst the cores go to the front, the upstream and the clients, and the worker catches up between
WORKER_NICE = 10


def lower_priority() -> None:
    """Lower this process's CPU priority by ``$CTXW_PROXY_WORKER_NICE`` (a lean front's worker; run
    before any thread starts: on Linux it applies to the calling thread, and the threads started
    later inherit it). 0 or unset: unchanged."""
    import os

    try:
        by = int(os.environ.get(NICE_ENV, "0"))
    except ValueError:
        log.error("%s must be a whole number, got %r: the worker's priority is left as it is", NICE_ENV, os.environ.get(NICE_ENV))
        return
    if by > 0:
        os.nice(by)


def is_internal(server: ProxyServer, request: web.Request) -> bool:
    """One of the internal endpoints, from the front: its target exactly as the front writes it
    (``request.raw_path``: ``/%5Fctxw/idle``, ``http://x/_ctxw/idle`` or ``/_ctxw/idle?x`` are
    not internal, whatever aiohttp decodes them to) and the front's secret with it."""
    return request.raw_path in INTERNAL_PATHS and from_front(server.config, request)


def delivery_id(config: ProxyConfig, request: web.Request) -> str | None:
    """The id of a request the front handed over whole, whose answer it will say it delivered (None: not one)."""
    rid = request.headers.get(RID_HEADER)
    return rid if rid and from_front(config, request) else None


async def delivered(server: ProxyServer, request: web.Request) -> web.Response:
    """The front's word on an answer it relayed (module docstring)."""
    h = request.headers
    rid = h.get(RID_HEADER)
    if not rid:
        log.error("the lean front's word on a delivered answer names no request (%s missing): ignored", RID_HEADER)
        return web.Response(status=400, text=f"{DELIVERED_PATH} needs the {RID_HEADER} header naming the request")
    try:
        written = int(h.get("x-ctxw-delivered", "-1"))
    except ValueError:
        written = -1
    server._recorder.deliveries.settle(rid, written)
    return web.Response(status=200)


OVERFLOW_HEADER = "x-ctxw-overflowed"


def overflowed(config: ProxyConfig, request: web.Request) -> bool:
    """A request the front sent as sent and the provider refused as too long: compact it first (and
    retry no more)."""
    return from_front(config, request) and request.headers.get(OVERFLOW_HEADER) == "1"


def from_front(config: ProxyConfig, request: web.Request) -> bool:
    secret = config.worker_secret
    if not secret:
        return False
    return hmac.compare_digest(request.headers.get(SECRET_HEADER, "").encode(), secret.encode())


async def idle(server: ProxyServer) -> web.Response:
    await server.wait_idle()
    return web.Response(status=204)


def room_headers(conversations: Conversations, conversation_id: str | None) -> dict[str, str]:
    """``x-ctxw-room: TOKENS/PER``: the tokens the conversation's next request may add (its new
    messages' bytes times PER); ``TOKENS/PER/whole``: before its first report, the tokens its whole
    next request's bytes times PER must stay under (:meth:`Conversations.front_room`)."""
    room = conversations.front_room(conversation_id) if conversation_id else None
    if room is None:
        return {}
    return {ROOM_HEADER: f"{room[0]}/{room[1]!r}" + ("/whole" if room[2] else "")}


def _latency(h: Any) -> float:
    return time.monotonic() - float(h.get("x-ctxw-latency", "0"))


async def store(server: ProxyServer, request: web.Request) -> web.Response:
    """A request the front is forwarding as sent: its new messages stored (module docstring), and
    committed with the open group of writes (at once when nothing else is in flight)."""
    import orjson

    h = request.headers
    data = await request.read()
    a, b = (int(x) for x in h["x-ctxw-split"].split(","))
    headers, raw = orjson.loads(data[:a]), data[a:b]
    if "x-ctxw-prev-id" in h:  # the answer to the conversation's previous request rides along: recorded first
        await _record_answer(server, h, data[b:])
    proto = BY_PATH[h["x-ctxw-path"]]
    conv, stats = server.conversations, server.stats
    body, exact = parse_request(raw)
    req = Request(proto, body, raw, headers, exact)
    stats["managed"] += 1
    try:
        parsed = conv.parse(req)
    except ContextWindowError as exc:  # the front decides on well-formed histories only: a bug if here
        return _failed(stats, f"could not be read for the store: {exc}")
    behind = server.handed.took(parsed.identity.key, h.get("x-ctxw-id"))
    for _ in range(3):
        key, lock = await server.locks.acquire(parsed.identity.key)
        try:
            try:
                quick = conv.quick(parsed, key)
                if quick is not None:
                    prepared = conv.commit(quick)
                    stats["fast"] += 1
                elif behind and (late := conv.stored_already(parsed, key)) is not None:  # a late hand-over: stored already, not a re-open
                    prepared = late
                    stats["late_store"] = stats.get("late_store", 0) + 1
                    log.warning("conversation %s: a request the front forwarded as sent reached the store after a later one of "
                                "the conversation; its messages are held already (its usage is recorded, its reply not)",
                                late.conversation_id)
                else:
                    prepared = await asyncio.to_thread(conv.prepare, parsed, lock=key)
                    if prepared.changed:
                        stats["misjudged"] = stats.get("misjudged", 0) + 1
                        log.warning("conversation %s: forwarded as sent by the front, but the Session would have changed it "
                                    "(%d clipped, compacted=%s); stored as it would have been sent", prepared.conversation_id,
                                    prepared.clipped, prepared.compacted)
                    else:
                        stats["fast"] += 1
                group = server._commits.written()
            except LockMoved:
                continue
            except ContextWindowError as exc:
                return _failed(stats, f"were not stored: {exc}")
            finally:
                lock.release()
        finally:
            server.locks.drop(key)
        pending = server.front_pending
        pending[h["x-ctxw-id"]] = (req, parsed, prepared)
        while len(pending) > PENDING_KEPT:  # a front gone before it handed over answers: their usage is not recorded
            pending.pop(next(iter(pending)))
            stats["record_failed"] = stats.get("record_failed", 0) + 1
        if group is not None and server._inflight <= 1:  # alone: committed now; else with its group, within its window
            server._commits.durable(group)
        return web.Response(status=200, headers=room_headers(conv, prepared.conversation_id))
    return _failed(stats, "were not stored: the conversation kept moving to another lock")


class Handed:
    """The front numbers its requests in the order it forwards them (``x-ctxw-id`` on a
    ``/_ctxw/store``: ``17``; ``RID_HEADER`` on one it hands over whole: ``d18``). This keeps, per
    conversation (identity key), the number of the latest one the worker took: a hand-over numbered
    below it is late (the request went upstream before one whose history the store holds already),
    and only a late one whose history the store holds all of and more is stored already
    (:meth:`Conversations.stored_already`). The same history numbered after everything taken is a
    client sending it again (a re-opened conversation: the front forwards an opening request as
    sent), which :meth:`Conversations.prepare` continues in a new conversation."""

    KEPT = 10_000  # conversations kept (the least recently taken leave first; a late hand-over of one is then not told)

    def __init__(self) -> None:
        self._last: collections.OrderedDict[str, int] = collections.OrderedDict()

    def took(self, key: str, rid: str | None) -> bool:
        """Request ``rid`` (None, or not the front's number: not noted) of conversation ``key`` taken;
        True if one the front forwarded after it was taken first."""
        if not rid or not (seq := rid[1:] if rid[0] == "d" else rid).isdigit():
            return False
        n, last = int(seq), self._last.get(key)
        if last is not None and last > n:
            return True
        self._last[key] = n
        self._last.move_to_end(key)
        if len(self._last) > self.KEPT:
            self._last.popitem(last=False)
        return False


def _failed(stats: dict[str, int], what: str) -> web.Response:
    log.error("the new messages of a request the front forwarded as sent %s", what)
    stats["record_failed"] = stats.get("record_failed", 0) + 1
    return web.Response(status=200)


async def answer(server: ProxyServer, request: web.Request) -> web.Response:
    """The answer to a request :func:`store` took, handed over alone (status 0: none reached the
    client): its usage and reply recorded, then the room left for the conversation's next request."""
    cid = await _record_answer(server, request.headers, await request.read())
    return web.Response(status=200, headers=room_headers(server.conversations, cid))


async def _record_answer(server: ProxyServer, h: Any, data: bytes) -> str | None:
    """Record an answer the front relayed (``x-ctxw-prev-id`` names its request); its conversation's id."""
    entry = server.front_pending.pop(h["x-ctxw-prev-id"], None)
    if entry is None:  # a request this worker did not store (it was started again since, or it dropped it): counted
        server.stats["record_failed"] = server.stats.get("record_failed", 0) + 1
        log.error("an answer the front handed over names request %s, which this worker did not store: its usage is not recorded",
                  h["x-ctxw-prev-id"])
        return None
    req, parsed, prepared = entry
    status = int(h["x-ctxw-status"])
    if status == 200:
        key, lock = await server.locks.acquire(parsed.identity.key)
        try:
            lock.release()
            tap = UsageTap(streaming="text/event-stream" in h.get("x-ctxw-type", ""), encoding=h.get("x-ctxw-encoding") or None)
            tap.feed(data)
            relayed = asyncio.Event()
            relayed.set()
            done = server._recorder.account(req, status, tap, prepared, (lock, parsed, key), _latency(h), relayed)
            if done is not None:
                await asyncio.shield(done)
        finally:
            server.locks.drop(key)
    return prepared.conversation_id
