"""A bare number right after a noun that labels (step, run, round, option, phase …) is part of the subject, not a value
(review of the tarn round, finding 4). Sentences of our own."""

from __future__ import annotations

from contextwindow.folding.clauses import find_values
from ledger_helpers import ledger_of, stale_values


def test_a_numbered_label_is_no_value() -> None:
    assert find_values("First, step 1: set the build timeout. Then step 2: run it.") == []
    assert [v.text for v in find_values("Run 1 of the benchmark took 40 s.")] == ["40 s"]
    assert [v.text for v in find_values("The step size is 5.")] == ["5"]
    assert stale_values(ledger_of("Phase 1 of the rollout covers the EU region.", "Phase 2 of the rollout covers the US region.")) == set()
    assert stale_values(ledger_of("Round 1 of the load test peaked at 900 rps.", "Round 2 of the load test peaked at 1200 rps.")) <= {"900 rps"}
