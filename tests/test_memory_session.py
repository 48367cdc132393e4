"""Session.build under any budget: within the history budget or a typed error only when even the
newest user message and one left-out line cannot fit (the degradation ladder answers before
that), and no value the user later changed in anything the model is sent."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.budget import BudgetConfig
from contextwindow.compaction.degrade import left_out_line, memory_message
from contextwindow.compaction.markers import span_ref
from contextwindow.errors import CompactionError
from contextwindow.events import Recorder
from contextwindow.folding import ledger as L
from contextwindow.messages import assistant, user
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from memory_histories import History, Wording, histories

# subjects and wordings of their own (not the benchmark's templates)
RULES = [
    "Never drop tables in the analytics database.", "Keep every function under 40 lines.", "I'd rather get answers in bullet points.",
    "Always run the linter before committing.", "Do not email customers without my sign-off.",
]
# subjects and wordings of their own (not the benchmark's templates)
WORDING = Wording(
    subjects=["the beta cutoff", "the vendor review", "the data export", "the staging freeze", "the partner demo"],
    plant=["{S} is {v}.", "Mark {s} for {v}.", "We scheduled {s} for {v}."],
    update=["{S} slipped to {v}.", "Scratch that, {s} is {v}.", "We pushed {s} to {v}.", "{S} is now {v}."],
    days=[f"{m} {d}" for m in ("January", "February", "March", "April", "June", "July", "August", "October") for d in (4, 17, 26)],
    noted="Noted, {s} is {v}.",
    outputs=["ok", "line\n" * 150, "x " * 300],
    last="Now write the changelog.",
    max_updates=5,
    rules=RULES,
)


def _session(tmp_path, window: int) -> tuple[Session, Recorder]:
    store = open_store(f"sqlite:///{tmp_path}")
    cfg = SessionConfig(budget=BudgetConfig(output_cap=100, safety_buffer=10), clip_budget_tokens=None)
    s = Session(store, window=window, max_output=100, system="You are careful.", config=cfg)
    rec = Recorder()
    s.events.subscribe(rec)
    return s, rec


def _has(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(histories(WORDING), st.integers(130, 4_000))
def test_build_is_within_budget_or_a_typed_error_only_when_impossible(tmp_path_factory, history: History, window: int) -> None:
    msgs, stale = history.messages, history.stale
    s, _ = _session(tmp_path_factory.mktemp("db") / "s.db", window)
    s.add(*msgs)
    budget = s.budget().history_budget
    try:
        b = s.build()
    except CompactionError:
        # impossible: the newest user message with the one line saying what was left out is over the budget
        keys = [it.key for it in s.view() if not it.key.startswith(("fold:", "nudge:"))]
        line = left_out_line(L.active(s.constraints()), span_ref(keys[0], keys[-1])) or "[memory left out]"
        minimal = [memory_message("", [], condense=True, left_out=line), msgs[-1]]
        assert sum(s.counter.count_message(m) for m in minimal) > budget
        return
    sent = sum(s.counter.count_message(m) for m in b.messages)
    assert sent <= budget
    assert any(m.text == "Now write the changelog." for m in b.messages)  # the newest user message, verbatim
    # at a compaction event (forced here) every superseded value leaves what is sent
    b = s.build(force=True)
    assert sum(s.counter.count_message(m) for m in b.messages) <= budget
    text = "\n".join(m.text for m in b.messages)
    for v in stale:
        assert not _has(text, v), f"superseded {v!r} was sent"


def test_a_budget_smaller_than_the_rules_gets_an_answer_not_an_error(tmp_path) -> None:
    s, rec = _session(tmp_path / "s.db", 238)
    facts = "The beta cutoff is March 4. We scheduled the partner demo for June 17. Greta owns the data export. The staging freeze is August 26."
    s.add(user(" ".join(RULES) + " " + facts + " For the record, the vendor review is October 4."))
    s.add(assistant("Noted. " * 60))
    s.add(user("Now write the changelog."))
    b = s.build()
    sent = sum(s.counter.count_message(m) for m in b.messages)
    assert sent <= s.budget().history_budget
    degraded = rec.named("compaction.degraded")
    assert degraded and "ledger_entries" in degraded[-1].data["rungs"]
    text = "\n".join(m.text for m in b.messages)
    assert "memory entries left out" in text and "retrieve(ref=" in text
    kept = re.findall(r"^- (.*)$", text, re.MULTILINE)
    safety = {"Never drop tables in the analytics database.", "Do not email customers without my sign-off."}
    assert set(kept) <= safety  # what is kept at this budget: safety rules, the last to go
    assert any(m.text == "Now write the changelog." for m in b.messages)
    # the store keeps every original
    assert next(m.message.text for m in s.store.list(s.id)).startswith("Never drop tables")


def test_a_changed_value_leaves_the_view_at_the_next_compaction_and_the_store_keeps_it(tmp_path) -> None:
    s, rec = _session(tmp_path / "s.db", 200_000)
    s.add(user("The vendor review is April 4. Keep every function under 40 lines."))
    s.add(assistant("Noted: the vendor review is April 4."))
    s.add(user("Scratch that, the vendor review is July 17."))
    first = s.build()
    # between compaction events the prefix stays byte-identical (the restating message is there)
    assert "April 4" in first.messages[0].text and "July 17" in first.messages[-1].text
    b = s.build(force=True)
    text = "\n".join(m.text for m in b.messages)
    assert "April 4" not in text and "[updated later: July 17]" in text and "Keep every function under 40 lines." in text
    assert any(st.get("method") == "stale_values" for ev in rec.named("compaction.applied") for st in ev.data["steps"])
    assert "April 4" in s.store.list(s.id)[0].message.text  # the original stays in the store
    again = s.build()  # the decision is sticky: the same bytes on the next call
    assert again.payload["messages"] == b.payload["messages"]


@pytest.mark.parametrize("window", [150, 180])
def test_an_impossible_budget_is_a_typed_error(tmp_path, window: int) -> None:
    s, _ = _session(tmp_path / "s.db", window)
    s.add(user("Never drop tables in the analytics database. " + "Now write the changelog for every module we touched, in detail. " * 6))
    with pytest.raises(CompactionError, match="cannot hold the newest user message"):
        s.build()
