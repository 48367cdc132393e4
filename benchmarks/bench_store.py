"""Benchmark the conversation store: SQLite and PostgreSQL side by side.

    python benchmarks/bench_store.py                       # sqlite + a throwaway postgres, 10k and 1M rows
    python benchmarks/bench_store.py --sizes 10000 --backends sqlite
    python benchmarks/bench_store.py --pg-url postgresql://user@host/db   # an existing server (uses a fresh schema)

Measures: appends/s (one message per transaction, and batches of 50); ``list_active`` latency
when the store holds N messages in all (the conversation read has 2,000 messages, 1,000 of them
folded, so the active part is 1,000) — cold (a fresh store object, nothing decoded yet) and warm
(decoded messages cached by content hash); fork cost for sources of 1k/10k/100k messages, forking
100 messages + 1 fold.

Bulk rows are written straight into the schema (the store's own tables, created by opening the
store): SQLite with ``executemany`` in one transaction, PostgreSQL with ``COPY``. Each row gets its
own content (unique blob), as a real store would.
"""

from __future__ import annotations

import argparse
import secrets
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from contextwindow.messages import assistant, dumps, user
from contextwindow.store import Selection, open_store
from contextwindow.store.base import ConversationStore, content_hash

ACTIVE = 1000
TARGET = 2000


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def rows_for(cid: str, start: int, n: int, tag: str) -> Iterator[tuple[str, str, str, int, float]]:
    """(blob hash, body, message id, seq, created_at) for n filler messages."""
    now = time.time()
    for i in range(n):
        m = user(f"{tag} message {start + i}: " + "lorem ipsum dolor sit amet " * 4) if i % 2 == 0 else assistant(
            f"{tag} reply {start + i}: " + "consectetur adipiscing elit " * 6
        )
        body = dumps(m)
        yield content_hash(body), body, f"m_{secrets.token_hex(8)}", start + i, now


class Bulk:
    """Writes many rows straight into a store's tables (fast fill for the benchmark)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def fill(self, conversations: dict[str, int], tag: str) -> None:
        if self.url.startswith("sqlite:///"):
            con = sqlite3.connect(self.url[len("sqlite:///") :])
            with con:
                for cid, n in conversations.items():
                    rows = list(rows_for(cid, 1, n, tag + cid))
                    con.executemany("INSERT INTO blobs (hash, body) VALUES (?, ?) ON CONFLICT DO NOTHING", [(h, b) for h, b, *_ in rows])
                    con.executemany(
                        "INSERT INTO messages (id, conversation_id, seq, hash, created_at) VALUES (?, ?, ?, ?, ?)",
                        [(mid, cid, seq, h, at) for h, _, mid, seq, at in rows],
                    )
                    con.execute("UPDATE conversations SET message_count = ? WHERE id = ?", (n, cid))
            con.execute("ANALYZE")
            con.close()
        else:
            import psycopg

            with psycopg.connect(self.url) as con, con.cursor() as cur:
                for cid, n in conversations.items():
                    rows = list(rows_for(cid, 1, n, tag + cid))
                    with cur.copy("COPY blobs (hash, body) FROM STDIN") as cp:
                        for h, b, *_ in rows:
                            cp.write_row((h, b))
                    with cur.copy("COPY messages (id, conversation_id, seq, hash, created_at) FROM STDIN") as cp:
                        for h, _, mid, seq, at in rows:
                            cp.write_row((mid, cid, seq, h, at))
                    cur.execute("UPDATE conversations SET message_count = %s WHERE id = %s", (n, cid))
                con.commit()
                cur.execute("ANALYZE")


def bench_appends(store: ConversationStore) -> dict[str, float]:
    cid = store.create_conversation("appends")
    n_single = 500
    t = sum(timed(lambda: store.append(cid, [user("one message per transaction " * 3)]), n_single))
    batches, size = 60, 50
    batch = [user(f"batched {i} " * 5) for i in range(size)]
    tb = sum(timed(lambda: store.append(cid, batch), batches))
    return {"append_single_per_s": n_single / t, "append_batched50_msgs_per_s": batches * size / tb}


def bench_list_active(url: str, total: int) -> dict[str, float]:
    store = open_store(url)
    target = store.create_conversation("target")
    fillers = max(0, total - TARGET)
    per = 1000
    convs = {store.create_conversation(f"filler {i}"): per for i in range(fillers // per)}
    store.close()
    t0 = time.perf_counter()
    Bulk(url).fill({target: TARGET, **convs}, "f")
    fill_s = time.perf_counter() - t0
    store = open_store(url)
    store.checkpoint(target, user("summary of the first half"), TARGET - ACTIVE)
    store.close()
    store = open_store(url)  # cold: nothing decoded yet
    t_cold = timed(lambda: store.list_active(target), 1)[0]
    got = len(store.list_active(target))
    assert got == ACTIVE, got
    warm = timed(lambda: store.list_active(target), 20)
    store.close()
    return {"fill_s": fill_s, "list_active_cold_ms": t_cold * 1000, "list_active_warm_median_ms": statistics.median(warm) * 1000}


def bench_fork(url: str) -> dict[str, float]:
    store = open_store(url)
    sources = {store.create_conversation(f"source {n}"): n for n in (1000, 10_000, 100_000)}
    store.close()
    Bulk(url).fill(sources, "fork")
    store = open_store(url)
    out = {}
    for cid, n in sources.items():
        store.checkpoint(cid, user("fold"), n // 2)
        sel = Selection(seqs=tuple(range(n - 99, n + 1)), checkpoints=(1,))
        times = timed(lambda cid=cid, sel=sel: store.fork(cid, sel), 5)  # type: ignore[misc]
        out[f"fork_101_rows_from_{n}_ms"] = statistics.median(times) * 1000
    store.close()
    return out


def fresh_pg_schema(base_url: str) -> str:
    import psycopg

    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base_url, autocommit=True) as con:
        con.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base_url else "?"
    return f"{base_url}{sep}options=-csearch_path%3D{schema}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--sizes", default="10000,1000000", help="total stored messages for list_active")
    ap.add_argument("--pg-url", default=None, help="use this server instead of starting a throwaway one")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",")
    server = None
    tmp = Path(tempfile.mkdtemp(prefix="cw-bench-"))
    results: dict[str, dict[str, float]] = {}
    try:
        if "postgres" in backends and args.pg_url is None:
            from contextwindow.store.pgserver import start_server

            server = start_server()
        for b in backends:
            def url(name: str, b: str = b) -> str:
                if b == "sqlite":
                    return f"sqlite:///{tmp / (name + '.db')}"
                base = args.pg_url or (server.url if server else "")
                return fresh_pg_schema(base)

            r: dict[str, float] = {}
            s = open_store(url("appends"))
            r.update(bench_appends(s))
            s.close()
            for n in sizes:
                for k, v in bench_list_active(url(f"la{n}"), n).items():
                    r[f"{k}@{n}"] = v
            r.update(bench_fork(url("fork")))
            results[b] = r
            print(f"[{b}] done", flush=True)
    finally:
        if server is not None:
            server.stop()
    keys = list(dict.fromkeys(k for r in results.values() for k in r))
    print(f"\n{'metric':45}" + "".join(f"{b:>14}" for b in results))
    for k in keys:
        print(f"{k:45}" + "".join(f"{results[b].get(k, float('nan')):>14.2f}" for b in results))


if __name__ == "__main__":
    main()
