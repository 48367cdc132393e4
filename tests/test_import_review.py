"""Review of the transcript importers: malformed records never escape as a bare TypeError/KeyError,
usage and checkpoints are attributed right, every skipped line is reported with its number."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from contextwindow.errors import ContextWindowError
from contextwindow.importers import detect_format, load_transcript


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def _cc(uuid: str, parent: str | None, role: str, content: object, **more: object) -> dict[str, object]:
    rec: dict[str, object] = {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "message": {"role": role, "content": content}}
    rec.update(more)
    return rec


@pytest.mark.parametrize("bad_type", [["user"], {"a": 1}])
def test_unhashable_record_type_is_detected_and_skipped_not_a_type_error(tmp_path: Path, bad_type: object) -> None:
    lines = [
        json.dumps(_cc("u1", None, "user", "hello")),
        json.dumps({"type": bad_type, "uuid": "x", "sessionId": "s1"}),
        json.dumps(_cc("a1", "u1", "assistant", [{"type": "text", "text": "hi"}])),
    ]
    p = _write(tmp_path, "s.jsonl", lines)
    assert detect_format(p) == "claude-code"
    s = load_transcript(p)
    assert [m.role for m in s.messages] == ["user", "assistant"]
    assert [k.line for k in s.skipped] == [2]
    assert "unknown Claude Code record type" in s.skipped[0].reason


def test_unhashable_message_id_is_no_id_not_a_type_error(tmp_path: Path) -> None:
    a = _cc("a1", "u1", "assistant", [{"type": "text", "text": "hi"}])
    a["message"] = {**a["message"], "id": ["msg_1"]}  # type: ignore[dict-item]
    p = _write(tmp_path, "s.jsonl", [json.dumps(_cc("u1", None, "user", "hello")), json.dumps(a)])
    s = load_transcript(p)
    assert [m.role for m in s.messages] == ["user", "assistant"]
    assert s.calls[0].response_id is None


@pytest.mark.parametrize(
    "record",
    [
        {"type": ["response_item"], "payload": {"type": "message", "role": "user", "content": "x"}},
        {"role": "user", "content": [{"type": ["text"], "text": "x"}]},
        {"messages": [{"role": "user", "content": [{"type": {"t": 1}}]}]},
    ],
)
def test_detection_survives_unhashable_type_fields(record: dict[str, object]) -> None:
    with contextlib.suppress(ContextWindowError):  # a clear "cannot tell" is fine; a TypeError is not
        detect_format(json.dumps(record).encode())


def _oh_events() -> list[dict[str, object]]:
    return [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "fix it", "image_urls": 7}},
        {
            "id": 1,
            "source": "agent",
            "action": "run",
            "args": {"command": "ls"},
            "tool_call_metadata": {"function_name": "bash", "tool_call_id": "c1", "model_response": {"id": "r1", "choices": 3}},
        },
        {"id": [2], "source": "agent", "action": "run", "args": {"command": "pwd"}},
        {"id": 3, "source": "environment", "observation": "run", "content": "a.txt", "cause": {"x": 1}},
        {"id": 4, "source": "environment", "observation": "recall", "content": "r", "extras": {"microagent_knowledge": True}},
        {
            "id": 5,
            "source": "agent",
            "action": "run",
            "args": {"command": "cat"},
            "tool_call_metadata": {"function_name": "bash", "tool_call_id": "c2", "model_response": {"id": "r2", "choices": ["x", {"message": "y"}]}},
        },
    ]


def test_openhands_malformed_optional_fields_import_instead_of_a_type_error(tmp_path: Path) -> None:
    p = tmp_path / "events.json"
    p.write_text(json.dumps(_oh_events()))
    s = load_transcript(p, format="openhands")
    assert [m.role for m in s.messages][:2] == ["user", "assistant"]
    calls = [c.id for m in s.messages for c in m.tool_calls]
    assert "c1" in calls and "c2" in calls


def test_swe_agent_malformed_ids_and_trajectory_import_instead_of_a_type_error(tmp_path: Path) -> None:
    doc = {
        "trajectory": 5,
        "history": [
            {"role": "user", "content": "task", "agent": "main"},
            {"role": "assistant", "content": "", "agent": "main", "tool_calls": [{"id": "t1", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "content": "out", "agent": "main", "tool_call_ids": 3},
        ],
    }
    p = tmp_path / "x.traj"
    p.write_text(json.dumps(doc))
    s = load_transcript(p)
    assert s.meta["trajectory_steps"] == 0
    assert any("tool message without tool_call_ids" in k.reason for k in s.skipped)
    assert [m.role for m in s.messages][:2] == ["user", "assistant"]
