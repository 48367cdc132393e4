"""Per-call work of a Session as its history grows: append + budget check, per store; cold vs warm
compaction over stored history.

    python benchmarks/bench_append.py                         # memory, sqlite, postgres; 1,000 vs 100,000
    python benchmarks/bench_append.py --backends memory,sqlite --sizes 1000,100000 --compaction-tokens 1000000

Part 1 (goal: ratio <= 1.5). A conversation holding N active messages (assistant tool calls and their
results, ~60 tokens each, written straight to the store in batches) is reopened by a fresh Session;
after a warm-up, one step = ``add(assistant tool call)`` + ``add(tool result)`` + ``check()`` (the
compaction decision the next build starts from). The sizes' steps are interleaved: ``--rounds``
rounds of ``--steps`` steps per size, the sizes in alternating order, so a drift of the machine
(load, the server's caches) hits every size alike. Printed per store: the median of all steps at
each N with its p25-p75, the ratio largest/smallest N, and the spread of the per-round ratios;
then, per round, the CPU time of a step (this process, plus the PostgreSQL server process serving
the Session, read from /proc/PID/schedstat) and the time both waited for a core: on a shared machine
the wall time mixes work with waiting, the CPU ratio is the work alone. The load average is printed.
``--explain`` prints the plan of each statement a step runs on SQLite and PostgreSQL instead.

Part 2 (goal: cold <= 2x warm). Conversations of ~1M tokens of history (tool results of ~730
tokens), stored with their token counts as a Session's adds store them. Each round runs in a new
process (imports and the tokenizer loaded first by a tiny build: fixed costs, not history): cold =
a new store object and Session build with ``force=True`` — nothing decoded or counted in memory;
warm = the same pass on a second conversation with the same content after reading it once in
that process. ``--compaction-repeats`` rounds; medians and the spread of the per-round ratios,
and per pass its CPU time (this process + the PostgreSQL server process, as in part 1) and its time
in the garbage collector: a loaded machine's waiting shows in the wall ratio, not in the CPU one.

PostgreSQL: a throwaway server is started the way the tests do (``--pg-url`` to use yours).
Timings are medians; the machine is shared, so compare ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from contextwindow import Session
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, user
from contextwindow.store import open_store
from contextwindow.store.base import TokenCounts
from contextwindow.tokens import counter_for
from contextwindow.tokens.fingerprint import counter_key

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import fresh_pg_schema


def call(i: int) -> Message:
    return Message("assistant", (TextPart(f"step {i}: look at the file"), ToolCallPart(f"call_{i}", "read_file", f'{{"path": "src/m{i % 97}.py"}}')))


def result(i: int, lines: int = 3) -> Message:
    body = "\n".join(f"{i}:{k}: def f_{k}(x): return x + {k}" for k in range(lines))
    return Message("tool", (ToolResultPart(f"call_{i}", (TextPart(body),)),))


def fill(store: object, cid: str, n: int, lines: int = 3) -> None:
    batch: list[Message] = [user("Refactor the parser. Never touch the public API.")]
    for i in range(n // 2):
        batch += [call(i), result(i, lines)]
        if len(batch) >= 2000:
            store.append(cid, batch)  # type: ignore[attr-defined]
            batch = []
    if batch:
        store.append(cid, batch)  # type: ignore[attr-defined]


def open_steps(url: str, n: int) -> tuple[Any, Session]:
    """A store holding a conversation of ``n`` active messages, reopened by a fresh Session and
    warmed up (the first check reads the view once; tool names load on demand)."""
    store = open_store(url)
    cid = store.create_conversation("bench", {"model": "claude-sonnet-4-5"})
    fill(store, cid, n)
    s = Session(store, cid, model="claude-sonnet-4-5", window=10**9, max_output=8000)
    for i in range(3):
        s.add(call(WARM + i))
        s.add(result(WARM + i))
        s.check()
    return store, s


WARM = 10**7


def one_step(s: Session, i: int) -> float:
    t = time.perf_counter()
    s.add(call(i))
    s.add(result(i))
    s.check()
    return time.perf_counter() - t


def _sched(pid: int) -> tuple[int, int]:
    """(ns on a CPU, ns waiting for one) of a process, from /proc/PID/schedstat ((0, 0) where absent)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            on, wait = f.read().split()[:2]
        return int(on), int(wait)
    except (OSError, ValueError):
        return 0, 0


def _backend_pid(store: Any) -> int | None:
    """The PostgreSQL server process serving ``store``'s connection (None for other stores)."""
    conn = getattr(store, "_conn", None)
    info = getattr(conn, "info", None)
    return getattr(info, "backend_pid", None)


Steps = dict[str, list[float]]  # "wall": every step's seconds; per round (ms per step): "round", "client", "server", "wait"


