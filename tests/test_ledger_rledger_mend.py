"""Review rledger's findings 1, 2 and 5 on the brook round (issue 11), each with the reviewer's sentences and our own of the
same kind, positive and negative: only the supposed or reported clause states nothing (a rule beside it binds, and what is
dropped is counted); an id that tells two rules apart stays in their subject and a version keeps its dots; a statement of
what cannot be done is no safety rule."""

from __future__ import annotations

from functools import reduce

from contextwindow.folding import ledger as L
from contextwindow.folding import unasserted
from contextwindow.folding.clauses import find_values


def _ledger(*said: str) -> list[L.Entry]:
    return reduce(lambda led, k_s: L.update(led, k_s[1], source=str(k_s[0])), enumerate(said), list[L.Entry]())


def _live(*said: str) -> str:
    return "\n".join(v for e in L.active(_ledger(*said)) for v in e.values)


def _kinds(text: str) -> set[str]:
    return {e.kind for e in L.update([], text)}


# --- 1: only the supposed or disowned clause states nothing ------------------------------------------------------------
RULES_BESIDE_AN_ASIDE = [  # (message, the value of the rule it holds)
    ("Never run migrations on prod-db-1, even if someone ever asks, because it would break billing.", "prod-db-1"),
    ("Keep the monthly cloud bill under $400. We never agreed to raise it, so it stays.", "$400"),
    ("Never push to main at git.example.com/core. Ignore it if CI shouts about it.", "git.example.com/core"),
    ("Never email customers from noreply@acme.io. Their opinion doesn't matter here.", "noreply@acme.io"),
    ("Suppose the import fails: never rerun it against db-main-1, page me instead.", "db-main-1"),
    ("Imagine we lose the database: never restore it from /srv/backups/old.", "/srv/backups/old"),
    ("Never deploy to prod-eu-1 on Fridays; ignore that old wiki page about it.", "prod-eu-1"),
    ("Bob says never use more than 10 GPUs; that is his preference, and I agree with him.", "10 GPUs"),
    # our own, of the same kinds
    ("Never wipe the cache on edge-cdn-4, even if support ever begs for it, since it would cost a day of traffic.", "edge-cdn-4"),
    ("What if the disk fills up: don't delete anything in /var/lib/pg-archive, call me.", "/var/lib/pg-archive"),
    ("Hypothetically we could grow later, but never touch the ledger at /mnt/fin/ledger.", "/mnt/fin/ledger"),
    ("Keep the review queue under 12 PRs. Nobody agreed to anything else, so that holds.", "12 PRs"),
    ("Do not rotate the signing key in vault/prod-signing. Ignore that if the bot nags.", "vault/prod-signing"),
]


def test_a_rule_beside_a_supposed_or_disowned_clause_still_binds() -> None:
    for said, value in RULES_BESIDE_AN_ASIDE:
        assert any(value in e.text for e in L.active(_ledger(said)) if e.kind in ("safety", "constraint")), said


def test_the_supposed_or_reported_clause_itself_still_states_nothing() -> None:
    for said, rule, aside in (
        ("Suppose the cloud bill were $900: never go past $400 anyway.", "$400", "$900"),
        ("Dana keeps saying the export must stay under 20 GB; ignore that, but never export more than 40 GB.", "40 GB", "20 GB"),
        ("If we ever raise the bill to $900, we'd need the CFO. Keep the bill under $400.", "$400", "$900"),
        ("Marketing wants $8,000 for the budget cap; that's not our policy. The budget cap is $5,000.", "$5,000", "$8,000"),
    ):
        live = _live(said)
        assert rule in live and aside not in live, said


def test_a_disowned_rule_needs_a_third_party_reported() -> None:
    assert unasserted.held("Keep the monthly cloud bill under $400.", "We never agreed to raise it, so it stays.") == ("Keep the monthly cloud bill under $400.", 0)
    text, dropped = unasserted.held("Bob keeps telling people never to exceed 8 GPUs.", "Ignore that.")
    assert text == "" and dropped == 1


def test_what_is_dropped_is_counted() -> None:
    text, dropped = unasserted.held("Suppose the import fails: never rerun it against db-main-1.")
    assert "never rerun it against db-main-1" in text and "Suppose" not in text and dropped == 1
    assert unasserted.held("In theory the cloud bill could be $900 next year.") == ("", 1)
    assert unasserted.held("Never run migrations on prod-db-1, even if someone ever asks, because it would break billing.")[1] == 0
    assert L.unasserted_clauses("Keep the bill under $400. In theory it could be $900. Suppose it fails: never retry.") == 2
    assert L.unasserted_clauses("Keep the bill under $400.") == 0
    from contextwindow.folding.extractive import unread_note
    from contextwindow.messages import user

    assert "[2 clauses of user text were read as stating nothing" in unread_note([user("In theory it could be $900."), user("Suppose it fails: never retry.")])
    assert unread_note([user("Keep the bill under $400.")]) == ""


