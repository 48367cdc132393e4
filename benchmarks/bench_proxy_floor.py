"""The 50-client p99 of the cheapest proxy that still does what ours must do before it forwards.

``ctxw proxy`` misses its p99 goal at 50 phase-locked clients (+10% over calling the upstream
directly; docs/proxy.md). This measures the floor under that goal, in bench_proxy.py's harness
(its upstream answering after 50 ms, its load: 50 clients x 20 turns of a coding-agent history with
12 tools, each client re-sending its whole history; JSON answers): the added latency of proxies
that do less and less than ours, each in its own process, in the same run, interleaved with the
direct batches. The proxies:

- ``lean-relay``: a bare ``asyncio.Protocol`` HTTP/1.1 server and a bare keep-alive client
  (bench_relay_floor.py's): reads the request, writes it upstream, writes the answer back. Nothing else;
- ``lean-min``: the same, plus the minimum before forwarding: the body parsed (orjson), the
  conversation found (a hash of the stable head: system prompt and first user message, as
  proxy/identity.py falls back to) and "nothing needs changing" decided (the history extends the
  conversation's previous one by its message count, its bytes/4 stay under a compaction trigger,
  no new tool result is over the clip budget by its bytes); the client's bytes go upstream as sent.
  It stores nothing, records nothing and checks no byte of the old history: a lower bound on what
  any proxy of ours does before forwarding, with none of the work after (storing, recording) that
  shares the loop with the next burst;
- ``aiohttp-min``: ``lean-min``'s work on aiohttp's server and client, as ``ctxw proxy`` uses them;
- ``aiohttp-min+before`` / ``aiohttp-min+after``: ``aiohttp-min`` burning ``BEFORE_MS`` of CPU
  on the loop before each forward / ``AFTER_MS`` after each answer is relayed (as a record runs):
  where the rest of ``ctxw proxy``'s work would have to go;
- ``ctxw``: ``ctxw proxy`` itself (SQLite store in a temp dir), for reference;
- ``ctxw-lean``: ``ctxw proxy --front lean`` (proxy/front.py): the lean front serving, ``ctxw
  proxy``'s server as its worker in a second process (its CPU is printed apart: it is not on the
  serving loop).

The lean ones are measuring instruments (Content-Length bodies only, plain HTTP, no timeouts, no
error handling), not products. Each round runs one direct batch and one batch through each proxy,
the order rotated per round; percentiles are pooled over the rounds (bench_proxy.py's ``pct``), and
each round's p99 is also paired with that round's direct batch (the median of those is steadier on a
shared machine, where one disturbed round decides a pooled p99).

    python benchmarks/bench_proxy_floor.py                # 4 rounds, every proxy
    python benchmarks/bench_proxy_floor.py --rounds 2 --only lean-min,ctxw --json

``--variant LABEL=SRC[:VAR=VALUE...]`` adds ``ctxw`` and ``ctxw-lean`` rows of another version (its
``src`` folder on ``PYTHONPATH``, e.g. ``git archive main src | tar -x -C /tmp/ref``) or of this one
under other environment variables, named ``KIND@LABEL`` (run them with ``--only``), interleaved
with the rest in the same run:

    python benchmarks/bench_proxy_floor.py --rounds 6 --variant main=/tmp/ref/src --only lean-min,ctxw-lean,ctxw-lean@main
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_proxy as bp
import bench_relay_floor as rf

PROXIES = ("lean-relay", "lean-min", "aiohttp-min", "aiohttp-min+before", "aiohttp-min+after", "ctxw", "ctxw-lean")
#: CPU burnt on the event loop by the ``+before`` / ``+after`` proxies, per request: about what
#: ``ctxw proxy`` spends before its forward (parse, identity, decision) and after it (storing the
#: new messages, recording the answer) beyond ``aiohttp-min`` (docs/proxy.md's own-work split)
BEFORE_MS = 0.3
AFTER_MS = 0.5
TRIGGER_TOKENS = 96_000  # 75% of gpt-4o-mini's 128k window: the compaction trigger's order
CLIP_BYTES = 4_000  # a tool result within the clip budget (4,000 tokens) by its bytes is within it by tokens


class Minimum:
    """The least a proxy of ours does before forwarding (module docstring); one per process."""

    def __init__(self) -> None:
        import orjson

        self._loads, self._dumps = orjson.loads, orjson.dumps
        self.seen: dict[bytes, int] = {}  # conversation → messages in its previous request
        self.changed = 0  # requests it would have had to change (none, in this load)

    def decide(self, body: bytes) -> None:
        doc = self._loads(body)
        msgs = doc["messages"]
        first_user = next((i for i, m in enumerate(msgs) if m.get("role") == "user"), 0)
        key = hashlib.blake2b(self._dumps(msgs[: first_user + 1]), digest_size=16).digest()
        before = self.seen.get(key, 0)
        new = msgs[before:]
        same = (len(msgs) >= before and len(body) // 4 < TRIGGER_TOKENS
                and all(len(m.get("content") or "") <= CLIP_BYTES for m in new if m.get("role") == "tool"))
        self.seen[key] = len(msgs)
        self.changed += not same


def burn(ms: float) -> None:
    """Spend ``ms`` of CPU on this thread (the loop's), as own work would."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


def serve(kind: str, upstream: str) -> None:
    m = re.match(r"http://([^:/]+):(\d+)", upstream)
    assert m
    host, port = m.group(1), int(m.group(2))

    async def main() -> None:
        minimum = Minimum()
        if kind.startswith("lean"):
            lean = rf._LeanClient(host, port)

            async def relay(path: bytes, headers: bytes, body: bytes) -> bytes:
                if kind == "lean-min":
                    minimum.decide(body)
                head, got = await lean.post(path, headers, body)
                status, *lines = head.split(b"\r\n")
                return status + b"\r\n" + rf._kept(lines) + b"Content-Length: " + str(len(got)).encode() + b"\r\n\r\n" + got

            server = await asyncio.get_running_loop().create_server(lambda: rf._LeanServer(relay), "127.0.0.1", 0)
            bound = server.sockets[0].getsockname()[1]
        else:
            import aiohttp
            from aiohttp import web

            client = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), auto_decompress=False,
                                           timeout=aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=600),
                                           cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=("User-Agent",))

            async def handle(request: web.Request) -> web.StreamResponse:
                body = await request.read()
                minimum.decide(body)
                if kind == "aiohttp-min+before":
                    burn(BEFORE_MS)
                headers = {k: v for k, v in request.headers.items() if k.lower().encode() not in rf.HOP}
                async with client.post(upstream + request.path_qs, data=body, headers=headers) as resp:
                    out = web.StreamResponse(status=resp.status, headers={k: v for k, v in resp.headers.items() if k.lower().encode() not in rf.HOP})
                    out.content_length = resp.content_length
                    await out.prepare(request)
                    async for chunk in resp.content.iter_any():
                        await out.write(chunk)
                    await out.write_eof()
                    if kind == "aiohttp-min+after":
                        asyncio.get_running_loop().call_soon(burn, AFTER_MS)  # the answer's record, after its last byte
                    return out

            app = web.Application(client_max_size=64 << 20)
            app.router.add_route("*", "/{tail:.*}", handle)
            runner = web.AppRunner(app, access_log=None)
            bound = await bp.serve_runner(runner)
        print(f"port {bound}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def children_cpu_s(pid: int) -> float:
    """CPU seconds of a process's descendants (``ctxw proxy --front lean``'s worker), 0 for none."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids = (task / "children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        for kid in kids:
            try:
                total += bp.cpu_s(int(kid)) + children_cpu_s(int(kid))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return total


def added(direct: list[float], proxied: list[float], q: float) -> float:
    d = bp.pct(direct, q)
    return 100 * (bp.pct(proxied, q) - d) / d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", nargs=2, metavar=("KIND", "UPSTREAM"), help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--only", default=",".join(PROXIES), help="comma-separated proxies to run")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL=SRC[:VAR=VALUE...]",
                    help="another version (its src folder) or environment for the ctxw rows, named KIND@LABEL")
    args = ap.parse_args()
    if args.serve:
        serve(*args.serve)
        return
    kinds = [k for k in args.only.split(",") if k]
    envs: dict[str, dict[str, str]] = {}  # label → the environment its ctxw rows run in
    for v in args.variant:
        label, _, spec = v.partition("=")
        src, *pairs = spec.split(":")
        envs[label] = {**os.environ, **dict(p.split("=", 1) for p in pairs)}
        if src:
            envs[label]["PYTHONPATH"] = str(Path(src).resolve())
    known = {*PROXIES, *(f"{k}@{label}" for k in ("ctxw", "ctxw-lean") for label in envs)}
    unknown = set(kinds) - known
    if unknown:
        raise SystemExit(f"unknown proxies {sorted(unknown)}; choose from {', '.join(PROXIES)}")
    loads = [round(os.getloadavg()[0], 1)]
    procs: list[subprocess.Popen[str]] = []
    tmp = Path(tempfile.mkdtemp(prefix="bench_proxy_floor_"))
    direct: dict[str, list[float]] = {"ttfb": [], "total": []}
    through: dict[str, dict[str, list[float]]] = {k: {"ttfb": [], "total": []} for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    cpu_worker: dict[str, list[float]] = {k: [] for k in kinds}  # a worker process's (ctxw-lean), off the serving loop
    rounds_p99: dict[str, list[float]] = {k: [] for k in ["direct", *kinds]}  # each round's total p99, ms
    try:
        up, port = bp.start([sys.executable, bp.__file__, "--serve-upstream", "0.05"], r"port (\d+)")
        procs.append(up)
        upstream = f"http://127.0.0.1:{port}"
        urls: dict[str, tuple[int, str]] = {}
        for kind in kinds:
            base, _, label = kind.partition("@")
            if base in ("ctxw", "ctxw-lean"):
                p, url = bp.start([sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", upstream, "--port", "0",
                                   "--store", f"sqlite:///{tmp / f'{kind}.db'}", "--front", "lean" if base == "ctxw-lean" else "aiohttp"],
                                  r"listening on (http://127\.0\.0\.1:\d+)", env=envs.get(label))
            else:
                p, rport = bp.start([sys.executable, __file__, "--serve", kind, upstream], r"port (\d+)")
                url = f"http://127.0.0.1:{rport}"
            procs.append(p)
            urls[kind] = (p.pid, url)
            bp.run_batch(url, 2, 2, False, 90_000)  # warm
        bp.run_batch(upstream, 2, 2, False, 90_000)
        for r in range(args.rounds):  # interleaved, the order rotated: drift in the machine's load hits every one
            order = ["direct", *kinds]
            order = order[r % len(order):] + order[: r % len(order)]
            for who in order:
                tag = 1000 * r + (0 if who == "direct" else 100 * (1 + kinds.index(who)))
                if who == "direct":
                    a, b, _ = bp.run_batch(upstream, args.clients, args.turns, False, tag)
                    direct["ttfb"] += a
                    direct["total"] += b
                    rounds_p99["direct"].append(bp.pct(b, 0.99))
                    continue
                pid, url = urls[who]
                before, before_children = bp.cpu_s(pid), children_cpu_s(pid)
                a, b, _ = bp.run_batch(url, args.clients, args.turns, False, tag)
                cpu[who].append(1000 * (bp.cpu_s(pid) - before) / len(b))
                cpu_worker[who].append(1000 * (children_cpu_s(pid) - before_children) / len(b))
                through[who]["ttfb"] += a
                through[who]["total"] += b
                rounds_p99[who].append(bp.pct(b, 0.99))
            loads.append(round(os.getloadavg()[0], 1))
    finally:
        for p in procs:
            p.kill()
    res: dict[str, Any] = {"cores": os.cpu_count(), "load": loads, "clients": args.clients, "turns": args.turns, "rounds": args.rounds,
                           "direct_ms": {m: {q: round(bp.pct(direct[m], v), 2) for q, v in (("p50", 0.5), ("p99", 0.99))} for m in direct},
                           "proxies": {}}
    for k in kinds:
        paired = [100 * (p - d) / d for d, p in zip(rounds_p99["direct"], rounds_p99[k], strict=True)]
        res["proxies"][k] = {
            "cpu_ms_per_request": round(statistics.median(cpu[k]), 3),
            "worker_cpu_ms_per_request": round(statistics.median(cpu_worker[k]), 3),
            "round_p99_added_pct": [round(x, 1) for x in paired],
            "round_p99_added_median_pct": round(statistics.median(paired), 1),
            **{f"{m}_{q}_ms": round(bp.pct(through[k][m], v), 2) for m in ("ttfb", "total") for q, v in (("p50", 0.5), ("p99", 0.99))},
            **{f"{m}_{q}_added_pct": round(added(direct[m], through[k][m], v), 1) for m in ("ttfb", "total") for q, v in (("p50", 0.5), ("p99", 0.99))},
        }
    if args.json:
        print(json.dumps(res, indent=2))
        return
    d = res["direct_ms"]
    print(f"bench_proxy_floor: {args.clients} clients x {args.turns} turns, 50 ms upstream, JSON answers, {args.rounds} interleaved rounds "
          f"({res['cores']} cores shared by upstream, proxies and load generator; 1-min load {' -> '.join(map(str, loads))})")
    print(f"direct: total p50 {d['total']['p50']:.1f} ms, p99 {d['total']['p99']:.1f} ms\n")
    print("| proxy | total p50 added | total p99 added (pooled) | each round's p99 added, paired with its direct batch: median (range) "
          "| TTFB p99 added | total p99 | CPU ms/request (median of rounds) | worker process CPU ms/request |")
    print("|---|---|---|---|---|---|---|---|")
    for k, r in res["proxies"].items():
        rp = r["round_p99_added_pct"]
        print(f"| {k} | {r['total_p50_added_pct']:+.1f}% | {r['total_p99_added_pct']:+.1f}% | {r['round_p99_added_median_pct']:+.1f}% "
              f"({min(rp):+.1f} .. {max(rp):+.1f}) | {r['ttfb_p99_added_pct']:+.1f}% | {r['total_p99_ms']:.1f} ms | {r['cpu_ms_per_request']:.3f} "
              f"| {r['worker_cpu_ms_per_request']:.3f} |")


if __name__ == "__main__":
    main()
