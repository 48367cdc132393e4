"""Fit the default policy's cache knobs on one part of the fixtures; bench_replay.py reports the other.

    python benchmarks/fit_cache_policy.py [--transcripts DIR] [--stage 3 | --stage 4]

Split (by session, so nothing reported was seen while fitting):
- FIT: every fixture session with fewer than 40 model calls, replayed at "fixed prefix + 24k" and
  "fixed prefix + 48k" windows (small enough that policies must compact);
- HELD OUT: the long sessions (>= 40 calls) at 100k and 200k windows: ``bench_replay.py --cost``.

Knobs, in two stages (each a grid; the other stage's knobs at their current defaults):
1. compaction (compaction/economics.py): ``CacheConfig.deep_target`` (the share of the history budget
   a pass aims at), ``min_trigger`` and ``max_trigger`` (the range, as shares of the history budget,
   the cost-optimal trigger is held in);
   ``deep_target`` above the budget's own target (0.5 by default) is capped at it
   (economics.thresholds: a pass never aims shallower than the budget asks), so the grid stops there;
2. clearing (compaction/cache.py): ``CacheConfig.horizon_calls`` (how many calls a cleared token
   would still be read) and ``clear_at_least`` (the fewest tokens one clear removes), at stage 1's best;
3. the fold kind's summary size before the first one is measured, ``first_summary_tokens``
   (compaction/economics.py), scored on the FIT sessions AND on the FIT seeds 0-49 of the generated
   prose sessions (benchmarks/prose_sessions.py: where every saving is a summary, so where this
   prior matters), the two weighted alike: the value with the lowest product of the FIT-session
   score and the prose mean (the medians at 40k/60k/80k, averaged), each divided by its value with
   no prior (None: the summary budget); on a tie the larger value (the prior that moves least from
   the budget). ``--stage 3`` runs this stage alone at the defaults.
4. the rule of WHEN to clear (``CacheConfig.clear_rule``; benchmarks/clear_rules.py): ``horizon``
   (clear once the reads saved over ``horizon_calls`` beat the rewrite), ``eoq`` (once the
   uncleared candidates reach the square-root size) and ``balance`` (once what waiting has cost
   reaches the rewrite), each with ``clear_at_least`` over its grid, at the other defaults, on the
   FIT sessions. ``--stage 4`` runs this stage alone (it is not part of the full fit: the default
   rule stays ``horizon`` unless one is better here AND not worse held out, docs/replay.md).
Objective: the bill above the floor (input + the summaries' own calls, replay/summaries.py) summed
over the FIT replays, as a share of claude-code's, with 0 calls over the window, 0 invalid payloads
and 0 constraints lost (a setting that breaks any is out).
Prints each grid, best last.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from contextwindow.compaction.cache import CacheConfig
from contextwindow.importers import ImportedSession
from contextwindow.replay import replay

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_replay import FIXTURES, LONG_CALLS, sessions_with_models
from clear_rules import RULES

DEEP_TARGETS = (0.05, 0.1, 0.2, 0.35, 0.5)  # (0.6 and 0.7 score as 0.5: capped at the budget's target)
MIN_TRIGGERS = (0.0, 0.1, 0.3)
MAX_TRIGGERS = (0.75, 0.9, 1.0)
HORIZONS = (3.0, 6.0, 12.0, 24.0)
CLEAR_AT_LEAST = (1_000, 2_000, 4_000)
FIRST_SUMMARY: tuple[int | None, ...] = (None, 1_000, 1_500, 2_000, 2_500)
ROOMS = (24_000, 48_000)
Fit = list[tuple[ImportedSession, str, int]]


def score(fit: Fit, cfg: CacheConfig, cc_above: float) -> tuple[float, int]:
    """default's bill above the floor over the fit replays / claude-code's, and what it broke."""
    above = 0.0
    bad = 0
    for s, model, fixed in fit:
        for room in ROOMS:
            p = replay(s, ["default"], model=model, window=fixed + room, cache=cfg).policies[0]
            above += max(0.0, p.billed_with_summaries - p.floor_input_tokens)
            bad += p.over_window_calls + p.invalid_payloads + p.constraints_total - p.constraints_kept
    return (above / cc_above if cc_above else 0.0), bad


def grid(fit: Fit, base: CacheConfig, cc_above: float, title: str, **axes: Sequence[Any]) -> CacheConfig:
    """Score ``base`` with every combination of ``axes`` (CacheConfig field -> values; a clear rule
    given by name) on the FIT replays, print each row, and return the best setting that breaks
    nothing (the best of all if every one breaks something)."""
    print(title)
    rows: list[tuple[float, int, CacheConfig]] = []
    for values in itertools.product(*axes.values()):
        setting = dict(zip(axes, values, strict=True))
        cfg = replace(base, **{k: RULES[v] if k == "clear_rule" else v for k, v in setting.items()})
        ratio, bad = score(fit, cfg, cc_above)
        rows.append((ratio, bad, cfg))
        print("  " + "  ".join(f"{k} {v}" for k, v in setting.items()) + f"  above floor vs claude-code {ratio:.4f}  broken {bad}", flush=True)
    return min((r for r in rows if r[1] == 0), key=lambda r: r[0], default=min(rows, key=lambda r: r[0]))[2]


def prose_mean(cfg: CacheConfig, seeds: range = range(50)) -> float:
    """default / claude-code above the floor on the generated prose sessions: the median over the
    seeds at each window, averaged over the windows."""
    from prose_sessions import WINDOWS, prose_heavy_session

    per: dict[int, list[float]] = {w: [] for w in WINDOWS}
    for seed in seeds:
        s = prose_heavy_session(seed)
        for w in WINDOWS:
            cc = replay(s, ["claude-code"], window=w).policies[0]
            d = replay(s, ["default"], window=w, cache=cfg).policies[0]
            assert d.over_window_calls == 0 and d.invalid_payloads == 0 and d.constraints_kept == d.constraints_total
            per[w].append((d.billed_with_summaries - d.floor_input_tokens) / (cc.billed_with_summaries - cc.floor_input_tokens))
    return statistics.mean(statistics.median(xs) for xs in per.values())


def stage3(fit: Fit, base: CacheConfig, cc_above: float) -> CacheConfig:
    print("stage 3: the first summary's size (first_summary_tokens), FIT sessions and prose FIT seeds 0-49")
    rows = []
    for first in FIRST_SUMMARY:
        cfg = replace(base, first_summary_tokens=first)
        ratio, bad = score(fit, cfg, cc_above)
        prose = prose_mean(cfg)
        rows.append((ratio, bad, prose, cfg))
        print(f"  first_summary_tokens {first!s:>5}  above floor vs claude-code {ratio:.4f}  broken {bad}  prose mean {prose:.3f}", flush=True)
    ref_fit, _, ref_prose, _ = rows[0]  # no prior (FIRST_SUMMARY starts with None)
    ok = [r for r in rows if r[1] == 0] or rows
    return min(reversed(ok), key=lambda r: (r[0] / ref_fit) * (r[2] / ref_prose))[3]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcripts", type=Path, default=FIXTURES)
    ap.add_argument("--stage", type=int, choices=(3, 4), help="stage 3 or 4 alone, at the current defaults")
    args = ap.parse_args()
    fit = [(s, m, fixed) for s, m, fixed in sessions_with_models(args.transcripts) if len(s.calls) < LONG_CALLS]
    if not fit:
        print(f"no fixture sessions under {args.transcripts}", file=sys.stderr)
        return 1
    cc_above = 0.0
    for s, model, fixed in fit:
        for room in ROOMS:
            r = replay(s, ["claude-code"], model=model, window=fixed + room)
            p = r.policies[0]
            cc_above += max(0.0, p.billed_with_summaries - p.floor_input_tokens)
    base = CacheConfig()
    if args.stage == 4:
        b = grid(fit, base, cc_above, "stage 4: the rule of when to clear (clear_rule, clear_at_least), FIT sessions", clear_rule=list(RULES), clear_at_least=CLEAR_AT_LEAST)
        print(f"\nbest clear_rule {getattr(b.clear_rule, '__name__', b.clear_rule)}, clear_at_least {b.clear_at_least}")
        return 0
    if args.stage == 3:
        b = stage3(fit, base, cc_above)
        print(f"\nbest first_summary_tokens {b.first_summary_tokens}")
        return 0
    best = grid(fit, base, cc_above, "stage 1: compaction (deep_target, min_trigger, max_trigger)", deep_target=DEEP_TARGETS, min_trigger=MIN_TRIGGERS, max_trigger=MAX_TRIGGERS)
    b = grid(fit, best, cc_above, "stage 2: clearing (horizon_calls, clear_at_least)", horizon_calls=HORIZONS, clear_at_least=CLEAR_AT_LEAST)
    b = stage3(fit, b, cc_above)
    ratio = score(fit, b, cc_above)[0]
    print(
        f"\nFIT ({len(fit)} sessions x {len(ROOMS)} windows): best deep_target {b.deep_target}, min_trigger {b.min_trigger}, "
        f"max_trigger {b.max_trigger}, horizon_calls {b.horizon_calls}, clear_at_least {b.clear_at_least}, first_summary_tokens {b.first_summary_tokens} -> {ratio:.3f} of claude-code's bill above the floor"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
