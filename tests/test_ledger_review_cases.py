"""Cases the review of the ledger's general rules found wrong (2026-11-24), in our own words: two bounds of
one thing are two subjects, a quote the speaker disputes is no statement, "hold on to" is no correction, a
time that names an event ("this morning's standup") is part of its subject, a URL gets no full stop. Each
case failed on the commit the review read (2bc7ad5); the guards next to them keep what the rules fixed."""

from __future__ import annotations

import pytest

from contextwindow.folding.corrections import has_lead
from ledger_helpers import ledger_of, live_values, stale_values


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The web autoscaler minimum is 2 replicas.", "The web autoscaler maximum is 10 replicas."),
        ("Keep the checkout error rate floor at 1%.", "The checkout error rate ceiling is 5%."),
        ("The payments service timeout is 30 seconds.", "The payments service window is 10 minutes."),
        ("The ingest batch max is 500 rows.", "The ingest batch min is 20 rows."),
    ],
)
def test_two_bounds_of_one_thing_are_two_subjects(first: str, second: str) -> None:
    ledger = ledger_of(first, second)
    assert stale_values(ledger) == set() and len(live_values(ledger)) == 2


def test_one_bound_named_two_ways_is_still_one_subject() -> None:
    ledger = ledger_of("The upload cap is 50 MB.", "The upload limit is now 80 MB.")
    assert live_values(ledger) == {"80 MB"} and stale_values(ledger) == {"50 MB"}


@pytest.mark.parametrize(
    "line",
    [
        'Dana claimed: "The upload limit is 80 MB." She is mistaken.',
        'Someone in the channel: "The upload limit is 80 MB." That is outdated, ignore it.',
        'Priya thinks: "The upload limit is 80 MB." Not sure.',
    ],
)
def test_a_quote_the_speaker_disputes_does_not_replace_the_value(line: str) -> None:
    ledger = ledger_of("The upload limit is 50 MB.", line)
    assert "50 MB" in live_values(ledger) and "50 MB" not in stale_values(ledger)


def test_a_quote_the_speaker_endorses_still_replaces_it() -> None:
    ledger = ledger_of("The upload limit is 50 MB.", 'Dana wrote in the channel: "The upload limit is 80 MB." So that is settled.')
    assert live_values(ledger) == {"80 MB"} and stale_values(ledger) == {"50 MB"}


def test_hold_on_to_is_no_correction_but_hold_on_comma_is() -> None:
    assert not has_lead("Hold on to the old API key for 2 weeks.")
    assert not has_lead("Wait for the nightly build before merging.")
    assert has_lead("Hold on, the key rotates in 2 weeks.") and has_lead("Wait - it is 3 hosts.")


def test_a_time_that_names_an_event_is_part_of_its_subject() -> None:
    ledger = ledger_of("The standup is at 10:00.", "This morning's standup is at 11:30.")
    assert live_values(ledger) == {"10:00", "11:30"}


def test_a_url_asked_for_gets_no_full_stop() -> None:
    assert live_values(ledger_of("Could you set the docs link to https://example.com/v2?")) == {"https://example.com/v2"}