def bench_steps(urls: list[tuple[int, str]], rounds: int, steps: int) -> dict[int, Steps]:
    """Steps on every size, interleaved: each round runs ``steps`` steps per size, the sizes in
    alternating order, so drift of the machine (load, the server's caches) hits all sizes alike.
    Returns, per size, every step's wall time and, per round, the median step, the CPU time per
    step of this process (process_time) and of the PostgreSQL server process serving the Session
    (Linux /proc/PID/schedstat): time on a core, which waiting for one does not inflate; and the
    time both waited for a core (schedstat)."""
    import os

    opened = [(n, *open_steps(url, n)) for n, url in urls]
    for _, url in urls:  # PostgreSQL: the bulk fill's dead rows and statistics settled first, not during the steps
        if url.startswith("postgresql"):
            import psycopg

            with psycopg.connect(url, autocommit=True) as con:
                con.execute("VACUUM (ANALYZE)")
    out: dict[int, Steps] = {n: {"wall": [], "round": [], "client": [], "server": [], "wait": []} for n, _ in urls}
    i = WARM + 100
    me = os.getpid()
    for r in range(rounds):
        for n, store, s in opened if r % 2 == 0 else reversed(opened):
            backend = _backend_pid(store)
            c0, b0, cpu0 = _sched(me), (_sched(backend) if backend else (0, 0)), time.process_time()
            times = []
            for _ in range(steps):
                times.append(one_step(s, i))
                i += 1
            cpu1, c1, b1 = time.process_time(), _sched(me), (_sched(backend) if backend else (0, 0))
            o = out[n]
            o["wall"].extend(times)
            o["round"].append(statistics.median(times))
            o["client"].append((cpu1 - cpu0) / steps * 1e3)
            o["server"].append((b1[0] - b0[0]) / steps / 1e6)
            o["wait"].append((c1[1] - c0[1] + b1[1] - b0[1]) / steps / 1e6)
    for _, store, _ in opened:
        store.close()
    return out


def fill_counted(store: Any, lines: int, pairs: int) -> str:
    """A conversation of ``pairs`` tool calls + results with their token counts stored, as a
    Session's adds would store them (results under the clip budget are not clipped)."""
    counter = counter_for("claude-sonnet-4-5")
    cid = store.create_conversation("cold", {"model": "claude-sonnet-4-5"})
    Session(store, cid, model="claude-sonnet-4-5", window=10**7, max_output=8000).add(user("Refactor the parser. Never touch the public API."))
    batch: list[Message] = []
    for i in range(pairs):
        batch += [call(i), result(i, lines)]
        if len(batch) >= 1000 or i == pairs - 1:
            store.append(cid, batch, token_counts=TokenCounts(counter_key(counter), tuple(counter.count_message(m) for m in batch)))
            batch = []
    return cid


