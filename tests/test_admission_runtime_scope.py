from __future__ import annotations

from pathlib import Path

import pytest

from contextwindow.admission import Section, admit, runtime_section, scope_section, wants_batching
from contextwindow.errors import ConfigError


def test_runtime_block_counts_iterations_and_tools() -> None:
    s = runtime_section(3, ["grep", "read_file", "grep", "grep"], max_iterations=10)
    assert s.name == "runtime" and not s.sticky and not s.cacheable
    assert "Iteration 3 of at most 10 in this turn." in s.text
    assert "Tools called this turn (4): grep ×3, read_file." in s.text
    assert "last iteration" not in s.text
    assert "No tools called yet" in runtime_section(1).text
    assert "last iteration" in runtime_section(10, max_iterations=10).text


def test_batching_instruction_only_when_asked() -> None:
    plain = runtime_section(1)
    batched = runtime_section(2, batching=True, items_done=4, items_total=20)
    assert "batches" not in plain.text
    assert "Work in batches" in batched.text and "Progress: 4 of 20 items done." in batched.text


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("Add a docstring for every function in src/", True),
        ("For each file under docs, fix the links", True),
        ("Rename each of the modules listed below", True),
        ("Fix the failing test", False),
        ("Explain how caching works", False),
    ],
)
def test_wants_batching(task: str, expected: bool) -> None:
    assert wants_batching(task) is expected


def test_runtime_misuse() -> None:
    with pytest.raises(ConfigError):
        runtime_section(0)
    with pytest.raises(ConfigError):
        runtime_section(1, max_iterations=0)


def test_runtime_goes_after_the_cacheable_prefix(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules here")
    a = admit(tmp_path, None, base_sections=[Section("role", "You are helpful.", "constraint", priority=100)], count=len)
    first = a.assemble([runtime_section(1)], count=len)
    second = a.assemble([runtime_section(2, ["grep"])], count=len)
    assert first.cache_prefix == second.cache_prefix == a.prompt.text
    assert first.text.startswith(a.prompt.text) and first.text.endswith(runtime_section(1).text)
    assert first.sections[-1].name == "runtime"
    assert first.text != second.text


def test_scope_body_is_admitted_without_front_matter(tmp_path: Path) -> None:
    (tmp_path / "SCOPE.md").write_text("---\nowner: data-team\n---\nOnly touch files in this folder.\n")
    res = scope_section(tmp_path)
    assert res.section is not None and res.path == tmp_path / "SCOPE.md"
    assert "Only touch files in this folder." in res.section.text
    assert "owner" not in res.section.text
    assert res.section.text.startswith(f"# Scope: {tmp_path}")
    assert res.section.phase == "task" and res.section.sticky


def test_scope_cap_says_so(tmp_path: Path) -> None:
    (tmp_path / "SCOPE.md").write_text("s" * 5_000)
    res = scope_section(tmp_path, max_chars=1_000)
    assert res.section is not None
    assert "s" * 1_000 in res.section.text and "s" * 1_001 not in res.section.text
    assert "truncated to 1,000 of 5,000 characters" in res.section.text
    assert [o.path for o in res.omitted] == [tmp_path / "SCOPE.md"]


def test_scope_bad_inputs(tmp_path: Path) -> None:
    assert scope_section(tmp_path) .section is None  # no SCOPE.md: nothing, nothing to report
    assert scope_section(tmp_path).omitted == []
    (tmp_path / "SCOPE.md").write_bytes(b"\xc3\x28 invalid")
    res = scope_section(tmp_path)
    assert res.section is None and "not valid UTF-8" in res.omitted[0].reason
    missing = scope_section(tmp_path / "nope")
    assert missing.section is None and "scope folder not usable" in missing.omitted[0].reason
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "SCOPE.md").write_text("---\nbad front matter\n---\nbody")
    assert "not 'key: value'" in scope_section(tmp_path / "d").omitted[0].reason


def test_admit_with_scope(tmp_path: Path) -> None:
    sub = tmp_path / "area"
    sub.mkdir()
    (sub / "SCOPE.md").write_text("Area rules.")
    a = admit(tmp_path, None, scope_dir=sub, count=len)
    assert a.scope_file == sub / "SCOPE.md"
    assert "Area rules." in a.prompt.text
    assert "scope" in [s.name for s in a.prompt.sections]
