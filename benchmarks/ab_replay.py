"""Same-run A/B of two source trees on the replay's CPU time: ``default`` and ``none`` per tree.

    python benchmarks/ab_replay.py TREE_A TREE_B [--runs 5] [--transcripts DIR]

Each tree is a checkout (``git archive REV | tar -x -C DIR``); each run replays the long fixture
sessions (>= 40 calls) at 100k and 200k windows in a fresh process with that tree's ``src`` on the
path, the policies in both orders (each policy timed when it runs second, so neither carries the
replay's setup), the memos emptied before each replay (bench_replay.forget_memos). The trees
alternate run by run (A B, B A, ...) so a change of load hits both; per tree the median of the runs
and default / none. Check first that the two trees decide the same (bench_replay --same-numbers).
``--whole``: also the CPU of each session's whole replay under every policy, its setup included
(what ``ctxw replay`` costs; work moved between the setup and a policy shows here as neither).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(transcripts: Path, whole: bool) -> None:
    sys.path.insert(0, str(HERE))
    from bench_replay import COST_WINDOWS, LONG_CALLS, forget_memos, sessions_with_models
    from contextwindow.replay import POLICIES, replay

    long = [(s, m) for s, m, _ in sessions_with_models(transcripts) if len(s.calls) >= LONG_CALLS]
    replay(long[0][0], ["none", "default"], model=long[0][1], window=COST_WINDOWS[0])  # imports, tokenizer
    cpu = {"none": 0.0, "default": 0.0}
    for order in (["none", "default"], ["default", "none"]):
        for w in COST_WINDOWS:
            for s, m in long:
                forget_memos(m)
                marks: list[tuple[str, float]] = []
                replay(s, order, model=m, window=w, on_policy=lambda r, marks=marks: marks.append((r.policy, time.process_time())))
                cpu[marks[1][0]] += marks[1][1] - marks[0][1]
    if whole:
        cpu["whole"] = 0.0
        for w in COST_WINDOWS:
            for s, m in long:
                forget_memos(m)
                started = time.process_time()
                replay(s, list(POLICIES), model=m, window=w)
                cpu["whole"] += time.process_time() - started
    print(json.dumps(cpu))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--transcripts", type=Path, default=HERE.parent.parent / "shared" / "fixtures" / "transcripts")
    ap.add_argument("--whole", action="store_true", help="also time each whole replay (setup + every policy)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.transcripts, args.whole)
        return 0
    if len(args.trees) != 2:
        ap.error("give two source trees")
    got: dict[Path, list[dict[str, float]]] = {t: [] for t in args.trees}
    for r in range(args.runs):
        for tree in args.trees if r % 2 == 0 else args.trees[::-1]:
            env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
            out = subprocess.run([sys.executable, __file__, "--child", "--transcripts", str(args.transcripts), *(["--whole"] if args.whole else [])], env=env, capture_output=True, text=True)
            if out.returncode:
                print(out.stderr[-2000:], file=sys.stderr)
                return 1
            got[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min); {args.runs} runs per tree, alternated")
    for tree, runs in got.items():
        d = statistics.median(x["default"] for x in runs)
        n = statistics.median(x["none"] for x in runs)
        line = f"{tree}: default {d:.3f} s, none {n:.3f} s of CPU (medians), default / none {d / n:.2f}"
        if args.whole:
            line += f"; whole replays (setup + every policy) {statistics.median(x['whole'] for x in runs):.3f} s"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
