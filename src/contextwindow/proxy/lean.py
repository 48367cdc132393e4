"""``ctxw proxy --front lean``: the lean front (:mod:`.front`) and its worker, put together.

- :class:`LeanProxy`: both on one event loop (an embedded proxy: :class:`~.server.BackgroundProxy`
  with ``ProxyConfig(front="lean")``, the tests). Any store; no CPU is moved off the loop, so this
  is for behaviour, not for speed.
- :func:`serve_split`: the worker in a process of its own (``ctxw proxy`` started again, on a
  loopback port, with the worker's secret in its environment), the front in this one: the store and
  Session work runs on the other core. A worker that exits is logged and started again; requests
  meanwhile get 502 naming it, and hand-overs that fail are counted (``records_lost``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import sys
from dataclasses import replace
from typing import Any

from ..errors import WorkerError
from .config import FRONT_ENV, ProxyConfig
from .conversations import Conversations
from .front import FrontServer
from .server import ProxyServer
from .worker import NICE_ENV, WORKER_NICE

log = logging.getLogger("contextwindow.proxy")

SECRET_ENV = "CTXW_PROXY_WORKER_SECRET"
RESTARTS = 5  # worker failures in a row before the front stops
BACKOFF_S = 0.5  # the first wait before starting the worker again (doubling)
UP_S = 10.0  # a worker that ran this long is not a failure in a row


def worker_config(config: ProxyConfig, secret: str) -> ProxyConfig:
    return replace(config, host="127.0.0.1", port=0, front="aiohttp", worker_secret=secret)


class LeanProxy:
    """A lean front and its worker on one loop; the interface of :class:`~.server.ProxyServer`."""

    def __init__(self, config: ProxyConfig, conversations: Conversations) -> None:
        config.check()
        self.config = config
        self.conversations = conversations
        self._secret = secrets.token_hex(16)
        self.worker = ProxyServer(worker_config(config, self._secret), conversations)
        self.front: FrontServer | None = None

    @property
    def port(self) -> int:
        return self.front.port if self.front is not None else self.config.port

    @property
    def _lane(self) -> Any:  # the worker's bookkeeping lane (tests read its state)
        return self.worker._lane

    @property
    def stats(self) -> dict[str, int]:
        front = self.front.stats if self.front is not None else {}
        return {**self.worker.stats, **front, "requests": front.get("requests", 0)}

    def status(self) -> dict[str, int]:
        front = self.front.status() if self.front is not None else {}
        return {**self.worker.status(), **front, "requests": front.get("requests", 0)}

    async def start(self) -> None:
        await self.worker.start()
        self.front = FrontServer(self.config, f"http://127.0.0.1:{self.worker.port}", self._secret,
                                 clip_budget=self.conversations.config.clip_budget_tokens)
        await self.front.start()

    async def wait_idle(self) -> None:
        if self.front is not None:
            await self.front.drain()

    async def close(self) -> None:
        if self.front is not None:
            await self.front.close()
        await self.worker.close()


async def _spawn(argv: list[str], secret: str) -> tuple[asyncio.subprocess.Process, int]:
    env = {NICE_ENV: str(WORKER_NICE), **os.environ, SECRET_ENV: secret, FRONT_ENV: "aiohttp"}
    # its stdin is a pipe from here: when this process ends, however it ends, the worker sees it close and stops.
    # Its own process group: a terminal's Ctrl-C (SIGINT to the foreground process group) reaches the
    # front alone, which hands over what it holds before it stops the worker (else the worker stopped
    # at once, and the answers the front still held lost their usage rows). Not its own session: on
    # Linux a session is a scheduling group (autogroup) whose members' niceness counts only among
    # themselves, so a worker in a session of its own took its full share of the cores beside the
    # front's at WORKER_NICE (lean 50-client p50 added: +120.6% in its own session against +77.5% in its
    # front's and +83.1% on 032748d, one run at load 7-11, docs/proxy.md 01:46)
    proc = await asyncio.create_subprocess_exec(*argv, env=env, stdin=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                process_group=0)
    assert proc.stderr is not None
    while True:
        line = await proc.stderr.readline()
        if not line:
            raise RuntimeError(f"the proxy's worker exited before it listened (status {await proc.wait()})")
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
        sys.stderr.buffer.write(line)


async def _echo(proc: asyncio.subprocess.Process) -> None:
    assert proc.stderr is not None
    while line := await proc.stderr.readline():
        sys.stderr.buffer.write(line)
        sys.stderr.flush()


async def serve_split(config: ProxyConfig, worker_argv: list[str], clip_budget: int | None, ready: Any = None, *,
                      restarts: int = RESTARTS, backoff: float = BACKOFF_S) -> None:
    """Serve with the worker in its own process until SIGTERM or Ctrl-C (``ctxw proxy --front lean``),
    then stop in order: the requests in flight end, the answers held are handed over, and the worker
    (in a process group of its own, out of a terminal's Ctrl-C, in the front's session) commits and stops.
    A worker that exits is started again after a back-off (``backoff`` seconds, doubling); after
    ``restarts`` failures in a row (exits within ``UP_S`` of starting, or starts that fail) the front
    stops and :class:`~contextwindow.errors.WorkerError` says why (``ctxw proxy`` exits non-zero)."""
    import signal

    secret = secrets.token_hex(16)
    proc, port = await _spawn(worker_argv, secret)
    front = FrontServer(config, f"http://127.0.0.1:{port}", secret, clip_budget=clip_budget)
    await front.start()
    if ready is not None:
        ready(front)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def interrupted() -> None:  # Ctrl-C: stop as on SIGTERM; a second one is Python's KeyboardInterrupt (no drain)
        stop.set()
        loop.remove_signal_handler(signal.SIGINT)

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, interrupted)
    stopping = False
    failed: list[str] = []

    def give_up(why: str) -> None:
        failed.append(why)
        log.error("%s", why)
        stop.set()

    async def watch() -> None:
        nonlocal proc
        fails, started = 0, loop.time()
        while not stopping:
            echo = asyncio.ensure_future(_echo(proc))
            code = await proc.wait()
            await echo
            if stopping:
                return
            fails = fails + 1 if loop.time() - started < UP_S else 1  # a worker that ran a while starts the count again
            last = f"exited (status {code})"
            while True:
                if fails >= restarts:
                    give_up(f"the proxy's worker failed {fails} times in a row (last: {last}): the front stops")
                    return
                delay = backoff * 2 ** (fails - 1)
                log.error("the proxy's worker %s; starting it again in %.2g s (failure %d of %d)", last, delay, fails, restarts)
                await asyncio.sleep(delay)
                try:
                    proc, again = await _spawn(worker_argv, secret)
                    break
                except (RuntimeError, OSError) as exc:
                    fails += 1
                    last = f"could not be started: {exc}"
            started = loop.time()
            front.retarget(f"http://127.0.0.1:{again}")

    def watched(t: asyncio.Future[None]) -> None:  # the watch itself failing is said, and stops the front
        if not t.cancelled() and t.exception() is not None:
            give_up(f"the proxy's worker could not be watched: {t.exception()!r}: the front stops")

    watcher = asyncio.ensure_future(watch())
    watcher.add_done_callback(watched)
    try:
        await stop.wait()
    finally:
        stopping = True
        await front.close()  # stops accepting, waits for the requests in flight (a deadline), hands over what it holds
        watcher.cancel()
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)  # the worker commits its open group and stops
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 30)
    if failed:
        raise WorkerError(failed[0])
