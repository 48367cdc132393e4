"""Requests said through a verb of thought, and a pause the speaker takes (review debt of issue 11): "Consider migrating
the X", "Think about how to shard the Y", "Remember to rebuild the Z" ask for work and are the goal; "I need a coffee
before we start" is the speaker's own pause, not the goal. Sentences of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L


def _goal(text: str) -> str:
    return next((e.text for e in L.update([], text, source="0") if e.kind == "goal"), "")


def test_a_verb_of_thought_before_the_work_asks_for_it() -> None:
    for said in ("Consider moving the nightly reports to the new scheduler.", "Think about how to split the audit table by month.",
                 "Remember to regenerate the API client for the partner portal.", "Think through whether to archive the old wiki pages."):
        assert _goal(said) == said, said


def test_a_verb_of_thought_without_work_is_no_goal() -> None:
    for said in ("Consider the worst case.", "Remember that the partner portal is frozen this week.", "Think about it.",
                 "Remember the demo went well."):
        assert _goal(said) == "", said


def test_a_pause_the_speaker_takes_is_not_the_goal() -> None:
    assert _goal("I need a coffee before we start.") == ""
    assert _goal("I need a quick break first.") == ""
    assert _goal("I need a coffee before we start. Please move the nightly reports to the new scheduler.") == (
        "Please move the nightly reports to the new scheduler.")


def test_a_need_for_the_work_is_still_the_goal() -> None:
    assert _goal("I need the nightly reports moved to the new scheduler by Friday.") != ""
    assert _goal("We need a new scheduler for the nightly reports.") != ""
