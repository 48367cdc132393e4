from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.admission import admit, collect_instructions
from contextwindow.admission.instructions import INSTRUCTION_NAMES, instruction_dirs


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    top = tmp_path / "top"
    cwd = top / "mid" / "leaf"
    home = tmp_path / "home"
    cwd.mkdir(parents=True)
    home.mkdir()
    return top, cwd, home


def test_order_root_to_cwd_then_home_and_labels(tree: tuple[Path, Path, Path]) -> None:
    top, cwd, home = tree
    (top / "AGENTS.md").write_text("TOP rules")
    (top / "mid" / "CLAUDE.md").write_text("MID rules")
    (cwd / "AGENT.md").write_text("LEAF rules")
    (cwd / "CLAUDE.local.md").write_text("LEAF local rules")
    (home / "AGENTS.md").write_text("HOME rules")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("HOME claude rules")
    res = collect_instructions(cwd, home)
    ours = [f.path for f in res.files if "top" in f.path.parts or "home" in f.path.parts]
    assert ours == [
        top / "AGENTS.md",
        top / "mid" / "CLAUDE.md",
        cwd / "AGENT.md",
        cwd / "CLAUDE.local.md",
        home / "AGENTS.md",
        home / ".claude" / "CLAUDE.md",
    ]
    assert res.section is not None
    text = res.section.text
    order = [text.index(s) for s in ("TOP rules", "MID rules", "LEAF rules", "LEAF local rules", "HOME rules", "HOME claude")]
    assert order == sorted(order)
    assert f"## From {top} (AGENTS.md)\nTOP rules" in text
    assert f"## From {cwd} (CLAUDE.local.md)\nLEAF local rules" in text
    assert res.section.sticky and res.section.phase == "constraint"
    assert "Left out" not in text


def test_every_name_variant_is_recognised(tree: tuple[Path, Path, Path]) -> None:
    _, cwd, home = tree
    for i, name in enumerate(INSTRUCTION_NAMES):
        (cwd / name).write_text(f"content {i}")
    res = collect_instructions(cwd, home)
    assert {f.path.name for f in res.files if f.directory == cwd} == set(INSTRUCTION_NAMES)
    assert {"AGENTS.local.md", "CLAUDE.local.md", "AGENT.md"} <= set(INSTRUCTION_NAMES)


def test_identical_contents_counted_once(tree: tuple[Path, Path, Path]) -> None:
    top, cwd, home = tree
    (top / "AGENTS.md").write_text("same rules\n")
    (cwd / "CLAUDE.md").write_text("same rules\n")
    (cwd / "AGENTS.md").symlink_to(top / "AGENTS.md")
    res = collect_instructions(cwd, home)
    assert res.section is not None
    assert res.section.text.count("same rules") == 1
    assert f"{cwd / 'AGENTS.md'}: same content as {top / 'AGENTS.md'}, included once." in res.section.text
    dup = {o.path for o in res.omitted if "same content" in o.reason}
    assert dup == {cwd / "AGENTS.md", cwd / "CLAUDE.md"}


def test_per_file_cap_truncates_and_says_so_in_words(tree: tuple[Path, Path, Path]) -> None:
    _, cwd, home = tree
    (cwd / "AGENTS.md").write_text("x" * 9_512)
    res = collect_instructions(cwd, home, per_file_chars=4_000)
    assert res.section is not None
    text = res.section.text
    assert "x" * 4_000 in text and "x" * 4_001 not in text
    assert f"- {cwd / 'AGENTS.md'}: truncated to 4,000 of 9,512 characters (per-file cap of 4,000)." in text
    (f,) = [f for f in res.files if f.directory == cwd]
    assert f.truncated and f.shown == 4_000 and f.chars == 9_512
    assert any(o.path == cwd / "AGENTS.md" and "truncated" in o.reason for o in res.omitted)


def test_total_cap_serves_closest_first_and_names_what_it_left_out(tree: tuple[Path, Path, Path]) -> None:
    top, cwd, home = tree
    (top / "AGENTS.md").write_text("T" * 3_000)
    (top / "mid" / "AGENTS.md").write_text("M" * 3_000)
    (cwd / "AGENTS.md").write_text("L" * 3_000)
    (home / "AGENTS.md").write_text("H" * 3_000)
    res = collect_instructions(cwd, home, per_file_chars=4_000, total_chars=7_000)
    assert res.section is not None
    text = res.section.text
    assert "L" * 3_000 in text and "M" * 3_000 in text  # closest two fit whole
    assert "T" * 1_000 in text and "T" * 1_001 not in text  # the root file gets the rest
    assert f"- {top / 'AGENTS.md'}: truncated to 1,000 of 3,000 characters (section cap of 7,000)." in text
    assert f"- {home / 'AGENTS.md'}: omitted entirely (3,000 characters), the section cap of 7,000 characters was reached." in text
    assert home / "AGENTS.md" not in [f.path for f in res.files]
    assert sum(f.shown for f in res.files) <= 7_000


def test_home_inside_the_chain_is_read_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = home / "proj"
    cwd.mkdir(parents=True)
    (home / "AGENTS.md").write_text("home once")
    dirs = instruction_dirs(cwd, home)
    assert dirs.count(home) == 1
    a = admit(cwd, home, count=len)
    assert a.prompt.text.count("home once") == 1
    assert [p for p in a.instruction_files if p == home / "AGENTS.md"] == [home / "AGENTS.md"]


def test_empty_files_are_ignored(tree: tuple[Path, Path, Path]) -> None:
    _, cwd, home = tree
    (cwd / "AGENTS.md").write_text("\n\n")
    res = collect_instructions(cwd, home)
    assert cwd / "AGENTS.md" not in [f.path for f in res.files]
    assert not [o for o in res.omitted if o.path == cwd / "AGENTS.md"]


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 3_000), min_size=1, max_size=6),
    per_file=st.integers(0, 2_500),
    total=st.integers(0, 6_000),
)
def test_caps_hold_and_nothing_is_left_out_silently(sizes: list[int], per_file: int, total: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        cwd = base.joinpath(*[f"l{i}" for i in range(len(sizes))])
        cwd.mkdir(parents=True)
        paths = []
        for i, n in enumerate(sizes):
            p = base.joinpath(*[f"l{k}" for k in range(i + 1)]) / "AGENTS.md"
            p.write_text(chr(ord("a") + i) * n)
            paths.append(p)
        res = collect_instructions(cwd, None, per_file_chars=per_file, total_chars=total)
        ours = [f for f in res.files if f.path in paths]
        assert all(f.shown <= per_file for f in ours)
        assert sum(f.shown for f in ours) <= total
        text = res.section.text if res.section else ""
        for p, n in zip(paths, sizes, strict=True):
            admitted = [f for f in ours if f.path == p]
            if admitted and not admitted[0].truncated:
                assert f"## From {p.parent} (AGENTS.md)" in text
            else:  # truncated or omitted: the notice names it, in words
                assert f"- {p}: " in text
                assert any(o.path == p for o in res.omitted)
                assert f"{n:,}" in text
