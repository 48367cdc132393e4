"""Issue 17, item 2: pinned means pinned. The conversation's leading system messages and the
session's system prompt (its sticky sections) are in every payload, before and after any number
of in-flight compactions, in-flight summaries and folds, for every format."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.errors import ContextWindowError
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session
from contextwindow.store import open_store
from contextwindow.usage import Usage

FORMATS = ("openai", "openai_responses", "anthropic", "gemini")
RULE = "PINNED-RULE: never push to main"
STICKY = "STICKY-SECTION: answer in English"


def _payload_text(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False)


def _step(s: Session, n: int, size: int) -> None:
    s.add(Message("assistant", (ToolCallPart(f"c{n}", "bash", '{"cmd": "ls"}'),)))
    s.add(Message("tool", (ToolResultPart(f"c{n}", (TextPart(f"line {n} " * size),)),)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FORMATS),
    st.lists(st.sampled_from(["turn", "steps", "fold"]), min_size=3, max_size=12),
    st.integers(6_000, 20_000),
)
def test_leading_system_messages_are_in_every_payload(fmt: str, script: list[str], window: int) -> None:
    store = open_store("memory:")
    s = Session(store, window=window, max_output=1_000, format=fmt, system=STICKY)
    s.add(Message("system", (TextPart(RULE),)), Message("system", (TextPart("second pinned line"),)))
    n = 0
    builds = 0
    for op in script:
        if op == "turn":
            s.add(Message("user", (TextPart("next task " * 50),)))
            s.record(Message("assistant", (TextPart("done " * 100),)), Usage(input_tokens=window - 1_500), auto_fold=True)
        elif op == "steps":
            s.add(Message("user", (TextPart("do many steps"),)))
            for _ in range(4):
                n += 1
                _step(s, n, 400)
        elif op == "fold" and s.at_turn_boundary():
            s.fold()
        try:
            b = s.build()
        except ContextWindowError:
            continue
        builds += 1
        text = _payload_text(b.payload)
        assert RULE in text and "second pinned line" in text and STICKY in text, (op, fmt)
        if s.at_turn_boundary() is False and b.messages and b.messages[-1].role == "assistant":
            s.record(Message("assistant", (TextPart("ok"),)))
    assert len(store.list(s.id)) >= 2


def test_pinned_after_fold_and_in_flight_summary_every_format() -> None:
    for fmt in FORMATS:
        s = Session(open_store("memory:"), window=8_000, max_output=1_000, format=fmt)
        s.add(Message("system", (TextPart(RULE),)))
        for t in range(3):
            s.add(Message("user", (TextPart(f"task {t} " * 200),)))
            s.add(Message("assistant", (TextPart("answer " * 300),)))
            s.fold()
            assert RULE in _payload_text(s.build().payload)
        s.add(Message("user", (TextPart("long turn"),)))
        for k in range(12):
            _step(s, 100 + k, 300)
        b = s.build()
        for k in range(12, 40):  # (how soon a pass comes depends on what the per-call clearing left)
            if b.compaction is not None:
                break
            assert RULE in _payload_text(b.payload)
            _step(s, 100 + k, 300)
            b = s.build()
        assert b.compaction is not None and RULE in _payload_text(b.payload)
        s.add(Message("assistant", (TextPart("finished"),)))
        assert RULE in _payload_text(s.build(force=True).payload)
