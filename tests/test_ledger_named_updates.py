"""Updates that name the value they replace in a frame of their own (``folding/updates.py``): a swap, "from U to V",
an arrow, "V for the X instead of U", "we dropped U; …", "U handed over — …", and the frames that give only the new
value ("changed my mind on the X: V", "X: make it V", "X → V"). Sentences written for this test (not a family's
templates); each positive case failed before ``updates.py`` (the old value stayed in force, or the new one was not
read); the negative cases must not supersede anything."""

from __future__ import annotations

import pytest

from contextwindow.folding import ledger as L
from contextwindow.folding.updates import replaced, restated
from ledger_helpers import ledger_of, live_values, stale_values


def _shown(led: list[L.Entry]) -> str:
    """What an output shows of the ledger: its entries in force, scrubbed."""
    return L.scrub("\n".join(e.text for e in L.active(led)), led)


@pytest.mark.parametrize(
    ("first", "update", "old", "new"),
    [
        # a swap that names both values, and the thing after "as"/"for"
        ("The build agent image is v3.18.2.", "We swapped v3.18.2 for v3.20.1 as the build agent image.", "v3.18.2", "v3.20.1"),
        ("The payments ticket is PAY-4410.", "They replaced PAY-4410 with PAY-5120 for the payments ticket.", "PAY-4410", "PAY-5120"),
        # "went from U to V" when the first statement named the subject in other words
        ("Hard limit: memory per worker of at most 512 MB.", "Since Monday the cap on memory per worker went from 512 MB to 768 MB.", "512 MB", "768 MB"),
        ("Keep the queue depth under 40 jobs.", "The queue depth limit was raised from 40 jobs to 55 jobs.", "40 jobs", "55 jobs"),
        # an arrow with the old value before it
        ("The nightly export runs at 02:00.", "Nightly export: 02:00 → 04:30", "02:00", "04:30"),
        # the new value, then the thing, then the old one
        ("Use port 8080 for the admin console.", "Port 9443 for the admin console instead of port 8080, please.", "8080", "9443"),
        ("The fallback bucket is /mnt/logs-archive-2.", "For the fallback bucket, /mnt/logs-archive-7 instead of /mnt/logs-archive-2.", "logs-archive-2", "logs-archive-7"),
        # the old value dropped or handed over, then the thing with its new value
        ("The pager rotation lead is Ingrid Solberg.", "Ingrid Solberg stepped down; the pager rotation lead is Tomasz Wrona now.", "Solberg", "Wrona"),
        ("The search index is IDX-3301.", "We retired IDX-3301; the search index is IDX-4410 now.", "IDX-3301", "IDX-4410"),
    ],
)
def test_an_update_that_names_the_old_value_supersedes_it(first: str, update: str, old: str, new: str) -> None:
    led = ledger_of(first, update)
    assert any(new in v for v in live_values(led)), led
    assert not any(old in v for v in live_values(led)), led
    assert old not in _shown(led)  # nor shown in the update's own words


@pytest.mark.parametrize(
    ("first", "update", "old", "new"),
    [
        ("The review deadline is Mar 3.", "The review deadline I gave you before: make it Mar 10.", "Mar 3", "Mar 10"),
        ("The retry budget is 5 retries.", "Retry budget → 8 retries", "5 retries", "8 retries"),
        ("The canary share is 5%.", "the canary share -> 12%", "5%", "12%"),
        ("Our staging host is stage-07.internal.", "I've changed my mind on our staging host: stage-11.internal.", "stage-07.internal", "stage-11.internal"),
    ],
)
def test_an_update_that_gives_only_the_new_value_in_a_frame_supersedes(first: str, update: str, old: str, new: str) -> None:
    led = ledger_of(first, update)
    assert old in stale_values(led) and any(new in v for v in live_values(led)), led


