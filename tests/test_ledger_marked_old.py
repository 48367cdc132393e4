"""A statement that names the value before its own ("not U anymore — V", "(previously U)", "(U before, V
now)") supersedes U, and U is not one of its values: it never shows again in an output, not even in the
text of the statement that replaced it. Our own sentences (none of a benchmark family's)."""

from __future__ import annotations

import pytest

from contextwindow.folding.ledger import active, scrub
from ledger_helpers import ledger_of as _ledger


def _out(led: list) -> str:
    return scrub("\n".join(e.text for e in active(led)), led)


@pytest.mark.parametrize(
    ("first", "then", "old", "new"),
    [
        ("The kiln firing date is 2031-04-02.", "Kiln firing date: not 2031-04-02 anymore, 2031-05-14.", "2031-04-02", "2031-05-14"),
        ("Our pallet limit is 38 pallets.", "The pallet limit (previously 38 pallets) is 44 pallets now.", "38 pallets", "44 pallets"),
        ("The standup time is 09:40.", "The standup time changed (09:40 before, 10:05 now).", "09:40", "10:05"),
        ("The reviewer for the grant is Ilse Varga.", "The reviewer for the grant (was Ilse Varga) is Tomas Ruud.", "Varga", "Ruud"),
    ],
)
def test_the_value_before_is_superseded_and_not_kept(first: str, then: str, old: str, new: str) -> None:
    led = _ledger(first, then)
    now = [e for e in active(led)]
    assert any(new in e.values for e in now), [(e.text, e.values) for e in led]
    assert all(old not in e.values for e in now), [(e.text, e.values) for e in now]
    out = _out(led)
    assert new in out and old not in out, out


def test_the_value_before_is_kept_out_even_when_no_entry_held_it() -> None:
    """The old value was never an entry (said in passing, or in an answer the ledger did not keep): the
    statement still says it is the old one, so its own text does not carry it on."""
    led = _ledger("Shipping cutoff: not 16:45 anymore — 15:30.")
    out = _out(led)
    assert "15:30" in out and "16:45" not in out, out


def test_an_aside_that_is_not_only_a_value_marks_nothing_old() -> None:
    """"(previously ...)" around words, not a value: no value is marked as the one before."""
    led = _ledger("The pallet limit is 38 pallets.", "The pallet limit (previously agreed with the night shift lead) stays 38 pallets.")
    out = _out(led)
    assert "38 pallets" in out and "[earlier value]" not in out, out