def test_the_if_ever_consequence_is_the_clause_after_the_condition() -> None:
    assert unasserted.held("If we ever move the bill to $900, we'd need sign-off.")[0] == ""
    for said in ("If the build ever breaks, page Dana, because it would block the release.",
                 "Never restart pay-3.internal if anyone ever asks, it would cost a day."):
        assert unasserted.held(said) == (said, 0), said


# --- 2: an id that tells two rules apart, a version with its dots ------------------------------------------------------
def test_a_version_keeps_its_dots() -> None:
    for said, value in (("The CI image is ubuntu-22.04.", "ubuntu-22.04"), ("Ship release-2.4.1 today.", "release-2.4.1"),
                        ("Pin node-18.2.0 in the build.", "node-18.2.0"), ("Use python-3.11 for the lint job.", "python-3.11")):
        assert value in [v.text for v in find_values(said)], said
    assert [v.text for v in find_values("The host is web-3. Then stop.")] == ["web-3"]  # a full stop ends it
    live = _live("The CI image is ubuntu-22.04.", "The CI image is ubuntu-22.10 now.")
    assert "ubuntu-22.10" in live and "ubuntu-22.04" not in live


def test_rules_on_two_named_things_are_two_rules() -> None:
    for first, second in (("Never deploy to prod-eu-1.", "Never deploy to prod-us-2."),
                          ("Never delete anything in bucket logs-archive-2.", "Never delete anything in bucket ml-data-7."),
                          ("Don't reboot node gpu-node-3 during training.", "Don't reboot node gpu-node-9 during training."),
                          ("Never restart run-6637 without asking.", "Never restart build-41 without asking."),
                          ("No one may touch the shard db-shard-2.", "No one may touch the shard db-shard-5.")):
        led = _ledger(first, second)
        assert len(L.active(led)) == 2 and not L.stale(led), (first, second)


def test_a_marked_update_of_a_named_rule_still_supersedes() -> None:
    live = _live("The deploy target is prod-eu-1.", "The deploy target is prod-eu-3 now.")
    assert "prod-eu-3" in live and "prod-eu-1" not in live
    live = _live("The baseline run id is run-4410.", "The ablation run id is run-5120.", "The baseline run id is run-4533 now.")
    assert "run-4533" in live and "run-5120" in live and "run-4410" not in live


def test_two_tiers_of_one_kind_are_two_subjects() -> None:
    led = _ledger("Tier-1 tickets get a first response within 1,500 seconds.", "Tier-2 tickets get a first response within 300 minutes.",
                  "The tier-1 first-response SLA was adjusted to 20 minutes.", "The tier-2 first-response SLA was adjusted to 410 minutes.")
    live = "\n".join(v for e in L.active(led) for v in e.values)
    assert "20 minutes" in live and "410 minutes" in live and "300 minutes" not in live  # the ridge pair (seed 19001)
    live = _live("Zone-1 hosts keep logs for 14 days.", "Zone-2 hosts keep logs for 30 days.",
                 "The zone-1 log retention was raised to 21 days.", "The zone-2 log retention was cut to 20 days.")
    assert "21 days" in live and "20 days" in live  # zone-2's change leaves zone-1's in force
    live = _live("The tier-1 first-response SLA is 20 minutes.", "The tier-2 first-response SLA is 300 minutes.",
                 "The tier-2 first-response SLA is 410 minutes now.")
    assert "20 minutes" in live and "410 minutes" in live and "300 minutes" not in live
    live = _live("The gold-1 plan quota is 50 GB.", "The gold-2 plan quota is 80 GB.", "The gold-1 plan quota is 60 GB now.")
    assert "60 GB" in live and "80 GB" in live and "50 GB" not in live


# --- 5: a statement of what cannot be done is no safety rule ------------------------------------------------------------
def test_a_statement_of_inability_is_no_safety_rule() -> None:
    for said in ("We can't reproduce the crash on the staging box staging-2.internal.",
                 "It doesn't work on the old build server ci-4.corp.",
                 "The tests don't pass on my laptop mac-7.local.",
                 "Nobody can find the runbook for db-main-1.internal.",
                 "That doesn't apply to the read-only bastion-3.corp.",
                 "I can't open the dashboards on the shared monitor mon-2.lan.",
                 "The agent won't start jobs on the new runner gh-9.ci.example.org."):
        assert "safety" not in _kinds(said), said


def test_an_order_with_words_before_the_thing_is_still_a_safety_rule() -> None:
    for said in ("Never start builds on the shared runner gh-7.ci.example.org while the release is cut.",
                 "Don't launch builds on the reserved runner gh-7.ci.example.org.",
                 "Please never copy the patient extracts in /data/phi/2030.",
                 "We must never restart the payment workers on pay-3.internal.",
                 "No one may copy or export the patient extracts in /data/phi/2030.",
                 "I was told never to touch the payments cluster pay-3.internal.",
                 "As I said, never deploy the web tier to prod-eu-1."):
        assert "safety" in _kinds(said), said
