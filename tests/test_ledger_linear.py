"""Reading a user message is linear in its length (review finding 4 of the ledger): a run of blanks, a run-on line of
repeated words or of "and"s, or a very long clause costs the reader a bounded amount per character.

No wall-clock bound: each message here is 60,000 characters, a size where the quadratic reading the review found (a
6,000-space message took ~5 s, so one ten times longer ~500 s, and a 2,000-character run of " a" ~2 s) would not end
within any test run; the linear one reads each in well under a second. Sentences of our own."""

from __future__ import annotations

import pytest

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import sentences
from contextwindow.folding.entries import MAX_READ_CHARS

SIZE = 60_000

# a run of blanks, of tabs, of a short word, of "and", of a number word, of "and" joining statements, of dashes
_RUNS = [" ", "\t", " a", " and", " one", ", and", "- ", "Keep the cache warm and ", "x" * 7 + " "]


@pytest.mark.parametrize("run", _RUNS, ids=[repr(r) for r in _RUNS])
def test_a_long_run_is_read_in_one_pass(run: str) -> None:
    said = "The upload limit is 40 MB." + "\n" + "Note" + run * (SIZE // len(run)) + " end.\nThe cache host is kite-7.lan."
    assert len(said) > SIZE
    before = L.update([], "The upload limit is 20 MB.")
    # as a user message, and as the assistant's question before one (answers.py reads its last sentence)
    got = L.update(before, said, asked="Which port does the cache listen on?" + run * (SIZE // len(run)) + "?")
    # the statements on each side of the long line are still read, the old limit still superseded
    assert {(e.subject, e.values, e.active) for e in got if e.kind == "fact"} >= {("cache host", ("kite-7.lan",), True)}
    assert [e.values for e in got if e.active and "upload" in e.subject] == [("40 MB",)]
    assert [e.values for e in got if not e.active] == [("20 MB",)]


def test_a_blank_run_inside_a_statement_is_layout() -> None:
    # a statement aligned with blanks reads as the same statement written with one
    spaced = L.update([], "The retry budget is" + " " * 5000 + "7 attempts.")
    plain = L.update([], "The retry budget is 7 attempts.")
    assert [(e.subject, e.values) for e in spaced] == [(e.subject, e.values) for e in plain] == [("retry budget", ("7 attempts",))]
    assert sentences("a" + " " * 9000 + "b") == ["a  b"]


def test_a_clause_too_long_to_be_a_statement_is_not_read() -> None:
    # a run-on clause over MAX_READ_CHARS states nothing the ledger keeps, however many "and"s it has
    run_on = "The staging host is pike-2.lan and the build cache is 40 GB" + " and we keep going" * (MAX_READ_CHARS // 10)
    assert len(run_on) > MAX_READ_CHARS
    assert L.update([], run_on + ".") == []
    # a short one that says two things is still split
    assert {e.subject for e in L.update([], "The staging host is pike-2.lan and the build cache is 40 GB.")} == {"staging host", "build cache"}
