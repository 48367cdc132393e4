"""What ``ctxw proxy`` adds: latency against the same local upstream called directly, in the same
run; throughput; memory per live conversation.

Three processes on loopback: an upstream (aiohttp; answers an OpenAI chat request after
``--delay`` seconds, as JSON or as 12 server-sent events), ``ctxw proxy`` (its default SQLite
store, in a temp dir) and this load generator (aiohttp client). Each simulated client holds one
conversation and re-sends its whole, growing history on every request, as agents do. Direct and
proxied batches alternate, so drift on a loaded machine hits both.

    python benchmarks/bench_proxy.py                  # the table in docs/proxy.md
    python benchmarks/bench_proxy.py --quick --json   # smaller, machine-readable
    python benchmarks/bench_proxy.py --own-work       # the proxy's own CPU per request, no HTTP
    python benchmarks/bench_proxy.py --api responses  # the same on POST /v1/responses (Codex's shape)

``--api responses``: the clients send Codex-shaped Responses requests (``instructions``, ``input``
items: the task as an ``input_text`` message, then per turn a ``function_call`` and its
``function_call_output``; tools as Responses function tools; ``prompt_cache_key``, ``store: false``),
and the upstream answers on ``/v1/responses`` with the call the next request holds (a JSON
``response`` object, or streamed as ``response.*`` events ending with ``response.completed``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DELAY_HEADER = "x-bench-delay"  # seconds this request's upstream waits (the "not phase-locked" row)
JITTER = 0.10  # that row's upstream delay: 50 ms ± 10%, uniform, seeded


# --- the upstream (its own process) -------------------------------------------------------------


def serve_upstream(delay: float) -> None:
    from aiohttp import web

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        # the load generator may name each request's delay (seeded jitter, the same for a direct
        # request and its proxied twin); the proxy forwards the header as it forwards any other
        await asyncio.sleep(float(request.headers.get(DELAY_HEADER, delay)))
        n = len(body.get("messages", []))
        usage = {"prompt_tokens": 40 * n, "completion_tokens": 12, "total_tokens": 40 * n + 12}
        call = next_call((n - 2) // 2)  # the call the client's next history holds: the answer is echoed, as agents do
        if body.get("stream"):
            resp = web.StreamResponse(headers={"content-type": "text/event-stream"})
            await resp.prepare(request)
            args = call["function"]["arguments"]
            pieces = [args[i * len(args) // 9 : (i + 1) * len(args) // 9] for i in range(9)]
            head = {"index": 0, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}
            deltas = [{"role": "assistant", "content": None, "tool_calls": [head]}]
            deltas += [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces]
            for i, delta in enumerate(deltas):  # 10 events, then the usage event and [DONE]
                chunk = {"id": "c", "object": "chat.completion.chunk", "model": body["model"],
                         "choices": [{"index": 0, "delta": delta, "finish_reason": "tool_calls" if i == 9 else None}]}
                await resp.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            tail = {"id": "c", "object": "chat.completion.chunk", "model": body["model"], "choices": [], "usage": usage}
            await resp.write(b"data: " + json.dumps(tail).encode() + b"\n\ndata: [DONE]\n\n")
            await resp.write_eof()
            return resp
        answer = {"id": "c", "object": "chat.completion", "model": body["model"], "usage": usage,
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls"}]}
        return web.json_response(answer)

    async def responses(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        await asyncio.sleep(float(request.headers.get(DELAY_HEADER, delay)))
        n = len(body.get("input", []))
        usage = {"input_tokens": 40 * n, "output_tokens": 12, "total_tokens": 40 * n + 12}
        call = next_call((n - 1) // 2)
        item = {"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"], "name": call["function"]["name"],
                "arguments": call["function"]["arguments"], "status": "completed"}
        response = {"id": "resp_1", "object": "response", "model": body["model"], "status": "completed", "output": [item], "usage": usage}
        if not body.get("stream"):
            return web.json_response(response)
        resp = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await resp.prepare(request)
        args = item["arguments"]
        events: list[dict[str, Any]] = [{"type": "response.created", "response": {**response, "status": "in_progress", "output": [], "usage": None}},
                                        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": "", "status": "in_progress"}}]
        events += [{"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": item["id"],
                    "delta": args[i * len(args) // 8 : (i + 1) * len(args) // 8]} for i in range(8)]
        events += [{"type": "response.output_item.done", "output_index": 0, "item": item}, {"type": "response.completed", "response": response}]
        for ev in events:  # 12 events, as the chat stream has
            await resp.write(f"event: {ev['type']}\ndata: ".encode() + json.dumps(ev).encode() + b"\n\n")
        await resp.write_eof()
        return resp

    async def main() -> None:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_post("/v1/responses", responses)
        port = await serve_runner(web.AppRunner(app, access_log=None))
        print(f"port {port}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


async def serve_runner(runner: Any) -> int:
    """Start an aiohttp ``runner`` on a free loopback port (the benchmarks' servers: upstream, relays,
    proxies); returns the port."""
    from aiohttp import web

    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]


def start(cmd: list[str], pattern: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    stream = proc.stdout if "port" in pattern else proc.stderr
    assert stream is not None
    line = stream.readline()
    m = re.search(pattern, line)
    if not m:
        proc.kill()
        raise SystemExit(f"could not start {cmd[:4]}: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    return proc, m.group(1)


def cpu_s(pid: int) -> float:
    """CPU seconds a process's threads have run, in nanoseconds' resolution (``schedstat``)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):  # a thread that just ended
            continue
    return total / 1e9


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# --- the load -----------------------------------------------------------------------------------


