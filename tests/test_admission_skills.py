from __future__ import annotations

import os
from pathlib import Path

import pytest

from contextwindow.admission import READ_SKILL_TOOL, admit, discover_skills, read_skill, read_skill_tool
from contextwindow.admission.skills import skill_dirs, skills_index_section
from contextwindow.errors import ConfigError
from contextwindow.tools import ToolSpec


def skill(root: Path, folder: str, name: str, desc: str, body: str = "BODY") -> Path:
    p = root / folder / "SKILL.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}\n", encoding="utf-8")
    return p


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    cwd = tmp_path / "repo" / "pkg"
    home = tmp_path / "home"
    cwd.mkdir(parents=True)
    home.mkdir()
    return cwd, home


def _ours(tmp_path: Path, skills: list) -> list:  # type: ignore[type-arg]
    return [s for s in skills if tmp_path in s.path.parents]


def test_all_locations_are_found(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    skill(cwd / ".agents/skills", "a", "alpha", "A in cwd .agents")
    skill(cwd / ".claude/skills", "b", "beta", "B in cwd .claude")
    skill(cwd / "skills", "c", "gamma", "C in cwd skills")
    skill(cwd.parent / "skills", "d", "delta", "D in parent")
    skill(home / ".agents/skills", "e", "epsilon", "E in home .agents")
    skill(home / ".claude/skills", "f", "zeta", "F in home .claude")
    found = _ours(tmp_path, discover_skills(cwd, home).skills)
    assert [s.name for s in found] == ["alpha", "beta", "delta", "epsilon", "gamma", "zeta"]


def test_closer_shadows_farther_by_name(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    near = skill(cwd / "skills", "x", "deploy", "near one")
    far = skill(cwd.parent / ".agents/skills", "x", "deploy", "parent one")
    homes = skill(home / ".claude/skills", "y", "deploy", "home one")
    disc = discover_skills(cwd, home)
    (d,) = [s for s in disc.skills if s.name == "deploy"]
    assert d.path == near and d.description == "near one"
    shadowed = {o.path for o in disc.omitted if "shadowed" in o.reason}
    assert shadowed == {far, homes}


def test_same_dir_precedence_agents_then_claude_then_skills(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    skill(cwd / "skills", "x", "s", "from skills")
    skill(cwd / ".claude/skills", "x", "s", "from claude")
    skill(cwd / ".agents/skills", "x", "s", "from agents")
    (s,) = [s for s in discover_skills(cwd, home).skills if s.name == "s"]
    assert s.description == "from agents"


def test_search_order_covers_every_parent_then_home(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    dirs = skill_dirs(cwd, home)
    assert dirs[:3] == [cwd / ".agents/skills", cwd / ".claude/skills", cwd / "skills"]
    assert Path("/skills") in dirs
    assert dirs[-2:] == [home / ".agents/skills", home / ".claude/skills"]
    assert len(dirs) == len(set(dirs))


def test_index_has_one_line_per_skill_and_never_the_body(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    for i in range(5):
        skill(cwd / "skills", f"s{i}", f"skill-{i}", f"does thing {i}", body=f"SECRET-BODY-{i}")
    a = admit(cwd, home, count=len)
    lines = [ln for ln in a.prompt.text.splitlines() if ln.startswith("- skill-")]
    assert lines == [f"- skill-{i}: does thing {i}" for i in range(5)]
    assert "SECRET-BODY" not in a.prompt.text
    assert READ_SKILL_TOOL in a.tools
    assert a.read_skill("skill-3") == "SECRET-BODY-3\n"


def test_folded_multiline_description_becomes_one_index_line(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    p = cwd / "skills/m/SKILL.md"
    p.parent.mkdir(parents=True)
    p.write_text("---\nname: multi\ndescription: >\n  first line\n  second line\n---\nbody\n")
    section = skills_index_section(discover_skills(cwd, home).skills)
    assert section is not None
    assert "- multi: first line second line" in section.text.splitlines()


def test_read_skill_unknown_name_lists_known_names(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    skill(cwd / "skills", "a", "alpha", "x")
    skill(cwd / "skills", "b", "beta", "y")
    skills = [s for s in discover_skills(cwd, home).skills if s.name in ("alpha", "beta")]
    msg = read_skill(skills, "gamma")
    assert msg.startswith("Error: no skill named 'gamma'")
    assert "alpha, beta" in msg


def test_read_skill_of_a_file_that_vanished_is_an_error_text(tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    p = skill(cwd / "skills", "a", "alpha", "x")
    skills = discover_skills(cwd, home).skills
    p.unlink()
    msg = read_skill(skills, "alpha")
    assert msg.startswith("Error: skill 'alpha' cannot be read") and "does not exist" in msg


def test_no_skills_no_section_no_tool(tmp_path: Path) -> None:
    empty = tmp_path / "e"
    empty.mkdir()
    a = admit(empty, None, count=len)
    if not a.skills:  # a skills folder above tmp could exist on a dev machine
        assert a.tools == [] and "# Skills" not in a.prompt.text


def test_tool_definitions_in_three_formats() -> None:
    assert isinstance(READ_SKILL_TOOL, ToolSpec)
    oa = read_skill_tool("openai")
    assert oa["type"] == "function" and oa["function"]["name"] == "read_skill"
    assert oa["function"]["parameters"]["required"] == ["name"]
    an = read_skill_tool("anthropic")
    assert an["name"] == "read_skill" and an["input_schema"]["properties"]["name"]["type"] == "string"
    ge = read_skill_tool("gemini")
    assert ge["functionDeclarations"][0]["name"] == "read_skill" and "parameters" in ge["functionDeclarations"][0]
    rs = read_skill_tool("openai_responses")
    assert rs["type"] == "function" and rs["name"] == "read_skill"
    with pytest.raises(ConfigError):
        read_skill_tool("cohere")  # type: ignore[arg-type]


def test_symlinked_skill_dirs_are_counted_once(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    skill(cwd / ".agents/skills", "a", "alpha", "x")
    (cwd / ".claude").mkdir()
    os.symlink(cwd / ".agents/skills", cwd / ".claude/skills")
    disc = discover_skills(cwd, home)
    assert [s.name for s in _ours(tmp_path, disc.skills)] == ["alpha"]
    assert not [o for o in disc.omitted if tmp_path in (o.path or Path("/")).parents]
