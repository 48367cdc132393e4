"""Fit the Anthropic family's estimator constants on real Claude Code sessions.

    python benchmarks/bench_tokens_fit.py

For every API call we know the provider's prompt size R (input + cache creation + cache read)
and the messages sent. The system prompt and tool definitions are not in the logs but are
constant within a chain, so we fit on growth: per chain, R_i - R_0 against
E_i - E_0 with E = scale·T + per_pair·(tool calls) + per_message·(messages), where T is the
o200k-shaped class-rate estimate of the text (ids, names, arguments, results, reasoning of the
current turn). A grid search picks the constants minimising median + p95 of the relative
error; a leave-one-file-out pass reports how well they generalise.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict

from bench_tokens_common import Call, iter_calls
from contextwindow.messages import ToolCallPart
from contextwindow.tokens.counting import Profile
from contextwindow.tokens.estimate import Estimator, Rates

ZERO = Profile("zero", 0, 0, 0, 0, 0, 0, 0, "anthropic", drops_old_reasoning=True)


def components(calls: list[Call]) -> list[tuple[str, str, int, float, int, int]]:
    """(chain, file, reported, unscaled text tokens, tool calls, messages) per call."""
    base = Estimator("generic", rates=Rates(scale=1.0), profile=ZERO)
    rows = []
    for c in calls:
        t = base.count_messages(c.messages)
        n_calls = sum(1 for m in c.messages for p in m.parts if isinstance(p, ToolCallPart))
        rows.append((c.chain, c.source, c.reported, float(t), n_calls, len(c.messages)))
    return rows


def errors(rows, scale: float, per_pair: float, per_msg: float) -> list[float]:
    by: dict[str, list] = defaultdict(list)
    for r in rows:
        by[r[0]].append(r)
    out = []
    for chain in by.values():
        e0 = scale * chain[0][3] + per_pair * chain[0][4] + per_msg * chain[0][5]
        r0 = chain[0][2]
        for r in chain[1:]:
            e = scale * r[3] + per_pair * r[4] + per_msg * r[5]
            out.append(abs(r0 + e - e0 - r[2]) / r[2])
    return out


def summary(errs: list[float]) -> tuple[float, float]:
    s = sorted(errs)
    return statistics.median(s), s[min(len(s) - 1, int(0.95 * len(s)))]


GRID = (
    [1.0 + i / 100 for i in range(0, 41)],
    list(range(0, 125, 5)),
    list(range(0, 9, 2)),
)


def fit(rows) -> tuple[float, float, float]:
    best = None
    for s, pp, pm in itertools.product(*GRID):
        med, p95 = summary(errors(rows, s, pp, pm))
        score = med + p95
        if best is None or score < best[0]:
            best = (score, s, pp, pm)
    assert best is not None
    return best[1], best[2], best[3]


def main() -> None:
    calls = list(iter_calls("claude"))
    rows = components(calls)
    s, pp, pm = fit(rows)
    med, p95 = summary(errors(rows, s, pp, pm))
    print(f"fitted on {len(rows)} calls: scale={s:.2f} per_tool_pair={pp} per_message={pm}  median={med:.2%} p95={p95:.2%}")
    files = sorted({r[1] for r in rows})
    cv: list[float] = []
    for f in files:
        train = [r for r in rows if r[1] != f]
        test = [r for r in rows if r[1] == f]
        cv += errors(test, *fit(train))
    med, p95 = summary(cv)
    print(f"leave-one-file-out: median={med:.2%} p95={p95:.2%} over {len(cv)} calls")


if __name__ == "__main__":
    main()
