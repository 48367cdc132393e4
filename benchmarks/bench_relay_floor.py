"""The HTTP layer's floor under the proxy: CPU per request of relays that do nothing else.

Each relay reads a client's request, sends it to bench_proxy.py's upstream (50 ms, JSON answers)
and returns the answer; none of contextwindow's work. The load is bench_proxy.py's: 50 concurrent
clients x 20 turns of a coding-agent history with 12 tools (33-45 KB bodies). The relays:

- ``aiohttp``: what ``ctxw proxy`` uses (Application + router, StreamResponse, ClientSession);
- ``aiohttp-lowlevel``: aiohttp's low-level ``web.Server`` (no Application, router, middlewares);
- ``aiohttp-whole``: a non-stream answer's headers written with its first bytes;
- ``aiohttp-no-read-timeout``: the client without a per-read timeout (no timer re-armed per chunk);
- ``lean-server``: a bare ``asyncio.Protocol`` HTTP/1.1 server in front of aiohttp's client;
- ``lean-both``: that server and a bare keep-alive ``asyncio.Protocol`` client.

The lean ones are measuring instruments, not products: Content-Length bodies only, plain HTTP, no
timeouts, no error handling. They say what leaving aiohttp could save at most (docs/proxy.md).
Relays run interleaved, each its own process; CPU from ``/proc/PID/task/*/schedstat``.

    python benchmarks/bench_relay_floor.py            # 4 rounds
    python benchmarks/bench_relay_floor.py --rounds 2 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_proxy as bp

RELAYS = ("aiohttp", "aiohttp-lowlevel", "aiohttp-whole", "aiohttp-no-read-timeout", "lean-server", "lean-both")
HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"host", b"content-length", b"content-encoding"})
LENGTH = re.compile(rb"(?i)\r\ncontent-length:[ \t]*(\d+)")


def _kept(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\r\n" for line in lines if line.split(b":", 1)[0].strip().lower() not in HOP)


class _UpstreamConn(asyncio.Protocol):
    """One keep-alive connection to the upstream; one request at a time, Content-Length answers."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.head: bytes | None = None
        self.need = 0
        self.answer: asyncio.Future[tuple[bytes, bytes]] | None = None
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.head is None:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            self.head = bytes(self.buf[:end])
            del self.buf[: end + 4]
            m = LENGTH.search(self.head)
            self.need = int(m.group(1)) if m else 0
        if len(self.buf) >= self.need and self.answer is not None:
            body = bytes(self.buf[: self.need])
            del self.buf[: self.need]
            head, self.head = self.head, None
            self.answer.set_result((head, body))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(ConnectionError("upstream closed"))


class _LeanClient:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.idle: list[_UpstreamConn] = []

    async def post(self, path: bytes, headers: bytes, body: bytes) -> tuple[bytes, bytes]:
        loop = asyncio.get_running_loop()
        conn = self.idle.pop() if self.idle else (await loop.create_connection(_UpstreamConn, self.host, self.port))[1]
        conn.answer = loop.create_future()
        conn.transport.write(b"POST " + path + b" HTTP/1.1\r\nHost: " + self.host.encode() + b"\r\n" + headers
                             + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        answer = await conn.answer
        self.idle.append(conn)
        return answer


class _LeanServer(asyncio.Protocol):
    """HTTP/1.1 keep-alive, Content-Length request bodies, one request at a time per connection."""

    def __init__(self, handler: Any) -> None:
        self.buf = bytearray()
        self.handler = handler
        self.busy = False
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self._next()

    def _next(self) -> None:
        if self.busy:
            return
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buf[:end])
        m = LENGTH.search(head)
        size = int(m.group(1)) if m else 0
        if len(self.buf) < end + 4 + size:
            return
        body = bytes(self.buf[end + 4 : end + 4 + size])
        del self.buf[: end + 4 + size]
        self.busy = True
        asyncio.get_running_loop().create_task(self._answer(head, body))

    async def _answer(self, head: bytes, body: bytes) -> None:
        first, *lines = head.split(b"\r\n")
        _, path, _ = first.split(b" ", 2)
        self.transport.write(await self.handler(path, _kept(lines), body))
        self.busy = False
        self._next()


