"""bench_memory.py's ledger checks (false merges, traps) use the benchmark's one value match, not a
substring: "$5" is not found inside "$55". Made-up messages of their own (no family's session)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_memory
from contextwindow.folding import ledger as L
from contextwindow.messages import assistant, user
from contextwindow.replay.compact import memory_ledger
from memory_sessions import Generated, Plant

MESSAGES = [
    user("Please help me tidy the shop. The domestic shipping fee is $55 and the international shipping fee is $70."),
    assistant("OK, noted."),
    user("Thanks, carry on with the checkout page."),
]


def test_a_pair_value_inside_a_longer_one_is_a_false_merge() -> None:
    live = "\n".join(e.text for e in L.active(memory_ledger(MESSAGES)))
    assert "$55" in live and "$70" in live  # what the check below reads
    g = Generated(MESSAGES, [Plant("fact", "$5", pair=0), Plant("fact", "$70", pair=0)], "made-up", 0)
    assert bench_memory.ledger_checks(g) == (1, None)  # "$5" is not in "$55"; no traps planted: None


def test_trap_values_in_the_ledger_are_counted() -> None:
    g = Generated(MESSAGES, [Plant("fact", "$55", pair=0), Plant("fact", "$70", pair=0)], "made-up", 0)
    g.traps = ["$70", "$5", "$9"]  # type: ignore[attr-defined]
    assert bench_memory.ledger_checks(g) == (0, 1)
