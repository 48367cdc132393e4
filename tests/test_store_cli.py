"""`ctxw sessions list|show|export|fork` through click's runner, over a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow import messages as m
from contextwindow.cli.main import cli
from contextwindow.store import open_store
from contextwindow.usage import Usage


def tool_turn(i: int) -> list[m.Message]:
    call = m.ToolCallPart(id=f"call_{i}", name="read", arguments=f'{{"n": {i}}}')
    return [m.user(f"question {i}"), m.assistant(f"reading {i}", call), m.tool_result(f"call_{i}", f"content {i}"), m.assistant(f"answer {i}")]


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    s = open_store(url)
    cid = s.create_conversation("debugging the parser")
    for i in range(1, 5):
        s.append(cid, tool_turn(i))
    s.checkpoint(cid, m.user("Goal: fix parser\nState: read files"), 8)
    s.record_usage(cid, Usage(input_tokens=100, output_tokens=10, role="main", cost_usd=0.002))
    s.close()
    return url, cid


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_list_shows_titles_text_and_json(seeded: tuple[str, str]) -> None:
    url, cid = seeded
    code, out, _ = run("sessions", "list", "--store", url)
    assert code == 0 and cid in out and "debugging the parser" in out and "16 msgs" in out
    code, out, _ = run("sessions", "list", "--store", url, "--json")
    assert code == 0
    (row,) = json.loads(out)
    assert (row["id"], row["title"], row["messages"]) == (cid, "debugging the parser", 16)


def test_show_numbers_turns_and_folds(seeded: tuple[str, str]) -> None:
    url, cid = seeded
    code, out, _ = run("sessions", "show", cid, "--store", url)
    assert code == 0
    assert "fold 1 (archived, seqs 1-8): Goal: fix parser" in out
    assert "turn   3  seqs 9-12  4 msgs, 1 tool calls  question 3" in out
    assert "usage[main]: 1 calls" in out
    code, out, _ = run("sessions", "show", cid, "--store", url, "--json")
    data = json.loads(out)
    assert [s["kind"] for s in data["segments"]] == ["archived", "loaded"]
    assert [t["index"] for s in data["segments"] for t in s["turns"]] == [1, 2, 3, 4]
    assert data["usage_by_role"]["main"]["input_tokens"] == 100


def test_export_formats(seeded: tuple[str, str]) -> None:
    url, cid = seeded
    code, out, _ = run("sessions", "export", cid, "--store", url)
    data = json.loads(out)
    assert code == 0 and len(data["messages"]) == 16 and data["seqs"] == list(range(1, 17))
    assert data["folds"][0]["upto_seq"] == 8
    assert m.messages_from_json(data["messages"])[1].tool_calls[0].id == "call_1"
    code, out, _ = run("sessions", "export", cid, "--store", url, "--format", "jsonl", "--view")
    lines = [m.loads(ln) for ln in out.splitlines()]
    assert code == 0 and [x.text for x in lines][:2] == ["Goal: fix parser\nState: read files", "question 3"]
    assert len(lines) == 1 + 8
    code, out, _ = run("sessions", "export", cid, "--store", url, "--format", "openai")
    msgs = json.loads(out)
    assert code == 0 and [x["role"] for x in msgs[:4]] == ["user", "assistant", "tool", "assistant"]
    assert msgs[2]["tool_call_id"] == "call_1"


def test_fork_builds_a_new_conversation(seeded: tuple[str, str]) -> None:
    url, cid = seeded
    code, out, err = run("sessions", "fork", cid, "--store", url, "--turns", "3-4", "--folds", "1", "--title", "short", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["title"], data["parent_id"], data["messages"]) == ("short", cid, 9)
    s = open_store(url)
    try:
        assert [x.message.text for x in s.list(data["id"])][:2] == ["Goal: fix parser\nState: read files", "question 3"]
        assert s.get_conversation(cid).message_count == 16
    finally:
        s.close()
    code, out, _ = run("sessions", "fork", cid, "--store", url, "--turns", "1")
    assert code == 0 and out.strip().startswith("c_")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["sessions", "show", "c_nope"], "NotFoundError: unknown conversation 'c_nope'"),
        (["sessions", "export", "c_nope"], "unknown conversation 'c_nope'"),
        (["sessions", "fork", "CID", "--turns", "1", "--folds", "1"], "SelectionError: fold 1 and its own turn(s) 1"),
        (["sessions", "fork", "CID", "--turns", "x"], "--turns: 'x' is not a number"),
        (["sessions", "fork", "CID"], "select something"),
        (["sessions", "fork", "CID", "--turns", "42"], "turn 42 is not in conversation"),
    ],
)
def test_errors_are_one_line_and_exit_1(seeded: tuple[str, str], args: list[str], needle: str) -> None:
    url, cid = seeded
    code, _out, err = run(*[cid if a == "CID" else a for a in args], "--store", url)
    assert code == 1
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_store_url_and_foreign_file(tmp_path: Path) -> None:
    code, _, err = run("sessions", "list", "--store", "mysql://x/y")
    assert code == 1 and "ConfigError: unsupported store URL 'mysql://x/y'" in err
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    code, _, err = run("sessions", "list", "--store", f"sqlite:///{notes}")
    assert code == 1 and "StoreCorruptError" in err and str(notes) in err
    assert notes.read_text() == "hello"


def test_default_store_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "env.db"
    monkeypatch.setenv("CONTEXTWINDOW_STORE", f"sqlite:///{db}")
    code, out, _ = run("sessions", "list")
    assert code == 0 and "no conversations" in out and db.is_file()