def _tool(i: int) -> dict[str, Any]:
    what = ["read a file", "search the tree", "edit a file", "run a shell command", "list a folder", "fetch a page",
            "run the tests", "write a file", "show a diff", "ask the user", "plan the work", "search the web"][i]
    desc = (f"Use this tool to {what}. " + "Prefer it over shell equivalents; keep arguments minimal and paths absolute. "
            "Results longer than the limit are cut; narrow the request and call it again. " * 6)
    props = {f"arg{k}": {"type": "string", "description": f"argument {k} of {what}"} for k in range(5)}
    return {"type": "function", "function": {"name": f"tool_{i}", "description": desc,
                                             "parameters": {"type": "object", "properties": props, "required": ["arg0"]}}}


#: what a coding agent sends with every request: a dozen tool definitions (~4,000 tokens)
TOOLS = [_tool(i) for i in range(12)]


def next_call(turn: int) -> dict[str, Any]:
    """The tool call the model makes at ``turn`` (the upstream answers with it; the history holds it)."""
    return {"id": f"call_{turn}", "type": "function", "function": {"name": "grep", "arguments": json.dumps({"pattern": f"retry{turn}"})}}


def history(client: int, turn: int) -> list[dict[str, Any]]:
    """A coding-agent-like history: system, task, then per turn an assistant call and a tool result."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent. " * 20},
                                 {"role": "user", "content": f"Client {client}: fix the failing test in module {client}."}]
    for t in range(turn):
        out.append({"role": "assistant", "content": None, "tool_calls": [next_call(t)]})
        out.append({"role": "tool", "tool_call_id": f"call_{t}", "content": "".join(f"src/m{client}_{t}.py:{i}: retry()\n" for i in range(40))})
    return out


#: the same tools as Responses function tools
RESPONSES_TOOLS = [{"type": "function", **t["function"]} for t in TOOLS]


def responses_input(client: int, turn: int) -> list[dict[str, Any]]:
    """:func:`history` as Codex sends it: input items (the system prompt goes in ``instructions``)."""
    out: list[dict[str, Any]] = [{"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": f"Client {client}: fix the failing test in module {client}."}]}]
    for t in range(turn):
        call = next_call(t)
        out.append({"type": "function_call", "name": call["function"]["name"], "arguments": call["function"]["arguments"], "call_id": call["id"]})
        out.append({"type": "function_call_output", "call_id": call["id"],
                    "output": "".join(f"src/m{client}_{t}.py:{i}: retry()\n" for i in range(40))})
    return out


def request_body(api: str, client: int, turn: int, stream: bool) -> dict[str, Any]:
    """One request of ``client`` at ``turn`` (``api``: "chat" or "responses")."""
    if api == "responses":
        body: dict[str, Any] = {"model": "gpt-4o-mini", "instructions": "You are a careful coding agent. " * 20,
                                "input": responses_input(client, turn), "tools": RESPONSES_TOOLS, "tool_choice": "auto",
                                "parallel_tool_calls": False, "store": False, "stream": stream, "max_output_tokens": 256,
                                "prompt_cache_key": f"bench-{client}"}
        return body
    body = {"model": "gpt-4o-mini", "max_tokens": 256, "messages": history(client, turn), "tools": TOOLS}
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    return body


PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}


async def one(session: Any, url: str, body: bytes, delay: float | None = None) -> tuple[float, float]:
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    if delay is not None:
        headers[DELAY_HEADER] = f"{delay:.6f}"
    t0 = time.perf_counter()
    async with session.post(url, data=body, headers=headers) as r:
        if r.status != 200:
            raise SystemExit(f"HTTP {r.status} from {url}: {(await r.read())[:300]!r}")
        first = None
        async for _ in r.content.iter_any():
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
    return (first or end) - t0, end - t0


def bodies(clients: int, turns: int, stream: bool, tag: int, api: str = "chat") -> list[list[bytes]]:
    """Every request of a batch, encoded before the batch starts (the load generator shares the
    cores with what it measures: it should spend them on sending, not on writing JSON)."""
    return [[json.dumps(request_body(api, c + tag, t, stream)).encode() for t in range(turns)] for c in range(clients)]


Batch = tuple[list[float], list[float], list[bool]]  # TTFB, total, and whether it was a conversation's first request


@dataclass(frozen=True)
class Unlocked:
    """Clients not phase-locked: each starts after a seeded random offset within one upstream delay,
    and each request's upstream delay is ``delay`` ± ``JITTER`` (seeded: a direct batch and its
    proxied twin get the same offsets and delays)."""

    seed: int
    delay: float

    def plan(self, clients: int, turns: int) -> tuple[list[float], list[list[float]]]:
        rng = random.Random(self.seed)
        starts = [rng.uniform(0, self.delay) for _ in range(clients)]
        delays = [[self.delay * rng.uniform(1 - JITTER, 1 + JITTER) for _ in range(turns)] for _ in range(clients)]
        return starts, delays


async def send_batch(base: str, load: list[list[bytes]], unlocked: Unlocked | None = None, api: str = "chat") -> Batch:
    """Each client sends its requests one after the other; the clients run concurrently (all at
    once, or ``unlocked``: spread start offsets and jittered upstream delays)."""
    import aiohttp

    ttfb: list[float] = []
    total: list[float] = []
    first: list[bool] = []
    url = f"{base}{PATHS[api]}"
    starts, delays = unlocked.plan(len(load), max(map(len, load))) if unlocked else ([0.0] * len(load), None)
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn) as session:

        async def client(c: int, mine: list[bytes]) -> None:
            if starts[c]:
                await asyncio.sleep(starts[c])
            for t, body in enumerate(mine):
                a, b = await one(session, url, body, delays[c][t] if delays else None)
                ttfb.append(a)
                total.append(b)
                first.append(t == 0)

        await asyncio.gather(*(client(c, mine) for c, mine in enumerate(load)))
    return ttfb, total, first


def run_batch(base: str, clients: int, turns: int, stream: bool, tag: int, cpu: list[float] | None = None,
              unlocked: Unlocked | None = None, api: str = "chat") -> Batch:
    """One batch; ``cpu`` gets the load generator's own CPU seconds for it (bodies not included)."""
    load = bodies(clients, turns, stream, tag, api)
    t0 = time.process_time()
    out = asyncio.run(send_batch(base, load, unlocked, api))
    if cpu is not None:
        cpu.append(time.process_time() - t0)
    return out


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


