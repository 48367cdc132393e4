"""Bad input for the whole assembly path: random histories (orphans included), random windows and
fault sequences from the provider and the summarizer. Each run ends in a valid payload within
budget or a typed error — never a loop, never a lost message, never an invalid payload."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.budget import BudgetConfig
from contextwindow.errors import CompactionError, ContextOverflowError, ProviderError, ProviderTimeoutError
from contextwindow.folding import LLMSummarizer
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.turns import validate

SUMMARY_FAULTS = {
    "ok": "## Goal\nkeep going\n## Progress\nread src/app.py, 3 tests fail\n## Remaining\nfix test_parse",
    "5xx": ProviderError("HTTP 503 from summarizer: overloaded", status=503),
    "timeout": ProviderTimeoutError("summarizer timed out after 60 s"),
    "empty": "",
    "garbage": "<html>",
}


@st.composite
def histories(draw):
    msgs: list[Message] = []
    n = 0
    for t in range(draw(st.integers(1, 6))):
        msgs.append(Message("user", (TextPart(f"task {t}: " + "please fix it " * draw(st.integers(1, 200))),)))
        for _ in range(draw(st.integers(0, 5))):
            n += 1
            cid = f"c{n}"
            msgs.append(Message("assistant", (ToolCallPart(cid, "bash", json.dumps({"cmd": "ls"})),)))
            kind = draw(st.sampled_from(["result", "result", "result", "missing", "orphan"]))
            if kind == "result":
                msgs.append(Message("tool", (ToolResultPart(cid, (TextPart("out " * draw(st.integers(0, 2500))),)),)))
            elif kind == "orphan":  # a result whose call came from an older tool and is gone
                msgs.append(Message("tool", (ToolResultPart(f"old{n}", (TextPart("stale"),)),)))
        if draw(st.booleans()):
            msgs.append(Message("assistant", (TextPart("done " * draw(st.integers(1, 100))),)))
    return msgs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    histories(),
    st.integers(1_500, 30_000),
    st.lists(st.sampled_from(list(SUMMARY_FAULTS)), min_size=1, max_size=4),
    st.lists(st.sampled_from(["ok", "overflow"]), min_size=1, max_size=4),
)
def test_any_history_window_and_faults_end_valid_or_typed(history, window, summary_faults, provider_faults) -> None:
    store = open_store("memory:")
    summary_script = [SUMMARY_FAULTS[f] for f in summary_faults]
    summarizer_model = ScriptedModel(lambda msgs, system: summary_script[min(len(summarizer_model.calls), len(summary_script)) - 1])
    replies = [ContextOverflowError("prompt is too long", status=400) if f == "overflow" else "ok" for f in provider_faults] + ["ok"] * 4
    main = ScriptedModel(replies)
    cfg = SessionConfig(budget=BudgetConfig(output_cap=500, safety_buffer=100), clip_budget_tokens=2_000)
    s = Session(store, window=window, max_output=500, config=cfg)
    s.summarizer = LLMSummarizer(summarizer_model, window=8_000, count=s.counter.count_text)
    for m in history:
        s.add(m)
    try:
        s.call(main)
    except (ContextOverflowError, CompactionError) as exc:
        assert str(exc)
    assert len(main.calls) <= s.config.max_reactive_retries + 1  # bounded: never a loop
    budget = s.budget()
    for call in main.calls:
        msgs = list(call.messages)
        assert validate(msgs, provider="openai") == []
        assert sum(s.counter.count_message(m) for m in msgs) <= budget.history_budget
    # append-only: everything added is still there
    assert len(store.list(s.id)) >= len(history)
    assert all(a.message.parts[0].kind == b.parts[0].kind for a, b in zip(store.list(s.id), history, strict=False))


def test_single_message_larger_than_the_window_is_squeezed_with_a_marker() -> None:
    store = open_store("memory:")
    s = Session(store, window=4_000, max_output=500, config=SessionConfig(clip_budget_tokens=None))
    s.add(Message("user", (TextPart("x " * 20_000),)))
    b = s.build()
    assert b.tokens <= 4_000
    assert "cut from the middle" in b.messages[0].text
    assert store.list(s.id)[0].message.text == "x " * 20_000
