"""The kinds of brook's misses (issue 11, session 13), each with a positive and a negative case in sentences of our own:
a sentence that only supposes a value states nothing; how firmly a rule binds is not its subject; a negated act on a
named thing is a safety rule even when the act names its object first; the goal's section is given up before any hard
constraint or safety rule."""

from __future__ import annotations

from contextwindow.compaction.degrade import degrade
from contextwindow.folding import ledger as L
from contextwindow.folding.unasserted import disowned, entertains
from contextwindow.messages import Message, assistant, user
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)


def _ledger(*said: str) -> list[L.Entry]:
    led: list[L.Entry] = []
    for k, s in enumerate(said):
        led = L.update(led, s, source=str(k))
    return led


def _live(*said: str) -> str:
    """The values in force (an entry's text may name the value it replaced: "…, not U")."""
    return "\n".join(v for e in L.active(_ledger(*said)) for v in e.values) + "\n" + "\n".join(e.subject for e in L.active(_ledger(*said)))


# --- a supposed value states nothing ------------------------------------------------------------------------------------
def test_a_supposed_value_is_read_as_nothing_and_supersedes_nothing() -> None:
    for aside in ("Hypothetically, a cloud bill of $900 would be fine one day, but we keep things as they are.",
                  "In theory the cloud bill could be $900 next year.",
                  "If we ever raise the cloud bill to $900, we'd need the CFO to sign off.",
                  "We might raise the cloud bill to $900 if we ever get the grant.",
                  "Raising the cloud bill to $900 is not planned."):
        assert entertains(aside), aside
        live = _live("Keep the monthly cloud bill under $400.", aside)
        assert "$400" in live and "$900" not in live, aside


def test_a_condition_with_an_order_or_a_plain_statement_still_binds() -> None:
    for said in ("If we ever touch the billing replica, ask me first.", "If the build ever fails, page Dana.",
                 "Nothing changed: the cloud bill stays at $400.", "The cloud bill is $900 now."):
        assert not entertains(said), said
    assert "$900" in _live("Keep the monthly cloud bill under $400.", "The cloud bill cap is $900 now.")


# --- how firmly a rule binds is not what it is about --------------------------------------------------------------------
def test_two_rules_marked_alike_are_two_subjects() -> None:
    live = _live("Hard requirement: do not push any build that talks to the test collector qa7.collect.example.net.",
                 "Hard requirement: the code freeze no later than 2030-05-02.",
                 "The code freeze has to be done by 2030-04-20 now, not 2030-05-02.")
    assert "qa7.collect.example.net" in live and "2030-04-20" in live and "2030-05-02" not in live
    live = _live("It's non-negotiable that the nightly export stays below 40 GB.", "It's non-negotiable that the review queue never exceeds 12 PRs.",
                 "The cap on the nightly export went from 40 GB to 55 GB.")
    assert "12 PRs" in live and "55 GB" in live and "40 GB" not in live


def test_a_marked_rule_is_still_superseded_by_its_own_subject() -> None:
    live = _live("Hard requirement: the weekly GPU budget no higher than 300 GPU-hours.", "The weekly GPU budget is capped at 250 GPU-hours now.")
    assert "250" in live and "300" not in live


# --- a negated act on a named thing, its object named first --------------------------------------------------------------
def _kinds(text: str) -> set[str]:
    return {e.kind for e in L.update([], text)}


def test_a_negated_act_whose_object_names_the_thing_is_a_safety_rule() -> None:
    for said in ("Never start builds on the shared runner gh-7.ci.example.org while the release is cut.",
                 "No one may copy or export the patient extracts in /data/phi/2030.",
                 "Nobody should restart the payment workers on pay-3.internal during business hours."):
        assert "safety" in _kinds(said), said


def test_a_bound_on_a_named_thing_is_no_safety_rule() -> None:
    for said in ("Never touch more than 40 files in /srv/app in one pass.", "Don't run over 8 jobs at once on gh-7.ci.example.org."):
        assert "safety" not in _kinds(said), said


# --- the goal's section goes before any binding entry --------------------------------------------------------------------
def _short_session() -> list[Message]:
    opening = ("This week is all about the warehouse migration: I want every table moved with its history and every view "
               "rebuilt against the new schema, with the dashboards checked one by one and the owners told what moved where.")
    return [
        user(opening), assistant("On it."),
        user("Never drop tables in the legacy schema legacy_dw. Never write to the finance share /mnt/fin/ledger. "
             "Never delete anything under /srv/backups."),
        assistant("Understood."),
        *[m for k in range(3) for m in (user(f"Thanks, that helps. The team was worried about this part all week and round {k} of the "
                                             "questions from the analysts is still open, but nothing there changes what we do."), assistant("Noted."))],
        user("Check the view definitions next."),
    ]


