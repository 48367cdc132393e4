"""The held-out ``fen`` family's generator (benchmarks/memory_family_fen.py) against its own ground-truth
checker (benchmarks/check_family_fen.py). Tests the GENERATOR only: no session here is read by the
ledger or compacted (the lead alone runs ``bench_memory.py --family fen``, once)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from check_family_fen import problems
from contextwindow.messages import dumps
from family_helpers import borrowed
from memory_family_fen import SEED_BASE, FenPlant, FenSession, generate

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(SEED_BASE, SEED_BASE + 16)


@pytest.fixture(scope="module")
def sessions() -> list[FenSession]:
    return [generate(s) for s in SEEDS]


def test_generation_is_deterministic_per_seed(sessions: list[FenSession]) -> None:
    for g in sessions[:4]:
        again = generate(g.seed)
        assert [dumps(m) for m in again.messages] == [dumps(m) for m in g.messages]
        assert [(p.kind, p.value, p.stale, p.stale_at) for p in again.plants] == [(p.kind, p.value, p.stale, p.stale_at) for p in g.plants]
    assert [dumps(m) for m in sessions[0].messages] != [dumps(m) for m in sessions[1].messages]


def test_ground_truth_agrees_with_the_text(sessions: list[FenSession]) -> None:
    assert [line for g in sessions for line in problems(g)] == []


def test_the_checker_catches_a_wrong_ground_truth(sessions: list[FenSession]) -> None:
    g = copy.deepcopy(next(g for g in sessions if not g.short))
    p = next(p for p in g.plants if isinstance(p, FenPlant) and p.stale)
    p.value, p.stale[0] = p.stale[0], p.value  # the superseded value claimed as current
    assert problems(g)
    g2 = copy.deepcopy(sessions[0])
    g2.traps.append(g2.plants[1].value)  # a planted value claimed as a trap
    g2.trap_at.append(0)
    g2.trap_how.append("tool")
    assert problems(g2)


def test_sessions_hold_the_under_used_kinds(sessions: list[FenSession]) -> None:
    short = [g for g in sessions if g.short]
    assert short and len(short) < len(sessions)
    for g in sessions:
        plants = [p for p in g.plants if isinstance(p, FenPlant)]
        assert g.splits, g.seed
        assert any(p.retracted for p in plants), g.seed
        if not g.short:
            assert g.spec_at >= 0 and g.docs_at >= 0 and g.traps, g.seed
            assert any(p.refs for p in plants) and any("two" in p.forms for p in plants), g.seed


def test_sentences_are_its_own() -> None:
    n, shared = borrowed(BENCH, "fen", ("memory_fen_text.py", "memory_fen_tools.py"))
    assert n > 50
    assert shared == []


def test_registered_as_held_out() -> None:
    import bench_memory
    import memory_misses

    assert "fen" in bench_memory.FAMILIES and "fen" in bench_memory.BY_NAME_ONLY and "fen" not in bench_memory.TUNING
    assert bench_memory.family_names("fen") == ("fen",)
    assert "fen" not in bench_memory.family_names("all") + bench_memory.family_names("tuning")
    assert "fen" in memory_misses.HELD_OUT and "fen" not in memory_misses.TUNING
    assert memory_misses.session("fen", SEED_BASE).messages == generate(SEED_BASE).messages
