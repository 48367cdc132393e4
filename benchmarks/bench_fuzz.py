"""Fuzz Session.build() over random histories and windows, per format, and count what went wrong.

    PYTHONPATH=src python benchmarks/bench_fuzz.py [--examples 2000] [--formats openai,anthropic]

For each format: ``--examples`` histories drawn by benchmarks/fuzz_histories.py (parallel calls,
reused and odd ids, orphan and duplicate results, results in user-role messages, images with and
without media types, reasoning from two providers, huge/empty/blank outputs, system messages
mid-history, arguments nested 1,500 deep) at windows of 1,500–60,000 tokens, each built once.
Hypothesis runs derandomized, so a run is reproducible.

Printed per format (goal 0 / 0 / 0 / 0):

- ``invalid``: payloads that benchmarks/provider_checker.py — written from the providers' rules,
  apart from the repairing validator in formats/rules*.py — says the provider would reject;
- ``untyped``: exceptions that are not a ContextWindowError;
- ``over budget``: builds whose history exceeds the history budget with no typed error;
- ``lost``: builds after which the store holds fewer messages than were added.

and, for information, how many builds ended in a typed error (by class) and the time per build.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_histories as fh
import provider_checker

BAD = ("invalid", "untyped", "over_budget", "lost")


def run(fmt: str, examples: int) -> tuple[collections.Counter[str], list[str], float]:
    counts: collections.Counter[str] = collections.Counter()
    samples: list[str] = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(fh.histories(), st.integers(1_500, 60_000))
    def one(history: list, window: int) -> None:
        outcome = fh.run_one(fmt, history, window, provider_checker.problems)
        counts[outcome.kind] += 1
        if outcome.kind == "typed":
            counts[f"typed:{outcome.detail}"] += 1
        elif outcome.kind in BAD and len(samples) < 5:
            samples.append(f"{outcome.kind}: {outcome.detail}")

    started = time.perf_counter()
    one()
    return counts, samples, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", type=int, default=2_000)
    ap.add_argument("--formats", default=",".join(fh.FORMATS))
    args = ap.parse_args()
    print(f"{'format':<18}{'builds':>7}{'invalid':>9}{'untyped':>9}{'over budget':>13}{'lost':>6}{'typed errors':>14}{'ms/build':>10}")
    worst = 0
    for fmt in args.formats.split(","):
        counts, samples, took = run(fmt, args.examples)
        n = sum(v for k, v in counts.items() if ":" not in k)
        typed = counts["typed"]
        print(f"{fmt:<18}{n:>7}{counts['invalid']:>9}{counts['untyped']:>9}{counts['over_budget']:>13}{counts['lost']:>6}{typed:>14}{1000 * took / max(n, 1):>10.1f}")
        kinds = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(counts.items()) if k.startswith("typed:"))
        if kinds:
            print(f"{'':<18}typed errors: {kinds}")
        for s in samples:
            print(f"{'':<18}{s[:300]}")
        worst = max(worst, *(counts[k] for k in BAD))
    return 1 if worst else 0


if __name__ == "__main__":
    raise SystemExit(main())
