"""Importers on small hand-made files: bad lines, broken logs, forced formats, and the invariant that any
subset of a real log imports into a valid history or fails with one ImportFormatError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.errors import ImportFormatError
from contextwindow.importers import (
    NO_RESULT_TEXT,
    load_all,
    load_transcript,
    normalize_format,
    structure_problems,
)
from contextwindow.messages import ReasoningPart, ToolResultPart
from contextwindow.turns import validate


def _cc(uuid: str, parent: str | None, role: str, content: object, **more: object) -> str:
    rec = {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "message": {"role": role, "content": content}}
    rec.update(more)
    return json.dumps(rec)


def _assistant(uuid: str, parent: str, mid: str, block: dict, out: int = 5) -> str:
    usage = {"input_tokens": 10, "output_tokens": out, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}
    rec = {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s1",
        "message": {"id": mid, "role": "assistant", "model": "claude-x", "content": [block], "usage": usage},
    }
    return json.dumps(rec)


def _write(tmp_path: Path, name: str, lines: list[str], end: str = "\n") -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + end)
    return p


GOOD_CC = [
    _cc("u1", None, "user", "list the files"),
    _assistant("a1", "u1", "msg_1", {"type": "thinking", "thinking": "hm", "signature": "c2ln+/=="}, out=1),
    _assistant("a2", "a1", "msg_1", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}, out=42),
    _cc("u2", "a2", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}]),
    _assistant("a3", "u2", "msg_2", {"type": "text", "text": "one file"}),
]


def test_bad_lines_are_skipped_with_their_number_and_reason(tmp_path: Path) -> None:
    lines = [
        "# exported by hand",
        GOOD_CC[0],
        "// another comment",
        GOOD_CC[1],
        "this is not json",
        GOOD_CC[2],
        json.dumps({"type": "mystery", "uuid": "x1", "sessionId": "s1"}),
        GOOD_CC[3],
        GOOD_CC[4],
        GOOD_CC[4][:40],  # truncated last line
    ]
    s = load_transcript(_write(tmp_path, "s.jsonl", lines, end=""))
    reasons = {k.line: k.reason for k in s.skipped}
    assert reasons[1] == "comment line" and reasons[3] == "comment line"
    assert reasons[5].startswith("not valid JSON")
    assert "unknown Claude Code record type 'mystery'" in reasons[7]
    assert reasons[10].startswith("truncated last line")
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    assert len(s.calls) == 2
    assert s.calls[0].reported_input_tokens == 1110 and s.calls[0].output_tokens == 42
    r = s.messages[1].parts[0]
    assert isinstance(r, ReasoningPart) and r.signature == "c2ln+/=="


@pytest.mark.parametrize(
    ("content", "needle"),
    [(None, "no such file"), (b"", "empty"), (b"  \n\n", "empty"), ("dir", "directory")],
)
def test_empty_missing_and_directory_are_one_clear_error(tmp_path: Path, content: object, needle: str) -> None:
    p = tmp_path / "x.jsonl"
    if content == "dir":
        p.mkdir()
    elif isinstance(content, bytes):
        p.write_bytes(content)
    with pytest.raises(ImportFormatError, match=needle):
        load_transcript(p)


def test_nothing_importable_is_an_error_naming_lines(tmp_path: Path) -> None:
    p = _write(tmp_path, "junk.jsonl", ["not json", "# comment", "{broken"])
    with pytest.raises(ImportFormatError, match="line 1"):
        load_transcript(p)


def test_wrong_format_forced(tmp_path: Path) -> None:
    p = _write(tmp_path, "s.jsonl", GOOD_CC)
    with pytest.raises(ImportFormatError, match="line 1: unknown Codex"):
        load_transcript(p, format="codex")
    with pytest.raises(ImportFormatError, match="unknown transcript format"):
        load_transcript(p, format="word-doc")
    assert load_transcript(p, format="claude_code").format == "claude-code"
    assert normalize_format("Anthropic") == "anthropic-messages"


def test_unknown_content_is_a_detection_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "x.jsonl", [json.dumps({"hello": 1}), json.dumps({"world": 2})])
    with pytest.raises(ImportFormatError, match="--format"):
        load_transcript(p)


def test_missing_result_gets_a_synthetic_one_and_orphan_becomes_text(tmp_path: Path) -> None:
    lines = [
        GOOD_CC[0],
        GOOD_CC[1],
        GOOD_CC[2],  # tool_use t1 ... never answered
        _cc("u2", "a2", "user", "never mind"),
        _assistant("a3", "u2", "msg_2", {"type": "text", "text": "ok"}),
        _cc("u3", "a3", "user", [{"type": "tool_result", "tool_use_id": "ghost", "content": "boo"}]),
    ]
    s = load_transcript(_write(tmp_path, "s.jsonl", lines))
    assert structure_problems(s.messages) == [] and validate(s.messages, "openai") == []
    synthetic = [m for m in s.messages if m.meta.get("cw") == "synthetic_result"]
    assert len(synthetic) == 1 and synthetic[0].text == NO_RESULT_TEXT
    orphan = [m for m in s.messages if m.meta.get("cw") == "orphan_result"]
    assert len(orphan) == 1 and orphan[0].role == "user" and "boo" in orphan[0].text
    assert len(s.meta["repairs"]) == 2
    assert sum(k.reason.startswith("repaired") for k in s.skipped) == 2
    # Call indices still point at the assistant messages after the repair shifted them.
    assert [s.messages[c.index].role for c in s.calls] == ["assistant", "assistant"]


def test_abandoned_branch_dropped_and_counted(tmp_path: Path) -> None:
    lines = [
        *GOOD_CC,
        _cc("u9", "a3", "user", "first try"),
        _assistant("a9", "u9", "msg_9", {"type": "text", "text": "answer one"}),
        _cc("u10", "a3", "user", "edited prompt"),  # the user edited and resent: a new branch from a3
        _assistant("a10", "u10", "msg_10", {"type": "text", "text": "answer two"}),
    ]
    s = load_transcript(_write(tmp_path, "s.jsonl", lines))
    assert "edited prompt" in s.messages[-2].text and "first try" not in [m.text for m in s.messages]
    assert s.meta["abandoned_records"] == 2 and s.meta["abandoned_responses"] == 1


def _codex(t: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": t, "payload": payload})


def test_codex_compaction_null_info_and_custom_tools(tmp_path: Path) -> None:
    lines = [
        _codex("session_meta", {"id": "r1", "cwd": "/w", "base_instructions": {"text": "be codex"}}),
        _codex("turn_context", {"model": "gpt-x"}),
        _codex("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}),
        _codex("event_msg", {"type": "token_count", "info": None}),
        _codex("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "gAAA=="}),
        _codex("response_item", {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "*** Begin Patch"}),
        _codex("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 7}}}),
        _codex("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": "Success"}),
        _codex("compacted", {"message": "SUMMARY: patched", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}]}),
        _codex("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        _codex("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 120, "cached_input_tokens": 0, "output_tokens": 2}}}),
        _codex("brand_new_type", {}),
    ]
    s = load_transcript(_write(tmp_path, "rollout.jsonl", lines))
    assert s.format == "codex" and s.model == "gpt-x"
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert [(c.reported_input_tokens, c.cache_read_tokens) for c in s.calls] == [(900, 800), (120, 0)]
    assert [c.index for c in s.calls] == [2, 4]
    (cp,) = s.checkpoints
    assert cp.upto == 4 and cp.summary.text == "SUMMARY: patched" and cp.summary.meta["cw"] == "fold_summary"
    assert cp.summary.meta["replacement_history"][0]["role"] == "user"
    reasoning = s.messages[2].parts[0]
    assert isinstance(reasoning, ReasoningPart) and reasoning.encrypted == "gAAA==" and reasoning.text == "plan"
    assert s.messages[2].parts[1].arguments == "*** Begin Patch"  # type: ignore[union-attr]
    assert [k.line for k in s.skipped] == [12]


def test_openhands_events_without_metadata(tmp_path: Path) -> None:
    events = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "make a file"}},
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "touch a", "thought": "creating"}},
        {"id": 2, "source": "agent", "observation": "run", "content": "", "cause": 1},
        {"id": 3, "source": "agent", "action": "run", "args": {"command": "ls"}},
        {"id": 4, "note": "neither"},
    ]
    p = tmp_path / "events.json"
    p.write_text(json.dumps(events))
    s = load_transcript(p)
    assert s.format == "openhands"
    assert validate(s.messages, "openai") == []
    results = [p for m in s.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [r.call_id for r in results] == ["oh_1", "oh_3"]  # the second has no observation: repaired
    assert any("neither an action nor an observation" in k.reason for k in s.skipped)


def test_swe_agent_tool_message_without_ids(tmp_path: Path) -> None:
    doc = {
        "history": [
            {"role": "system", "content": "sys", "agent": "main"},
            {"role": "user", "content": [{"type": "text", "text": "task"}], "agent": "main"},
            {"role": "assistant", "content": "look", "agent": "main",
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "content": "a b", "agent": "main", "tool_call_ids": ["c1"]},
            {"role": "tool", "content": "stray", "agent": "main"},
            {"role": "narrator", "content": "?"},
        ],
        "info": {"model_stats": {"api_calls": 1}},
    }
    p = tmp_path / "x.traj"
    p.write_text(json.dumps(doc))
    s = load_transcript(p)
    assert s.format == "swe-agent" and len(s.calls) == 1
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "user"]
    assert len(s.skipped) == 2 and s.meta["model_stats"] == {"api_calls": 1}


def test_openhands_multi_instance_reports_bad_lines(tmp_path: Path) -> None:
    inst = {"instance_id": "i1", "instruction": "x", "history": [{"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}}]}
    p = _write(tmp_path, "out.jsonl", [json.dumps(inst), "garbage", json.dumps({**inst, "instance_id": "i2"})])
    sessions = load_all(p)
    assert [s.title for s in sessions] == ["i1", "i2"]
    assert any(k.line == 2 for s in sessions for k in s.skipped)


_REAL_LINES = [
    *GOOD_CC,
    _cc("u3", "a3", "user", "again"),
    _assistant("a4", "u3", "msg_3", {"type": "tool_use", "id": "t2", "name": "Read", "input": {"p": "a"}}),
    _assistant("a5", "a4", "msg_3", {"type": "tool_use", "id": "t3", "name": "Read", "input": {"p": "b"}}),
    _cc("u4", "a4", "user", [{"type": "tool_result", "tool_use_id": "t2", "content": "A"}]),
    _cc("u5", "a5", "user", [{"type": "tool_result", "tool_use_id": "t3", "content": [{"type": "text", "text": "B"}]}]),
    _assistant("a6", "u5", "msg_4", {"type": "text", "text": "both read"}),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keep=st.lists(st.booleans(), min_size=len(_REAL_LINES), max_size=len(_REAL_LINES)), shuffle=st.randoms())
def test_any_subset_imports_valid_or_fails_cleanly(tmp_path: Path, keep: list[bool], shuffle: object) -> None:
    lines = [line for line, k in zip(_REAL_LINES, keep, strict=True) if k]
    if shuffle.random() < 0.3:  # type: ignore[attr-defined]
        shuffle.shuffle(lines)  # type: ignore[attr-defined]
    p = tmp_path / "h.jsonl"
    p.write_text("\n".join(lines))
    try:
        s = load_transcript(p)
    except ImportFormatError:
        return
    assert structure_problems(s.messages) == []
    assert validate(s.messages, "openai") == []
    assert all(s.messages[c.index].role == "assistant" for c in s.calls)
