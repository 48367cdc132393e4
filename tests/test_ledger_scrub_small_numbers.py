"""Review finding 2 of the ledger: scrubbing a superseded bare 1-2 digit number touches only the clause that carries
the superseded entry (every word of its subject, the number standing alone there); elsewhere a small number is
another thing's and stays. A number with a unit, an amount, a date or an id is a value wherever it is. Our own
sentences."""

from __future__ import annotations

from contextwindow.folding import ledger as L


def _after(first: str, second: str) -> list[L.Entry]:
    return L.update(L.update([], first), second)


def test_a_small_number_outside_the_entrys_clause_stays() -> None:
    ledger = _after("The retry limit is 3.", "The retry limit is 5.")
    out = L.scrub("The retry limit is 3, and the retry queue holds 3 jobs at 3 am.", ledger)
    assert out.startswith("The retry limit is [updated later: 5],") and out.endswith("holds 3 jobs at 3 am.")
    ledger = _after("Keep the build retries at 2.", "Keep the build retries at 4.")
    out = L.scrub("So: build retries 2. The build uses 2 workers; page me after 2 failed builds.", ledger)
    assert out == "So: build retries [updated later: 4]. The build uses 2 workers; page me after 2 failed builds."


def test_the_entrys_own_clause_is_still_scrubbed() -> None:
    ledger = _after("Keep the build retries at 2.", "Keep the build retries at 4.")
    for said in ["Keep the build retries at 2.", "I think the build retries are still 2, right"]:
        assert " 2" not in L.scrub(said, ledger) and "[updated later: 4]" in L.scrub(said, ledger), said


def test_a_value_with_a_unit_is_scrubbed_anywhere() -> None:
    ledger = _after("The nightly backup window is 45 minutes.", "The nightly backup window is 50 minutes.")
    assert "45 minutes" not in L.scrub("Earlier we said 45 minutes for it; the restore took 45 minutes too.", ledger)
