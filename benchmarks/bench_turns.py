"""Turns and budget benchmark: validate, safe cut points, turns, repair over long histories.

    python benchmarks/bench_turns.py [--sizes 1000,10000,100000] [--repeat 3]

Builds an agent-like history (user → assistant with 1-3 tool calls → results → assistant text,
ids unique) of each size, plus a damaged copy (2% of messages deleted, 1% swapped with the next:
interrupted calls, late results, orphans). Prints the best of ``--repeat`` runs in ms and in µs
per message, and the per-call cost of the budget functions.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from contextwindow.budget import BudgetConfig, compute_budget, gauge, should_compact
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.turns import group_turns, merge_for_alternation, repair, safe_cut_points, validate


def build_history(n: int, seed: int = 7) -> list[Message]:
    rng = random.Random(seed)
    out: list[Message] = [Message("system", (TextPart("You are a coding agent."),))]
    k = 0
    while len(out) < n:
        out.append(Message("user", (TextPart(f"task {len(out)}: fix the failing test"),)))
        for _ in range(rng.randint(0, 4)):
            calls = []
            for _ in range(rng.randint(1, 3)):
                k += 1
                calls.append(ToolCallPart(f"call_{k}", "bash", '{"cmd":"pytest -q"}'))
            out.append(Message("assistant", (TextPart("running"), *calls)))
            for c in calls:
                out.append(Message("tool", (ToolResultPart(c.id, (TextPart("1 passed"),)),)))
        out.append(Message("assistant", (TextPart("done"),)))
    # end at a turn boundary so the history stays valid
    while len(out) > n:
        last = max(i for i, m in enumerate(out) if m.role == "user")
        del out[last if last > 1 else n :]
    return out


def damage(history: list[Message], seed: int = 11) -> list[Message]:
    rng = random.Random(seed)
    out = [m for m in history if rng.random() >= 0.02]
    for i in range(len(out) - 1):
        if rng.random() < 0.01:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"{'operation':<42}{'messages':>10}{'ms':>10}{'µs/msg':>10}")
    for n in sizes:
        clean = build_history(n)
        broken = damage(clean)
        out, report = repair(broken)
        assert validate(out) == [] and validate(clean) == []
        cases: list[tuple[str, list[Message], Callable[[list[Message]], Any]]] = [
            ("validate openai (valid)", clean, lambda h: validate(h, "openai")),
            ("validate anthropic", clean, lambda h: validate(h, "anthropic")),
            ("validate openai (damaged)", broken, lambda h: validate(h, "openai")),
            ("safe_cut_points", clean, safe_cut_points),
            ("validate + safe_cut_points", clean, lambda h: (validate(h), safe_cut_points(h))),
            ("group_turns", clean, group_turns),
            ("repair (valid: no-op)", clean, repair),
            ("repair (damaged)", broken, repair),
            ("merge_for_alternation", clean, merge_for_alternation),
        ]
        for name, hist, fn in cases:
            ms = best_ms(lambda fn=fn, hist=hist: fn(hist), args.repeat)  # type: ignore[misc]
            print(f"{name:<42}{len(hist):>10,}{ms:>10.1f}{ms * 1000 / len(hist):>10.2f}")
        print(f"  damaged copy: {report.describe()}")

    cfg = BudgetConfig.from_env({})
    calls = 100_000

    def budget_loop() -> None:
        for i in range(calls):
            bud = compute_budget(200_000, 64_000, 9_000, 4_000, 0, cfg)
            should_compact(i, 120_000, bud)
            gauge(i, 200_000)

    ms = best_ms(budget_loop, args.repeat)
    print(f"compute_budget + should_compact + gauge: {ms * 1000 / calls:.2f} µs per call")


if __name__ == "__main__":
    main()