def bench_cold_warm(url: str, tokens: int, repeats: int, extra: dict[str, list[float]]) -> tuple[list[float], list[float], int]:
    """``repeats`` rounds, each in a new process (nothing of the writer's decoded messages, counts
    or memos in memory): a compaction pass on one conversation (cold), then on another with the
    same content after reading it once in that process (warm). ``extra`` gets, per round, each
    pass's CPU time (this process + the PostgreSQL server process) and its time in the garbage
    collector."""
    import json
    import subprocess

    counter = counter_for("claude-sonnet-4-5")
    per = counter.count_message(result(0, 40)) + counter.count_message(call(0))
    pairs = max(1, tokens // per)
    store = open_store(url)
    cids = [fill_counted(store, 40, pairs) for _ in range(2 * repeats)]
    store.close()
    window = tokens // 2  # the pass has work to do: about half of the history goes
    cold, warm = [], []
    for r in range(repeats):
        out = subprocess.run(
            [sys.executable, __file__, "--child-pass", url, cids[2 * r], cids[2 * r + 1], str(window)],
            capture_output=True, text=True, check=True,
        )
        got = json.loads(out.stdout.strip().splitlines()[-1])
        cold.append(got["cold"])
        warm.append(got["warm"])
        for k in ("cold_cpu", "warm_cpu", "cold_gc", "warm_gc"):
            extra.setdefault(k, []).append(got[k])
    return cold, warm, pairs * per


def child_pass(url: str, cold_cid: str, warm_cid: str, window: int) -> None:
    """In a fresh process: imports and the tokenizer loaded by a tiny build first (fixed costs,
    not history), then the cold pass, then the warm one; prints each one's wall time, CPU time
    (this process + the PostgreSQL server process serving it: time on a core, which waiting for
    one does not inflate) and time in the garbage collector, in seconds."""
    import gc
    import json

    from contextwindow.store.memory import MemoryStore

    in_gc = [0.0, 0.0]  # seconds in collections so far, the start of the current one

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            in_gc[1] = time.perf_counter()
        else:
            in_gc[0] += time.perf_counter() - in_gc[1]

    tiny = Session(MemoryStore(), model="claude-sonnet-4-5", window=2_000, max_output=500)
    tiny.add(user("warm up"), call(0), result(0, 200))
    tiny.build(force=True)
    store = open_store(url)
    backend = _backend_pid(store)
    gc.callbacks.append(collecting)

    def timed(cid: str) -> tuple[float, float, float]:
        gc0, cpu0, srv0, t = in_gc[0], time.process_time(), _sched(backend)[0] if backend else 0, time.perf_counter()
        Session(store, cid, model="claude-sonnet-4-5", window=window, max_output=8000).build(force=True)
        wall = time.perf_counter() - t
        srv = ((_sched(backend)[0] if backend else 0) - srv0) / 1e9
        return wall, time.process_time() - cpu0 + srv, in_gc[0] - gc0

    cold, cold_cpu, cold_gc = timed(cold_cid)
    Session(store, warm_cid, model="claude-sonnet-4-5", window=window, max_output=8000).view()  # read and counted once
    warm, warm_cpu, warm_gc = timed(warm_cid)
    gc.callbacks.remove(collecting)
    store.close()
    print(json.dumps({"cold": cold, "warm": warm, "cold_cpu": cold_cpu, "warm_cpu": warm_cpu, "cold_gc": cold_gc, "warm_gc": warm_gc}))


STEP_SQL = {  # the statements one step runs on a SQL store (store/sql.py), with stand-in values
    "get_state (ledger)": ("SELECT value FROM conversation_state WHERE conversation_id = ? AND key = ?", ("{cid}", "constraints")),
    "seq range": ("UPDATE conversations SET message_count = message_count + ? WHERE id = ? RETURNING message_count", (1, "{cid}")),
    "blob": ("INSERT INTO blobs (hash, body) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING", ("{hash}", "{}")),
    "message row": ("INSERT INTO messages (id, conversation_id, seq, hash, created_at) VALUES (?, ?, ?, ?, ?)", ("m_explain", "{cid}", 10**9, "{hash}", 0.0)),
    "token count": ("INSERT INTO message_tokens (message_id, counter, tokens) VALUES (?, ?, ?)", ("m_explain", "c#explain", 1)),
}


def explain(url: str, sizes: list[int]) -> None:
    """The plan of each statement of a step, on a conversation of each size (PostgreSQL:
    EXPLAIN (ANALYZE, BUFFERS) in a transaction rolled back; SQLite: EXPLAIN QUERY PLAN)."""
    import hashlib

    for n in sizes:
        store = open_store(url)
        cid = store.create_conversation("explain")
        fill(store, cid, n)
        h = hashlib.sha256(f"explain {n}".encode()).hexdigest()
        print(f"\n-- {n:,} messages in the conversation ({store.url.split('?')[0]})")
        conn = store._conn  # a diagnostic: the store's own connection, so the plans are the ones it gets
        pg = "postgresql" in store.url
        stmts = [(name, sql, tuple(cid if v == "{cid}" else h if v == "{hash}" else v for v in params)) for name, (sql, params) in STEP_SQL.items()]
        if pg:
            with conn.transaction(force_rollback=True):  # in order (the rows reference each other), then undone
                for name, sql, vals in stmts:
                    rows = conn.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql.replace("?", "%s"), vals).fetchall()
                    print(f"{name:20} " + " | ".join(r[0].strip() for r in rows))
        else:
            for name, sql, vals in stmts:
                plan = [r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, vals).fetchall()] or ["(no table scan: a row write)"]
                print(f"{name:20} " + " | ".join(plan))
        store.close()


def spread(xs: list[float]) -> str:
    return f"{min(xs):.2f}-{max(xs):.2f}"


