"""The README's examples run, so they never drift."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), re.S)


def test_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code = blocks("python")
    assert code, "the README has a Python example"
    for src in code:
        exec(compile(src, str(README), "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "ok" in out or "warn" in out or "critical" in out  # the gauge line printed
    assert (tmp_path / "agent.db").exists()


def test_quick_start_main_command_runs() -> None:
    commands = [c.split("&&")[-1].strip() for b in blocks("sh") for c in b.strip().splitlines()]
    ctxw = [c for c in commands if c.startswith("ctxw ")]
    assert ctxw == ["ctxw replay --demo"]
    result = CliRunner().invoke(cli, shlex.split(ctxw[0])[1:])
    assert result.exit_code == 0, result.output
    assert "default" in result.output and "scripted" in result.output


def test_test_command_is_what_ci_runs() -> None:
    commands = [c.split("&&")[-1].strip() for b in blocks("sh") for c in b.strip().splitlines()]
    test_cmd = next(c for c in commands if "pytest" in c)
    ci = (README.parent / ".ci" / "run").read_text()
    assert test_cmd in ci
