"""Fit the default policy's cache knobs on one part of the fixtures; bench_replay.py reports the other.

    python benchmarks/fit_cache_policy.py [--transcripts DIR]

Split (by session, so nothing reported was seen while fitting):
- FIT: every fixture session with fewer than 40 model calls, replayed at "fixed prefix + 24k" and
  "fixed prefix + 48k" windows (small enough that policies must compact);
- HELD OUT: the long sessions (>= 40 calls) at 100k and 200k windows: ``bench_replay.py --cost``.

Knobs: ``CacheConfig.horizon_calls`` (how many calls a cleared token would still be read),
``CacheConfig.clear_at_least`` (the fewest tokens one clear removes) and the compaction target
(``CONTEXTWINDOW_TARGET``, the share of the history budget a pass aims at). Objective: the bill above
the floor summed over the FIT replays, as a share of claude-code's, with 0 calls over the window and
0 invalid payloads (a setting that breaks either is out). Prints the grid, best last.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

from contextwindow.compaction.cache import CacheConfig
from contextwindow.replay import replay

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_replay import FIXTURES, LONG_CALLS, sessions_with_models

HORIZONS = (3.0, 6.0, 12.0, 24.0)
CLEAR_AT_LEAST = (1_000, 2_000, 4_000, 8_000)
TARGETS = (0.5, 0.35)
ROOMS = (24_000, 48_000)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcripts", type=Path, default=FIXTURES)
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
            cc_above += max(0.0, p.billed_input_tokens - p.floor_input_tokens)
    rows = []
    for target, horizon, least in itertools.product(TARGETS, HORIZONS, CLEAR_AT_LEAST):
        os.environ["CONTEXTWINDOW_TARGET"] = str(target)
        cfg = CacheConfig(horizon_calls=horizon, clear_at_least=least)
        above = 0.0
        bad = 0
        for s, model, fixed in fit:
            for room in ROOMS:
                p = replay(s, ["default"], model=model, window=fixed + room, cache=cfg).policies[0]
                above += max(0.0, p.billed_input_tokens - p.floor_input_tokens)
                bad += p.over_window_calls + p.invalid_payloads
        rows.append((above / cc_above if cc_above else 0.0, bad, target, horizon, least))
        print(f"target {target:.2f}  horizon {horizon:5.1f}  clear_at_least {least:6,}  above floor vs claude-code {rows[-1][0]:.3f}  over/invalid {bad}", flush=True)
    ok = [r for r in rows if r[1] == 0] or rows
    best = min(ok)
    print(f"\nFIT ({len(fit)} sessions x {len(ROOMS)} windows): best target {best[2]}, horizon_calls {best[3]}, clear_at_least {best[4]} -> {best[0]:.3f} of claude-code's bill above the floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
