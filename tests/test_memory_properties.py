"""Properties of memory under compaction: within budget or a typed error only when impossible;
no superseded value in any output."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.compaction.degrade import left_out_line, memory_message
from contextwindow.compaction.markers import span_ref
from contextwindow.errors import CompactionError
from contextwindow.folding import ExtractiveSummarizer
from contextwindow.folding import ledger as L
from contextwindow.messages import user
from contextwindow.replay.compact import compact_conversation, memory_ledger
from contextwindow.tokens import counter_for
from contextwindow.turns import validate
from memory_histories import History, Wording, histories

COUNTER = counter_for(None)
SUMMARIZER = ExtractiveSummarizer(COUNTER.count_text)
WORDING = Wording(
    subjects=["the ledger launch", "the audit pipeline review", "the checkout freeze", "the metrics cutover", "the billing demo"],
    plant=["{S} is on {v}.", "Please note that {s} is {v}.", "For the record, {s} lands on {v}."],
    update=["{S} moved to {v}.", "Heads up, {s} slipped to {v}.", "Actually {s} is {v} now.", "We moved {s} to {v}."],
    days=[f"{m} {d}" for m in ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"] for d in (3, 14, 25)],
    noted="Noted: {s} on {v}.",
    outputs=["ok", "line\n" * 200, "x " * 400],
    last="Now write the release notes.",
    max_updates=6,
)


def sessions() -> st.SearchStrategy[History]:
    return histories(WORDING)


def _has(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.floats(0.005, 1.2))
def test_within_budget_or_a_typed_error_only_when_impossible(session: History, share: float) -> None:
    msgs = session.messages
    budget = max(1, int(COUNTER.count_messages(msgs) * share))
    try:
        out, rep = compact_conversation(msgs, budget=budget, counter=COUNTER, summarizer=SUMMARIZER, rounds=1)
    except CompactionError as exc:
        # impossible: the newest user message and the one line saying what was left out do not fit
        live = L.active(memory_ledger(msgs))
        # with the ref compact_conversation names (its length is part of the line's cost)
        line = left_out_line(live, span_ref("0", str(len(msgs) - 1))) or "[memory left out]"
        assert COUNTER.count_messages([memory_message("", [], condense=True, left_out=line), msgs[-1]]) > budget
        assert exc.budget == budget
        return
    assert COUNTER.count_messages(out) <= budget and rep.tokens_after <= budget
    assert validate(out, "openai") == []
    assert out[-1].text == "Now write the release notes."  # the newest user message, verbatim


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.sampled_from([0.1, 0.3, 0.6, 2.0]), st.integers(0, 2))
def test_no_superseded_value_in_any_output(session: History, share: float, rounds: int) -> None:
    msgs, stale, current = session.messages, session.stale, session.current
    budget = max(300, int(COUNTER.count_messages(msgs) * share))
    out, _ = compact_conversation(msgs, budget=budget, counter=COUNTER, summarizer=SUMMARIZER, rounds=rounds)
    text = "\n".join(m.text for m in out if not m.is_tool_result)
    for v in stale:
        if v not in current:
            assert not _has(text, v), (v, text[:2000])
    # chained: the next compaction reads the ledger back from the output and still knows the values
    again, _ = compact_conversation([*out, user("Continue.")], budget=budget, counter=COUNTER, summarizer=SUMMARIZER, rounds=1)
    text = "\n".join(m.text for m in again if not m.is_tool_result)
    assert not any(_has(text, v) for v in stale if v not in current)
