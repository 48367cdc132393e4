"""The kinds of wording the probe8 family (benchmarks/memory_probe8.py, seeds 17000+) showed the
ledger missing, one test per kind, each with sentences of its own (not the family's templates)."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import find_values
from ledger_helpers import ledger_of, live_values, stale_values


def test_a_correction_in_the_same_breath_replaces_the_value_just_said() -> None:
    for fix in ("Oops, I meant img-3.example.org.", "No wait, img-3.example.org.", "Typo: img-3.example.org, not img-2.example.org."):
        led = ledger_of(f"The image bucket lives on img-2.example.org. {fix}")
        assert live_values(led) == {"img-3.example.org"} and stale_values(led) == {"img-2.example.org"}, fix
    led = ledger_of("Reviews for the mobile client go through Anneke. Sorry, I meant Joost.")
    assert stale_values(led) == {"Anneke"} and "Joost" in live_values(led)


def test_a_later_correction_names_the_value_it_replaces() -> None:
    led = ledger_of("The nightly import runs at 02:30.", "Thanks.", "Typo in my last message: the nightly import runs at 03:30, not 02:30.")
    assert stale_values(led) == {"02:30"} and live_values(led) == {"03:30"}
    led = ledger_of("Marta is the contact for the print queue.", "Sorry, I meant Ruben for the print queue, not Marta.")
    assert stale_values(led) == {"Marta"} and live_values(led) == {"Ruben"}
    # a contrast without a value is not a correction, and "do not <verb> … <value>" is no contrast
    led = ledger_of("Do not delete anything under data/raw.", "Do not delete anything under data/processed.")
    assert len(L.active(led)) == 2


def test_a_value_only_sentence_is_about_what_the_sentence_before_it_names() -> None:
    led = ledger_of("The render farm quota is 40 nodes.", "I double-checked the render farm quota with finance. 55 nodes is correct.")
    assert stale_values(led) == {"40 nodes"} and "55 nodes" in live_values(led)
    led = ledger_of("The metrics relay listens on port 9125.", "We reconfigured the metrics relay; 9130 from now on.")
    assert "port 9125" in stale_values(led) and "9130" in live_values(led)
    led = ledger_of("The search reindex is planned for June 4.", "The search reindex? Pushed to June 11.")
    assert stale_values(led) == {"June 4"}


def test_an_abbreviation_or_a_clipped_word_names_the_same_subject() -> None:
    led = ledger_of("The warehouse management system talks to db-4.corp.example.org.", "The WMS talks to db-8.corp.example.org now.")
    assert stale_values(led) == {"db-4.corp.example.org"}
    led = ledger_of("The single sign-on gateway runs release 2.14.0.", "We rolled the SSO gateway forward to 2.15.1.")
    assert stale_values(led) == {"2.14.0"}
    led = ledger_of("The billing database host is db-2.lan.example.org.", "The billing DB host is db-6.lan.example.org now.")
    assert stale_values(led) == {"db-2.lan.example.org"}
    # an abbreviation that spells no run of the other subject's words is another subject
    led = ledger_of("The warehouse management system talks to db-4.corp.example.org.", "The CRM talks to db-9.corp.example.org.")
    assert not L.stale(led) and len(L.active(led)) == 2


def test_a_port_is_a_value_of_its_own() -> None:
    assert [(v.kind, v.text) for v in find_values("The admin UI listens on port 8081.")] == [("port", "port 8081")]
    led = ledger_of("The admin UI listens on port 8081.", "The admin UI moved to port 8090.")
    assert stale_values(led) == {"port 8081"}


def test_hand_overs_and_teams_name_the_new_owner() -> None:
    led = ledger_of("Pieter runs the fax gateway.", "Pieter handed the fax gateway to Lotte on Monday.")
    assert stale_values(led) == {"Pieter"} and live_values(led) == {"Lotte"}
    led = ledger_of("Alerts for the tape library go to the Otter team.", "Alerts for the tape library were handed to the Badger team.")
    assert stale_values(led) == {"Otter"} and live_values(led) == {"Badger"}
    led = ledger_of("Noor owns the export cron.", "The export cron changed teams, so ask Bram now.")
    assert stale_values(led) == {"Noor"}


def test_a_consequence_and_a_trailing_circumstance_are_not_the_subject() -> None:
    led = ledger_of("The ticketing replica is db-3.int.example.org.", "The rack lost power, so the ticketing replica is db-7.int.example.org now.")
    assert stale_values(led) == {"db-3.int.example.org"}
    led = ledger_of("The parser service runs 1.8.2.", "The parser service runs 1.9.0 after this morning's rollout.")
    assert stale_values(led) == {"1.8.2"}


def test_a_polite_question_opening_the_session_is_its_goal() -> None:
    led = ledger_of("Hi! Could you help me port the invoicing service to the new queue this sprint?")
    goal = [e for e in L.active(led) if e.kind == "goal"]
    assert goal and "invoicing service" in goal[0].text
    assert "?" not in L.stated(goal[0]) and L.from_text(L.render(goal))[0].kind == "goal"  # it reads back as the goal


def test_a_fence_without_a_negation_word_is_a_safety_rule_and_what_suits_me_a_preference() -> None:
    led = ledger_of("Hands off the billing database at db-1.int.example.org unless I say so.")
    assert [e.kind for e in led] == ["safety"]
    led = ledger_of("Replies in Dutch would be ideal for me.", "Actually Danish suits me better for replies.")
    assert [e.kind for e in led] == ["preference", "preference"] and stale_values(led) == {"Dutch"}


def test_a_correction_never_leaves_its_old_value_in_any_output() -> None:
    led = ledger_of("The staging port is port 5433. Typo: port 5434, not port 5433.")
    block = L.render(L.active(led))
    assert "5434" in block and "5433" not in L.scrub(block, led)
    said = "Ilse handed the cache cluster to Wout."
    led = ledger_of("Ilse looks after the cache cluster.", said)
    assert "Ilse" not in L.scrub(said, led) and "Wout" in L.scrub(said, led)


def test_a_value_said_again_in_passing_is_no_statement_and_keeps_no_old_value_alive() -> None:
    led = ledger_of("The export bucket is s3-exp-1.example.org.", "Thanks, I double-checked s3-exp-1.example.org and it looks right.",
                  "The export bucket moved to s3-exp-2.example.org.")
    assert len(led) == 2 and stale_values(led) == {"s3-exp-1.example.org"}
    assert "s3-exp-1" not in L.scrub("Thanks, I double-checked s3-exp-1.example.org and it looks right.", led)
    # "my own notes" is no ownership
    assert [e.kind for e in ledger_of("Noted Greta in my own notes too.")] == []


def test_units_of_one_dimension_may_be_the_same_things_value() -> None:
    led = ledger_of("The backup window is 50 minutes. Sorry, I meant 2 hours.", "The backup window is 3 hours now.")
    assert stale_values(led) == {"50 minutes", "2 hours"} and live_values(led) == {"3 hours"}


def test_an_aside_inside_a_request_states_what_it_says() -> None:
    led = ledger_of("Could you rerun the flaky suite (for context, the lint runner is on release 4.2.0) and post the log?",
                  "Please rebase the branch — the fax gateway listens on port 7070 — and push it.")
    assert {v for e in led if e.kind != "goal" for v in e.values} == {"4.2.0", "port 7070"}
    assert [e.kind for e in led if "flaky suite" in e.text] == ["goal"]  # the opening request is the session's goal
    # a remark about the sentence around it is not pulled out of it
    led = ledger_of("Subtask 1: Bundle analysis (independent, ~10 min, output: size breakdown)")
    assert [e.text for e in led] == ["Subtask 1: Bundle analysis (independent, ~10 min, output: size breakdown)"]


def test_team_names_codenames_and_tracked_ids() -> None:
    led = ledger_of("Team Marten picks up pages for the tape library.", "Tape library pages go to team Stoat now.")
    assert stale_values(led) == {"Marten"}
    led = ledger_of("The fax gateway has the codename Pavo-12.", "The fax gateway is Pavo-19 now.")
    assert stale_values(led) == {"Pavo-12"}
    led = ledger_of("Track the disk cleanup ticket as OPS-101.", "The disk cleanup ticket got replaced by OPS-202.")
    assert stale_values(led) == {"OPS-101"}


def test_the_extractive_goal_is_the_goal_in_force_once_restated() -> None:
    from contextwindow.folding import ExtractiveSummarizer
    from contextwindow.folding.base import SummaryRequest
    from contextwindow.messages import assistant, user

    msgs = [user("Please move the ranking service to the new queue."), assistant("On it."),
            user("Change of focus: the goal is now to move the shipping service to the new queue instead."), assistant("OK.")]
    led: list[L.Entry] = []
    for m in msgs:
        if m.role == "user":
            led = L.update(led, m.text)
    text = ExtractiveSummarizer(lambda s: len(s) // 4).summarize(SummaryRequest(messages=msgs, budget_tokens=2000, ledger=led)).text
    goal = text.split("## Goal\n", 1)[1].split("\n", 1)[0]
    assert goal.startswith("Change of focus") and "ranking" not in goal and "[updated later" not in goal  # not the first request, scrubbed


def test_the_opening_request_is_the_goal_even_beside_remembered_superseded_entries() -> None:
    # a compacted conversation carries the entries it scrubbed in its first message's meta; they are
    # recalled before that message is read, and must not make it a later message
    old = L.Entry(text="The relay port is 7001.", kind="fact", subject="relay port", value="+7001", values=("7001",), source="superseded",
                  active=False, updated_to="7002")
    led = L.update([old], "Could you help me move the quotes service onto the new queue today?")
    assert [e.kind for e in L.active(led)] == ["goal"]


def test_a_correction_whose_statement_was_replaced_by_a_note_corrects_nothing_else() -> None:
    # a chained compaction re-reads a user message whose corrected statement is now a note: the
    # correction must not land on whatever entry of the same kind came last
    led = ledger_of("Replies in Czech would be ideal for me. [updated later: Falcon] Typo: Falcon, not [earlier value].")
    assert [e.values for e in L.active(led)] == [("Czech",)]


def test_a_stored_ledger_reads_back_whole() -> None:
    """What a correction or an update was read against (replaces, correction, resolved, context,
    loose) is stored with the ledger: a reopened Session reads the same entries back."""
    from contextwindow.folding.constraints import from_json, to_json

    for texts in (
        ("Reviews for the mobile client go through Anneke. Sorry, I meant Joost.",),
        ("Typo: img-3.example.org, not img-2.example.org.",),
        ("The image bucket lives on img-2.example.org.", "Sorry, I meant img-3.example.org."),
        ("Keep in mind that the build box is ci-4.example.org.", "Never force-push to main."),
    ):
        led = ledger_of(*texts)
        assert from_json(to_json(led)) == led, texts


def test_a_rule_in_the_opening_message_stays_a_rule_when_the_goal_changes() -> None:
    """The opening request becomes the goal, but a clause that states a rule is never made the goal:
    it would be superseded, and lost, when the user restates the goal (found in review)."""
    for first, rule in (
        ("We must never force-push to main.", "We must never force-push to main."),
        ("Please get the tests green, and never touch the migrations folder.", "never touch the migrations folder"),
        ("Morning! I need the invoicing service moved to the new queue today. Never drop the orders table.", "Never drop the orders table."),
    ):
        led = L.update(ledger_of(first), "Change of plan: the goal is to fix the signup page.")
        live = [e for e in L.active(led) if rule in e.text]
        assert live and all(e.kind == "safety" for e in live), (first, [(e.kind, e.text) for e in L.active(led)])
        assert [e.kind for e in L.active(led)].count("goal") == 1
