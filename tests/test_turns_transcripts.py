"""contextwindow.turns on real Claude Code sessions (../shared/fixtures/transcripts/claude_code).

The sessions are read here with a deliberately naive reader (records in file order, one message
per record; Claude Code writes one assistant record per content block), so parallel tool calls
arrive split across assistant messages with their results after all of them: real structure for
repair to fix, without depending on the transcript importers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from contextwindow.messages import Message, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart, user
from contextwindow.turns import (
    PROVIDERS,
    group_turns,
    merge_for_alternation,
    repair,
    safe_cut_points,
    turn_starts,
    validate,
)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def read_claude_code(path: Path) -> list[Message]:
    out: list[Message] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        msg = rec.get("message")
        if rec.get("type") not in ("user", "assistant") or not isinstance(msg, dict):
            continue
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        parts: list[Part] = []
        for blk in blocks:
            kind = blk.get("type")
            if kind == "text":
                parts.append(TextPart(blk.get("text", "")))
            elif kind == "thinking":
                parts.append(ReasoningPart(blk.get("thinking", ""), signature=blk.get("signature")))
            elif kind == "tool_use":
                parts.append(ToolCallPart(blk["id"], blk["name"], json.dumps(blk.get("input", {}))))
            elif kind == "tool_result":
                res = ToolResultPart(blk["tool_use_id"], (TextPart(_result_text(blk.get("content"))),), bool(blk.get("is_error")))
                parts.append(res)
        role = msg.get("role")
        if role == "user" and parts and all(isinstance(p, ToolResultPart) for p in parts):
            role = "tool"
        out.append(Message(role=role, parts=tuple(parts)))
    return out


def _sessions(transcripts_dir: Path) -> list[Path]:
    files = sorted((transcripts_dir / "claude_code").glob("*.jsonl"))
    assert files, "no Claude Code sessions in the fixtures"
    return files


@pytest.mark.fixtures
def test_real_sessions_repair_to_valid_for_every_provider(transcripts_dir: Path) -> None:
    totals: Counter[str] = Counter()
    for path in _sessions(transcripts_dir):
        history = read_claude_code(path)
        assert len(history) > 3, path.name
        out, report = repair(history)
        totals.update(report.counts())
        for provider in PROVIDERS:
            view = out if out[0].role == "user" else [user("start"), *out]
            assert validate(view, provider) == [], (path.name, provider)
            assert validate(merge_for_alternation(view, provider), provider) == [], (path.name, provider)
        # nothing but empties and orphans dropped; every real result kept
        kept_results = sum(len(m.tool_results) for m in out if m.meta.get("cw") != "synthetic_result")
        dropped_results = sum(isinstance(d.part, ToolResultPart) for d in report.dropped_parts)
        assert kept_results + dropped_results == sum(len(m.tool_results) for m in history), path.name
        # a synthetic result only where the session has no result with that id at all
        answered = {r.call_id for m in history for r in m.tool_results}
        unanswered = [c.id for m in history for c in m.tool_calls if c.id not in answered]
        assert report.counts().get("synthetic_result", 0) == len(unanswered), path.name
        again, second = repair(out)
        assert again == out and not second
    # the naive reader splits parallel calls, so repair had real work to do
    assert totals["moved_result"] > 0


@pytest.mark.fixtures
def test_real_sessions_turns_and_cuts(transcripts_dir: Path) -> None:
    for path in _sessions(transcripts_dir):
        out, _ = repair(read_claude_code(path))
        turns = group_turns(out)
        assert [m for t in turns for m in out[t.start : t.end]] == out
        starts = turn_starts(out)
        assert starts, path.name
        cuts = set(safe_cut_points(out))
        assert set(starts) <= cuts
        # no cut between an assistant call and its result
        for i, m in enumerate(out):
            if m.role == "tool":
                assert i not in cuts, (path.name, i)
