"""An opening "only" before a role or a group and what it does is a policy of who may act (review debt of issue 11):
"Only admins merge to main" is a rule as "Only Priya signs off" is, while "Only Firefox shows the bug" and a role
said with a past, stative or copular verb describe. Sentences of our own, none from a benchmark family."""

from __future__ import annotations

import pytest

from contextwindow.folding.mood import only_directs
from ledger_helpers import ledger_of

RULES = [
    "Only admins merge to main.",
    "Only maintainers tag releases on the mirror.",
    "Only the release manager publishes the changelog.",
    "Only people on the payments team approve refunds over the limit.",
    "Only reviewers get to close a security ticket.",
    "Only the on-call engineer restarts the ingest workers.",
    "Only auditors may export the ledger tables.",
    "Only contractors with a badge should enter the server room.",
    "Only librarians withdraw the archive copies.",
    "Only members of the data group can drop a partition.",
]
DESCRIBED = [
    "Only Firefox shows the bug.",
    "Only admins merged anything last week.",
    "Only admins see the new banner.",
    "Only admins were online during the outage.",
    "Only the staging box has the new driver.",
    "Only the ops team knows why it broke.",
    "Only testers reporting from Safari hit it.",
]


@pytest.mark.parametrize("said", RULES)
def test_a_role_or_group_doing_something_after_only_is_a_rule(said: str) -> None:
    assert only_directs(said)
    assert [e.kind for e in ledger_of(said)] in (["constraint"], ["safety"]), said


@pytest.mark.parametrize("said", DESCRIBED)
def test_only_before_a_description_is_no_rule(said: str) -> None:
    assert not only_directs(said)
    assert [e.kind for e in ledger_of(said) if e.kind in ("constraint", "safety")] == [], said


# review finding 5: a role and a bare present verb was read as a rule whatever the verb. A rule needs a modal, "get
# to", "is/are allowed to", or an act the team's work grants or gates; any other verb says what the role happens to do.
GATED_RULES = [
    "Only the platform leads deploy to the eu-west cluster.",
    "Only archivists delete records from the cold store.",
    "Only maintainers push to the stable branch.",
    "Only the QA group signs off on a hotfix.",
    "Only operators in the night shift restart the brokers.",
    "Only designers with edit rights can change the palette.",
    "Only members of the finance team are allowed to refund a charge.",
    "Only interns on the web team should touch the staging config.",
    "Only accountants approve vendor invoices.",
]
ROLE_DESCRIBED = [
    "Only the night operators drink decaf.",
    "Only engineers on the mobile team carry two phones.",
    "Only contractors forget their badges.",
    "Only designers in Lisbon work from the café downstairs.",
    "Only reviewers ever read the long commit messages.",
    "Only staff in the Oslo office take the late train.",
    "Only interns lose their laptops when they travel.",
    "Only managers grumble about the standup time.",
    "Only developers with old laptops notice the fan noise.",
]


@pytest.mark.parametrize("said", GATED_RULES)
def test_a_role_granted_or_gated_an_act_is_a_rule(said: str) -> None:
    assert only_directs(said), said
    assert [e.kind for e in ledger_of(said)] in (["constraint"], ["safety"]), said


@pytest.mark.parametrize("said", ROLE_DESCRIBED)
def test_a_role_and_what_it_happens_to_do_is_no_rule(said: str) -> None:
    assert not only_directs(said), said
    assert [e.kind for e in ledger_of(said) if e.kind in ("constraint", "safety")] == [], said