def test_the_goal_is_given_up_before_a_safety_rule() -> None:
    msgs = _short_session()
    led = _ledger(*(m.text for m in msgs if m.role == "user"))
    rules = ("legacy_dw", "/mnt/fin/ledger", "/srv/backups")
    assert all(any(r in e.text for e in L.active(led) if e.kind == "safety") for r in rules)
    budget = 0
    for b in range(80, 600, 4):  # the smallest budget that holds the rules and the newest message without the goal
        out, _ = degrade(msgs, budget=b, count=COUNTER.count_messages, ledger=led, ref="span-0-4")
        if all(r in "\n".join(m.text for m in out) for r in rules):
            budget = b
            break
    assert budget
    out, rungs = degrade(msgs, budget=budget, count=COUNTER.count_messages, ledger=led, ref="span-0-4")
    text = "\n".join(m.text for m in out)
    assert COUNTER.count_messages(out) <= budget and "ledger_entries" in rungs
    assert "## Goal" not in text  # the goal's section went, the rules stayed
    roomy, _ = degrade(msgs, budget=budget + 200, count=COUNTER.count_messages, ledger=led, ref="span-0-4")
    assert "the warehouse migration" in "\n".join(m.text for m in roomy)  # kept while it costs no rule


# --- a rule reported and disowned is nobody's rule here -----------------------------------------------------------------
def test_a_reported_rule_the_person_disowns_states_nothing() -> None:
    for said in ("Priya keeps saying the nightly export must stay under 20 GB; ignore that, it's not our policy.",
                 "The auditor said the nightly export should never pass 20 GB, but that's their wish, not a rule here.",
                 "Apparently the old team capped the nightly export at 20 GB. We never agreed to that."):
        live = _live("Keep the nightly export under 40 GB.", said)
        assert "40 GB" in live and "20 GB" not in live, said


def test_a_rule_beside_a_disowned_one_still_binds() -> None:
    assert not disowned("Priya says the nightly export must stay under 20 GB, and she is right.")
    assert not disowned("Keep the nightly export under 20 GB.", "Thanks for the reminder.")
    live = _live("Keep the nightly export under 40 GB.", "Priya says the nightly export must stay under 20 GB now, and we agreed.")
    assert "20 GB" in live


# --- what a memory line left out comes back when a later round has room -------------------------------------------------
def test_entries_left_out_come_back_in_a_later_round_with_room() -> None:
    from contextwindow.folding.extractive import ExtractiveSummarizer
    from contextwindow.replay.compact import compact_conversation

    rules = ["Never drop tables in the legacy schema legacy_dw.", "Never write to the finance share /mnt/fin/ledger.",
             "Never delete anything under /srv/backups.", "Never restart the payment workers on pay-3.internal.",
             "Keep the nightly export under 40 GB.", "The review queue never exceeds 12 PRs."]
    long_ask = "Check the view definitions next, " + ", ".join(f"then the report view number {k} and its owners" for k in range(30)) + "."
    msgs: list[Message] = [user("Help me move the warehouse."), assistant("On it.")]
    for r in rules:
        msgs += [user(r), assistant("Noted.")]
    msgs.append(user(long_ask))
    summ = ExtractiveSummarizer(COUNTER.count_text)
    budget = COUNTER.count_messages([user(long_ask)]) + 90
    first, _ = compact_conversation(msgs, budget=budget, counter=COUNTER, summarizer=summ, rounds=1)
    text = "\n".join(m.text for m in first)
    assert "left out" in text and not all(v in text for v in ("legacy_dw", "/mnt/fin/ledger", "/srv/backups", "pay-3.internal", "40 GB", "12 PRs"))
    later, _ = compact_conversation([*first, assistant("Done."), user("Go on.")], budget=budget, counter=COUNTER, summarizer=summ, rounds=1)
    text = "\n".join(m.text for m in later)
    assert all(v in text for v in ("legacy_dw", "/mnt/fin/ledger", "/srv/backups", "pay-3.internal", "40 GB", "12 PRs")), text


# --- an id in lower case is a value -------------------------------------------------------------------------------------
def test_an_id_in_lower_case_is_a_value_and_its_update_supersedes() -> None:
    from contextwindow.folding.clauses import find_values

    assert [v.text for v in find_values("The baseline run id is run-4410.")] == ["run-4410"]
    assert [v.text for v in find_values("The failover region is ap-south-2 now.")] == ["ap-south-2"]
    live = _live("The baseline run id is run-4410.", "The ablation run id is run-5120.", "The baseline run id is run-4533 now.")
    assert "run-4533" in live and "run-5120" in live and "run-4410" not in live


def test_a_hyphenated_word_without_a_number_is_no_value() -> None:
    from contextwindow.folding.clauses import find_values

    assert find_values("Please re-run the follow-up checks on the read-only mirror.") == []
