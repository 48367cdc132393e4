"""``ctxw inspect``: stable JSON keys on real sessions, estimates next to reported numbers, newest-session lookup."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.cli.transcripts_cmd import newest_session

KEYS = {"format", "messages", "turns", "tool_calls", "calls", "by_role", "by_kind", "by_tool", "largest_results", "checkpoints", "gauge"}


def _inspect(*args: str, env: dict[str, str] | None = None) -> dict:
    res = CliRunner().invoke(cli, ["inspect", *args, "--json"], env=env)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_inspect_claude_code_session(transcripts_dir: Path) -> None:
    doc = _inspect(str(transcripts_dir / "claude_code" / "codemie_session-624a4a58.jsonl"))
    assert set(doc) >= KEYS
    assert doc["format"] == "claude-code"
    assert doc["messages"] == 123 and doc["tool_calls"] == 48
    assert len(doc["calls"]) == 55
    for c in doc["calls"]:
        assert set(c) >= {"index", "reported_input_tokens", "estimated_input_tokens"}
        assert c["reported_input_tokens"] is not None and c["estimated_input_tokens"] > 0
    assert len(doc["checkpoints"]) == 1 and doc["checkpoints"][0]["trigger"] == "auto"
    # tokens by role add up to the per-message counts; tools ranked by their tokens
    assert doc["by_role"]["tool"] > doc["by_role"]["user"]
    assert "Read" in doc["by_tool"]
    sizes = [r["tokens"] for r in doc["largest_results"]]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) == 10
    assert doc["gauge"]["window"] == 200_000 and doc["gauge"]["severity"] in ("ok", "warn", "critical")
    # after the imported compaction, the estimate of what was sent drops with it
    cp = doc["checkpoints"][0]["upto"]
    before = [c["estimated_input_tokens"] for c in doc["calls"] if c["index"] < cp][-1]
    after = next(c["estimated_input_tokens"] for c in doc["calls"] if c["index"] >= cp)
    assert after < before


def test_inspect_nulls_when_the_log_has_no_usage(transcripts_dir: Path) -> None:
    doc = _inspect(str(transcripts_dir / "swe_agent" / "trajectories__demonstrations__function_calling_simple.traj"))
    assert doc["format"] == "swe-agent"
    assert all(c["reported_input_tokens"] is None for c in doc["calls"])
    text = CliRunner().invoke(cli, ["inspect", str(transcripts_dir / "swe_agent" / "trajectories__demonstrations__function_calling_simple.traj")])
    assert text.exit_code == 0 and "tokens by role" in text.stdout and "gauge at the end" in text.stdout


def test_inspect_without_file_picks_the_newest_session(tmp_path: Path, transcripts_dir: Path) -> None:
    proj = tmp_path / ".claude" / "projects" / "p"
    proj.mkdir(parents=True)
    old = proj / "old.jsonl"
    new = tmp_path / ".codex" / "sessions" / "2026" / "05" / "11" / "rollout-x.jsonl"
    new.parent.mkdir(parents=True)
    shutil.copy(transcripts_dir / "claude_code" / "spotter_short.jsonl", old)
    shutil.copy(transcripts_dir / "codex" / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", new)
    os.utime(old, (1_000_000, 1_000_000))
    assert newest_session(tmp_path) == new
    res = CliRunner().invoke(cli, ["inspect", "--json"], env={"HOME": str(tmp_path)})
    assert res.exit_code == 0, res.output
    assert str(new) in res.stderr
    assert json.loads(res.stdout)["format"] == "codex"


def test_inspect_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["inspect"], env={"HOME": str(tmp_path)})
    assert res.exit_code == 1 and "no FILE given" in res.stderr
    (tmp_path / "e.jsonl").write_text("")
    for args in ([str(tmp_path / "nope.jsonl")], [str(tmp_path)], [str(tmp_path / "e.jsonl")], [str(tmp_path / "e.jsonl"), "--format", "xml"]):
        res = runner.invoke(cli, ["inspect", *args])
        assert res.exit_code == 1, args
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("ctxw: error:"), (args, res.stderr)
