"""Rules tried for the Claude Code error that the log does not explain, fitted on FIT, judged on HELD-OUT
(same split and measure as bench_tokens_growth.py). None of them is shipped; this script is why.

    python benchmarks/bench_tokens_alternatives.py

1. A constant per new user turn (content Claude Code attaches at a turn: reminders, attachments): the
   median step miss of FIT's user-turn steps, added to the estimate once per user message in the prompt.
2. The Anthropic rates refitted on FIT's step growth instead of whole-segment growth: the text that
   tool results and user messages add in a step against what the provider reported for that step
   (replies are left as counted: their billed output is known), by least squares on the step's share
   of the prompt — the scale alone, and the scale plus one character class (punctuation, JSON
   structure, newlines or digits).
"""

from __future__ import annotations

import itertools
import statistics
import sys
from dataclasses import replace

from bench_tokens_growth import TRANSCRIPTS, pct, pooled, sessions, split_of
from contextwindow.importers import ImportedSession
from contextwindow.messages import Message, TextPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, UNLOGGED, Point, points, quantiles
from contextwindow.replay.engine import provider_view
from contextwindow.tokens import counter_for
from contextwindow.tokens.estimate import Estimator
from contextwindow.tokens.textclass import FEATURES, TextStats, stats

Data = list[tuple[str, ImportedSession]]


def _user_turns(msgs: list[Message]) -> int:
    return sum(1 for m in msgs if m.role == "user" and any(isinstance(p, TextPart) for p in m.parts))


def _texts(m: Message) -> list[str]:
    out: list[str] = []
    for p in m.parts:
        if isinstance(p, TextPart):
            out.append(p.text)
        elif isinstance(p, ToolResultPart):
            out.extend(c.text for c in p.content if isinstance(c, TextPart))
    return out


def _report(label: str, groups: list[list[Point]]) -> None:
    for name, re in (("plain", frozenset()), ("re-anchored", UNLOGGED)):
        acc = pooled(groups, re)
        gm, gp = quantiles(acc.growth)
        sm, sp = quantiles(acc.step)
        print(f"    {label:<34} {name:<12} growth median {pct(gm)} p95 {pct(gp)}   step median {pct(sm)} p95 {pct(sp)}")


def user_turn_constant(claude: Data) -> None:
    misses = []
    for f, s in claude:
        if split_of(f) != "fit":
            continue
        pts = points(s)
        misses += [q.reported - p.reported - (q.estimated - p.estimated) for p, q in itertools.pairwise(pts) if p.segment == q.segment and q.cause == CAUSES[2]]
    k = statistics.median(misses)
    print(f"\n1. a constant per user turn: FIT user-turn steps miss {', '.join(f'{m:+d}' for m in misses)}; median {k:+.0f}")
    for split in ("held-out", "fit"):
        print(f"  {split}:")
        for kk in (0, k):
            groups = []
            for f, s in claude:
                if split_of(f) != split:
                    continue
                calls = [c for c in s.calls if c.reported_input_tokens is not None]
                groups.append([replace(p, estimated=p.estimated + round(kk * _user_turns(provider_view(s, c)))) for p, c in zip(points(s), calls, strict=True)])
            _report(f"{kk:+.0f} per user turn", groups)


def _solve(rows: list[tuple[list[float], float]]) -> list[float]:
    """Least squares by the normal equations (1-2 unknowns here), Gaussian elimination."""
    n = len(rows[0][0])
    a = [[sum(x[i] * x[j] for x, _ in rows) for j in range(n)] + [sum(x[i] * y for x, y in rows)] for i in range(n)]
    for c in range(n):
        piv = a[c][c] or 1e-12
        for r in range(n):
            if r != c:
                f = a[r][c] / piv
                a[r] = [v - f * w for v, w in zip(a[r], a[c], strict=True)]
    return [a[i][n] / (a[i][i] or 1e-12) for i in range(n)]


def step_refit(claude: Data) -> None:
    print("\n2. the Anthropic rates refitted on FIT's steps (tool results and user text of a step; least squares on the step's share of the prompt; fit = FIT's unlabelled steps, held-out = every step)")
    steps: dict[str, list[tuple[float, float, TextStats, float]]] = {"fit": [], "held-out": []}
    for f, s in claude:
        c = counter_for(s.model)
        assert isinstance(c, Estimator)
        pts = points(s)
        calls = [cr for cr in s.calls if cr.reported_input_tokens is not None]
        for i in range(1, len(pts)):
            p, q = pts[i - 1], pts[i]
            if p.segment != q.segment or (split_of(f) == "fit" and q.cause != CAUSES[-1]):  # fit on plain steps only
                continue
            st, e = TextStats(), 0
            for m in s.messages[calls[i - 1].index : calls[i].index]:
                if m.role != "assistant":
                    for t in _texts(m):
                        st, e = st + stats(t), e + c.count_text(t)
            rest = (q.estimated - p.estimated) - e  # framing, replies (their billed counts), dropped thinking
            steps[split_of(f)].append((q.reported - p.reported - rest, float(e), st, float(q.reported)))
    idx = {f: i for i, f in enumerate(FEATURES)}
    for extra in ([], ["punct"], ["json"], ["newlines"], ["digits"]):
        def x(row: tuple[float, float, TextStats, float], extra: list[str] = extra) -> list[float]:
            return [row[1] / row[3]] + [row[2][idx[k]] / row[3] for k in extra]

        coef = _solve([(x(r), r[0] / r[3]) for r in steps["fit"]])
        label = "scale x" + f"{coef[0]:.3f}" + "".join(f", {k} {v:+.3f} per unit" for k, v in zip(extra, coef[1:], strict=True))
        for split in ("held-out", "fit"):
            errs = sorted(abs(r[0] / r[3] - sum(a * b for a, b in zip(coef, x(r), strict=True))) for r in steps[split])
            base = sorted(abs(r[0] - r[1]) / r[3] for r in steps[split])
            print(f"    {label:<44} {split:<8} step median {pct(statistics.median(errs))} p95 {pct(errs[int(0.95 * len(errs))])}"
                  f"   (shipped rates: {pct(statistics.median(base))} / {pct(base[int(0.95 * len(base))])})")


def main() -> int:
    if not TRANSCRIPTS.is_dir():
        print(f"no fixtures at {TRANSCRIPTS}", file=sys.stderr)
        return 1
    claude = sessions("claude-code")
    user_turn_constant(claude)
    step_refit(claude)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
