"""Issue 17, item 5: tool results are clipped at append wherever they are (tool role, user-role
tool_result blocks as Anthropic and the importers lay them out), once, and every format's
converter carries them (Responses used to leave out results held in a user-role message)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from contextwindow.formats import get_format
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import provider_checker

FORMATS = ("openai", "openai_responses", "anthropic", "gemini")
BIG = "\n".join(f"line {i}: some build output that goes on and on" for i in range(6_000))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_big_result_in_a_user_message_is_clipped_at_append_and_sent(fmt: str) -> None:
    store = open_store("memory:")
    s = Session(store, window=64_000, format=fmt, config=SessionConfig(clip_budget_tokens=1_000))
    carried = Message("user", (ToolResultPart("t1", (TextPart(BIG),)), TextPart("Never use sudo.")))
    s.add(Message("user", (TextPart("build it"),)), Message("assistant", (ToolCallPart("t1", "bash", '{"cmd": "make"}'),)), carried)
    stored = store.list(s.id)[-1].message
    text = stored.tool_results[0].text
    assert s.counter.count_text(text) <= 1_200 and "ofl_" in text  # clipped, with a retrieve ref
    assert stored.parts[1] == TextPart("Never use sudo.")
    assert [c.text for c in s.constraints()] == ["Never use sudo."]  # the user's words, not the tool output
    other = Session(open_store("memory:"), window=64_000, format=fmt, config=SessionConfig(clip_budget_tokens=1_000))
    assert other.add(stored)[0].message.tool_results[0].text == text  # clipping what was clipped changes nothing (once)
    b = s.build()
    assert provider_checker.problems(fmt, b.payload) == []
    sent = str(b.payload)
    assert "ofl_" in sent and "line 0:" in sent  # the clipped result, with its ref, is in the payload


def test_responses_payload_carries_results_held_in_a_user_message() -> None:
    msgs = [Message("user", (TextPart("go"),)), Message("assistant", (ToolCallPart("c1", "read", "{}"),)),
            Message("user", (ToolResultPart("c1", (TextPart("the file"),)), TextPart("thanks")))]
    items = get_format("openai_responses").to_payload(msgs)["input"]
    kinds = [i.get("type") for i in items]
    assert "function_call_output" in kinds and items[kinds.index("function_call_output")]["output"] == "the file"
    assert any(i.get("role") == "user" and "thanks" in str(i.get("content")) for i in items)
