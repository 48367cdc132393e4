"""Reading a user message is linear in its length (review finding 4 of the ledger): a run of blanks, a run-on line of
repeated words or of "and"s, or a very long clause costs the reader a bounded amount per character.

No wall-clock bound: each message here is 60,000 characters, a size where the quadratic reading the review found (a
6,000-space message took ~5 s, so one ten times longer ~500 s, and a 2,000-character run of " a" ~2 s) would not end
within any test run; the linear one reads each in well under a second. Sentences of our own."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import sentences, windows
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
    # (a statement repeated word for word leaves its earlier copies inactive, with no value: not a value superseded)
    assert [e.values for e in got if not e.active and e.values] == [("20 MB",)]


def test_a_blank_run_inside_a_statement_is_layout() -> None:
    # a statement aligned with blanks reads as the same statement written with one
    spaced = L.update([], "The retry budget is" + " " * 5000 + "7 attempts.")
    plain = L.update([], "The retry budget is 7 attempts.")
    assert [(e.subject, e.values) for e in spaced] == [(e.subject, e.values) for e in plain] == [("retry budget", ("7 attempts",))]
    assert sentences("a" + " " * 9000 + "b") == ["a  b"]


def test_a_clause_too_long_to_read_whole_is_read_in_windows() -> None:
    # a run-on clause over MAX_READ_CHARS is read in windows of a statement's size (it was skipped, unread and
    # uncounted: a silent miss): what it states at its head and far past its first window is kept
    run_on = "The staging host is pike-2.lan and the build cache is 40 GB" + " and we keep going" * (MAX_READ_CHARS // 10)
    assert len(run_on) > MAX_READ_CHARS
    assert {(e.subject, e.values) for e in L.update([], run_on + ".")} == {("staging host", ("pike-2.lan",)), ("build cache", ("40 GB",))}
    deep = "We keep going" + " and we keep going" * (MAX_READ_CHARS // 10) + " and never push to the release branch on Fridays"
    deep += " and on it goes" * 200 + ", and the deploy window is 02:00 UTC."
    assert len(deep) > 3 * MAX_READ_CHARS
    got = {(e.kind, e.values) for e in L.update([], deep)}
    assert ("constraint", ("Fridays",)) in got and ("fact", ("02:00 UTC",)) in got
    # a short one that says two things is still split
    assert {e.subject for e in L.update([], "The staging host is pike-2.lan and the build cache is 40 GB.")} == {"staging host", "build cache"}


@given(st.lists(st.sampled_from(["a", "b", " ", ",", ";", ".", " and ", " or ", "xyz"]), max_size=800).map("".join), st.integers(min_value=20, max_value=400))
def test_windows_are_bounded_and_leave_nothing_out(sentence: str, limit: int) -> None:
    got = windows(sentence, limit)
    assert all(len(w) <= limit for w in got)
    assert "".join(got).replace(" ", "") == sentence.replace(" ", "")
    if len(sentence) <= limit:
        assert got == [sentence]


def test_what_is_left_unread_is_counted_and_said_in_the_brief() -> None:
    # past its first MAX_READ_WINDOWS windows a run-on clause is not read: the rest is counted, and the brief says so
    from contextwindow.folding.base import SummaryRequest
    from contextwindow.folding.entries import MAX_CLAUSE_CHARS, MAX_READ_WINDOWS
    from contextwindow.folding.extractive import ExtractiveSummarizer
    from contextwindow.messages import Message, TextPart
    from contextwindow.tokens import counter_for

    read = MAX_READ_WINDOWS * MAX_CLAUSE_CHARS
    said = "We keep going" + " and we keep going" * (2 * read // 18) + " and the deploy window is 02:00 UTC."
    assert len(said) > 2 * read
    assert L.update([], said) == []  # the statement is at its end, past what is read
    unread = L.unread_chars(said)
    assert len(said) - read <= unread <= len(said) - read // 2
    assert L.unread_chars("The cache host is kite-7.lan. " * 300) == 0  # many short clauses: all read
    brief = ExtractiveSummarizer(counter_for(None).count_text).summarize(SummaryRequest([Message("user", (TextPart(said),))]))
    assert f"[{unread:,} characters of user text were not read for the memory" in brief.text


@pytest.mark.parametrize("joint", [", and we let the mirror sync", "; we let the mirror sync", ", but we let the mirror sync"])
def test_a_clause_between_the_statement_limit_and_the_window_limit_is_read_in_windows(joint: str) -> None:
    # a clause of 401-1,600 characters was read whole, rejected as over MAX_CLAUSE_CHARS and not counted (a silent miss);
    # a statement deep in it, behind parts with no value, is read on its own, whatever the joint before it
    from contextwindow.folding.entries import MAX_CLAUSE_CHARS

    for reps in (12, 30, 60):
        said = "We let the mirror sync" + joint * reps + ", and the artifact host is cask-7.lan" + joint * 4 + "."
        assert MAX_CLAUSE_CHARS < len(said) <= 4 * MAX_CLAUSE_CHARS or reps == 60
        assert [(e.subject, e.values) for e in L.update([], said)] == [("artifact host", ("cask-7.lan",))], (reps, said)
        assert L.unread_chars(said) == 0  # read in full: nothing to say is missed


def test_a_long_stretch_that_is_not_read_is_counted() -> None:
    # what is past the read budget is counted whatever the length of the clause, and windows cut at every joint
    from contextwindow.folding.entries import MAX_CLAUSE_CHARS, MAX_READ_WINDOWS

    budget = MAX_READ_WINDOWS * MAX_CLAUSE_CHARS
    said = "We let the mirror sync" + ", and we let the mirror sync" * (budget // 20) + ", and the artifact host is cask-7.lan."
    assert L.update([], said) == []  # past what is read
    unread = L.unread_chars(said)
    assert len(said) - budget <= unread <= len(said) - budget + MAX_CLAUSE_CHARS
    cut = windows("Alpha is first, and beta is second; gamma is third, but delta is last" + " x" * 200, 100)
    assert cut[:3] == ["Alpha is first,", "and beta is second;", "gamma is third,"]
    assert cut[3].startswith("but delta is last x") and all(len(w) <= 100 for w in cut)
