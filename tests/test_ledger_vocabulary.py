"""One vocabulary for the ledger (``folding/vocabulary.py``): a verb of change, a correction cue or a
result word counts the same in every part that reads it. Most statements follow the shape of
`ridge`'s templates with other fillers (the review of 2026-11-24 found that, against what this said
before), so they guard those shapes, not the kind in general; each failed before the shared vocabulary."""

from __future__ import annotations

import re

import pytest

from contextwindow.folding import relations, subjects, supersession, vocabulary
from ledger_helpers import ledger_of, live_values, stale_values


def test_every_form_of_a_verb_of_change_is_read_the_same_everywhere() -> None:
    for word in vocabulary.CHANGE_PAST & vocabulary.CHANGE_NOT_SUBJECT:
        assert subjects.subject_words(f"the quota {word}") == ["quota"], word  # never a word of what it is about
        assert supersession._UPDATE_CUE.search(f"the quota {word} to 5"), word  # always says an update
    for forms in vocabulary.CHANGE_FORMS.values():
        assert supersession._UPDATE_CUE.search(f"the quota {forms['third'][0]} to 5")
    # a verb that is a noun too keeps its noun ("push notifications", "the night shift", "the retry delay")
    assert subjects.subject_words("the push notification sender") == ["push", "notification", "sender"]
    assert subjects.subject_words("the night shift") == ["night", "shift"]
    assert subjects.subject_words("the retry delay") == ["retry", "delay"]
    assert re.match(relations._LEAD, "Hold on, ") and re.match(relations._LEAD, "Hmm, no. ")


@pytest.mark.parametrize(
    ("first", "update", "old", "new"),
    [
        # a verb of change in the -s form, with the delta and the result
        ("Cap the nightly export at 15 jobs.", "The nightly export limit drops by 3 jobs to 12 jobs.", "15 jobs", "12 jobs"),
        ("Keep the dashboard refresh under 90 seconds.", "The dashboard refresh limit grows by 30 seconds to 120 seconds.", "90 seconds", "120 seconds"),
        # a relative change whose result is what it "leaves"
        ("The build window is 8 hours.", "Take 2 hours off the build window; that leaves 6 hours.", "8 hours", "6 hours"),
        # a correction that names the mistake first, or what it had wrong
        ("Teodor is the incident lead for the payments outage.", "I had the incident lead for the payments outage wrong, it's Marisol and not Teodor.", "Teodor", "Marisol"),
    ],
)
def test_an_update_in_the_shared_words_supersedes(first: str, update: str, old: str, new: str) -> None:
    led = ledger_of(first, update)
    assert old in stale_values(led)
    assert new in live_values(led) and old not in live_values(led)


def test_a_correction_that_names_the_mistake_keeps_its_subject() -> None:
    led = ledger_of("The review pool is 14 reviewers.", "Sorry, 14 reviewers was a typo; the review pool is 11 reviewers.")
    assert {e.subject for e in led if e.active} == {"review pool"}
    assert not any("14" in v for v in live_values(led))
