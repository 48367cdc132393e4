"""Lists in the ledger after the review of the tarn round: an item of a list changes only by a swap said in the
sentence's structure (a swap verb whose arguments are the two items, or a verb of leaving on one and of joining on the
other), never by a question, never on a safety rule or hard constraint; three names make a fact only as the complement
of a settings-like subject. Sentences of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from ledger_helpers import ledger_of, live_values, stale_values


def test_a_safety_rule_s_list_is_not_rewritten_by_a_report() -> None:
    rule = "Never deploy to prod-a1.lan, prod-b2.lan or prod-c3.lan."
    ledger = ledger_of(rule, "I went to the deploy review in prod-b2.lan and test-d4.lan.")
    assert stale_values(ledger) == set()
    assert any(e.kind == "safety" and "prod-b2.lan" in e.text for e in L.active(ledger))
    assert "prod-b2.lan" in L.scrub(rule, ledger)
    # not even by a swap in form: a rule changes by a statement about the rule
    ledger = ledger_of(rule, "For deploys, replace prod-b2.lan with test-d4.lan.")
    assert any(e.kind == "safety" and "prod-b2.lan" in e.text for e in L.active(ledger))


def test_names_beside_each_other_are_no_swap() -> None:
    tour = "The tour covers Lyon, Porto, Gdansk and Riga."
    for said in ("Did Porto drop out of the tour and Bergen join?", "In Porto we had dinner with Bergen's team on the tour.",
                 "On the tour Porto went well and Bergen was next door."):
        ledger = ledger_of(tour, said)
        assert "Porto" in live_values(ledger) and stale_values(ledger) == set(), said
    browsers = "The browsers we test on are Firefox, Safari, Edge and Opera."
    ledger = ledger_of(browsers, "The test server in Edge's office went down and Chrome crashed on the browsers page.")
    assert "Edge" in live_values(ledger) and stale_values(ledger) == set()


def test_a_swap_in_other_forms_still_changes_the_one_item() -> None:
    tour = "The tour covers Lyon, Porto, Gdansk and Riga."
    for said in ("Bergen takes the place of Porto on the tour.", "On the tour, Porto is out and Bergen is in.",
                 "Drop Porto from the tour and add Bergen.", "Swap Porto for Bergen on the tour.",
                 "Bergen joins the tour while Porto leaves."):
        ledger = ledger_of(tour, said)
        assert live_values(ledger) == {"Lyon", "Bergen", "Gdansk", "Riga"} and stale_values(ledger) == {"Porto"}, said


def test_three_names_after_any_verb_state_no_setting() -> None:
    assert ledger_of("I met Alice, Bob and Carol at the conference.") == []
    assert ledger_of("My kids love Paris, Rome and Berlin.") == []
    [e] = ledger_of("The shortlist includes Acme Freight, Polar Post and Nova Cargo.")
    assert e.kind == "fact"
