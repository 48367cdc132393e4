from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import contextwindow.admission as admission
from contextwindow.admission import admit
from contextwindow.cli.main import cli


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    cwd = tmp_path / "repo"
    home = tmp_path / "home"
    (cwd / ".claude" / "skills" / "review").mkdir(parents=True)
    (cwd / ".claude" / "skills" / "review" / "SKILL.md").write_text("---\nname: review\ndescription: Review a diff\n---\nSKILLBODY\n")
    (cwd / "skills" / "broken").mkdir(parents=True)
    (cwd / "skills" / "broken" / "SKILL.md").write_text("name = 'toml'\n")
    (cwd / "AGENTS.md").write_text("Run the tests before committing.")
    (cwd / "CLAUDE.md").write_bytes(b"\xff bad")
    (cwd / "area").mkdir()
    (cwd / "area" / "SCOPE.md").write_text("Only the area folder.")
    home.mkdir()
    (home / "AGENTS.md").write_text("Answer in English.")
    return cwd, home


def test_prompt_json(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(cwd), "--home", str(home), "--scope", str(cwd / "area"), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    names = [s["name"] for s in data["sections"]]
    assert names == ["instructions", "skills", "scope"]
    for s in data["sections"]:
        assert set(s) >= {"name", "phase", "sticky", "tokens"} and s["tokens"] > 0
    assert "review" in data["skills"]
    assert str(cwd / "AGENTS.md") in data["instruction_files"] and str(home / "AGENTS.md") in data["instruction_files"]
    omitted = {o["path"]: o["reason"] for o in data["omitted"]}
    assert "not valid UTF-8" in omitted[str(cwd / "CLAUDE.md")]
    assert "no front matter" in omitted[str(cwd / "skills" / "broken" / "SKILL.md")]
    assert "Run the tests before committing." in data["text"] and "Only the area folder." in data["text"]
    assert "SKILLBODY" not in data["text"]
    assert data["tools"] == ["read_skill"]
    # same as the library says
    a = admit(cwd, home, scope_dir=cwd / "area")
    assert data["text"] == a.prompt.text and data["tokens"] == a.prompt.tokens


def test_prompt_human_output(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(cwd), "--home", str(home), "--text"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "System prompt:" in out and "instructions" in out and "constraint" in out
    assert f"{cwd / 'CLAUDE.md'}: instruction file not admitted: not valid UTF-8" in out
    assert "Skills (" in out and "review" in out
    assert "--- system prompt ---" in out and "Answer in English." in out


def test_prompt_no_home_and_caps(tree: tuple[Path, Path]) -> None:
    cwd, _ = tree
    (cwd / "AGENTS.md").write_text("r" * 900)
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(cwd), "--no-home", "--per-file-chars", "300", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert "Answer in English." not in data["text"]
    assert "truncated to 300 of 900 characters" in data["text"]


def test_prompt_bad_directory_is_one_clear_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(tmp_path / "missing")])
    assert res.exit_code != 0
    assert "does not exist" in res.output
    f = tmp_path / "file"
    f.write_text("x")
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(f)])
    assert res.exit_code != 0 and "Traceback" not in res.output


def test_public_surface_is_declared() -> None:
    for name in admission.__all__:
        assert hasattr(admission, name), name
    assert {"admit", "Section", "assemble_system", "drain_into", "READ_SKILL_TOOL"} <= set(admission.__all__)


def test_omissions_become_events_once(tree: tuple[Path, Path]) -> None:
    from contextwindow.events import EventBus, Recorder

    cwd, home = tree
    a = admit(cwd, home, count=len)
    bus, rec = EventBus(), Recorder()
    bus.subscribe(rec, "admission.")
    for ev in a.events():
        bus.emit(ev.name, **ev.data)
    got = [(e.data["path"], e.data["reason"]) for e in rec.named("admission.omitted")]
    assert len(got) == len(set(got)) == len(a.omitted)
    assert (str(cwd / "CLAUDE.md"), "instruction file not admitted: not valid UTF-8 (bad byte at offset 0)") in got


def test_prompt_counts_with_the_model_tokenizer(tree: tuple[Path, Path]) -> None:
    from contextwindow.tokens import counter_for

    cwd, home = tree
    res = CliRunner().invoke(cli, ["prompt", "--cwd", str(cwd), "--home", str(home), "--model", "gpt-4o", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    exact = counter_for("gpt-4o")
    assert exact.exact
    assert data["tokens"] == exact.count_text(data["text"])
