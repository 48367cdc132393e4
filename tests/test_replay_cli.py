"""``ctxw replay`` through click's runner: JSON keys, the demo, the plot, errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextwindow.cli.main import cli

KEYS = {
    "policy", "calls", "peak_tokens", "over_window_calls", "invalid_payloads", "compactions", "folds",
    "billed_input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_hit_share", "cost_usd",
    "constraints_total", "constraints_kept", "floor_input_tokens", "above_floor_share", "output_tokens",
    "output_cost_usd", "total_cost_usd", "summary_calls", "summary_input_tokens", "summary_output_tokens",
    "summary_billed_tokens", "summary_cost_usd",
}


def test_demo_json_shows_compaction() -> None:
    res = CliRunner().invoke(cli, ["replay", "--demo", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["scripted"] is True and "scripted" in doc["note"]
    assert doc["window"] == 32_000 and doc["model"] == "gpt-4o-mini"
    rows = {p["policy"]: p for p in doc["policies"]}
    assert set(rows) == {"none", "claude-code", "wolffish", "microcompact", "masking", "default"}
    for row in rows.values():
        assert set(row) == KEYS
        assert row["invalid_payloads"] == 0
    assert rows["default"]["compactions"] > 0 and rows["default"]["over_window_calls"] == 0
    assert rows["none"]["over_window_calls"] > 0
    floors = {r["floor_input_tokens"] for r in rows.values()}
    assert len(floors) == 1 and 0 < floors.pop() < min(r["billed_input_tokens"] for r in rows.values())
    assert "ctxw: replayed" not in res.stderr  # no progress lines under --json


def test_a_progress_line_per_policy_on_stderr_unless_quiet() -> None:
    res = CliRunner().invoke(cli, ["replay", "--demo", "--policy", "none", "--policy", "default"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("ctxw: replayed")]
    assert [ln.split()[2].rstrip(":") for ln in lines] == ["none", "default"]
    assert all("38 calls in" in ln and "above the floor" in ln for ln in lines)
    assert "floor" in res.stdout and "above floor" in res.stdout
    quiet = CliRunner().invoke(cli, ["replay", "--demo", "--policy", "none", "--quiet"])
    assert quiet.exit_code == 0 and "ctxw: replayed" not in quiet.stderr


def test_demo_table_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "replay.png"
    res = CliRunner().invoke(cli, ["replay", "--demo", "--policy", "none", "--policy", "default", "--plot", str(out)])
    assert res.exit_code == 0, res.output
    assert "scripted" in res.stdout
    assert "policy" in res.stdout and "default" in res.stdout and "claude-code" not in res.stdout
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000


def test_replay_file_with_model_and_window(transcripts_dir: Path) -> None:
    f = transcripts_dir / "swe_agent" / "trajectories__demonstrations__ctf__web__i_got_id_demo.traj"
    res = CliRunner().invoke(cli, ["replay", str(f), "--model", "gpt-4o", "--window", "8000", "--policy", "default", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["model"] == "gpt-4o" and doc["window"] == 8000
    assert doc["policies"][0]["over_window_calls"] == 0


def test_replay_errors_are_one_line(tmp_path: Path, transcripts_dir: Path) -> None:
    runner = CliRunner()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    swe = transcripts_dir / "swe_agent" / "trajectories__demonstrations__function_calling_simple.traj"
    cases = [
        [str(tmp_path / "missing.jsonl")],
        [str(tmp_path)],
        [str(empty)],
        [str(swe)],  # names no model
        [str(swe), "--window", "8000", "--policy", "bogus"],
        [str(swe), "--window", "8000", "--format", "nope"],
    ]
    for args in cases:
        res = runner.invoke(cli, ["replay", *args])
        assert res.exit_code == 1, (args, res.output)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("ctxw: error:"), (args, res.stderr)
    res = runner.invoke(cli, ["replay", str(swe)])
    assert "--model" in res.stderr


def test_no_file_and_no_local_session_points_to_demo(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["replay"], env={"HOME": str(tmp_path)})
    assert res.exit_code == 1
    assert "--demo" in res.stderr


def test_the_table_shows_what_each_policys_summaries_would_cost() -> None:
    """claude-code folds in the demo: its summaries' calls are a column of their own, as in --json."""
    doc = json.loads(CliRunner().invoke(cli, ["replay", "--demo", "--json"]).stdout)
    cc = next(p for p in doc["policies"] if p["policy"] == "claude-code")
    assert cc["folds"] > 0 and cc["summary_calls"] == cc["folds"] and cc["summary_billed_tokens"] > 0
    text = CliRunner().invoke(cli, ["replay", "--demo"]).stdout
    header = next(line for line in text.splitlines() if line.startswith("policy"))
    row = next(line for line in text.splitlines() if line.startswith("claude-code"))
    end = header.index("summaries") + len("summaries")  # columns are right-aligned under their heads
    assert row[:end].split()[-1] == f"{cc['summary_billed_tokens']:,}"
