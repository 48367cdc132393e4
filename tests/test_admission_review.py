"""Review of the admission stage against issue 5, on temporary trees."""

from __future__ import annotations

from pathlib import Path

from contextwindow.admission import admit


def test_instruction_copies_differing_only_in_line_endings_are_admitted_once(tmp_path: Path) -> None:
    """`cp AGENTS.md CLAUDE.md`, then an editor saves it with CRLF or adds a final newline: the
    same instructions were admitted (and paid for) two or three times, one copy carrying CRs."""
    repo, home = tmp_path / "repo", tmp_path / "home"
    (repo / "pkg").mkdir(parents=True)
    home.mkdir()
    rules = "Run the tests before committing.\nNever push to main."
    (repo / "AGENTS.md").write_text(rules + "\n")
    (repo / "CLAUDE.md").write_bytes((rules.replace("\n", "\r\n") + "\r\n\r\n").encode())
    (repo / "pkg" / "AGENTS.md").write_text(rules)
    a = admit(repo / "pkg", home=home)
    assert a.prompt.text.count("Never push to main.") == 1
    assert "\r" not in a.prompt.text
    assert a.instruction_files == [repo / "AGENTS.md"]
    reasons = {o.path: o.reason for o in a.omitted}
    assert "same content as" in reasons[repo / "CLAUDE.md"]
    assert "same content as" in reasons[repo / "pkg" / "AGENTS.md"]
