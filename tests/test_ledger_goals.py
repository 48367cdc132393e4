"""Issue 11: the opening request is the session's goal, a later change of goal supersedes it, and paraphrased
updates (a statement taken back, an order to the assistant, a value begun and withdrawn) are linked. Sentences of
our own, not any benchmark family's."""

from __future__ import annotations

from contextwindow.folding import ledger as L
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
