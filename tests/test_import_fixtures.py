"""Importers on every real transcript in ../shared/fixtures/transcripts, checked against SOURCES.md and
against the raw files themselves (usage, signatures, encrypted reasoning)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contextwindow.importers import detect_format, load_all, load_transcript, structure_problems
from contextwindow.messages import ReasoningPart, ToolCallPart
from contextwindow.turns import validate

pytestmark = pytest.mark.fixtures

EXPECTED_FORMAT = {"claude_code": "claude-code", "codex": "codex", "swe_agent": "swe-agent", "openhands": "openhands"}


def _sources(transcripts_dir: Path) -> dict[str, str]:
    """local file → the 'messages / records' column of SOURCES.md."""
    rows: dict[str, str] = {}
    for line in (transcripts_dir / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 10 and cells[1].startswith("`") and "/" in cells[1]:
            rows[cells[1].strip("`")] = cells[9]
    return rows


def _files(transcripts_dir: Path) -> list[Path]:
    return sorted(p for p in transcripts_dir.glob("*/*") if p.is_file())


def _raw_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sources_table_covers_every_file(transcripts_dir: Path) -> None:
    rows = _sources(transcripts_dir)
    assert {str(p.relative_to(transcripts_dir)) for p in _files(transcripts_dir)} == set(rows)


def test_every_fixture_detected_imported_and_structurally_valid(transcripts_dir: Path) -> None:
    for path in _files(transcripts_dir):
        expected = EXPECTED_FORMAT[path.parent.name]
        assert detect_format(path) == expected, path.name
        assert detect_format(path.read_bytes()[:4096]) == expected, path.name
        for s in load_all(path):
            assert s.format == expected
            assert s.messages, path.name
            assert structure_problems(s.messages) == [], path.name
            assert validate(s.messages, "openai") == [], path.name
            for c in s.calls:
                assert 0 <= c.index < c.reply_end <= len(s.messages)
                assert all(m.role == "assistant" for m in s.messages[c.index : c.reply_end] if m.role != "tool")
                assert s.messages[c.index].role == "assistant"
            # No line of a real fixture is unreadable.
            assert [k for k in s.skipped if not k.reason.startswith("repaired")] == [], path.name


# --- Claude Code -------------------------------------------------------------------------


def test_claude_code_responses_match_sources(transcripts_dir: Path) -> None:
    rows = _sources(transcripts_dir)
    for path in sorted((transcripts_dir / "claude_code").glob("*.jsonl")):
        row = rows[f"claude_code/{path.name}"]
        distinct = int(re.search(r"\((\d+) distinct API responses\)", row).group(1))  # type: ignore[union-attr]
        s = load_transcript(path)
        # Every response is either in the main conversation, in a sidechain, or on an abandoned branch.
        assert len(s.calls) + s.meta["sidechain_responses"] + s.meta["abandoned_responses"] == distinct, path.name
        assert len({c.response_id for c in s.calls}) == len(s.calls), "one call per message.id"
        assert len(s.calls) == sum(1 for m in s.messages if m.role == "assistant")
        if s.meta["sidechain_records"] == 0:
            tool_use = int(re.search(r"tool_use=(\d+)", row).group(1))  # type: ignore[union-attr]
            assert sum(len(m.tool_calls) for m in s.messages) == tool_use, path.name


def test_claude_code_usage_counted_once_per_response(transcripts_dir: Path) -> None:
    for path in sorted((transcripts_dir / "claude_code").glob("*.jsonl")):
        raw = _raw_lines(path)
        first_usage: dict[str, dict] = {}
        max_out: dict[str, int] = {}
        records_per_id: dict[str, int] = {}
        for r in raw:
            if r.get("type") == "assistant":
                m = r["message"]
                first_usage.setdefault(m["id"], m["usage"])
                max_out[m["id"]] = max(max_out.get(m["id"], 0), m["usage"]["output_tokens"])
                records_per_id[m["id"]] = records_per_id.get(m["id"], 0) + 1
        s = load_transcript(path)
        for c in s.calls:
            u = first_usage[c.response_id]  # type: ignore[index]
            assert c.reported_input_tokens == u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
            assert c.cache_read_tokens == u["cache_read_input_tokens"]
            assert c.cache_write_tokens == u["cache_creation_input_tokens"]
            assert c.output_tokens == max_out[c.response_id]  # type: ignore[index]
        split = [c for c in s.calls if records_per_id[c.response_id] > 1]  # type: ignore[index]
        if split:  # summing per record would have counted these several times
            naive = sum(first_usage[c.response_id]["input_tokens"] * records_per_id[c.response_id] for c in s.calls)  # type: ignore[index]
            assert sum(first_usage[c.response_id]["input_tokens"] for c in s.calls) < naive  # type: ignore[index]


def test_claude_code_thinking_signatures_byte_exact(transcripts_dir: Path) -> None:
    seen_any = False
    for path in sorted((transcripts_dir / "claude_code").glob("*.jsonl")):
        raw_blocks = {}
        for r in _raw_lines(path):
            c = r.get("message", {}).get("content") if isinstance(r.get("message"), dict) else None
            for b in c if isinstance(c, list) else []:
                if b.get("type") == "thinking":
                    raw_blocks[b["signature"]] = b["thinking"]
        s = load_transcript(path)
        parts = [p for m in s.messages for p in m.parts if isinstance(p, ReasoningPart)]
        for p in parts:
            assert p.provider == "anthropic"
            assert p.signature in raw_blocks
            assert raw_blocks[p.signature] == p.text
        if not s.meta["sidechain_records"]:
            assert {p.signature for p in parts} == set(raw_blocks), path.name
        seen_any = seen_any or bool(parts)
    assert seen_any


def test_claude_code_compaction_becomes_one_checkpoint(transcripts_dir: Path) -> None:
    s = load_transcript(transcripts_dir / "claude_code" / "codemie_session-624a4a58.jsonl")
    assert len(s.checkpoints) == 1
    cp = s.checkpoints[0]
    assert cp.trigger == "auto" and cp.pre_tokens == 155979
    assert cp.summary.role == "user" and cp.summary.meta["cw"] == "fold_summary"
    assert cp.summary.text.startswith("This session is being continued from a previous conversation")
    assert all("This session is being continued" not in m.text for m in s.messages)
    assert 0 < cp.upto < len(s.messages)
    before = [c for c in s.calls if c.index < cp.upto]
    after = [c for c in s.calls if c.index >= cp.upto]
    assert before and after
    # The first call after the compaction was sent far less than the call just before it.
    assert after[0].reported_input_tokens < before[-1].reported_input_tokens  # type: ignore[operator]
    for other in (transcripts_dir / "claude_code").glob("*.jsonl"):
        if other.name != "codemie_session-624a4a58.jsonl":
            assert load_transcript(other).checkpoints == []


def test_claude_code_sidechains_and_subagent_logs(transcripts_dir: Path) -> None:
    s = load_transcript(transcripts_dir / "claude_code" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    assert s.meta["sidechain_records"] == 405
    assert s.meta["version"] == "1.0.98"
    assert s.model == "claude-sonnet-4-20250514"
    sub = load_transcript(transcripts_dir / "claude_code" / "codemie_incremental-subagents_turn-2_subagents_agent-a485154.jsonl")
    assert sub.meta["subagent_log"] is True
    assert len(sub.calls) == 6
    assert sum(len(m.tool_calls) for m in sub.messages) == 20


# --- Codex -------------------------------------------------------------------------------


def test_codex_calls_and_usage_match_token_counts(transcripts_dir: Path) -> None:
    rows = _sources(transcripts_dir)
    for path in sorted((transcripts_dir / "codex").glob("*.jsonl")):
        raw = _raw_lines(path)
        usages = [
            r["payload"]["info"]["last_token_usage"]
            for r in raw
            if r["type"] == "event_msg" and r["payload"]["type"] == "token_count" and r["payload"].get("info")
        ]
        s = load_transcript(path)
        with_usage = [c for c in s.calls if c.reported_input_tokens is not None]
        assert [c.reported_input_tokens for c in with_usage] == [u["input_tokens"] for u in usages]
        assert [c.cache_read_tokens for c in with_usage] == [u["cached_input_tokens"] for u in usages]
        assert [c.output_tokens for c in with_usage] == [u["output_tokens"] for u in usages]
        tool_calls = int(re.search(r"(\d+) tool calls", rows[f"codex/{path.name}"]).group(1))  # type: ignore[union-attr]
        calls = [p for m in s.messages for p in m.parts if isinstance(p, ToolCallPart) and p.name != "web_search"]
        assert len(calls) == tool_calls
        encrypted = [r["payload"]["encrypted_content"] for r in raw if r["type"] == "response_item" and r["payload"]["type"] == "reasoning"]
        parts = [p for m in s.messages for p in m.parts if isinstance(p, ReasoningPart)]
        assert [p.encrypted for p in parts] == encrypted
        assert all(p.provider == "openai_responses" for p in parts)


def test_codex_meta_model_and_developer_message(transcripts_dir: Path) -> None:
    path = next((transcripts_dir / "codex").glob("rollout-2026-05-11T11-26-55*.jsonl"))
    s = load_transcript(path)
    assert len(s.calls) == 66 and s.model == "gpt-5.5"
    assert s.meta["model_context_window"] == 258400
    assert s.messages[0].meta["cw"] == "instructions"
    dev = [m for m in s.messages if m.extra.get("openai_responses", {}).get("role") == "developer"]
    assert len(dev) == 1 and dev[0].role == "system"
    assert s.meta["web_search_calls"] == 3
    searches = [p for m in s.messages for p in m.parts if isinstance(p, ToolCallPart) and p.name == "web_search"]
    assert len(searches) == 3 and all(p.id.startswith("ws_") for p in searches)


# --- SWE-agent and OpenHands ------------------------------------------------------------


def test_swe_agent_history_counts(transcripts_dir: Path) -> None:
    rows = _sources(transcripts_dir)
    for path in sorted((transcripts_dir / "swe_agent").glob("*.traj")):
        expected = int(re.search(r"history=(\d+) msgs", rows[f"swe_agent/{path.name}"]).group(1))  # type: ignore[union-attr]
        s = load_transcript(path)
        assert len(s.messages) == expected, path.name
        assert len(s.calls) == sum(1 for m in s.messages if m.role == "assistant")
        doc = json.loads(path.read_text())
        if "info" in doc and "model_stats" in doc["info"]:
            assert s.meta["model_stats"] == doc["info"]["model_stats"]
    fc = load_transcript(transcripts_dir / "swe_agent" / "trajectories__demonstrations__function_calling_simple.traj")
    assert sum(len(m.tool_calls) for m in fc.messages) == 5
    assert sum(len(m.tool_results) for m in fc.messages) == 5


def test_openhands_instances_and_per_call_usage(transcripts_dir: Path) -> None:
    path = transcripts_dir / "openhands" / "multi_swe_bench_output.jsonl"
    sessions = load_all(path)
    lines = _raw_lines(path)
    assert len(sessions) == 3
    assert load_transcript(path).title == sessions[0].title == lines[0]["instance_id"]
    for s, inst in zip(sessions, lines, strict=True):
        assert s.meta["events"] == len(inst["history"])
        usages = inst["metrics"]["token_usages"]
        with_usage = [c for c in s.calls if c.reported_input_tokens is not None]
        assert [c.reported_input_tokens for c in with_usage] == [u["prompt_tokens"] for u in usages]
        assert [c.response_id for c in with_usage] == [u["response_id"] for u in usages]
    assert len(load_all(transcripts_dir / "openhands" / "resolver_mock_output.jsonl")) == 2
    basic = load_transcript(transcripts_dir / "openhands" / "trajs_basic.json")
    assert basic.calls[0].cache_write_tokens == 3482 and basic.model == "claude-3-5-sonnet-20241022"
