"""The kinds of wording the probe7 family (benchmarks/memory_sessions.py, seeds 16000+) showed the
ledger missing, one test per kind, each with sentences of its own (not the family's templates)."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import find_values
from ledger_helpers import ledger_of, stale_values


def _live(ledger: list[L.Entry]) -> str:
    return "\n".join(e.text for e in L.active(ledger))



def test_two_statements_in_one_sentence_are_two_entries() -> None:
    led = ledger_of("Never merge without two approvals, and the staging database lives at db-7.int.example.org.",
                  "The staging database lives at db-9.int.example.org now.")
    assert "db-7.int.example.org" in stale_values(led)
    assert any("two approvals" in e.text for e in L.active(led))  # the rule beside it is not the one updated
    led = ledger_of("Keep functions under 40 lines; also, the docs bucket is s3-docs-4.example.com.",
                  "Keep functions under 55 lines from now on.")
    assert "40 lines" in stale_values(led) and "s3-docs-4.example.com" in _live(led)


def test_an_elliptic_second_part_takes_the_first_parts_head() -> None:
    led = ledger_of("The on-site contact is Amelie for the Lyon office and Tobias for the Graz office.")
    subjects = {e.subject for e in L.active(led)}
    assert len(subjects) == 2 and {v for e in L.active(led) for v in e.values} == {"Amelie", "Tobias"}
    led = L.update(led, "The Graz on-site contact is Henrik now.")
    assert stale_values(led) == {"Tobias"} and "Amelie" in _live(led)


def test_a_framed_statement_is_read_without_its_frame() -> None:
    for framed in (
        "After a lot of back and forth the vendors agreed that the export job runs at 04:30.",
        "Not sure anyone told you, but as far as I know the export job runs at 04:30.",
        "Sorry, this came up in a hallway chat and I forgot to pass it on: the export job runs at 04:30.",
        "Following the storage incident last night, the export job runs at 04:30.",
    ):
        led = ledger_of("The export job runs at 02:00.", framed)
        assert "02:00" in stale_values(led), framed


def test_a_leading_time_phrase_is_no_name_and_dates_the_change() -> None:
    led = ledger_of("Noor is the on-call person this week.", "Starting tomorrow, Henrik is on call.")
    assert "Noor" in stale_values(led)
    assert not any("Starting" in e.values for e in led)
    led = ledger_of("When syncing, pause 20 seconds between batches.", "Effective next week, pause 45 seconds between syncing batches.")
    assert "20 seconds" in stale_values(led)


def test_amounts_written_in_other_forms_are_amounts() -> None:
    for text in ("We have 5k dollars a month for hosting.", "We have 3.1k dollars a month for hosting.", "We have four thousand two hundred dollars for hosting."):
        assert [v.kind for v in find_values(text)] == ["money"], text
    # a rate is one value whatever is counted (before, "events" was no unit and the rate read as "2.5k")
    for text in ("The ingest cap is 2.5k events per minute.", "The ingest cap is 2.5k requests per minute.", "We run 40 builds a day."):
        rate = text.split(" is ")[-1].removeprefix("We run ").rstrip(".")
        assert [(v.kind, v.text) for v in find_values(text)] == [("number", rate)], text


def test_an_amount_per_period_is_a_budget_whatever_it_is_called() -> None:
    led = ledger_of("We've got $900 a month for observability, no more.", "Good news: the observability allowance is $1,400 a month.")
    assert "$900 a month" in stale_values(led)


def test_a_relative_update_that_says_its_result_updates() -> None:
    led = ledger_of("Log lines can't be longer than 120 characters.", "Give log lines a little more room, say 160 characters.")
    assert "120 characters" in stale_values(led)
    led = ledger_of("The audit must be finished by May 9.", "Add two weeks to the audit deadline, so May 23.")
    assert "May 9" in stale_values(led)


def test_the_opening_request_is_the_goal_and_a_restated_goal_replaces_it() -> None:
    led = ledger_of("Morning! I need the invoicing service moved to the new queue today. Never drop the orders table.")
    goals = [e for e in L.active(led) if e.kind == "goal"]
    assert len(goals) == 1 and "invoicing service" in goals[0].values[0]
    back = L.parse(L.stated(goals[0]))  # the memory block's line reads back as the goal
    assert back is not None and back.kind == "goal" and back.values == goals[0].values
    led = L.update(led, "Change of focus: the refunds service goes to the new queue first.")
    assert next(e for e in L.active(led) if e.kind == "goal").values[0].startswith("the refunds service")
    assert "invoicing" not in L.scrub("Morning! I need the invoicing service moved to the new queue today.", led)
    # only the session's first message: a later request is a task, not the goal
    later = L.update(ledger_of("The cache TTL is 30 seconds."), "I need the invoicing service moved to the new queue today.")
    assert not any(e.kind == "goal" for e in later)


def test_a_goal_named_as_the_job_or_plan_for_the_session() -> None:
    for text in ("The plan for this session: move the invoicing service to the new queue.", "Our work for today is moving the invoicing service to the new queue."):
        e = L.parse(text)
        assert e is not None and e.kind == "goal", text


def test_ownership_said_as_a_possessive_or_as_who_to_call() -> None:
    led = ledger_of("If the label printer breaks, Anouk is the one to call.", "The label printer is Bastian's now.")
    assert "Anouk" in stale_values(led)
    led = ledger_of("Anouk is who owns the label printer.", "Bastian owns the label printer from today.")
    assert "Anouk" in stale_values(led)


def test_renames_with_an_adverb_again_or_by_a_codename() -> None:
    led = ledger_of("The ingest proxy is internally named Kestrel-3.", "The ingest proxy got renamed again, to Osprey-5.")
    assert "Kestrel-3" in stale_values(led)
    led = ledger_of("We refer to the ingest proxy by its codename, Kestrel-3.", "In the release notes the ingest proxy appears as Osprey-5.")
    assert "Kestrel-3" in stale_values(led)


def test_where_a_thing_is_found_or_pointed() -> None:
    led = ledger_of("You'll find the deploy checklist under /opt/ops/checklist2.", "We moved the deploy checklist to /opt/ops/checklist7.")
    assert "/opt/ops/checklist2" in stale_values(led)
    led = ledger_of("Point anything meant for the metrics relay at relay-3.lan.example.org.", "The DNS record for the metrics relay now resolves to relay-8.lan.example.org.")
    assert "relay-3.lan.example.org" in stale_values(led)


def test_no_x_gets_deleted_is_a_safety_rule() -> None:
    e = L.parse("Whatever happens, no rows in the billing tables get deleted.")
    assert e is not None and e.kind == "safety"


def test_a_shared_role_word_alone_does_not_make_an_update() -> None:
    # "person" and "owns" both read as the role "owner": sharing it names no common thing
    led = ledger_of("Greta is the on-call person this week.", "Starting Monday, Rafael owns the billing exporter.")
    assert "Greta" in _live(led) and not stale_values(led)


def test_a_note_joined_to_a_statement_is_not_part_of_it() -> None:
    # a chained fold reads scrubbed text back: the note that replaced the clause after ";" must not
    # turn the statement before it into a vaguer one that supersedes its sibling
    led = ledger_of("The trial window is May 2 for the Lisbon site and May 9 for the Porto site; also, [updated later: Danish]")
    assert {v for e in L.active(led) for v in e.values} == {"May 2", "May 9"}


# --- from probe7's unseen seeds 16012-16023 (its 24-session run) ---------------------------------
def test_a_goal_restated_in_other_words_replaces_the_goal() -> None:
    led = ledger_of("I need the invoicing service moved to the new queue today.",
                  "Let me refine that: it's the refunds service that has to go to the new queue first.")
    goal = next(e for e in L.active(led) if e.kind == "goal")
    assert "refunds" in goal.values[0] and any("invoicing" in v for v in stale_values(led))
    # naming the goal's words without saying the plan changed is no new goal
    led = ledger_of("I need the invoicing service moved to the new queue today.", "The new queue for the invoicing service is slow.")
    assert "invoicing service moved" in next(e for e in L.active(led) if e.kind == "goal").values[0]


def test_an_elliptic_part_is_aligned_on_its_own_values_only() -> None:
    led = ledger_of("The retry budget is ninety seconds for the Lyon site and 45 seconds for the Porto site and Noor is the on-call person this week.")
    assert {v for e in L.active(led) for v in e.values} == {"ninety seconds", "45 seconds", "Noor"}
    porto = next(e for e in L.active(led) if "45 seconds" in e.values)
    assert "retry" in porto.subject and "Noor" not in porto.text  # the head of the first part, not the third part


def test_a_memory_block_line_that_starts_like_a_question_reads_back() -> None:
    entries = L.detect("When syncing, pause 20 seconds between batches and use OPS-12 for the sync ticket.")
    assert "- When syncing, pause 20 seconds between batches" in L.render(entries).splitlines()  # a part, verbatim: no end mark
    back = L.from_text(L.render(entries))
    assert sorted(e.values for e in back) == [("20 seconds",), ("OPS-12",)]


def test_a_person_and_a_things_name_are_two_attributes() -> None:
    led = ledger_of("The asset pipeline is internally named Kestrel-3.", "Luca inherits the asset pipeline as of this week.",
                  "Heads up, the asset pipeline is Osprey-5 now after the rebrand.")
    assert "Luca" in _live(led) and stale_values(led) == {"Kestrel-3"}


def test_an_opening_request_after_a_time_phrase_is_the_goal() -> None:
    # "today" is when, not a value a later date can update: the request is the goal, which no
    # loosely worded date update may supersede ("We're doing the billing cutover on May 3 instead")
    led = ledger_of("This week we need the billing exporter moved to the new cluster.", "We're doing the billing cutover on May 3 instead.")
    goal = [e for e in L.active(led) if e.kind == "goal"]
    assert len(goal) == 1 and "billing exporter moved" in goal[0].values[0] and not L.stale(led)
