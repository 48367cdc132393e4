"""Token-count accuracy against provider-reported input tokens on real transcripts.

    python benchmarks/bench_tokens_accuracy.py

Claude Code sessions: the logs hold neither the system prompt nor the tool definitions, a
constant prefix per chain, so it is fitted from the chain's first call: predicted_i =
R_0 + (E_i - E_0); the error is |predicted_i - R_i| / R_i over every later call. Also shown:
"prev" = anchored on the previous call (R_{i-1} + E_i - E_{i-1}), which is how a session uses
the estimate between two provider reports. Fixed ratios of 4, 2.5 and 1.5 chars/token run on
the same messages (characters of text, ids, names, arguments, results, current reasoning).

Codex rollouts: the exact o200k counter, same method (instructions and tools unknown).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence

from bench_tokens_common import Call, iter_calls
from contextwindow.messages import Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from contextwindow.tokens import counter_for


def chars(messages: Sequence[Message]) -> int:
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    n = 0
    for i, m in enumerate(messages):
        for p in m.parts:
            if isinstance(p, TextPart):
                n += len(p.text)
            elif isinstance(p, ReasoningPart):
                n += len(p.text) if i > last_user else 0
            elif isinstance(p, ToolCallPart):
                n += len(p.id) + len(p.name) + len(p.arguments)
            elif isinstance(p, ToolResultPart):
                n += len(p.call_id) + sum(len(c.text) for c in p.content if isinstance(c, TextPart))
    return n


def errs(calls: list[Call], est: Callable[[Call], float]) -> tuple[list[float], list[float]]:
    by: dict[str, list[tuple[Call, float]]] = defaultdict(list)
    for c in calls:
        by[c.chain].append((c, est(c)))
    first: list[float] = []
    prev: list[float] = []
    for chain in by.values():
        c0, e0 = chain[0]
        for (a, ea), (b, eb) in itertools.pairwise(chain):
            first.append(abs(c0.reported + eb - e0 - b.reported) / b.reported)
            prev.append(abs(a.reported + eb - ea - b.reported) / b.reported)
    return first, prev


def stat(xs: list[float]) -> str:
    if not xs:
        return "n/a"
    s = sorted(xs)
    return f"median {statistics.median(s):6.2%}  p95 {s[min(len(s) - 1, int(0.95 * len(s)))]:6.2%}"


def family(model: str) -> str:
    for fam in ("opus", "sonnet", "haiku"):
        if fam in model:
            return f"claude-{fam}"
    return model


def main() -> None:
    claude = list(iter_calls("claude"))
    print(f"Claude Code: {len(claude)} calls, {len({c.chain for c in claude})} chains")
    groups: dict[str, list[Call]] = defaultdict(list)
    for c in claude:
        groups[family(c.model)].append(c)
    groups["all claude"] = claude
    for name, calls in groups.items():
        t = time.perf_counter()
        est = {id(c): counter_for(c.model).count_messages(c.messages) for c in calls}
        dt = time.perf_counter() - t
        print(f"\n  {name} ({len(calls)} calls, estimated in {dt * 1000:.0f} ms)")
        f, p = errs(calls, lambda c, est=est: est[id(c)])  # type: ignore[misc]
        print(f"    estimator         first-anchored {stat(f)}   prev-anchored {stat(p)}")
        for ratio in (4.0, 2.5, 1.5):
            f, p = errs(calls, lambda c, r=ratio: chars(c.messages) / r)  # type: ignore[misc]
            print(f"    chars/{ratio:<4}       first-anchored {stat(f)}   prev-anchored {stat(p)}")

    codex = list(iter_calls("codex"))
    print(f"\nCodex: {len(codex)} calls")
    if codex:
        for model in sorted({c.model for c in codex}):
            calls = [c for c in codex if c.model == model]
            counter = counter_for(model)
            f, p = errs(calls, lambda c, k=counter: k.count_messages(c.messages))  # type: ignore[misc]
            print(f"  {model} [{counter.name}, exact={counter.exact}] first-anchored {stat(f)}   prev-anchored {stat(p)}")
            for ratio in (4.0, 2.5):
                f, p = errs(calls, lambda c, r=ratio: chars(c.messages) / r)  # type: ignore[misc]
                print(f"    chars/{ratio:<4}       first-anchored {stat(f)}   prev-anchored {stat(p)}")


if __name__ == "__main__":
    main()