def compare(direct: str, proxy: str, clients: int, turns: int, stream: bool, rounds: int, tag0: int,
            pids: tuple[int, int] | None = None, jitter_of: float | None = None, api: str = "chat") -> dict[str, Any]:
    """Latency direct vs through the proxy; with ``pids`` (upstream, proxy) also the CPU each
    process spent per request: the upstream's is the yardstick (one aiohttp server answering).
    ``jitter_of`` (the upstream's delay): clients not phase-locked (:class:`Unlocked`), round r's
    direct and proxied batches with the same seed."""
    d_f: list[float] = []
    d_t: list[float] = []
    d_1: list[bool] = []
    p_f: list[float] = []
    p_t: list[float] = []
    p_1: list[bool] = []
    up_cpu = px_cpu = 0.0
    gen_cpu: list[float] = []
    for r in range(rounds):  # alternate, so load drift hits both
        unlocked = Unlocked(tag0 + 1000 * r, jitter_of) if jitter_of else None
        a, b, c = run_batch(direct, clients, turns, stream, tag0 + 1000 * r, unlocked=unlocked, api=api)
        d_f += a
        d_t += b
        d_1 += c
        before = cpu_s(pids[1]) if pids else 0.0
        a, b, c = run_batch(proxy, clients, turns, stream, tag0 + 1000 * r + 500, cpu=gen_cpu, unlocked=unlocked, api=api)
        px_cpu += cpu_s(pids[1]) - before if pids else 0.0
        p_f += a
        p_t += b
        p_1 += c
    if pids:  # the upstream's CPU per request, measured on the direct batches of one more round
        before = cpu_s(pids[0])
        _, b, _ = run_batch(direct, clients, turns, stream, tag0 + 1000 * rounds,
                            unlocked=Unlocked(tag0 + 1000 * rounds, jitter_of) if jitter_of else None, api=api)
        up_cpu = cpu_s(pids[0]) - before
    row: dict[str, Any] = {"api": api, "clients": clients, "stream": stream, "requests": len(p_t), "phase_locked": not jitter_of,
                           "generator_cpu_ms_per_request": round(1000 * sum(gen_cpu) / len(p_t), 3)}
    if pids:
        row["proxy_cpu_ms_per_request"] = round(1000 * px_cpu / len(p_t), 3)
        row["upstream_cpu_ms_per_request"] = round(1000 * up_cpu / len(b), 3)
    # "later": each conversation's first request left out (all clients of a batch start new
    # conversations in the same millisecond, a burst of first requests a real fleet of agents
    # does not make); both are printed
    for name, d_all, p_all in (("ttfb", d_f, p_f), ("total", d_t, p_t)):
        d_later = [x for x, first in zip(d_all, d_1, strict=True) if not first]
        p_later = [x for x, first in zip(p_all, p_1, strict=True) if not first]
        for which, d, p in (("", d_all, p_all), ("later_", d_later, p_later)):
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                dv, pv = pct(d, q), pct(p, q)
                row[f"{which}{name}_{label}_direct_ms"] = round(dv, 2)
                row[f"{which}{name}_{label}_proxy_ms"] = round(pv, 2)
                row[f"{which}{name}_{label}_added_pct"] = round(100 * (pv - dv) / dv, 1) if dv else None
    return row


