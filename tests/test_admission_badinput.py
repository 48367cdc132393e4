"""Bad files never raise: each is left out, reported once with its reason.

The suite may run as root, where chmod 000 does not stop a read. Unreadable files are made
other ways too (a directory, a FIFO, a dangling symlink, a symlink loop where a file is
expected), and the permission-denied test forks a child that drops to uid 65534 first.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from contextwindow.admission import admit
from contextwindow.admission._files import list_dir, read_text


def _reasons(a, path: Path) -> list[str]:  # type: ignore[no-untyped-def]
    return [o.reason for o in a.omitted if o.path == path]


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    cwd = tmp_path / "proj"
    home = tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    return cwd, home


def good_skill(root: Path, name: str) -> None:
    p = root / name / "SKILL.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"---\nname: {name}\ndescription: good {name}\n---\nbody\n")


def test_instruction_files_that_are_not_files(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    (cwd / "AGENTS.md").mkdir()  # a directory where a file is expected
    os.mkfifo(cwd / "CLAUDE.md")  # a FIFO: opening it would block
    (cwd / "AGENT.md").symlink_to(cwd / "nowhere.md")  # dangling symlink
    (cwd / "AGENTS.local.md").symlink_to(cwd / "CLAUDE.local.md")  # symlink loop
    (cwd / "CLAUDE.local.md").symlink_to(cwd / "AGENTS.local.md")
    (home / "AGENTS.md").write_text("home is fine")
    a = admit(cwd, home, count=len)
    assert _reasons(a, cwd / "AGENTS.md") == ["instruction file not admitted: is a directory, not a file"]
    assert _reasons(a, cwd / "CLAUDE.md") == ["instruction file not admitted: not a regular file (FIFO, socket or device)"]
    assert _reasons(a, cwd / "AGENT.md") == ["instruction file not admitted: dangling symlink"]
    assert _reasons(a, cwd / "AGENTS.local.md") == ["instruction file not admitted: symlink loop"]
    assert "home is fine" in a.prompt.text
    assert a.instruction_files[-1] == home / "AGENTS.md"
    # the section says so in words
    assert f"- {cwd / 'CLAUDE.md'}: not admitted, not a regular file (FIFO, socket or device)." in a.prompt.text


def test_huge_binary_and_invalid_utf8_files(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    (cwd / "AGENTS.md").write_bytes(b"# rules\n" + b"y" * (5 * 1024 * 1024))  # several MB
    (cwd / "CLAUDE.md").write_bytes(b"rules \xff\xfe broken")
    (cwd / "AGENT.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    a = admit(cwd, home, count=len)
    assert _reasons(a, cwd / "AGENTS.md") == ["instruction file not admitted: too large (5.0 MB, limit 1.0 MB)"]
    assert _reasons(a, cwd / "CLAUDE.md") == ["instruction file not admitted: not valid UTF-8 (bad byte at offset 6)"]
    assert _reasons(a, cwd / "AGENT.md") == ["instruction file not admitted: binary file (contains NUL bytes)"]
    assert "yyyy" not in a.prompt.text and "broken" not in a.prompt.text
    assert not [p for p in a.instruction_files if p.parent == cwd]


def test_a_50mb_file_is_not_read(dirs: tuple[Path, Path]) -> None:
    cwd, _ = dirs
    big = cwd / "AGENTS.md"
    with big.open("wb") as fh:  # sparse: cheap to make, slow to read whole
        fh.truncate(50 * 1024 * 1024)
    res = read_text(big, max_bytes=1024 * 1024)
    assert res.text is None and res.reason == "too large (50.0 MB, limit 1.0 MB)"  # decided by its size


def test_bom_is_stripped_and_crlf_kept_readable(dirs: tuple[Path, Path]) -> None:
    cwd, _ = dirs
    (cwd / "AGENTS.md").write_bytes("\ufeffhello\r\n".encode())
    assert read_text(cwd / "AGENTS.md").text == "hello\r\n"


def test_bad_skills_are_skipped_with_reasons(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    sk = cwd / "skills"
    good_skill(sk, "fine")
    bad = {
        "toml": b'+++\nname = "toml"\n+++\nbody',
        "json": b'---\n{"name": "json", "description": "x"}\n---\n',
        "unclosed": b"---\nname: unclosed\ndescription: d\n",
        "noname": b"---\ndescription: nameless\n---\n",
        "nodesc": b"---\nname: nodesc\n---\n",
        "binary": b"---\nname: bin\x00\n---\n",
        "latin1": b"---\nname: caf\xe9\ndescription: d\n---\n",
    }
    for folder, data in bad.items():
        (sk / folder).mkdir()
        (sk / folder / "SKILL.md").write_bytes(data)
    (sk / "dirskill").mkdir()
    (sk / "dirskill" / "SKILL.md").mkdir()
    (sk / "dangling").mkdir()
    (sk / "dangling" / "SKILL.md").symlink_to(sk / "missing.md")
    (sk / "loop").symlink_to(sk / "loop")  # a skill folder that is a symlink loop
    (sk / "big").mkdir()
    (sk / "big" / "SKILL.md").write_bytes(b"---\nname: big\ndescription: d\n---\n" + b"z" * (3 * 1024 * 1024))
    (sk / "not-a-skill").mkdir()  # no SKILL.md: silently not a skill
    (sk / "README.md").write_text("a plain file in the skills folder")
    a = admit(cwd, home, count=len)
    assert [s.name for s in a.skills if s.path.is_relative_to(cwd)] == ["fine"]
    expected = {
        "toml": "no front matter",
        "json": "not 'key: value'",
        "unclosed": "not closed",
        "noname": "no 'name'",
        "nodesc": "no 'description'",
        "binary": "binary file",
        "latin1": "not valid UTF-8",
        "dirskill": "is a directory",
        "dangling": "dangling symlink",
        "big": "too large",
    }
    for folder, words in expected.items():
        reasons = _reasons(a, sk / folder / "SKILL.md")
        assert len(reasons) == 1 and words in reasons[0] and reasons[0].startswith("skill skipped"), (folder, reasons)
    assert _reasons(a, sk / "loop") == ["skill folder skipped: symlink loop"]
    assert not _reasons(a, sk / "not-a-skill") and not _reasons(a, sk / "README.md")
    assert "- fine: good fine" in a.prompt.text


def test_skills_folder_that_is_a_symlink_loop_or_a_file(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    (cwd / ".claude").mkdir()
    (cwd / ".claude" / "skills").symlink_to(cwd / ".claude" / "skills")
    (cwd / "skills").write_text("not a folder")  # e.g. a file called skills: not a skills folder
    good_skill(home / ".agents" / "skills", "homeskill")
    a = admit(cwd, home, count=len)
    assert _reasons(a, cwd / ".claude" / "skills") == ["skills folder symlink loop"]
    assert not _reasons(a, cwd / "skills")
    assert "homeskill" in [s.name for s in a.skills]


def test_symlink_to_an_ancestor_does_not_loop(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    sk = cwd / "skills"
    good_skill(sk, "real")
    (sk / "up").symlink_to(cwd.parent)  # a folder pointing back up the tree
    a = admit(cwd, home, count=len)
    assert "real" in [s.name for s in a.skills]


def test_reported_once_even_when_reached_twice(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = home / "work"
    cwd.mkdir(parents=True)
    (home / "AGENTS.md").write_bytes(b"\xff\xff")
    (home / ".claude" / "skills" / "bad").mkdir(parents=True)
    (home / ".claude" / "skills" / "bad" / "SKILL.md").write_text("no front matter")
    a = admit(cwd, home, count=len)  # home is both a parent of cwd and the home directory
    assert len(_reasons(a, home / "AGENTS.md")) == 1
    assert len(_reasons(a, home / ".claude" / "skills" / "bad" / "SKILL.md")) == 1
    assert len(a.omitted) == len(set(a.omitted))


def test_list_dir_bounds_entries(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"e{i:02d}").mkdir()
    names, problem = list_dir(tmp_path, max_entries=10)
    assert len(names) == 10 and problem is not None and "more than 10 entries" in problem


def _admit_as(uid: int | None, cwd: Path) -> list[str]:
    """Admit ``cwd`` (as user ``uid`` in a forked child when given) and return the omissions as text."""
    if uid is None:
        return [str(o) for o in admit(cwd, None, count=len).omitted]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop root, admit, send the result, leave without running pytest's teardown
        code = 0
        try:
            os.close(r)
            os.setgid(uid)
            os.setuid(uid)
            out = json.dumps([str(o) for o in admit(cwd, None, count=len).omitted]).encode()
            os.write(w, out)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the unprivileged child failed"
    return json.loads(data)


def test_permission_denied_directory_and_file() -> None:
    """Real permission errors: as root, a forked child drops to uid 65534 (nobody) first."""
    base = Path(tempfile.mkdtemp(prefix="cw-perm-"))
    try:
        os.chmod(base, 0o755)
        cwd = base / "proj"
        sk = cwd / "skills"
        good_skill(sk, "x")
        (cwd / "AGENTS.md").write_text("secret")
        for d in (cwd, sk, sk / "x"):
            os.chmod(d, 0o755)
        os.chmod(cwd / "AGENTS.md", 0)
        os.chmod(sk, 0)
        omitted = _admit_as(65534 if os.geteuid() == 0 else None, cwd)
    finally:
        os.chmod(sk, 0o755)
        shutil.rmtree(base)
    assert f"{cwd / 'AGENTS.md'}: instruction file not admitted: permission denied" in omitted
    assert f"{sk}: skills folder permission denied" in omitted
