"""Safety readings after the review of the tarn round: "only"/"alone"/"nowhere else", a passive fence and "comes to me
first" make a safety rule only with a safety word or an act on the fenced thing; an observation stays out of the
rules. Sentences of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L


def _kinds(text: str) -> set[str]:
    return {e.kind for e in L.update([], text)}


def test_observations_with_only_or_alone_are_no_safety_rule() -> None:
    for said in ("Only Firefox shows the bug.", "Only Postgres supports arrays here.", "This bug happens only through the proxy.",
                 "I reached the office by train alone.", "Dana goes there and nowhere else on Fridays.",
                 "Logs on ops-vault2.lan are not rotated.", "The old config at /etc/app.conf is not used.",
                 "The intern's PRs come to me first.", "The coupon is for the weekend only.", "Only Mira bakes the bread on Sundays."):
        assert "safety" not in _kinds(said), said


def test_a_policy_that_fences_a_thing_off_is_still_a_safety_rule() -> None:
    for said in ("Payroll exports go out through the finance share and nowhere else.", "Only Rasmus rotates the VPN certificates.",
                 "Schema changes are applied by the migration runner alone.", "Anything in /srv/legal is never shared outside the team.",
                 "Logs on ops-vault2.lan are not copied off the box.", "Refunds over $200 come to me first.",
                 "The signing key is for the release job only.", "Invoices are sent through the billing portal and nowhere else."):
        assert "safety" in _kinds(said), said
