"""Import throughput over every real transcript fixture (MB of log per second, parse + convert + repair).

    python benchmarks/bench_import.py [--rounds N] [--dir PATH]

Goal: at least 50 MB/s on JSONL. Prints one line per format and the total, and beside each the
reference measured in the same run on the same bytes: ``json.loads`` of every line (or the whole
document), the floor of any JSON importer. The ratio import/reference is what stays stable when the
shared machine's load moves the absolute numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import defaultdict
from pathlib import Path

from contextwindow.importers import load_all

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "transcripts"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="times each file is imported (best round counts)")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="folder of transcripts (searched one level deep)")
    args = ap.parse_args()
    files = sorted(p for p in args.dir.glob("*/*") if p.is_file() and p.suffix in (".jsonl", ".json", ".traj"))
    if not files:
        raise SystemExit(f"no transcripts under {args.dir}")
    size: dict[str, int] = defaultdict(int)
    best: dict[str, float] = defaultdict(float)
    ref: dict[str, float] = defaultdict(float)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for path in files:
        t_best = float("inf")
        sessions = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            sessions = load_all(path)
            t_best = min(t_best, time.perf_counter() - t0)
        data = path.read_bytes()
        r_best = float("inf")
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            _parse_only(data)
            r_best = min(r_best, time.perf_counter() - t0)
        fmt = sessions[0].format
        ref[fmt] += r_best
        size[fmt] += path.stat().st_size
        best[fmt] += t_best
        counts[fmt][0] += 1
        counts[fmt][1] += sum(len(s.messages) for s in sessions)
        counts[fmt][2] += sum(len(s.calls) for s in sessions)
    print(f"{'format':<12} {'files':>5} {'MB':>7} {'messages':>9} {'calls':>6} {'seconds':>8} {'MB/s':>7} {'json MB/s':>10} {'ratio':>6}")
    for fmt in sorted(size):
        mb = size[fmt] / 1e6
        print(f"{fmt:<12} {counts[fmt][0]:>5} {mb:>7.2f} {counts[fmt][1]:>9} {counts[fmt][2]:>6} {best[fmt]:>8.3f} "
              f"{mb / best[fmt]:>7.1f} {mb / ref[fmt]:>10.1f} {ref[fmt] / best[fmt]:>6.2f}")
    mb = sum(size.values()) / 1e6
    secs = sum(best.values())
    rsecs = sum(ref.values())
    print(f"{'total':<12} {len(files):>5} {mb:>7.2f} {sum(c[1] for c in counts.values()):>9} "
          f"{sum(c[2] for c in counts.values()):>6} {secs:>8.3f} {mb / secs:>7.1f} {mb / rsecs:>10.1f} {rsecs / secs:>6.2f}")


def _parse_only(data: bytes) -> None:
    """The reference: decode and ``json.loads`` the document, else every line; nothing else."""
    text = data.decode("utf-8-sig", errors="replace")
    if text.lstrip()[:1] in ("[", "{"):
        try:
            json.loads(text)
            return
        except ValueError:
            pass
    for line in text.split("\n"):
        if line.strip():
            with contextlib.suppress(ValueError):
                json.loads(line)


if __name__ == "__main__":
    main()
