"""The ledger's readings by sentence structure (issue 11, the round after `quarry`'s held-out run): each kind in
sentences of our own, none from a benchmark family. A lower-case writer's sentences, a remark about the speaker
before the statement, slips in function words, a designation of letters and digits inside a subject."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import sentences
from contextwindow.folding.typos import mend
from ledger_helpers import ledger_of, live_values, stale_values


def test_a_lower_case_writer_s_sentences_are_two() -> None:
    assert sentences("the staging db lives on the second rack. also keep the retry count at 6 tries") == [
        "the staging db lives on the second rack.", "also keep the retry count at 6 tries"]
    assert sentences("we ship on friday. it's a soft launch") == ["we ship on friday.", "it's a soft launch"]


def test_a_stop_inside_a_value_or_after_an_abbreviation_splits_nothing() -> None:
    assert sentences("see e.g. the wiki page for it") == ["see e.g. the wiki page for it"]
    assert sentences("edit main.py. then rerun it") == ["edit main.py. then rerun it"]
    assert sentences("the cache is about approx. five gigabytes") == ["the cache is about approx. five gigabytes"]


def test_a_statement_after_a_lower_case_sentence_is_its_own_subject() -> None:
    ledger = ledger_of("the db host moved racks last week. the retry count stays at 6 tries", "the retry count is 9 tries now")
    assert "9 tries" in live_values(ledger) and "6 tries" in stale_values(ledger)
    assert all("host" not in e.subject for e in ledger if "9 tries" in e.values)
    # the pair clauses.py's comment gives (the test above passes on a tree that joins the two sentences: this one does not)
    ledger = ledger_of("the staging db lives on the second rack. also keep the retry count at 6 tries", "Keep the retry count at 9 tries.")
    assert live_values(ledger) == {"9 tries"} and stale_values(ledger) == {"6 tries"}
    assert [e.subject for e in ledger if "9 tries" in e.values] == ["retry count"]


def test_a_remark_about_the_speaker_is_not_the_subject() -> None:
    [e] = ledger_of("now that I think of it, the nightly export has to finish by 06:30")
    assert e.subject == "nightly export finish" and e.kind == "constraint"
    [e] = ledger_of("this is worth writing down, the vendor contract renews on 12 May")
    assert "worth" not in e.subject and "vendor" in e.subject
    ledger = ledger_of("now that I think of it, the nightly export has to finish by 06:30", "The nightly export has to finish by 07:15 now.")
    assert live_values(ledger) == {"07:15"} and stale_values(ledger) == {"06:30"}


def test_a_remark_that_states_a_preference_or_rule_of_its_own_stays() -> None:
    [e] = ledger_of("I'd rather get short replies, and keep units metric")
    assert e.kind == "preference"
    [e] = ledger_of("I never want force pushes, and the main branch is protected")
    assert e.kind in ("safety", "constraint")


def test_slips_in_function_words_are_read_as_meant() -> None:
    assert mend("Hte nightly export should finish befoer 06:00, adn then stop") == "The nightly export should finish befoer 06:00, and then stop"
    assert mend("fill in the form three times") == "fill in the form three times"  # real words are never slips
    ledger = ledger_of("Hte nightly export shoudl finish before 06:30", "The nightly export should finish before 07:15 now")
    assert live_values(ledger) == {"07:15"} and stale_values(ledger) == {"06:30"}
    [e] = ledger_of("Teh retention window is 30 days")
    assert e.subject == "retention window" and e.text == "Teh retention window is 30 days"  # the text stays as typed


def test_a_letters_and_digits_designation_names_which_one() -> None:
    ledger = ledger_of("the GPU0 fan speed has to stay under 70%", "the GPU1 fan speed has to stay under 85%")
    assert live_values(ledger) == {"70%", "85%"} and stale_values(ledger) == set()  # two fans, not one updated
    ledger = ledger_of("the GPU0 fan limit is 70%", "the GPU1 fan limit is 85%", "the GPU0 fan limit is 75% now")
    assert live_values(ledger) == {"85%", "75%"} and stale_values(ledger) == {"70%"}
    [e] = ledger_of("We renamed the gateway to Orion7")  # after the verb it is still the value
    assert e.values == ("Orion7",)


def test_slips_and_remarks_leave_the_rendered_ledger_verbatim() -> None:
    ledger = ledger_of("so I was going over my notes, and teh GPU0 fan limit is 70%")
    assert "teh GPU0 fan limit is 70%" in L.render(L.active(ledger))
    assert [e.subject for e in ledger] == ["gpu0 fan limit"]  # read as meant, rendered as written


def test_an_update_in_fewer_words_takes_the_subject_it_replaced() -> None:
    ledger = ledger_of("The nightly backup window starts at 02:00.", "my bad, the backup window starts at 03:00", "Set the nightly backup window to 01:30.")
    assert live_values(ledger) == {"01:30"} and stale_values(ledger) == {"02:00", "03:00"}
    ledger = ledger_of("Keep the staging replica count at 3 replicas", "replica count: 4 replicas", "Set the staging replica count to 6 replicas.")
    assert live_values(ledger) == {"6 replicas"}


def test_an_update_in_fewer_words_reads_back_from_a_memory_block() -> None:
    block = L.render(L.active(ledger_of("The nightly backup window starts at 02:00.", "my bad, the backup window starts at 03:00")))
    back = L.update(L.from_text(block), "Set the nightly backup window to 01:30.")
    assert live_values(back) == {"01:30"} and stale_values(back) == {"03:00"}


def test_fewer_words_never_merge_two_things() -> None:
    ledger = ledger_of("The frontend release is on 3 March.", "The backend release is on 9 March.", "my bad, the release is on 5 March")
    assert {"3 March", "9 March"} <= live_values(ledger) | stale_values(ledger)
    assert not ({"3 March", "9 March"} <= stale_values(ledger))  # a vague statement supersedes at most one, never both


def test_a_fence_around_one_named_thing_is_a_safety_rule() -> None:
    for said in ("Tickets tagged legal-hold are off limits for the triage script", "Don't touch /var/lib/ledger under any circumstances",
                 "Never edit /etc/hosts on the gateway"):
        [e] = ledger_of(said)
        assert e.kind == "safety", said
    [e] = ledger_of("never touch more than 50 files in one pass")  # a bound, not a fence
    assert e.kind == "constraint"


def test_a_correction_that_quotes_what_was_written_names_the_old_value() -> None:
    ledger = ledger_of("The scratch volume is 40 GB.", "I put 40 GB for the scratch volume earlier, that was a mistake: 60 GB")
    assert live_values(ledger) == {"60 GB"} and stale_values(ledger) == {"40 GB"}
    ledger = ledger_of("The escalation address is ops@corp.test", "We listed ops@corp.test as the escalation address before, that's wrong - it's oncall@corp.test")
    assert live_values(ledger) == {"oncall@corp.test"} and stale_values(ledger) == {"ops@corp.test"}


def test_a_typo_remark_after_the_value_is_not_part_of_it() -> None:
    ledger = ledger_of("The export folder is /srv/exports/v1", "the export folder is /srv/exports/v2, not /srv/exports/v1, my typo")
    assert live_values(ledger) == {"/srv/exports/v2"} and stale_values(ledger) == {"/srv/exports/v1"}
    ledger = ledger_of("The pool size is 12 workers.", "The pool size is 16 workers, not 12 workers, typo on my end.")
    assert live_values(ledger) == {"16 workers"}


def test_a_sentence_quoted_inside_a_line_is_read_on_its_own() -> None:
    assert sentences('per the runbook, "The failover drill runs every 90 days", so plan for it') == [
        "per the runbook", "The failover drill runs every 90 days", "so plan for it"]
    ledger = ledger_of("The queue depth is 500 messages.", 'Amir posted: "We raised the queue depth to 800 messages" and left')
    assert live_values(ledger) == {"800 messages"} and stale_values(ledger) == {"500 messages"}


def test_quoted_examples_titles_and_disputed_quotes_are_not_statements() -> None:
    line = 'skip obvious advice like "Add tests for every new helper", "Keep functions short and simple"'
    assert sentences(line) == [line]
    line = 'Dana claimed: "The queue depth is 900 messages" but she is wrong'
    assert sentences(line) == [line]
    line = 'See the sections "Tips for Development", "Support and Documentation" below'
    assert sentences(line) == [line]


def test_a_correction_of_what_a_safety_rule_protects_keeps_the_rule() -> None:
    ledger = ledger_of("Never run migrations against db-main-1.corp.internal.",
                       "I wrote db-main-1.corp.internal for the primary before, that's wrong: db-main-2.corp.internal")
    [rule] = [e for e in L.active(ledger) if e.kind == "safety"]
    assert rule.text == "Never run migrations against db-main-2.corp.internal."
    assert "db-main-1.corp.internal" not in L.scrub(L.render(L.active(ledger)), ledger)
    assert "db-main-1.corp.internal" not in L.scrub("Never run migrations against db-main-1.corp.internal.", ledger)  # any output
    ledger = ledger_of("Don't commit anything under /srv/keys/2024, the signing keys live there.",
                       "scratch that, the signing keys are really under /srv/keys/2025")
    [rule] = [e for e in L.active(ledger) if e.kind == "safety"]
    assert "/srv/keys/2025" in rule.text


def test_a_statement_about_another_thing_never_edits_a_safety_rule() -> None:
    ledger = ledger_of("Don't commit anything under /srv/keys/2024, the signing keys live there.",
                       "scratch that, the build cache is really under /srv/cache/2025")
    assert any(e.kind == "safety" and "/srv/keys/2024" in e.text for e in L.active(ledger))


def test_a_prohibition_without_a_full_stop_is_no_question() -> None:
    [e] = ledger_of("do not touch /srv/releases/gold under any circumstances, that's the signed build")
    assert e.kind == "safety"
    assert ledger_of("do you want the logs") == []


def test_wrong_about_the_thing_then_its_value_corrects_it() -> None:
    ledger = ledger_of("The cache TTL is 30 minutes.", "I was wrong about the cache TTL, it's 45 minutes")
    assert live_values(ledger) == {"45 minutes"} and stale_values(ledger) == {"30 minutes"}
