"""payload → model → payload is identical, on real payloads built from the shared transcripts.

Anthropic: the ``message`` objects of Claude Code sessions, grouped into alternating messages.
OpenAI Chat: SWE-agent function-calling ``history`` and OpenHands ``model_response`` messages.
OpenAI Responses: every Codex ``response_item`` payload, in order, as one ``input`` list.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contextwindow import messages as msgs
from contextwindow.formats import anthropic, get_format, openai_chat, openai_responses
from contextwindow.messages import ReasoningPart, ToolCallPart, ToolResultPart

pytestmark = pytest.mark.fixtures


def claude_code_payloads(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for f in sorted((root / "claude_code").glob("*.jsonl")):
        out: list[dict[str, Any]] = []
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            m = rec.get("message")
            if rec.get("type") not in ("user", "assistant") or not isinstance(m, dict):
                continue
            content = m["content"]
            if out and out[-1]["role"] == m["role"]:
                prev = out[-1]["content"]
                blocks = [{"type": "text", "text": prev}] if isinstance(prev, str) else prev
                out[-1]["content"] = blocks + ([{"type": "text", "text": content}] if isinstance(content, str) else content)
            else:
                out.append({"role": m["role"], "content": content if isinstance(content, str) else list(content)})
        yield f.name, {"messages": out}


def swe_agent_payloads(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for f in sorted((root / "swe_agent").glob("*.traj")):
        out = []
        for h in json.loads(f.read_text(encoding="utf-8"))["history"]:
            m = {k: v for k, v in h.items() if k in ("role", "content", "tool_calls", "tool_call_id", "name")}
            if h.get("tool_call_ids"):
                (m["tool_call_id"],) = h["tool_call_ids"]
            out.append(m)
        yield f.name, {"messages": out}


def openhands_responses(root: Path) -> Iterator[list[dict[str, Any]]]:
    for f in sorted((root / "openhands").iterdir()):
        text = f.read_text(encoding="utf-8")
        if f.suffix == ".jsonl":
            events = [e for line in text.splitlines() if line.strip() for e in json.loads(line).get("history", [])]
        else:
            events = json.loads(text)
        for e in events:
            meta = e.get("tool_call_metadata") if isinstance(e, dict) else None
            if meta and meta.get("model_response"):
                yield [c["message"] for c in meta["model_response"]["choices"]]


def codex_payloads(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for f in sorted((root / "codex").glob("*.jsonl")):
        lines = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
        yield f.name, {"input": [r["payload"] for r in lines if r["type"] == "response_item"]}


def _lossless(ms: list[msgs.Message]) -> list[msgs.Message]:
    """The model survives the store's JSON too."""
    return [msgs.loads(msgs.dumps(m)) for m in ms]


def test_claude_code_anthropic_payloads_round_trip(transcripts_dir: Path) -> None:
    payloads = list(claude_code_payloads(transcripts_dir))
    assert len(payloads) == 12
    thinking = tool_pairs = 0
    for name, p in payloads:
        ms = anthropic.from_payload(p)
        assert anthropic.to_payload(_lossless(ms)) == p, name
        thinking += sum(isinstance(x, ReasoningPart) and x.signature is not None for m in ms for x in m.parts)
        tool_pairs += sum(isinstance(x, ToolResultPart) for m in ms for x in m.parts)
        assert all(m.role == "tool" for m in ms if m.tool_results)
    assert thinking > 100 and tool_pairs > 400


def test_swe_agent_history_chat_payloads_round_trip(transcripts_dir: Path) -> None:
    payloads = list(swe_agent_payloads(transcripts_dir))
    assert len(payloads) == 6
    calls = 0
    for name, p in payloads:
        ms = openai_chat.from_payload(p)
        assert openai_chat.to_payload(_lossless(ms)) == p, name
        assert openai_chat.to_payload(ms)["messages"] == openai_chat.to_payload(openai_chat.from_payload(p["messages"]))["messages"]
        calls += sum(isinstance(x, ToolCallPart) for m in ms for x in m.parts)
    assert calls == 29


def test_openhands_model_response_messages_round_trip(transcripts_dir: Path) -> None:
    responses = list(openhands_responses(transcripts_dir))
    assert len(responses) == 227
    for messages in responses:
        ms = openai_chat.from_payload(messages)  # a bare list of chat messages
        assert openai_chat.to_payload(_lossless(ms))["messages"] == messages
        calls = [x for m in ms for x in m.parts if isinstance(x, ToolCallPart)]
        raw = [tc["function"]["arguments"] for m in messages for tc in m.get("tool_calls") or []]
        assert [c.arguments for c in calls] == raw  # byte-exact


def test_codex_response_items_round_trip(transcripts_dir: Path) -> None:
    payloads = list(codex_payloads(transcripts_dir))
    assert len(payloads) == 2
    for name, p in payloads:
        ms = openai_responses.from_payload(p)
        assert openai_responses.to_payload(_lossless(ms)) == p, name
        reasoning = [x for m in ms for x in m.parts if isinstance(x, ReasoningPart)]
        assert reasoning and all(r.provider == "openai_responses" and r.encrypted for r in reasoning)
        # parallel calls and their outputs stay grouped: each call is answered in the next tool message
        for i, m in enumerate(ms):
            if m.tool_calls and i + 1 < len(ms) and ms[i + 1].role == "tool":
                assert {c.id for c in m.tool_calls} <= {r.call_id for r in ms[i + 1].tool_results}


def test_valid_fixture_histories_stay_valid_in_every_other_provider(transcripts_dir: Path) -> None:
    """Conversion keeps validity: every source payload that is valid for its own provider gives a
    valid payload for each of the others. (Two claude-code-viewer sessions interleave sidechain
    records, so their grouped payloads are not valid Anthropic payloads to begin with, and one
    Codex rollout starts with an assistant turn, which Anthropic and Gemini forbid.)"""
    from test_formats_properties import VALIDATORS

    sources = [("anthropic", p) for _, p in claude_code_payloads(transcripts_dir)]
    sources += [("openai", p) for _, p in swe_agent_payloads(transcripts_dir)]
    sources += [("openai_responses", p) for _, p in codex_payloads(transcripts_dir)]
    valid = 0
    for fmt, p in sources:
        try:
            VALIDATORS[fmt](p)
        except AssertionError:
            continue
        ms = get_format(fmt).from_payload(p)
        if next(m.role for m in ms if m.role != "system") != "user":
            continue  # a resumed Codex rollout starts mid-turn: turns.repair's job, not a format's
        valid += 1
        for name, validate in VALIDATORS.items():
            validate(get_format(name).to_payload(ms))
    assert valid >= 16, valid
