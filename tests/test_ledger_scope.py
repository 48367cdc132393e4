"""Which words the ledger reads (one rule for the Session, ``ctxw compact`` and the replay's
count), and that scrubbing old values never rewrites a rule still in force."""

from __future__ import annotations

from dataclasses import replace

from contextwindow.folding import ledger as L
from contextwindow.folding.constraints import user_words
from contextwindow.messages import Message, TextPart, ToolResultPart, assistant, user
from contextwindow.replay.compact import memory_ledger
from contextwindow.replay.engine import user_constraints
from contextwindow.sync import KIND_KEY, TAIL

RULE = "Never push to main without a review."
DEMO = "Here is a demonstration.\nAlways run the full suite before you edit.\nedit 1:1"


def _with_meta(m: Message, **meta: object) -> Message:
    return replace(m, meta={**m.meta, **meta})


def test_user_words_are_the_users_own_words_only() -> None:
    assert user_words(user(RULE)) == RULE
    assert user_words(assistant(RULE)) is None
    assert user_words(_with_meta(user(RULE), cw="runtime")) is None  # a harness block
    assert user_words(_with_meta(user(DEMO), is_demo=True)) is None  # a harness's demonstration
    assert user_words(_with_meta(user(RULE), **{KIND_KEY: TAIL})) is None  # not confirmed yet
    beside = Message(role="user", parts=(ToolResultPart("c1", (TextPart("Never mind the output"),)), TextPart(RULE)))
    assert user_words(beside) == RULE  # the text beside a tool result, not the result


def test_the_replay_counts_the_ledger_the_session_keeps() -> None:
    history = [_with_meta(user(DEMO), is_demo=True), user(RULE), assistant("ok")]
    counted = [c.text for c in user_constraints(history)]
    assert counted == [RULE]
    assert [e.text for e in L.active(memory_ledger(history))] == [RULE]


def test_scrubbing_old_values_never_rewrites_a_rule_in_force() -> None:
    said = [
        "Definition of Done (full list; include only relevant items in each task bead):",
        "Definition of Done**: include ONLY the items relevant to this task (from the full DoD list below).",
        "> definition of done (only relevant items).",
        # a real supersession whose old value a rule in force still names
        "The review column is called Verified.", "The review column is called Checked now.",
        "Never move a card to the Verified column without a second review.",  # "Verified" names the column here, no value
    ]
    ledger: list[L.Entry] = []
    for t in said:
        ledger = L.update(ledger, t)
    assert [e.updated_to for e in L.stale(ledger)] == ["Checked"], "only the review column's name is superseded"
    for e in L.active(ledger):
        assert L.scrub(e.text, ledger) == e.text
        assert L.scrub(f"Remember: {e.text} Thanks.", ledger) == f"Remember: {e.text} Thanks."
