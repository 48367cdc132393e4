"""``ctxw compact``: the result fits the budget, is valid Chat Completions (or Anthropic) input, keeps constraints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.formats import anthropic, openai_chat
from contextwindow.tokens import counter_for
from contextwindow.turns import validate

CLAUDE = "claude_code/codemie_session-196820da.jsonl"


def _run(*args: str) -> dict:
    res = CliRunner().invoke(cli, ["compact", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize(("budget", "rounds"), [(6_000, 1), (3_000, 3), (40_000, 0)])
def test_compact_fits_and_is_valid_openai(transcripts_dir: Path, budget: int, rounds: int) -> None:
    doc = _run(str(transcripts_dir / CLAUDE), "--budget-tokens", str(budget), "--rounds", str(rounds))
    rep = doc["report"]
    assert rep["tokens_before"] > budget >= rep["tokens_after"]
    assert rep["rounds"] <= rounds and rep["summarizer"] == "extractive"  # folds only while mask/truncate cannot fit
    msgs = openai_chat.from_payload(doc["messages"])  # parses as Chat Completions messages
    assert validate(msgs, "openai") == []
    assert counter_for(rep["model"]).count_messages(msgs) <= budget
    if rounds:
        assert rep["constraints_kept"] == rep["constraints_total"] > 0
        text = "\n".join(m.text for m in msgs)
        assert "## Memory" in text


def test_compact_anthropic_output(transcripts_dir: Path) -> None:
    doc = _run(str(transcripts_dir / CLAUDE), "--budget-tokens", "5000", "--format", "anthropic")
    msgs = anthropic.from_payload({"messages": doc["messages"]})
    assert msgs and msgs[0].role == "user"
    assert doc["report"]["format"] == "anthropic"


def test_compact_plain_openai_list(tmp_path: Path) -> None:
    big = "\n".join(f"line {i}: " + "x" * 60 for i in range(400))
    messages = [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "Fix the failing build. Never push to main without a review."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"make\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": big},
        {"role": "assistant", "content": "The build fails in step 3."},
    ]
    f = tmp_path / "conv.json"
    f.write_text(json.dumps(messages))
    doc = _run(str(f), "--input-format", "openai", "--budget-tokens", "800", "--instructions", "focus on the build")
    out = openai_chat.from_payload(doc["messages"])
    assert out[0].role == "system" and out[0].text == "You are a careful assistant."  # the system prompt is kept as is
    assert "Never push to main without a review." in "\n".join(m.text for m in out)
    assert doc["report"]["tokens_after"] <= 800
    res = CliRunner().invoke(cli, ["compact", str(f), "--input-format", "openai", "--budget-tokens", "800"])
    assert res.exit_code == 0
    assert isinstance(json.loads(res.stdout), list)  # without --json: the message list itself
    assert "tokens (budget 800)" in res.stderr


def test_compact_errors(tmp_path: Path, transcripts_dir: Path) -> None:
    runner = CliRunner()
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "empty.json").write_text("")
    f = str(transcripts_dir / CLAUDE)
    cases = [
        [str(tmp_path / "missing.json"), "--budget-tokens", "100"],
        [str(tmp_path), "--budget-tokens", "100"],
        [str(tmp_path / "empty.json"), "--budget-tokens", "100"],
        [str(tmp_path / "bad.json"), "--input-format", "openai", "--budget-tokens", "100"],
        [f, "--budget-tokens", "100", "--format", "xml"],
        [f, "--budget-tokens", "0"],
        [f, "--budget-tokens", "5", "--rounds", "1"],  # not even the newest user message fits
    ]
    for args in cases:
        res = runner.invoke(cli, ["compact", *args])
        assert res.exit_code == 1, (args, res.output)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("ctxw: error:"), (args, res.stderr)


def test_compact_answers_small_budgets_with_the_memory_instead_of_an_error(transcripts_dir: Path) -> None:
    """At 60 tokens the 125k-token session still has an answer: the newest user message and one line
    naming the memory entries left out, with the ref that reads them back (51 tokens: the ledger
    reads 10 entries in it since a clause that says two things is two; at 50 that is a fair error)."""
    doc = _run(str(transcripts_dir / CLAUDE), "--budget-tokens", "60", "--rounds", "1")
    assert doc["report"]["tokens_after"] <= 60
    msgs = openai_chat.from_payload(doc["messages"])
    assert "retrieve(ref=" in msgs[0].text and validate(msgs, "openai") == []