def main() -> None:
    if sys.argv[1:2] == ["--child-pass"]:
        child_pass(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="memory,sqlite,postgres")
    ap.add_argument("--sizes", default="1000,100000", help="active messages")
    ap.add_argument("--rounds", type=int, default=6, help="interleaved rounds of steps per size")
    ap.add_argument("--steps", type=int, default=50, help="steps per size per round")
    ap.add_argument("--compaction-tokens", type=int, default=1_000_000)
    ap.add_argument("--compaction-repeats", type=int, default=3)
    ap.add_argument("--explain", action="store_true", help="print the plans of a step's statements (sqlite, postgres) and stop")
    ap.add_argument("--pg-url", default=None)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    backends = args.backends.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="cw-bench-append-"))
    server = None
    rows = []
    try:
        if "postgres" in backends and args.pg_url is None:
            from contextwindow.store.pgserver import start_server

            server = start_server()
        for b in backends:
            def url(name: str, b: str = b) -> str:
                if b == "memory":
                    return "memory:"
                if b == "sqlite":
                    return f"sqlite:///{tmp / (name + '.db')}"
                return fresh_pg_schema(args.pg_url or (server.url if server else ""))

            if args.explain:
                if b != "memory":
                    explain(url("explain"), sizes)
                continue
            per = bench_steps([(n, url(f"steps{n}")) for n in sizes], args.rounds, args.steps)
            cold: list[float] = []
            warm: list[float] = []
            extra: dict[str, list[float]] = {}
            hist = 0
            if b != "memory":  # a memory store cannot be reopened cold
                cold, warm, hist = bench_cold_warm(url("cold"), args.compaction_tokens, args.compaction_repeats, extra)
            rows.append((b, per, cold, warm, hist, extra))
            print(f"[{b}] done", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    if args.explain:
        return
    lo, hi = sizes[0], sizes[-1]
    import os

    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min) on {os.cpu_count()} cores")
    print(f"append + budget check (one step = add(call) + add(result) + check()); {args.rounds} interleaved rounds x {args.steps} steps per size")
    print("ms per step: median of all steps [p25-p75]; ratios largest/smallest size: of the medians, of the p25s (steps the")
    print("scheduler did not interrupt), and the median [min-max] of the per-round ratios. Goal <= 1.5")
    print(f"{'store':10}" + "".join(f"{f'{n:,} active':>22}" for n in sizes) + f"{'median':>8}{'p25':>6}{'per-round':>20}")
    for b, per, *_ in rows:
        cells = []
        q25 = {}
        for n in sizes:
            q = statistics.quantiles(per[n]["wall"], n=4)
            q25[n] = q[0]
            cells.append(f"{statistics.median(per[n]['wall']) * 1e3:.3f} [{q[0] * 1e3:.2f}-{q[2] * 1e3:.2f}]")
        ratio = statistics.median(per[hi]["wall"]) / statistics.median(per[lo]["wall"])
        rounds = [x / y for x, y in zip(per[hi]["round"], per[lo]["round"], strict=True)]
        print(f"{b:10}" + "".join(f"{c:>22}" for c in cells) + f"{ratio:>8.2f}{q25[hi] / q25[lo]:>6.2f}"
              f"{f'{statistics.median(rounds):.2f} [{spread(rounds)}]':>20}")
    print("\nCPU ms per step (time on a core: this process + the PostgreSQL server process serving it; medians of the rounds),")
    print("the time both waited for a core (ms per step), and the CPU ratio largest/smallest size: median [min-max] of the rounds")
    print(f"{'store':10}" + "".join(f"{f'{n:,}: client+server (wait)':>34}" for n in sizes) + f"{'CPU ratio':>24}")
    for b, per, *_ in rows:
        cpu = {n: [c + v for c, v in zip(per[n]["client"], per[n]["server"], strict=True)] for n in sizes}
        cells = [f"{statistics.median(per[n]['client']):.3f}+{statistics.median(per[n]['server']):.3f} ({statistics.median(per[n]['wait']):.2f})" for n in sizes]
        rounds = [x / y for x, y in zip(cpu[hi], cpu[lo], strict=True) if y > 0]
        print(f"{b:10}" + "".join(f"{c:>34}" for c in cells)
              + f"{f'{statistics.median(cpu[hi]) / statistics.median(cpu[lo]):.2f} [{spread(rounds)}]':>24}")
    print(f"\ncompaction pass over stored history (build(force=True) on a reopened conversation), {args.compaction_repeats} rounds")
    print("wall: medians, their ratio and the per-round ratios (goal <= 2); CPU (this process + the PostgreSQL server")
    print("process): median ratio [per-round min-max]; gc: median ms in the garbage collector during each pass")
    print(f"{'store':10}{'history':>12}{'cold':>10}{'warm':>10}{'ratio':>8}{'per-round ratios':>20}{'CPU ratio':>20}{'gc cold/warm':>16}")
    for b, _, cold, warm, hist, extra in rows:
        if hist:
            c, w = statistics.median(cold), statistics.median(warm)
            cpu = [x / y for x, y in zip(extra["cold_cpu"], extra["warm_cpu"], strict=True) if y > 0]
            gcs = f"{statistics.median(extra['cold_gc']) * 1e3:.0f}/{statistics.median(extra['warm_gc']) * 1e3:.0f} ms"
            print(f"{b:10}{hist:>12,}{c:>9.2f}s{w:>9.2f}s{c / w:>8.2f}{spread([x / y for x, y in zip(cold, warm, strict=True)]):>20}"
                  f"{f'{statistics.median(cpu):.2f} [{spread(cpu)}]':>20}{gcs:>16}")


if __name__ == "__main__":
    main()
