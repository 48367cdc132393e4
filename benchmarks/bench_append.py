"""Per-call work of a Session as its history grows: append + budget check, per store; cold vs warm
compaction over stored history.

    python benchmarks/bench_append.py                         # memory, sqlite, postgres; 1,000 vs 100,000
    python benchmarks/bench_append.py --backends memory,sqlite --sizes 1000,100000 --compaction-tokens 1000000

Part 1 (goal: ratio <= 1.5). A conversation holding N active messages (assistant tool calls and their
results, ~60 tokens each, written straight to the store in batches) is reopened by a fresh Session;
after a warm-up, one step = ``add(assistant tool call)`` + ``add(tool result)`` + ``check()`` (the
compaction decision the next build starts from). Printed: the median step time at each N and the
ratio largest/smallest N, per store.

Part 2 (goal: cold <= 2x warm). A conversation of ~1M tokens of history (tool results of ~730 tokens)
is written through a Session (so its counts are stored with the rows). Cold: a new store object and
a new Session (another counter object) build with ``force=True`` — nothing decoded or counted in
memory. Warm: a second conversation with the same content, built the same way right after, in the
same process (decoded messages and counts in memory). Both run the same compaction pass.

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

from contextwindow import Session
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, user
from contextwindow.store import open_store
from contextwindow.tokens import counter_for

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


def bench_steps(url: str, n: int, steps: int) -> float:
    store = open_store(url)
    cid = store.create_conversation("bench", {"model": "claude-sonnet-4-5"})
    fill(store, cid, n)
    s = Session(store, cid, model="claude-sonnet-4-5", window=10**9, max_output=8000)
    base = 10**7
    for i in range(3):  # warm-up: the first check reads the view once; names load on demand
        s.add(call(base + i))
        s.add(result(base + i))
        s.check()
    times = []
    for i in range(steps):
        t = time.perf_counter()
        s.add(call(base + 100 + i))
        s.add(result(base + 100 + i))
        s.check()
        times.append(time.perf_counter() - t)
    store.close()
    return statistics.median(times)


def bench_cold_warm(url: str, tokens: int) -> tuple[float, float, int]:
    store = open_store(url)
    counter = counter_for("claude-sonnet-4-5")
    per = counter.count_message(result(0, 40)) + counter.count_message(call(0))
    pairs = max(1, tokens // per)
    cids = []
    for _ in range(2):
        cid = store.create_conversation("cold", {"model": "claude-sonnet-4-5"})
        s = Session(store, cid, model="claude-sonnet-4-5", window=10**7, max_output=8000)
        s.add(user("Refactor the parser. Never touch the public API."))
        for i in range(pairs):
            s.add(call(i), result(i, 40))
        cids.append(cid)
    store.close()
    window = tokens // 2  # the pass has work to do: about half of the history goes
    cold_store = open_store(url)
    t = time.perf_counter()
    Session(cold_store, cids[0], model="claude-sonnet-4-5", window=window, max_output=8000, counter=counter_for("claude-sonnet-4-5")).build(force=True)
    cold = time.perf_counter() - t
    cold_store.list_active(cids[1])  # the warm run: its content is decoded and counted in this process
    t = time.perf_counter()
    Session(cold_store, cids[1], model="claude-sonnet-4-5", window=window, max_output=8000, counter=counter_for("claude-sonnet-4-5")).build(force=True)
    warm = time.perf_counter() - t
    cold_store.close()
    return cold, warm, pairs * per


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="memory,sqlite,postgres")
    ap.add_argument("--sizes", default="1000,100000", help="active messages")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--compaction-tokens", type=int, default=1_000_000)
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

            per = [bench_steps(url(f"steps{n}"), n, args.steps) for n in sizes]
            cold = warm = float("nan")
            hist = 0
            if b != "memory":  # a memory store cannot be reopened cold
                cold, warm, hist = bench_cold_warm(url("cold"), args.compaction_tokens)
            rows.append((b, per, cold, warm, hist))
            print(f"[{b}] done", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    print("append + budget check (one step = add(call) + add(result) + check()), median per step")
    print(f"{'store':10}" + "".join(f"{f'{n:,} active':>16}" for n in sizes) + f"{'ratio':>8}  goal <= 1.5")
    for b, per, *_ in rows:
        print(f"{b:10}" + "".join(f"{p * 1e3:>14.3f}ms" for p in per) + f"{per[-1] / per[0]:>8.2f}")
    print("\ncompaction pass over stored history (build(force=True) on a reopened conversation)")
    print(f"{'store':10}{'history':>12}{'cold':>10}{'warm':>10}{'ratio':>8}  goal <= 2")
    for b, _, cold, warm, hist in rows:
        if hist:
            print(f"{b:10}{hist:>12,}{cold:>9.2f}s{warm:>9.2f}s{cold / warm:>8.2f}")


if __name__ == "__main__":
    main()
