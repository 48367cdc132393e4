"""Issue 17, item 7: the build fuzz in CI (bounded; benchmarks/bench_fuzz.py runs 2,000 per format).

Any history (benchmarks/fuzz_histories.py), any window, every format: the payload passes the
provider-rules validator (formats.rules.check) and the independent checker
(benchmarks/provider_checker.py), and its history is within budget — or a typed error is raised.
The store never loses a message."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.formats import rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz_histories as fh
import provider_checker


def both_checkers(fmt: str, payload: dict) -> list[str]:
    return [str(v) for v in rules.check(fmt, payload)] + provider_checker.problems(fmt, payload)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(fh.histories(), st.integers(1_500, 60_000), st.sampled_from(fh.FORMATS))
def test_every_build_is_valid_within_budget_or_a_typed_error(history, window, fmt) -> None:
    outcome = fh.run_one(fmt, history, window, both_checkers)
    assert outcome.kind in ("ok", "typed"), f"{fmt} at window {window}: {outcome.kind}: {outcome.detail}"
