"""Where the estimate misses the bill, step by step, on real Claude Code sessions (FIT and HELD-OUT apart).

    python benchmarks/bench_tokens_steps.py

The companion of bench_tokens_growth.py (same import, same split, same counter); it prints:

1. the largest per-call misses (``R_prev + ΔE − R``, tokens and share of the prompt) with the step's label
   (replay/accuracy.py CAUSES) and what the step's new messages hold, FIT first (what a rule may be fitted
   on), then HELD-OUT;
2. the signed misses per step label, then the signed per-step bias by the kind of new content: over the steps labelled "tool results and replies"
   (the log holds what was billed) where one kind holds >= 70% of the estimated new tokens, Σ miss / Σ
   estimate, the median of miss / estimate and the share of steps the bill exceeded — a kind whose sign
   holds on FIT is a candidate for a correction, judged on HELD-OUT;
3. the signed growth error per session (median of (ΔE − ΔR) / ΔR): whether the growth error has one sign;
4. re-anchoring rules for the growth measure: none, the labels (bench_tokens_growth.py's "re-anchored"
   row), and the general rule ``ctxw inspect`` shows — any step whose reported change missed the estimate by
   more than N tokens — for several N, with how many steps each rule re-anchors at.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections import Counter
from collections.abc import Iterator

from bench_tokens_growth import TRANSCRIPTS, pct, pooled, sessions, split_of
from contextwindow.importers import CallRecord, ImportedSession
from contextwindow.messages import Message, ReasoningPart, ToolCallPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, UNEXPLAINED_TOKENS, UNLOGGED, Point, points, quantiles
from contextwindow.tokens import counter_for

CLEAN = CAUSES[-1]
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
DOMINANT = 0.7


def kind_of(m: Message, names: dict[str, str]) -> str:
    """The kind of one new message: a reply (with thinking, with an edit's content, or plain), a tool result
    by its tool, or a user message."""
    if m.role == "assistant":
        if any(isinstance(p, ReasoningPart) for p in m.parts):
            return "reply with thinking"
        if any(isinstance(p, ToolCallPart) and p.name in EDIT_TOOLS for p in m.parts):
            return "reply with an edit"
        return "reply"
    if m.role == "tool":
        tools = {names.get(p.call_id) or "?" for p in m.parts if isinstance(p, ToolResultPart)}
        return f"result: {tools.pop()}" if len(tools) == 1 else "result: several tools"
    return m.role


def steps(split: str) -> Iterator[tuple[str, ImportedSession, CallRecord, Point, Point, Counter[str]]]:
    """Every step of ``split``'s sessions: (file, session, call, previous point, point, estimated tokens of
    the step's new messages by kind)."""
    for f, s in sessions("claude-code"):
        if split_of(f) != split:
            continue
        names = {p.id: p.name for m in s.messages for p in m.parts if isinstance(p, ToolCallPart)}
        calls = [c for c in s.calls if c.reported_input_tokens is not None]
        for (ca, a), (cb, b) in itertools.pairwise(zip(calls, points(s), strict=True)):
            if a.segment != b.segment:
                continue
            counter = counter_for(cb.model)
            comp: Counter[str] = Counter()
            for m in s.messages[ca.index : cb.index]:
                comp[kind_of(m, names)] += counter.count_message(m)
            yield f, s, cb, a, b, comp


def miss(a: Point, b: Point) -> int:
    return (b.reported - a.reported) - (b.estimated - a.estimated)


def largest(split: str, n: int = 12) -> None:
    rows = sorted(steps(split), key=lambda r: -abs(miss(r[3], r[4])) / r[4].reported)
    print(f"\n{split.upper()}: the {n} largest per-call misses of {len(rows)} steps (p95 = the "
          f"{len(rows) - int(0.95 * len(rows))}th largest)")
    for f, s, c, a, b, comp in rows[:n]:
        sub = s.source.split("#")[1] if "#" in s.source else ""
        what = ", ".join(f"{k} {v:,}" for k, v in comp.most_common(3))
        print(f"  {100 * abs(miss(a, b)) / b.reported:5.2f}%  {miss(a, b):>+7,} tok  {f[:26]}{'#' + sub if sub else ''} @ {c.index}:"
              f"  {b.cause.split(' (')[0]}  [{what}]")


def by_cause(split: str) -> None:
    per: dict[str, list[int]] = {}
    for _f, _s, _c, a, b, _comp in steps(split):
        per.setdefault(b.cause, []).append(miss(a, b))
    print(f"\n{split.upper()}: signed misses by label (tokens; + = billed above the estimate)")
    for cause in CAUSES:
        xs = per.get(cause)
        if xs:
            print(f"  {len(xs):>4} steps  Σ {sum(xs):>+8,}  median {statistics.median(xs):>+7,.0f}  range {min(xs):>+7,} … {max(xs):>+7,}"
                  f"  above {sum(x > 0 for x in xs) / len(xs):4.0%}  {cause.split(' (')[0]}")


def bias_by_kind(split: str) -> None:
    per: dict[str, list[tuple[int, int]]] = {}
    for _f, _s, _c, a, b, comp in steps(split):
        total = sum(comp.values())
        if b.cause != CLEAN or total <= 0:
            continue
        kind, tokens = comp.most_common(1)[0]
        if tokens >= DOMINANT * total:
            per.setdefault(kind, []).append((miss(a, b), tokens))
    print(f"\n{split.upper()}: signed bias by kind (steps the log explains, one kind >= {DOMINANT:.0%} of the new tokens;"
          " + = billed above the estimate)")
    for kind, xs in sorted(per.items(), key=lambda kv: -sum(t for _m, t in kv[1])):
        ratios = [m / max(1, t) for m, t in xs]
        print(f"  {kind:<26} {len(xs):>4} steps  {sum(t for _m, t in xs):>8,} tok   Σmiss/Σest {sum(m for m, _t in xs) / max(1, sum(t for _m, t in xs)):+7.2%}"
              f"   median {statistics.median(ratios):+7.2%}   billed above {sum(r > 0 for r in ratios) / len(ratios):4.0%}")


def signed_growth(split: str) -> None:
    print(f"\n{split.upper()}: signed growth error per session (median of (ΔE − ΔR)/ΔR, ΔR >= 1,000; − = under the bill)")
    for f, s in sessions("claude-code"):
        if split_of(f) != split:
            continue
        first: Point | None = None
        xs: list[float] = []
        for p in points(s):
            if first is None or p.segment != first.segment:
                first = p
                continue
            d_rep = p.reported - first.reported
            if d_rep >= 1_000:
                xs.append(((p.estimated - first.estimated) - d_rep) / d_rep)
        if xs:
            sub = s.source.split("#")[1] if "#" in s.source else ""
            print(f"  {f[:30]}{'#' + sub if sub else '':<12} {len(xs):>3} calls  median {statistics.median(xs):+7.2%}"
                  f"  range {min(xs):+7.2%} … {max(xs):+7.2%}")


def reanchoring(split: str) -> None:
    groups = [points(s) for f, s in sessions("claude-code") if split_of(f) == split]
    print(f"\n{split.upper()}: the growth measure under re-anchoring rules (the step errors do not change)")
    rules: list[tuple[str, frozenset[str], int | None]] = [("none (first-anchored)", frozenset(), None), ("the labels (bench_tokens_growth)", UNLOGGED, None)]
    rules += [(f"any step missing > {n:,} tok{' (inspect)' if n == UNEXPLAINED_TOKENS else ''}", frozenset(), n) for n in (300, 500, 1_000, 2_000)]
    for label, causes, over in rules:
        acc = pooled(groups, causes, over)
        at = sum(1 for g in groups for a, b in itertools.pairwise(g) if a.segment == b.segment
                 and (b.cause in causes or (over is not None and abs(miss(a, b)) > over)))
        med, p95 = quantiles(acc.growth)
        print(f"  {label:<34} re-anchors at {at:>3} steps   growth median {pct(med)} p95 {pct(p95)}")


def main() -> int:
    if not TRANSCRIPTS.is_dir():
        print(f"no fixtures at {TRANSCRIPTS}", file=sys.stderr)
        return 1
    for split in ("fit", "held-out"):
        largest(split)
    for split in ("fit", "held-out"):
        by_cause(split)
    for split in ("fit", "held-out"):
        bias_by_kind(split)
    for split in ("fit", "held-out"):
        signed_growth(split)
    for split in ("fit", "held-out"):
        reanchoring(split)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
