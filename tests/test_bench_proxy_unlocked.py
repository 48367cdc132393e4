"""bench_proxy.py's "clients not phase-locked" view: seeded start offsets and upstream delays, the
same plan for a direct batch and its proxied twin, and the upstream really waits the named delay."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_proxy as bp


def test_plan_is_seeded_and_bounded() -> None:
    a = bp.Unlocked(seed=7, delay=0.05).plan(50, 20)
    assert a == bp.Unlocked(seed=7, delay=0.05).plan(50, 20)  # direct and proxied batches get the same
    assert a != bp.Unlocked(seed=8, delay=0.05).plan(50, 20)
    starts, delays = a
    assert len(starts) == 50 and all(0 <= s <= 0.05 for s in starts)
    assert len(set(starts)) == 50  # spread, not one burst
    flat = [d for row in delays for d in row]
    assert len(flat) == 1000
    assert all(0.05 * (1 - bp.JITTER) <= d <= 0.05 * (1 + bp.JITTER) for d in flat)
    assert max(flat) - min(flat) > 0.05 * bp.JITTER  # jittered, not constant


def test_upstream_waits_the_named_delay() -> None:
    proc, port = bp.start([sys.executable, bp.__file__, "--serve-upstream", "0"], r"port (\d+)")
    try:
        base = f"http://127.0.0.1:{port}"
        plan = bp.Unlocked(seed=3, delay=0.04)
        _, delays = plan.plan(2, 3)
        _, total, first = asyncio.run(bp.send_batch(base, bp.bodies(2, 3, False, 0), plan))
        assert len(total) == 6 and sum(first) == 2
        # an instant upstream told to wait: no request ends before the shortest delay planned for it
        assert min(total) >= min(d for row in delays for d in row)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