@pytest.mark.parametrize(
    "clause",
    [
        "We swapped notes after the demo.",  # no value on either side, no thing it is set for
        "Latency went from bad to worse after the deploy.",  # "from … to …" without a value
        "Build → test → deploy is the pipeline order.",  # an arrow chain, not an update of one thing
        "I replaced the whole paragraph with a shorter one for the readme intro because the old text rambled on for a while.",
        "We dropped by the office; the coffee machine is broken.",  # "dropped by" is no old value of the coffee machine
    ],
)
def test_frames_that_state_no_update_are_left_alone(clause: str) -> None:
    assert replaced(clause)[1] == [] and restated(clause) in (clause, clause.strip())


def test_an_update_of_one_subject_leaves_the_other_that_shares_words() -> None:
    led = ledger_of(
        "The frontend deploy window is Tuesday 14:00.",
        "The backend deploy window is Thursday 09:00.",
        "We swapped Tuesday 14:00 for Wednesday 16:00 as the frontend deploy window.",
    )
    live = live_values(led)
    assert any("Wednesday" in v for v in live) and any("Thursday" in v for v in live), led
    assert not any("Tuesday" in v for v in live)


def test_the_same_value_on_both_sides_is_no_update() -> None:
    assert replaced("We swapped 8 GB for 8 GB as the cache size.") == ("We swapped 8 GB for 8 GB as the cache size.", [])


@pytest.mark.parametrize(
    ("messages", "old", "new"),
    [
        # a correction spread over two sentences: the first names the thing, the second only gives the value
        (("The antenna tilt is 12 degrees.", "I had the antenna tilt wrong earlier. It's 17 degrees."), "12 degrees", "17 degrees"),
        # a question that points back at the thing, then "change that"
        (("The sync interval is 30 minutes.", "Remember what I said about the sync interval earlier? Make that 45 minutes."), "30 minutes", "45 minutes"),
        # a return to the original value after a change, worded two ways
        (("The freeze date is 2027-03-01.", "The freeze date is 2027-04-15.", "Go back to the original freeze date, 2027-03-01."), "2027-04-15", "2027-03-01"),
        (("Keep the pool at 24 workers.", "The pool is 32 workers now.", "Let's reset the pool to the original 24 workers."), "32 workers", "24 workers"),
        # two updates in one sentence, each "X now V"
        (("The vendor PO is PO-7781.", "The spare bay is Bay 4.", "Vendor PO now PO-9902; spare bay now Bay 9."), "PO-7781", "PO-9902"),
        (("The vendor PO is PO-7781.", "The spare bay is Bay 4.", "Vendor PO now PO-9902; spare bay now Bay 9."), "Bay 4", "Bay 9"),
    ],
)
def test_an_update_said_in_another_frame_supersedes(messages: tuple[str, ...], old: str, new: str) -> None:
    led = ledger_of(*messages)
    shown = _shown(led)
    assert new.split()[-1] in shown, led
    assert old not in shown, shown


@pytest.mark.parametrize(
    "clause",
    [
        "The build now passes.",  # "now" with no value after it
        "Remember what I said about testing? It matters.",  # points back, sets nothing
        "Go back to the original plan.",  # a return with no value
        "We now have lunch at noon on Fridays with the whole team and the visitors from the other office.",
    ],
)
def test_other_frames_that_set_nothing_are_left_alone(clause: str) -> None:
    assert restated(clause) == clause


def test_a_safety_rule_whose_value_an_update_replaces_keeps_its_words_in_the_text() -> None:
    """The update names the host a safety rule protects as the one dropped: the rule is rewritten with the new host
    (fences.py), and a message that still holds the old rule keeps the rule's words with the old value replaced — before,
    the whole old sentence became "[updated later: …]", so a fold that read the scrubbed messages lost the rule."""
    rule = "Never drop tables on the primary at db-main-1.internal."
    led = ledger_of(rule, "We retired db-main-1.internal; the primary is db-main-2.internal now.")
    assert any(e.kind == "safety" and "db-main-2.internal" in e.text for e in L.active(led)), led
    shown = L.scrub(rule, led)
    assert "Never drop tables on the primary at" in shown and "db-main-1" not in shown, shown
