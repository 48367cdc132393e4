"""Review finding 5 of the ledger: "only" makes a rule only in a directive (an imperative, a modal, "please"); a clause
that describes what is the case with "only" ("Only Firefox shows the bug", past-tense reports, "X happens only on Y")
is no rule. Sentences of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.mood import only_directs

_DESCRIBE = [
    "Only Firefox shows the bug.",
    "The freeze happens only on the ARM runners.",
    "Only two of the nightly runs failed.",
    "Only the staging box has the new driver.",
    "Safari only supported the old payment API.",
    "Edge only crashes when the cache is cold.",
    "We only saw the timeout once.",
    "Only the March invoices were affected.",
]
_DIRECT = [
    "Only deploy from the main branch.",
    "Reply only in English.",
    "Please only touch the docs folder.",
    "Run the vacuum job only on Sundays.",
    "Only use port 8443 for the admin console.",
    "The export job may only write to /srv/exports.",
]


def test_a_description_with_only_is_no_rule() -> None:
    for said in _DESCRIBE:
        assert [e for e in L.update([], said) if e.kind in ("constraint", "safety")] == [], said


def test_a_directive_with_only_is_still_a_rule() -> None:
    for said in _DIRECT:
        assert [e.kind for e in L.update([], said)] == ["constraint"], said
    # an exclusive act under a name stays a safety rule (the fence reading, not this one)
    assert [e.kind for e in L.update([], "Only Priya signs off on refunds.")] == ["safety"]


def test_the_mood_is_read_from_the_sentence() -> None:
    assert not only_directs("Chrome runs only on Linux.")  # a finite verb after the first word: it names the subject
    assert only_directs("Ship only from <v>.") and only_directs("Only rotate keys on Mondays.")
    assert not only_directs("Only <v> shows the bug.") and not only_directs("The tests pass.")
