"""Review of the ``ctxw`` CLI as a demanding user: bad input gets one clear stderr line and a
non-zero exit (never a traceback, never a silent drop); ``--json`` keeps its promised keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from contextwindow.cli.main import cli

CLAUDE = "claude_code/spotter_tool_heavy.jsonl"
CODEX = "codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"


def _run(args: list[str], tmp_path: Path, stdin: str | bytes | None = None) -> Result:
    env = {"CONTEXTWINDOW_STORE": f"sqlite:///{tmp_path / 'store.db'}", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    return CliRunner().invoke(cli, args, env=env, input=stdin)


def _one_line_error(res: Result, *needles: str) -> None:
    """Exit non-zero, no traceback, ONE ctxw error line on stderr naming every needle."""
    assert res.exit_code != 0, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    err = res.stderr.strip()
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], lines[0]


# --- sessions ---------------------------------------------------------------------------


def test_sessions_list_huge_limit_is_a_clear_error(tmp_path: Path) -> None:
    res = _run(["sessions", "list", "--limit", "99999999999999999999"], tmp_path)
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    assert "--limit" in res.stderr
    assert not isinstance(res.exception, OverflowError)


def test_sessions_fork_huge_range_is_refused_fast(tmp_path: Path) -> None:
    res = _run(["sessions", "fork", "c_x", "--turns", "1-99999999999"], tmp_path)
    _one_line_error(res, "--turns", "1-99999999999")


# --- compact ----------------------------------------------------------------------------


def test_compact_absurd_rounds_is_refused(tmp_path: Path, transcripts_dir: Path) -> None:
    res = _run(["compact", str(transcripts_dir / CLAUDE), "--budget-tokens", "3000", "--rounds", "99999999"], tmp_path)
    _one_line_error(res, "--rounds", "99999999")


def test_compact_anthropic_text_output_keeps_the_system_prompt(tmp_path: Path, transcripts_dir: Path) -> None:
    res = _run(["compact", str(transcripts_dir / CODEX), "--budget-tokens", "12000", "--format", "anthropic"], tmp_path)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert isinstance(doc, dict) and doc["system"], "the Codex log's system prompt must not be dropped"
    assert doc["messages"] and all(m["role"] in ("user", "assistant") for m in doc["messages"])


# --- inspect ----------------------------------------------------------------------------


@pytest.mark.parametrize(("option", "value"), [("--window", "0"), ("--top", "-3")])
def test_inspect_out_of_range_numbers_are_refused_not_ignored(tmp_path: Path, transcripts_dir: Path, option: str, value: str) -> None:
    res = _run(["inspect", str(transcripts_dir / CLAUDE), option, value, "--json"], tmp_path)
    assert res.exit_code == 2, res.output  # --window 0 used to fall back to the model's window silently
    assert option in res.stderr and "Traceback" not in res.stderr


# --- models -----------------------------------------------------------------------------


def test_models_list_unknown_provider_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    res = _run(["models", "list", "--provider", "nosuch", "--json"], tmp_path)
    _one_line_error(res, "nosuch", "anthropic")
    ok = _run(["models", "list", "--provider", "anthropic", "--json"], tmp_path)
    assert ok.exit_code == 0 and all(m["provider"] == "anthropic" for m in json.loads(ok.stdout))


# --- replay / compact with a model summarizer that fails ---------------------------------


def test_failing_model_summarizer_is_reported_not_hidden(tmp_path: Path, transcripts_dir: Path) -> None:
    from contextwindow.llm.localserver import LocalProviderServer

    # the summarizer answers with an empty text every time: the extractive brief stands in
    with LocalProviderServer(lambda req: "") as srv:
        res = _run(
            ["compact", str(transcripts_dir / CLAUDE), "--budget-tokens", "3000", "--json",
             "--summarizer-url", srv.openai_base_url, "--summarizer-model", "local"],
            tmp_path,
        )
        asked = len(srv.requests)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)["report"]
    assert report["summarizer_failures"] >= 1 and report["summarizer_error"]
    assert "warning: summarizer llm:local failed" in res.stderr
    assert asked == 1, "after the first failure the dead summarizer is not asked again"


# --- stdin ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["inspect", "-", "--json"], ["import", "-", "--json"], ["replay", "-", "--policy", "none", "--json"]])
def test_transcript_commands_read_stdin_dash(tmp_path: Path, transcripts_dir: Path, command: list[str]) -> None:
    data = (transcripts_dir / CLAUDE).read_bytes()
    res = _run(command, tmp_path, stdin=data)
    assert res.exit_code == 0, res.output  # used to say "-: no such file"
    doc = json.loads(res.stdout)
    if command[0] == "inspect":
        assert doc["format"] == "claude-code" and doc["messages"] > 0 and doc["calls"]
    elif command[0] == "import":
        assert doc["conversations"][0]["messages"] > 0 and doc["skipped"] == []
    else:
        assert doc["policies"][0]["calls"] > 0


def test_import_empty_stdin_says_so(tmp_path: Path) -> None:
    res = _run(["import", "-"], tmp_path, stdin=b"")
    assert res.exit_code == 1 and "stdin is empty" in res.stderr and "no such file" not in res.stderr


# --- the error wrapper every command uses --------------------------------------------------


def test_an_unexpected_exception_is_one_line_not_a_traceback() -> None:
    import click

    from contextwindow.cli.common import handle_errors

    @click.command()
    @handle_errors
    def boom() -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    res = CliRunner().invoke(boom, [])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error: OverflowError" in lines[0] and "CTXW_DEBUG" in lines[0]
    debug = CliRunner().invoke(boom, [], env={"CTXW_DEBUG": "1"})
    assert isinstance(debug.exception, OverflowError)


# --- retrieve ---------------------------------------------------------------------------


def test_retrieve_names_the_store_and_never_creates_one(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "store.db"
    res = _run(["retrieve", "ofl_0123456789abcdef", "--store", f"sqlite:///{missing}"], tmp_path)
    _one_line_error(res, "ofl_0123456789abcdef", str(missing))
    assert not missing.exists() and not missing.parent.exists()
    # an existing store that lacks the ref: the message says which store was searched
    clipped = _run(["clip", "-", "--budget-tokens", "50", "--json"], tmp_path, stdin="\n".join(map(str, range(5000))))
    assert clipped.exit_code == 0 and json.loads(clipped.stdout)["ref"]
    res = _run(["retrieve", "ofl_0123456789abcdef"], tmp_path)
    _one_line_error(res, "ofl_0123456789abcdef", "store.db")


def test_clip_budget_above_hard_cap_is_refused(tmp_path: Path) -> None:
    res = _run(["clip", "-", "--budget-tokens", "200000"], tmp_path, stdin="x\n")
    assert res.exit_code == 2 and "--hard-cap-tokens" in res.stderr and "Traceback" not in res.stderr


def test_retrieve_has_json(tmp_path: Path) -> None:
    clipped = _run(["clip", "-", "--budget-tokens", "50", "--json"], tmp_path, stdin="\n".join(map(str, range(5000))))
    ref = json.loads(clipped.stdout)["ref"]
    res = _run(["retrieve", ref, "--offset", "10", "--limit", "2", "--json"], tmp_path)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["ref"] == ref and doc["offset"] == 10 and "11" in doc["text"] and "13\n" not in doc["text"]


def test_tokens_says_when_the_model_is_unknown() -> None:
    from click.testing import CliRunner as _Runner

    from contextwindow.cli.main import cli as _cli

    r = _Runner().invoke(_cli, ["tokens", "-m", "gpt4o", "-"], input="hello world")
    assert r.exit_code == 0
    assert "unknown model 'gpt4o'" in r.output
    ok = _Runner().invoke(_cli, ["tokens", "-m", "gpt-4o", "-"], input="hello world")
    assert "unknown model" not in ok.output


def test_replay_plot_path_is_checked_before_the_replay(tmp_path) -> None:
    from click.testing import CliRunner as _Runner

    from contextwindow.cli.main import cli as _cli

    for bad in (str(tmp_path), str(tmp_path / "missing" / "x.png")):
        r = _Runner().invoke(_cli, ["replay", "--demo", "--plot", bad])
        assert r.exit_code == 1 and "--plot" in r.output
    assert not (tmp_path / "missing").exists()


def test_sessions_read_commands_never_create_a_store_from_a_typo(tmp_path) -> None:
    from click.testing import CliRunner as _Runner

    from contextwindow.cli.main import cli as _cli

    url = f"sqlite:///{tmp_path / 'typo' / 'x.db'}"
    for args in (["sessions", "list"], ["sessions", "show", "c_1"], ["sessions", "export", "c_1"]):
        r = _Runner().invoke(_cli, [*args, "--store", url])
        assert r.exit_code == 1 and "there is no store at" in r.output, (args, r.output)
    assert not (tmp_path / "typo").exists()


def test_retrieve_follows_a_cut_long_line_with_column(tmp_path) -> None:
    import re as _re

    from click.testing import CliRunner as _Runner

    from contextwindow.cli.main import cli as _cli

    url = f"sqlite:///{tmp_path / 's.db'}"
    line = "".join(f"{i:06d}," for i in range(40_000))  # one 280k-char line
    clipped = _Runner().invoke(_cli, ["clip", "-", "--budget-tokens", "300", "--store", url, "--json"], input=line)
    ref = __import__("json").loads(clipped.output)["ref"]
    first = _Runner().invoke(_cli, ["retrieve", ref, "--budget-tokens", "300", "--store", url])
    col = int(_re.search(r"column=(\d+)", first.output).group(1))
    nxt = _Runner().invoke(_cli, ["retrieve", ref, "--column", str(col), "--budget-tokens", "300", "--store", url])
    assert nxt.exit_code == 0 and line[col : col + 20] in nxt.output
