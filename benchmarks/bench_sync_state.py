"""Bytes the sync decisions' state takes per request (``contextwindow/sync_state.py``), for a
client that never sends the model's reply back and ends every request with a block it drops again
(two decisions per request: the last block and the stored reply, both superseded).

The Session alone on a real SQLite store (what the proxy runs per request: ``Session.sync``, then
the reply stored from the answer). The bytes are counted at the store's ``set_state`` for the
decisions' keys (JSON as the store writes it). The reference, in the same run: the bytes one state
value rewritten whole on every request would have taken (the layout before 2026-11-24), i.e. every
decision made so far, JSON-encoded, at each request that decides something. Deterministic: no
clock, no randomness, so the numbers do not depend on the machine's load.

    python benchmarks/bench_sync_state.py            # the table in docs/proxy.md
    python benchmarks/bench_sync_state.py --json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from contextwindow import Session
from contextwindow.messages import Message, TextPart
from contextwindow.session import SessionConfig
from contextwindow.store import open_store
from contextwindow.sync import KIND_KEY, REPLY, STATE_KEY
from contextwindow.sync_state import load_decisions


class StateBytes:
    """A real store that counts the bytes written to the sync decisions' state keys (also used by
    tests/test_sync_state.py)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.written = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def set_state(self, conversation_id: str, key: str, value: Any) -> None:
        if key == STATE_KEY or key.startswith(STATE_KEY + "."):
            self.written += len(json.dumps(value))
        self.inner.set_state(conversation_id, key, value)


def run(requests: int, root: Path) -> dict[str, Any]:
    store = StateBytes(open_store(f"sqlite:///{root / f'sync-{requests}.db'}"))
    s = Session(store, None, window=1_000_000, config=SessionConfig(clip_budget_tokens=None, cache=None))  # type: ignore[arg-type]
    history = [Message("user", (TextPart("Find the retry logic."),))]
    ours: list[int] = []
    whole: list[int] = []
    decided: dict[str, Any] = {}
    for i in range(requests):
        before = store.written
        s.sync([*history, Message("user", (TextPart(f"<system-reminder>call {i}</system-reminder>"),))])
        ours.append(store.written - before)
        if store.written > before:  # this request decided something: one whole value would be rewritten now
            decided = load_decisions(store.inner, s.id)
            whole.append(len(json.dumps(decided)))
        s.add(Message("assistant", (TextPart(f"answer {i}"),), meta={KIND_KEY: REPLY}))
        history += [Message("assistant", (TextPart(f"Answer {i}."),)), Message("user", (TextPart(f"and {i}?"),))]
    return {"requests": requests, "decisions": len(decided), "max_per_request": max(ours), "mean_per_request": sum(ours) / requests,
            "total": sum(ours), "whole_max_per_request": max(whole), "whole_total": sum(whole)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--requests", type=int, nargs="*", default=[100, 400, 1600])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run(n, Path(tmp)) for n in args.requests]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'requests':>8} {'decisions':>9} | {'chunked: max/request':>20} {'mean':>7} {'total':>10} | {'one value: max/request':>22} {'total':>11}")
    for r in rows:
        print(f"{r['requests']:>8} {r['decisions']:>9} | {r['max_per_request']:>20,} {r['mean_per_request']:>7,.0f} {r['total']:>10,} | "
              f"{r['whole_max_per_request']:>22,} {r['whole_total']:>11,}")


if __name__ == "__main__":
    main()
