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

from .config import ProxyConfig
from .conversations import Conversations
from .front import FrontServer
from .server import ProxyServer

log = logging.getLogger("contextwindow.proxy")

SECRET_ENV = "CTXW_PROXY_WORKER_SECRET"


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
    env = {**os.environ, SECRET_ENV: secret, "CTXW_PROXY_FRONT": "aiohttp"}
    # its stdin is a pipe from here: when this process ends, however it ends, the worker sees it close and stops
    proc = await asyncio.create_subprocess_exec(*argv, env=env, stdin=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
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


async def serve_split(config: ProxyConfig, worker_argv: list[str], clip_budget: int | None, ready: Any = None) -> None:
    """Serve with the worker in its own process until SIGTERM or Ctrl-C (``ctxw proxy --front lean``)."""
    import signal

    secret = secrets.token_hex(16)
    proc, port = await _spawn(worker_argv, secret)
    front = FrontServer(config, f"http://127.0.0.1:{port}", secret, clip_budget=clip_budget)
    await front.start()
    if ready is not None:
        ready(front)
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    stopping = False

    async def watch() -> None:
        nonlocal proc
        while not stopping:
            echo = asyncio.ensure_future(_echo(proc))
            code = await proc.wait()
            await echo
            if stopping:
                return
            log.error("the proxy's worker exited (status %s); starting it again", code)
            proc, again = await _spawn(worker_argv, secret)
            front.retarget(f"http://127.0.0.1:{again}")

    watcher = asyncio.ensure_future(watch())
    try:
        await stop.wait()
    finally:
        stopping = True
        with contextlib.suppress(Exception):
            await front.drain()
        await front.close()
        watcher.cancel()
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)  # the worker commits its open group and stops
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 30)
