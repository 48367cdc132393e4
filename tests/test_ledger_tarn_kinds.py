"""The ledger's readings by sentence structure, the round after `tarn`'s held-out run (issue 11): each kind that
`tarn` seeds 21000-21011 missed, in sentences of our own (none from a benchmark family). Values in other forms (a
range, a host on a private network, a number before a comma), a relative change without "by", and what is left of
the subject once a change's words are set aside."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import find_values
from ledger_helpers import ledger_of, live_values, stale_values


def _values(text: str) -> list[tuple[str, str]]:
    return [(v.kind, v.text) for v in find_values(text)]


def test_a_range_is_one_value() -> None:
    assert _values("Keep 20–25 tabs open at most.") == [("number", "20–25 tabs")]
    assert _values("the pool runs 3-5 workers") == [("number", "3-5 workers")]
    ledger = ledger_of("The warm pool holds 10–14 workers.", "Move the warm pool down by 2 at each end: 8–12 workers.")
    assert live_values(ledger) == {"8–12 workers"} and stale_values(ledger) == {"10–14 workers"}


def test_a_host_on_a_private_network_is_a_value() -> None:
    assert _values("the wiki runs on owl-web2.lan") == [("host", "owl-web2.lan")]
    assert _values("ssh to ci-runner7.internal first") == [("host", "ci-runner7.internal")]
    assert _values("edit main.py and notes.txt") == [("path", "main.py")] or all(k != "host" for k, _ in _values("edit main.py and notes.txt"))
    ledger = ledger_of("The mirror host is rook-db4.lan.", "The mirror host moved to kite-app7.int.")
    assert live_values(ledger) == {"kite-app7.int"} and stale_values(ledger) == {"rook-db4.lan"}


def test_a_number_never_ends_with_a_comma() -> None:
    assert _values("Raise it by 50, making 450 rows.") == [("number", "50"), ("number", "450 rows")]
    assert _values("We have 1,250 seats.") == [("number", "1,250 seats")]


def test_a_change_without_by_states_its_delta_and_result() -> None:
    ledger = ledger_of("The upload quota is 200 GB.", "The upload quota drops 20 GB, to 180 GB.")
    assert live_values(ledger) == {"180 GB"} and stale_values(ledger) == {"200 GB"}
    ledger = ledger_of("The staging freeze is on June 3.", "The staging freeze moves 2 days later, so June 5.")
    assert live_values(ledger) == {"June 5"} and stale_values(ledger) == {"June 3"}
    ledger = ledger_of("The staging freeze is on June 3.", "The staging freeze slides 4 days later, landing on June 7.")
    assert live_values(ledger) == {"June 7"}


def test_the_words_of_a_change_are_no_words_of_its_subject() -> None:
    ledger = ledger_of("The nightly batch size is 400 rows.", "Raise the nightly batch size by 50, making 450 rows.")
    assert live_values(ledger) == {"450 rows"} and stale_values(ledger) == {"400 rows"}
    assert {e.subject for e in ledger} == {"nightly batch size"}
    ledger = ledger_of("The printer queue limit is 12 jobs.", "Make the printer queue limit 9 jobs.", "Put the printer queue limit back to 12 jobs, as it was.")
    assert live_values(ledger) == {"12 jobs"} and "9 jobs" in stale_values(ledger)
    assert all("back" not in e.subject.split() for e in ledger)


def test_going_back_to_a_value_still_names_its_thing() -> None:
    # the return read by its own frame ("go back to V for X"): "back" is set aside only after another verb
    ledger = ledger_of("The review window is 5 days.", "The review window is 8 days now.", "Let's go back to 5 days for the review window.")
    assert live_values(ledger) == {"5 days"} and "8 days" in stale_values(ledger)


def test_the_old_value_negated_between_the_thing_and_the_new_one() -> None:
    ledger = ledger_of("The invoice retention is 30 days.", "The invoice retention: not 30 days — 45 days.")
    [e] = [e for e in ledger if e.active]
    assert e.values == ("45 days",) and e.replaces == ("30 days",)
    ledger = ledger_of("The standup slot is 9:30.", "The standup slot, not 9:30 but 10:15.")
    assert live_values(ledger) == {"10:15"} and stale_values(ledger) == {"9:30"}
    # the first statement itself negates a value no entry held; the correction after it names the value it replaces
    ledger = ledger_of("The nightly export dir: not /srv/old/a1 — /srv/exp/b2.", "Correction on the nightly export dir, not /srv/exp/b2, /srv/exp/c3.")
    assert live_values(ledger) == {"/srv/exp/c3"} and stale_values(ledger) == {"/srv/exp/b2"}
    # a contrast of words, not values, is left as it is
    assert ledger_of("The launch plan: not a big bang — a slow rollout over three weeks.")[0].replaces == ()


def test_a_wrong_value_lead_keeps_the_thing_it_names() -> None:
    """A guard: the tree before read these by another path; the restatement must keep them."""
    ledger = ledger_of("The cache size is 4 GB.", "The retry budget is 3 GB.", "I gave you the wrong figure for the cache size earlier: 6 GB.")
    assert live_values(ledger) == {"6 GB", "3 GB"} and stale_values(ledger) == {"4 GB"}
    ledger = ledger_of("The board meeting is on May 2.", "Wrong date for the board meeting: May 9.")
    assert live_values(ledger) == {"May 9"}


def _kind_of(text: str) -> list[str]:
    return [e.kind for e in ledger_of(text)]


def test_a_policy_that_lets_one_channel_alone_act_is_a_safety_rule() -> None:
    assert _kind_of("Payroll exports go out through the finance share and nowhere else.") == ["safety"]
    assert _kind_of("Only Rasmus Holt rotates the VPN certificates.") == ["safety"]
    assert _kind_of("Schema changes are applied by the migration runner alone.") == ["safety"]
    assert _kind_of("Backups are restored from vault-7.lan and from no other host.") == ["safety"]
    assert _kind_of("Pushes to ops-git3.lan happen only through the release bot.") == ["safety"]
    # a bound or a style rule with "only" is no fence
    assert "safety" not in _kind_of("Only 3 retries are allowed per job.")
    assert "safety" not in _kind_of("Use only tabs for indentation.")
    assert "safety" not in _kind_of("The migration alone took 3 hours.")


def test_a_thing_not_to_be_acted_on_said_in_the_passive_is_a_safety_rule() -> None:
    assert _kind_of("Anything in /srv/legal/holds is never shared outside the team.") == ["safety"]
    assert _kind_of("Logs on ops-vault2.lan are not copied off the box.") == ["safety"]
    assert "safety" not in _kind_of("The report on 12 May was not finished in time.")


def test_ask_first_said_of_the_thing_is_a_safety_rule() -> None:
    assert _kind_of("Payouts over $900 come to me first.") == ["safety"]
    assert _kind_of("Any schema change needs my sign-off.") == ["safety"]


def test_a_liking_said_as_how_a_thing_is_for_the_speaker_is_a_preference() -> None:
    assert _kind_of("Dark mode reads better for me in the editor.") == ["preference"]
    assert _kind_of("Short answers with one example suit us best.") == ["preference"]
    assert _kind_of("A plain CSV export would be lovely.") == ["preference"]
    assert _kind_of("I'm happiest when tests run on the ci-fast2.lan runner.") == ["preference"]
    assert _kind_of("For diffs I'd reach for delta if you have it.") == ["preference"]


def _goal(*messages: str) -> str:
    return next((e.text for e in ledger_of(*messages) if e.kind == "goal" and e.active), "")


def test_an_opening_request_in_other_forms_is_the_goal() -> None:
    assert _goal("First thing this morning: the flaky login test in the auth suite. It fails one run in five.") == \
        "First thing this morning: the flaky login test in the auth suite."
    assert "mailer rewrite" in _goal("I'm off for the week; please pick up the mailer rewrite from here.")
    assert "Q3 invoice import" in _goal("Today is all about the Q3 invoice import, so bear with me.")
    assert _goal("I maintain a few small libraries. Help me with the changelog generator?") == "Help me with the changelog generator?"
    assert _goal("I maintain a few small libraries. Can you tell me what time it is?") == ""


def test_a_restated_goal_puts_off_a_whole_noun_phrase() -> None:
    ledger = ledger_of("Could you help me with the invoice export for the shop?",
                       "Change of plans: forget the invoice export; what I need now is the refund report.")
    assert stale_values(ledger) >= {"the invoice export"}
    assert "refund report" in next(e.value for e in ledger if e.kind == "goal" and e.active)


def test_a_list_of_one_kind_of_value_states_what_it_is_of() -> None:
    [e] = ledger_of("The tour covers Lyon, Porto, Gdansk and Riga.")
    assert e.kind == "fact" and e.subject == "tour cover"
    assert ledger_of("Integrate AddWidget, WidgetList, and Footer components") == []  # an order on the list: a task


def test_one_item_of_a_list_changes_and_the_others_stay() -> None:
    ledger = ledger_of("The tour covers Lyon, Porto, Gdansk and Riga.", "Porto drops out of the tour and Bergen joins.")
    assert live_values(ledger) == {"Lyon", "Bergen", "Gdansk", "Riga"} and stale_values(ledger) == {"Porto"}
    ledger = ledger_of("The browsers we test on are Firefox, Safari, Edge and Opera.",
                       "Replace Safari with Chrome in the browsers we test on; the rest stay.")
    assert live_values(ledger) == {"Firefox", "Chrome", "Edge", "Opera"} and stale_values(ledger) == {"Safari"}
    # items of several words; the list's statement in force says every item
    ledger = ledger_of("The vendors on the shortlist are Acme Freight, Polar Post and Nova Cargo.",
                       "On the shortlist Delta Lines takes the place of Polar Post.")
    assert stale_values(ledger) == {"Polar Post"}
    assert [e.text for e in ledger if e.active] == ["The vendors on the shortlist are Acme Freight, Delta Lines and Nova Cargo."]
    assert "Polar Post" not in L.scrub("We emailed Acme Freight and Polar Post.", ledger)
    assert "Acme Freight" in L.scrub("We emailed Acme Freight and Polar Post.", ledger)


def test_a_new_name_beside_a_list_item_changes_nothing_without_a_word_of_the_list() -> None:
    ledger = ledger_of("The tour covers Lyon, Porto, Gdansk and Riga.", "Bergen and Porto both have rain today.")
    assert {"Porto"} <= live_values(ledger) and stale_values(ledger) == set()


def test_a_choice_named_by_the_speaker_s_pick_or_preference_is_the_same_choice() -> None:
    """The 5b3098e kind (a subject split once the shared change words read the correction): a correction names the
    choice in other words than the first statement ("the X framework"), the next update names it as the speaker's pick
    or preference ("my pick for X"); the words a choice is named by are set aside like a bound noun."""
    ledger = ledger_of("For the desktop UI tests I prefer Sikuli.", "I had the desktop UI framework wrong, it's Squish and not Sikuli.",
                       "Switch my pick for desktop UI to Ranorex.")
    assert live_values(ledger) == {"Ranorex"} and stale_values(ledger) == {"Sikuli", "Squish"}
    ledger = ledger_of("Charts in the reports look best in Vega, if you can.", "I had the chart tool for reports wrong, it's Plotly and not Vega.",
                       "On my reports chart preference: Bokeh, please.")
    assert live_values(ledger) == {"Bokeh"}
    # another thing's choice stays: a word on each side the other lacks
    ledger = ledger_of("For the desktop UI tests I prefer Sikuli.", "Switch my pick for mobile UI to Ranorex.")
    assert live_values(ledger) == {"Sikuli", "Ranorex"}


def test_a_setting_written_as_a_config_line_is_the_same_subject_as_prose() -> None:
    ledger = ledger_of("The build host is owl-ci3.lan.", "Updated:\nbuild_host: kite-ci9.lan")
    assert live_values(ledger) == {"kite-ci9.lan"} and stale_values(ledger) == {"owl-ci3.lan"}
    ledger = ledger_of("report_length: 300 words", "The report length is 450 words now.")
    assert live_values(ledger) == {"450 words"}
    [e] = ledger_of("report_style: terse bullets")
    assert (e.kind, e.subject, e.values) == ("fact", "report style", ("terse bullets",))
    assert ledger_of("see notes_v2: draft") == []  # not a config line: words before the key


def test_an_answer_of_only_a_value_is_about_what_the_question_names() -> None:
    from contextwindow.folding import constraints

    ledger = constraints.update([], "The batch size is 500 rows.")
    ledger = constraints.update(ledger, "no, 800 rows now. Also check the logs.", asked="Done. Is the batch size still 500 rows?")
    assert live_values(ledger) == {"800 rows"} and stale_values(ledger) == {"500 rows"}
    ledger = constraints.update([], "use elm-st2.lan.", asked="Noted. What's your staging host?")
    assert [(e.subject, e.values) for e in ledger] == [("staging host", ("elm-st2.lan",))]
    ledger = constraints.update([], "go with short bullet lists, thanks.", asked="Before I start: what should I use for status reports?")
    assert [(e.subject, e.values) for e in ledger] == [("status report", ("short bullet lists",))]
    ledger = constraints.update([], "The review window is 2 days.")
    ledger = constraints.update(ledger, "it changed, 3 days.", asked="Should the review window stay at 2 days?")
    assert live_values(ledger) == {"3 days"}
    # no question, or a question that names nothing: the value alone says nothing about a subject
    assert all("staging" not in e.subject for e in constraints.update([], "use elm-st2.lan.", asked="Done, the tests pass."))
    assert constraints.update([], "it's 6380.", asked="Anything else?") == []


def test_a_session_reads_the_answer_through_the_question_before_it(tmp_path) -> None:
    from contextwindow.messages import assistant, user
    from contextwindow.session import Session
    from contextwindow.store.sqlite import SQLiteStore

    s = Session(SQLiteStore(tmp_path / "s.db"), window=8000, max_output=100)
    s.add(user("The batch size is 500 rows."), assistant("Done. Is the batch size still 500 rows?"), user("no, 800 rows now."))
    assert live_values(s.constraints()) == {"800 rows"}


def test_a_verdict_label_or_the_speaker_s_position_before_a_value_names_no_subject() -> None:
    ledger = ledger_of("The cache size is 4 GB.", "We went over the cache size at lunch. Result: 6 GB.")
    assert live_values(ledger) == {"6 GB"} and stale_values(ledger) == {"4 GB"}
    ledger = ledger_of("The standup is at 9:30.", "The standup moved again. We're at 10:15.")
    assert live_values(ledger) == {"10:15"} and stale_values(ledger) == {"9:30"}
    # a value the ledger can find no subject for is read as written, not dropped
    ledger = ledger_of("The board meets on Fridays.", "We argued about the kickoff slot all morning. Verdict: 14:30.")
    assert "14:30" in live_values(ledger)