def serve_relay(kind: str, upstream: str) -> None:
    import aiohttp
    from aiohttp import web

    m = re.match(r"http://([^:/]+):(\d+)", upstream)
    assert m
    host, port = m.group(1), int(m.group(2))

    class Whole(web.StreamResponse):
        _send_headers_immediately = False

    async def main() -> None:
        timeout = aiohttp.ClientTimeout(total=None) if kind == "aiohttp-no-read-timeout" else \
            aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=600)
        client = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), auto_decompress=False, timeout=timeout,
                                       cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=("User-Agent",))
        lean = _LeanClient(host, port)

        async def relay(request: web.BaseRequest) -> web.StreamResponse:
            body = await request.read()
            headers = {k: v for k, v in request.headers.items() if k.lower().encode() not in HOP}
            async with client.post(upstream + request.path_qs, data=body, headers=headers) as resp:
                cls = Whole if kind == "aiohttp-whole" else web.StreamResponse
                out = cls(status=resp.status, headers={k: v for k, v in resp.headers.items() if k.lower().encode() not in HOP})
                out.content_length = resp.content_length
                await out.prepare(request)
                async for chunk in resp.content.iter_any():
                    await out.write(chunk)
                await out.write_eof()
                return out

        async def lean_front(path: bytes, headers: bytes, body: bytes) -> bytes:
            hd = dict(line.split(": ", 1) for line in headers.decode().split("\r\n") if line)
            async with client.post(upstream + path.decode(), data=body, headers=hd) as resp:
                got = await resp.read()
                kept = "".join(f"{k}: {v}\r\n" for k, v in resp.headers.items() if k.lower().encode() not in HOP)
                return f"HTTP/1.1 {resp.status} {resp.reason}\r\n{kept}Content-Length: {len(got)}\r\n\r\n".encode() + got

        async def lean_both(path: bytes, headers: bytes, body: bytes) -> bytes:
            head, got = await lean.post(path, headers, body)
            status, *lines = head.split(b"\r\n")
            return status + b"\r\n" + _kept(lines) + b"Content-Length: " + str(len(got)).encode() + b"\r\n\r\n" + got

        if kind.startswith("lean"):
            handler = lean_front if kind == "lean-server" else lean_both
            server = await asyncio.get_running_loop().create_server(lambda: _LeanServer(handler), "127.0.0.1", 0)
            bound = server.sockets[0].getsockname()[1]
        else:
            if kind == "aiohttp-lowlevel":
                runner: web.BaseRunner[Any] = web.ServerRunner(web.Server(relay, access_log=None))
            else:
                app = web.Application(client_max_size=64 << 20)
                app.router.add_route("*", "/{tail:.*}", relay)
                runner = web.AppRunner(app, access_log=None)
            bound = await bp.serve_runner(runner)
        print(f"port {bound}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", nargs=2, metavar=("KIND", "UPSTREAM"), help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.serve:
        serve_relay(*args.serve)
        return
    procs: list[subprocess.Popen[str]] = []
    load = round(os.getloadavg()[0], 1)
    try:
        up, port = bp.start([sys.executable, bp.__file__, "--serve-upstream", "0.05"], r"port (\d+)")
        procs.append(up)
        upstream = f"http://127.0.0.1:{port}"
        relays: dict[str, tuple[subprocess.Popen[str], str]] = {}
        for kind in RELAYS:
            p, rport = bp.start([sys.executable, __file__, "--serve", kind, upstream], r"port (\d+)")
            procs.append(p)
            relays[kind] = (p, f"http://127.0.0.1:{rport}")
            bp.run_batch(relays[kind][1], 2, 2, False, 90_000)  # warm
        cpu: dict[str, list[float]] = {k: [] for k in RELAYS}
        for r in range(args.rounds):  # interleaved: drift in the machine's load hits every relay
            for kind, (p, url) in relays.items():
                before = bp.cpu_s(p.pid)
                _, total, _ = bp.run_batch(url, 50, 20, False, 1000 * r)
                cpu[kind].append(1000 * (bp.cpu_s(p.pid) - before) / len(total))
    finally:
        for p in procs:
            p.kill()
    res = {"load_before": load, "load_after": round(os.getloadavg()[0], 1),
           "cpu_ms_per_request": {k: [round(x, 3) for x in v] for k, v in cpu.items()}}
    if args.json:
        print(json.dumps(res, indent=2))
        return
    print(f"relay CPU ms/request, 50 clients x 20 turns, 50 ms upstream, {args.rounds} interleaved rounds "
          f"(1-min load {res['load_before']} -> {res['load_after']}):")
    base = statistics.median(cpu["aiohttp"])
    for kind, xs in cpu.items():
        med = statistics.median(xs)
        print(f"  {kind:24s} median {med:.3f} (x{med / base:.2f} of aiohttp)  rounds {', '.join(f'{x:.3f}' for x in xs)}")


if __name__ == "__main__":
    main()
