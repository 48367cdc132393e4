"""How far clearing alone could go: the best clearing schedule in hindsight, on the long sessions.

    python benchmarks/clear_bound.py [--window 100000] [--transcripts DIR]

For each long fixture session (>= 40 calls) on which ``claude-code`` never folds at ``--window`` (so
nothing but clearing can lower the bill there: a fold's summary costs more than it saves, docs/replay.md),
this prints the bill above the floor, as a share of ``claude-code``'s, of:

- ``default`` as replayed (its per-call cache step, compaction/cache.py);
- the best schedule of clears in hindsight: at any set of calls, clear every candidate the step
  may clear then (old tool results and old calls' long inputs, by the same rules: the newest 3
  results and the calls they answer, errors, small results, the assistant's words and short values
  stay), each clear paying the cache write of everything after its first cleared item. A clear
  leaves cleared exactly the candidates of its call (candidates only ever grow), so the state after
  a call is the call of the last clear and a dynamic program over (call, last clear) finds the
  optimum over all 2^calls schedules;
- the same clears with free rewrites (every candidate cleared the moment it is one, no cache write
  for it): what the fidelity rules leave to read at all.

The messages are the log's own (the Session also clips huge results at append; these sessions have
none to clip). Prices: the model's cache read and write weights (replay/pricing.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contextwindow.compaction.inputs import cleared_inputs, input_candidates
from contextwindow.compaction.mask import MaskConfig, mask_candidates, masked_message, tool_names
from contextwindow.compaction.view import ViewItem
from contextwindow.models import get_model
from contextwindow.replay import replay
from contextwindow.replay.pricing import Pricing
from contextwindow.tokens import counter_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_replay import FIXTURES, LONG_CALLS, sessions_with_models


def bounds(items: list[ViewItem], cleared: dict[int, int], calls: list[int], fixed: int, read: float, write: float) -> tuple[float, list[int], float]:
    """(best bill with clears, the calls it clears at, the bill with free rewrites)."""
    mc = MaskConfig(keep_last=3, min_result_tokens=200)
    cand = []  # the candidates at each call (that clearing shrinks), a growing set
    for ci in calls:
        hist = items[:ci]
        cand.append(frozenset(i for i in input_candidates(hist, mc, 200) + mask_candidates(hist, mc) if cleared.get(i, 10**9) < items[i].tokens))

    def call_bill(n: int, done: frozenset[int], first_change: int | None) -> float:
        ci = calls[n]
        toks = [cleared[i] if i in done else items[i].tokens for i in range(ci)]
        if n == 0:
            return (fixed + sum(toks)) * write
        stable = calls[n - 1] if first_change is None else min(calls[n - 1], first_change)
        shared = fixed + sum(toks[:stable])
        return shared * read + (fixed + sum(toks) - shared) * write

    empty: frozenset[int] = frozenset()
    # best[a]: the cheapest bill so far whose last clear was at call a (-1: none yet), and its clears
    best: dict[int, tuple[float, list[int]]] = {-1: (call_bill(0, empty, None), [])}
    for n in range(1, len(calls)):
        nxt: dict[int, tuple[float, list[int]]] = {}
        for a, (cost, at) in best.items():
            done = cand[a] if a >= 0 else empty
            nxt[a] = (cost + call_bill(n, done, None), at)
            new = cand[n] - done
            if new:
                c = cost + call_bill(n, cand[n], min(new))
                if n not in nxt or c < nxt[n][0]:
                    nxt[n] = (c, [*at, n])
        best = nxt
    cost, at = min(best.values(), key=lambda v: v[0])
    free = sum(call_bill(n, cand[n], None) for n in range(len(calls)))
    return cost, at, free


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcripts", type=Path, default=FIXTURES)
    ap.add_argument("--window", type=int, default=100_000)
    args = ap.parse_args()
    print("| session | calls | floor | claude-code above floor | default / cc above floor | best clearing in hindsight / cc | its clears (calls) | free rewrites / cc |")
    print("|---|---|---|---|---|---|---|---|")
    for s, model, _ in sessions_with_models(args.transcripts):
        if len(s.calls) < LONG_CALLS:
            continue
        r = replay(s, ["claude-code", "default"], model=model, window=args.window)
        cc, d = r.policy("claude-code"), r.policy("default")
        if cc.folds:
            continue
        counter = counter_for(model)
        count = counter.count_message
        items = [ViewItem(f"m{i}", m, count(m)) for i, m in enumerate(s.messages)]
        names = tool_names(items)
        cleared = {}
        for i, it in enumerate(items):
            if it.message.role == "assistant" and it.message.tool_calls:
                cleared[i] = count(cleared_inputs(it, count))
            elif it.message.role == "tool" and it.message.is_tool_result:
                cleared[i] = count(masked_message(it, names, count))
        pricing = Pricing.of(get_model(model))
        write = pricing.write_weight if pricing.charges_writes else 1.0
        calls = sorted(c.index for c in s.calls)
        # the fixed prefix as the replay bills it: the overhead and the framing (bench_replay's floor)
        fixed = r.overhead + counter.count_messages([])
        fl = cc.floor_input_tokens
        cost, at, free = bounds(items, cleared, calls, fixed, pricing.read_weight, write)
        above = cc.billed_with_summaries - fl
        print(
            f"| {Path(s.source).name[:30]} | {len(calls)} | {fl:,.0f} | {above:,.0f} | {(d.billed_with_summaries - fl) / above:.2f} "
            f"| {(cost - fl) / above:.3f} | {', '.join(map(str, at)) or '-'} | {(free - fl) / above:.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