def throughput(base: str, clients: int, turns: int, tag: int, api: str = "chat") -> float:
    load = bodies(clients, turns, False, tag, api)
    t0 = time.perf_counter()
    _, total, _ = asyncio.run(send_batch(base, load, api=api))
    return len(total) / (time.perf_counter() - t0)


def own_work(conversations: int = 30, turns: int = 25) -> dict[str, Any]:
    """CPU of the proxy's own work per request, without HTTP: parse, decide (or build), store, record
    usage and the model's reply (the upstream's answer: the call the next request holds); SQLite
    store; first requests of a conversation apart from the later ones."""
    import statistics

    from contextwindow.proxy import history as wire
    from contextwindow.proxy.conversations import Answer, Conversations, Request
    from contextwindow.proxy.protocols import BY_PATH

    def read(raw: bytes) -> tuple[Any, ...]:
        """The body as `ctxw proxy` reads it (this code's reading, or an older code's, to compare)."""
        if hasattr(wire, "parse_request"):
            body, exact = wire.parse_request(raw)
            return body, raw, {}, exact
        return (wire.parse_body(raw) if hasattr(wire, "parse_body") else json.loads(raw)), raw, {}
    from contextwindow.store import open_store
    from contextwindow.usage import Usage

    out: dict[str, Any] = {}
    for label, tools in (("12 tools", TOOLS), ("no tools", None)):
        store = open_store(f"sqlite:///{tempfile.mkdtemp(prefix='bench_proxy_')}/own.db")
        grouped = getattr(store, "group_commits", None)  # as `ctxw proxy` runs it: a commit per ~10 ms of writes
        stop = grouped() if callable(grouped) else None
        window = getattr(importlib.import_module("contextwindow.proxy.server"), "GROUP_COMMIT_S", 0.01)
        opened: float | None = None
        conv = Conversations(store)
        conv.warm()
        first: list[float] = []
        later: list[float] = []
        pre: list[float] = []  # later requests forwarded as sent: the work before the forward (read, parse, decide)
        post: list[float] = []  # and after it (store the new messages, record the answer)
        for c in range(conversations):
            for t in range(turns):
                body: dict[str, Any] = {"model": "gpt-4o-mini", "max_tokens": 256, "messages": history(c, t)}
                if tools:
                    body["tools"] = tools
                raw = json.dumps(body).encode()
                t0 = time.process_time()
                parsed = conv.parse(Request(BY_PATH["/v1/chat/completions"], *read(raw)))
                quick = conv.quick(parsed) if hasattr(conv, "quick") else None
                t1 = time.process_time()
                done = conv.commit(quick) if quick is not None else conv.prepare(parsed)
                usage = Usage(input_tokens=40 * len(body["messages"]), output_tokens=12, model="gpt-4o-mini")
                reply = json.loads(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [next_call(t)]}}]}))
                conv.record(done.conversation_id, usage, fast=done.fast, answer=Answer("openai", reply, False))
                if stop is not None:
                    opened = opened or (time.perf_counter() if store.pending() is not None else None)  # type: ignore[attr-defined]
                    if opened is not None and time.perf_counter() - opened >= window:
                        store.flush()  # type: ignore[attr-defined]
                        opened = None
                t2 = time.process_time()
                (first if t == 0 else later).append(t2 - t0)
                if t and quick is not None:
                    pre.append(t1 - t0)
                    post.append(t2 - t1)
        if stop is not None:
            stop()
        last = [dt for n, dt in enumerate(later) if n % (turns - 1) >= turns - 6]  # each conversation's last 5 turns (the longest histories)
        out[label] = {"first_ms": round(1000 * statistics.mean(first), 3), "later_ms": round(1000 * statistics.mean(later), 3),
                      "last_ms": round(1000 * statistics.mean(last), 3),
                      "before_forward_ms": round(1000 * statistics.mean(pre), 3) if pre else None,
                      "after_forward_ms": round(1000 * statistics.mean(post), 3) if post else None}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve-upstream", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="fewer requests")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--own-work", action="store_true", help="only the proxy's own CPU per request, in process, no HTTP")
    ap.add_argument("--turns", type=int, default=25, help="--own-work: turns per conversation (history grows 2 messages a turn)")
    ap.add_argument("--conversations", type=int, default=30, help="--own-work: conversations")
    ap.add_argument("--lane", action="store_true", help="run ctxw proxy --lane (bookkeeping deferred while requests are in flight)")
    ap.add_argument("--front", choices=("aiohttp", "lean"), default="aiohttp",
                    help="ctxw proxy --front: lean serves with proxy/front.py (the CPU column is then the serving process's; its worker's is apart)")
    ap.add_argument("--api", choices=tuple(PATHS), default="chat",
                    help="the clients' endpoint: chat (POST /v1/chat/completions) or responses (POST /v1/responses, Codex-shaped)")
    args = ap.parse_args()
    if args.serve_upstream is not None:
        serve_upstream(args.serve_upstream)
        return
    if args.own_work:
        load = round(os.getloadavg()[0], 1)
        res = own_work(args.conversations, args.turns)
        if args.json:
            print(json.dumps({"load_before": load, **res}, indent=2))
            return
        print(f"the proxy's own work per request, CPU ms (mean; {args.conversations} conversations x {args.turns} turns, the reply stored "
              f"from each answer; 1-min load {load}):")
        for label, r in res.items():
            print(f"  {label}: first request of a conversation {r['first_ms']:.2f}, later requests {r['later_ms']:.3f}, "
                  f"the last 5 turns' {r['last_ms']:.3f}")
            if r["before_forward_ms"] is not None:
                print(f"    later requests forwarded as sent: {r['before_forward_ms']:.3f} before the forward (parse, decide), "
                      f"{r['after_forward_ms']:.3f} after it (store their messages, record the answer)")
        return
    rounds, turns1, turns50 = (2, 15, 5) if args.quick else (3, 40, 20)
    tmp = Path(tempfile.mkdtemp(prefix="bench_proxy_"))
    procs: list[subprocess.Popen[str]] = []
    api = args.api
    results: dict[str, Any] = {"api": api, "cores": os.cpu_count(), "load_before": round(os.getloadavg()[0], 1), "rows": []}
    try:
        for delay in (0.05, 0.0):
            up, port = start([sys.executable, __file__, "--serve-upstream", str(delay)], r"port (\d+)")
            procs.append(up)
            upstream = f"http://127.0.0.1:{port}"
            px, url = start([sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", upstream, "--port", "0",
                             "--store", f"sqlite:///{tmp / f'proxy{delay}.db'}", *(["--lane"] if args.lane else []), "--front", args.front],
                            r"listening on (http://127\.0\.0\.1:\d+)")
            procs.append(px)
            # warm both paths (imports, connection pools, model registry)
            run_batch(upstream, 2, 2, False, 90_000, api=api)
            run_batch(url, 2, 2, False, 90_100, api=api)
            if delay:
                for clients, turns in ((1, turns1), (50, turns50)):
                    for stream in (False, True):
                        # each row's clients are conversations of their own: tags 100 apart for the streamed rows (until
                        # 2026-11-24 21:00 they were 1 apart, so 49 of the streamed 50-client row's clients re-opened the
                        # JSON row's conversations, same system prompt and task: a rewind, not a new conversation)
                        row = compare(upstream, url, clients, turns, stream, rounds, tag0=clients * 10 + 100 * stream, pids=(up.pid, px.pid), api=api)
                        row["upstream_delay_ms"] = 50
                        results["rows"].append(row)
                # an extra view, not the goal's: the same 50 clients not phase-locked
                row = compare(upstream, url, 50, turns50, False, rounds, tag0=777, pids=(up.pid, px.pid), jitter_of=delay, api=api)
                row["upstream_delay_ms"] = 50
                results["unlocked"] = row
                # another, not the goal's: clients re-opening conversations the proxy has seen (the 50-client JSON
                # row's, from their first turn: the same system prompt and task), streamed; with --front lean a
                # re-opened conversation's first requests go to the niced worker (docs/proxy.md)
                row = compare(upstream, url, 50, turns50, True, rounds, tag0=50 * 10, pids=(up.pid, px.pid), api=api)
                row["upstream_delay_ms"] = 50
                results["reopened"] = row
                before = rss_kib(px.pid)
                n_conv = 300
                run_batch(url, n_conv, 1, False, 200_000, api=api)
                results["kib_per_live_conversation"] = round((rss_kib(px.pid) - before) / n_conv, 1)
                results["conversations_for_memory"] = n_conv
            else:
                row = compare(upstream, url, 1, turns1, False, rounds, tag0=7, pids=(up.pid, px.pid), api=api)
                row["upstream_delay_ms"] = 0
                results["rows"].append(row)
                results["instant_added_ms_p50"] = round(row["total_p50_proxy_ms"] - row["total_p50_direct_ms"], 2)
                results["rps_direct"] = round(throughput(upstream, 50, turns50, 300_000, api), 1)
                results["rps_proxy"] = round(throughput(url, 50, turns50, 310_000, api), 1)
            for p in procs:
                p.terminate()
                p.wait(timeout=30)
            procs.clear()
    finally:
        for p in procs:
            p.kill()
    results["load_after"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"bench_proxy ({PATHS[api]}; {results['cores']} cores; upstream, proxy and load generator share them; "
          f"1-min load average {results['load_before']} before, {results['load_after']} after)\n")
    def cell(r: dict[str, Any], k: str) -> str:
        return f"{r[f'{k}_direct_ms']:.1f} → {r[f'{k}_proxy_ms']:.1f} ms ({r[f'{k}_added_pct']:+.1f}%)"

    def head(r: dict[str, Any]) -> str:
        return f"| {r['upstream_delay_ms']} ms | {r['clients']} | {'yes' if r['stream'] else 'no'} | "

    print("| upstream | clients | stream | requests | TTFB p50 direct → proxy | TTFB p99 | total p50 | total p99 | CPU ms/request: proxy (upstream; load generator) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results["rows"]:
        print(head(r) + f"{r['requests']} | " + " | ".join(cell(r, k) for k in ("ttfb_p50", "ttfb_p99", "total_p50", "total_p99")) +
              f" | {r['proxy_cpu_ms_per_request']:.2f} ({r['upstream_cpu_ms_per_request']:.2f}; {r['generator_cpu_ms_per_request']:.2f}) |")
    print("\nThe same, each conversation's first request left out (each batch starts its clients' new conversations at once):\n")
    print("| upstream | clients | stream | TTFB p50 | TTFB p99 | total p50 | total p99 |")
    print("|---|---|---|---|---|---|---|")
    for r in results["rows"]:
        print(head(r) + " | ".join(cell(r, "later_" + k) for k in ("ttfb_p50", "ttfb_p99", "total_p50", "total_p99")) + " |")
    u = results["unlocked"]
    print(f"\nAn extra view, not the goal's (judged on the rows above): clients not phase-locked (each starts at a seeded "
          f"random offset within 50 ms; each request's upstream delay 50 ms ± {100 * JITTER:.0f}%, seeded, the same for direct and proxied):\n")
    print("| upstream | clients | stream | requests | TTFB p50 | TTFB p99 | total p50 | total p99 | the same, first requests left out: total p50 / p99 | CPU ms/request: proxy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| 50 ± {100 * JITTER:.0f}% ms | {u['clients']} | no | {u['requests']} | " + " | ".join(cell(u, k) for k in ("ttfb_p50", "ttfb_p99", "total_p50", "total_p99")) +
          f" | {u['later_total_p50_added_pct']:+.1f}% / {u['later_total_p99_added_pct']:+.1f}% | {u['proxy_cpu_ms_per_request']:.2f} |")
    o = results["reopened"]
    print("\nAnother view, not the goal's: 50 streamed clients re-opening the 50-client JSON row's conversations "
          "(the same histories again, from their first turn):\n")
    print("| upstream | clients | stream | requests | TTFB p50 | TTFB p99 | total p50 | total p99 | the same, first requests left out: total p50 / p99 | CPU ms/request: proxy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(head(o) + f"{o['requests']} | " + " | ".join(cell(o, k) for k in ("ttfb_p50", "ttfb_p99", "total_p50", "total_p99")) +
          f" | {o['later_total_p50_added_pct']:+.1f}% / {o['later_total_p99_added_pct']:+.1f}% | {o['proxy_cpu_ms_per_request']:.2f} |")
    print(f"\nadded against an instant upstream, p50: {results['instant_added_ms_p50']} ms per request")
    print(f"requests/s, 50 clients, instant upstream: direct {results['rps_direct']}, through the proxy {results['rps_proxy']}")
    print(f"memory per live conversation: {results['kib_per_live_conversation']} KiB (RSS growth over {results['conversations_for_memory']} new conversations)")


if __name__ == "__main__":
    main()
