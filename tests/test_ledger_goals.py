"""Issue 11: the opening request is the session's goal, a later change of goal supersedes it, and paraphrased
updates (a statement taken back, an order to the assistant, a value begun and withdrawn) are linked. Sentences of
our own, not any benchmark family's."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextwindow.folding import ledger as L
from contextwindow.folding.constraints import user_words
from contextwindow.importers import load_transcript
from ledger_helpers import ledger_of, live_values, stale_values


def _goal(led: list[L.Entry]) -> str:
    return next((e.text for e in L.active(led) if e.kind == "goal"), "")


def test_an_opening_request_read_by_its_shape_is_the_goal() -> None:
    assert _goal(ledger_of("Please set up a nightly check of the photo archive.")) == "Please set up a nightly check of the photo archive."
    assert _goal(ledger_of("Context: we run a bakery. The task: write a migration guide for the billing API, start to finish.")) == (
        "The task: write a migration guide for the billing API, start to finish.")
    assert _goal(ledger_of("Morning! All we want today is a cleaner import script.")) == "All we want today is a cleaner import script."
    assert _goal(ledger_of("I'd like a script that renames the scans by the date they were taken.")).startswith("I'd like a script")
    assert _goal(ledger_of("Could you put together a churn summary for the board?")) == "Could you put together a churn summary for the board?"


def test_what_is_no_request_makes_no_goal() -> None:
    assert _goal(ledger_of("Sounds good, thanks for the quick look.")) == ""
    assert _goal(ledger_of("Let's not rush this.")) == ""
    # a preference about the replies stays a preference
    [e] = ledger_of("I'd like short answers in metric units.")
    assert e.kind == "preference"
    # a fact said as an order stays the fact it states
    led = ledger_of("Send the printer tickets to Farah.", "Printer tickets go to Jonas now.")
    assert stale_values(led) == {"Farah"} and "Jonas" in live_values(led)


def test_a_dropped_goal_is_superseded_and_scrubbed() -> None:
    led = ledger_of("Please set up a nightly check of the photo archive.",
                    "Never mind the nightly check — the real goal is the invoice importer.")
    assert "invoice importer" in _goal(led)
    assert not any(e.kind == "goal" and "photo archive" in e.text for e in L.active(led))
    assert "nightly check" not in L.scrub("Never mind the nightly check — the real goal is the invoice importer.", led)


def test_a_change_of_plan_over_two_sentences_restates_the_goal() -> None:
    text = "Different plan: forget the churn summary. What I really need is a renewal forecast."
    led = ledger_of("Could you put together a churn summary for the board?", text)
    assert _goal(led) == "What I really need is a renewal forecast."
    assert "churn summary" not in L.scrub(text, led)
    # a task in a later message is no change of goal
    led = ledger_of("Could you put together a churn summary for the board?", "Build the chart for the March numbers first.")
    assert _goal(led) == "Could you put together a churn summary for the board?"


def test_a_statement_taken_back_names_its_subject() -> None:
    led = ledger_of("The staging bucket holds 40 GB.", "Scratch what I told you about the staging bucket, it's 65 GB.")
    assert stale_values(led) == {"40 GB"} and "65 GB" in live_values(led)
    led = ledger_of("The standup starts at 9:15.", "I got the standup wrong yesterday: 9:15 was a mistake, it's 9:45.")
    assert "9:45" in live_values(led) and "9:15" not in live_values(led)
    # two subjects that share words stay two
    led = ledger_of("The US bucket is b-1.", "Scratch what I told you about the EU bucket, it's b-2.")
    assert live_values(led) >= {"b-1", "b-2"}


def test_a_rule_whose_thing_is_taken_back_keeps_its_rule() -> None:
    led = ledger_of("Never power down rack R-7, our cold-storage rack, during a restore.",
                    "Scratch what I told you about the cold-storage rack, it's R-9.")
    rules = [e.text for e in L.active(led) if e.kind in ("safety", "constraint")]
    assert rules == ["Never power down rack R-9, our cold-storage rack, during a restore."]


def test_an_order_in_the_second_person_and_a_value_taken_back_in_one_breath() -> None:
    led = ledger_of("Keep the thumbnail queue at 8 workers.", "From today you'll use 12 workers for the thumbnail queue.")
    assert stale_values(led) == {"8 workers"} and "12 workers" in live_values(led)
    said = "For the reindex window, I was going to say 01:00, but no, let's go with 02:30."
    led = ledger_of(said)
    assert "01:00" not in live_values(led) and "02:30" in live_values(led)
    assert "01:00" not in L.scrub(said, led)


def test_courtesy_and_feeling_are_no_request_and_do_not_hide_the_real_one() -> None:
    # verbs of courtesy, feeling or attitude at the head, and a need that is the speaker's own act, ask for no work
    for said in ("Wishing you and the crew a calm week.", "Hope the move to the new office went smoothly.", "Enjoy the long weekend.",
                 "Take your time with it.", "Pardon the wall of text below.", "Ignore the odd formatting in my draft.",
                 "Imagine a much busier Monday.", "I want to be upfront about one thing.", "We'd like to say thank you for the demo.",
                 "Let's see."):
        assert _goal(ledger_of(said)) == "", said
    assert _goal(ledger_of("Hope your trip was restful. Please draft a rota for the weekend volunteers.")) == (
        "Please draft a rota for the weekend volunteers.")
    assert _goal(ledger_of("Excuse the rambling notes.", "Please draft a rota for the weekend volunteers.")) == (
        "Please draft a rota for the weekend volunteers.")


def test_a_request_asked_in_so_many_words_outranks_one_read_by_its_shape() -> None:
    # in the same message, and in the next one
    assert _goal(ledger_of("Check the shelf labels in aisle four. Could you reorder the seed catalogue by season?")) == (
        "Could you reorder the seed catalogue by season?")
    assert _goal(ledger_of("Check the shelf labels in aisle four.", "Could you reorder the seed catalogue by season?")) == (
        "Could you reorder the seed catalogue by season?")
    # only the next message: later on, it is a request like any other
    led = ledger_of("Check the shelf labels in aisle four.", "The shop opens at 09:00.", "Could you reorder the seed catalogue by season?")
    assert _goal(led) == "Check the shelf labels in aisle four."


def test_the_sentence_that_introduces_a_list_is_the_goal_not_an_item_of_it() -> None:
    text = ("Please survey this greenhouse sensor repo and create a SETUP.md file, which will be given to new volunteers on day one.\n\n"
            "What to cover:\n1. How the sensors are wired. Include the pin map for each board.\n"
            "2. Describe the calibration steps in order.\n")
    assert _goal(ledger_of(text)).startswith("Please survey this greenhouse sensor repo and create a SETUP.md file")


def test_a_value_with_no_more_or_no_longer_after_it_is_kept() -> None:
    assert live_values(ledger_of("Keep each backup job to maybe 45 minutes, no longer.")) >= {"45 minutes"}
    assert live_values(ledger_of("The mailing list holds maybe 600 members, no more.")) >= {"600 members"}
    # the value begun and taken back is still marked as the one before
    assert "3 shelves" not in live_values(ledger_of("Maybe 3 shelves, no, make it 5 shelves for the herbs."))


def test_a_taken_back_statement_whose_rest_has_its_own_subject_is_not_restated() -> None:
    led = ledger_of("The launch date is 14 March.", "Forget what I told you about the launch, the build server is kiln-2.lan.",
                    "The build server is kiln-5.lan.")
    assert "kiln-2.lan" not in live_values(led) and "kiln-5.lan" in live_values(led)


_INIT = Path("/work/shared/fixtures/transcripts/claude_code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")


@pytest.mark.skipif(not _INIT.exists(), reason="the real Claude Code /init transcript (/work/shared/fixtures) is absent")
def test_the_real_init_session_s_goal_is_its_request_not_an_item_of_its_list() -> None:
    loaded = load_transcript(str(_INIT))
    session = loaded[0] if isinstance(loaded, list) else loaded
    led: list[L.Entry] = []
    for m in session.messages:
        if said := user_words(m):
            led = L.update(led, said)
    assert _goal(led).startswith("Please analyze this codebase and create a CLAUDE.md file")
