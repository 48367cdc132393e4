"""``ctxw clip`` / ``ctxw retrieve`` through click's runner, against a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextwindow.cli.main import cli

LOG = "\n".join(["$ make test"] + [f"ok {i} test_{i}" for i in range(3000)]
                + ["FAILED test_io.py::test_read - OSError: [Errno 2] No such file", "=== 1 failed, 2999 passed in 9.1s ==="])


def test_clip_json_then_retrieve(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    src = tmp_path / "out.txt"
    src.write_text(LOG)
    runner = CliRunner()
    res = runner.invoke(cli, ["clip", str(src), "--budget-tokens", "300", "--store", store, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["kind"] == "log" and data["clipped"] and data["ref"].startswith("ofl_")
    assert data["tokens_before"] > data["tokens_after"]
    assert "=== 1 failed, 2999 passed in 9.1s ===" in data["text"]
    got = runner.invoke(cli, ["retrieve", data["ref"], "--grep", "FAILED", "--store", store])
    assert got.exit_code == 0 and "3002:FAILED test_io.py::test_read" in got.stdout
    sl = runner.invoke(cli, ["retrieve", data["ref"], "--offset", "1", "--limit", "2", "--store", store])
    assert sl.exit_code == 0 and "ok 0 test_0" in sl.stdout and "ok 1 test_1" in sl.stdout


def test_clip_stdin_text_and_kinds(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    runner = CliRunner()
    res = runner.invoke(cli, ["clip", "-", "--budget-tokens", "200", "--kind", "text", "--store", store], input=LOG)
    assert res.exit_code == 0
    assert res.stdout.count("[contextwindow clipped") == 1 and "text:" in res.stderr
    small = runner.invoke(cli, ["clip", "--store", store], input="hello\n")
    assert small.exit_code == 0 and small.stdout == "hello\n\n"
    assert not (tmp_path / "never.db").exists()


def test_under_budget_does_not_create_a_store(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    res = CliRunner().invoke(cli, ["clip", "--store", f"sqlite:///{db}"], input="short\n")
    assert res.exit_code == 0 and not db.exists()


def test_errors_are_one_line(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    runner = CliRunner()
    forged = runner.invoke(cli, ["retrieve", "../../etc/passwd", "--store", store])
    assert forged.exit_code == 1 and "NotFoundError" in forged.stderr and "Traceback" not in forged.output
    assert not (tmp_path / "s.db").exists()  # refused before any store was opened
    unknown = runner.invoke(cli, ["retrieve", "ofl_0123456789abcdef", "--store", store])
    assert unknown.exit_code == 1 and "NotFoundError" in unknown.stderr
    missing = runner.invoke(cli, ["clip", str(tmp_path / "nope.txt"), "--store", store])
    assert missing.exit_code == 1 and "no such file" in missing.stderr
    badre = runner.invoke(cli, ["clip", "--budget-tokens", "100", "--store", store], input=LOG)
    ref = next(w for w in badre.stdout.replace('"', " ").split() if w.startswith("ofl_"))
    bad = runner.invoke(cli, ["retrieve", ref.rstrip(",)"), "--grep", "(", "--store", store])
    assert bad.exit_code == 1 and "not a valid regular expression" in bad.stderr


def test_clip_counts_the_budget_in_the_models_tokens(tmp_path: Path) -> None:
    """--model gpt-4o: the budget, marker included, holds in o200k tokens, and at least 90% of
    it is used when the original was larger."""
    from contextwindow.tokens import counter_for

    store = f"sqlite:///{tmp_path / 's.db'}"
    src = tmp_path / "doc.json"
    src.write_text(json.dumps({f"key_{k}": [{"id": i, "note": "x " * (i % 40)} for i in range(300)] for k in range(9)},
                              indent=2))
    o200k = counter_for("gpt-4o").count_text
    for budget in (1000, 4000):
        res = CliRunner().invoke(cli, ["clip", str(src), "--budget-tokens", str(budget), "--model", "gpt-4o",
                                       "--store", store, "--json"])
        assert res.exit_code == 0, res.output
        data = json.loads(res.stdout)
        assert {"text", "tokens_after", "ref", "kind"} <= set(data) and data["kind"] == "json"
        assert data["tokens_after"] == o200k(data["text"]) <= budget
        assert data["tokens_after"] >= 0.9 * budget
        assert all(f"key_{k}" in data["text"] for k in range(9))


def test_retrieve_reads_a_compaction_marker_s_message_ref_with_its_conversation(tmp_path: Path) -> None:
    from contextwindow.messages import user
    from contextwindow.store import open_store

    url = f"sqlite:///{tmp_path / 'm.db'}"
    store = open_store(url)
    try:
        cid = store.create_conversation("t")
        rows = store.append(cid, [user("first"), user("the second message\nwith FAILED on its second line"), user("third")])
    finally:
        store.close()
    runner = CliRunner()
    alone = runner.invoke(cli, ["retrieve", f"msg-{rows[1].seq}", "--store", url])
    assert alone.exit_code == 1 and "ConfigError" in alone.stderr and "--conversation ID" in alone.stderr, alone.output
    got = runner.invoke(cli, ["retrieve", f"msg-{rows[1].seq}", "--conversation", cid, "--grep", "FAILED", "--store", url])
    assert got.exit_code == 0 and "with FAILED on its second line" in got.stdout and "first" not in got.stdout, got.output
    by_id = runner.invoke(cli, ["retrieve", f"msg-{rows[2].id}", "--conversation", cid, "--store", url, "--json"])
    assert by_id.exit_code == 0 and "third" in json.loads(by_id.stdout)["text"] and json.loads(by_id.stdout)["conversation"] == cid
    missing = runner.invoke(cli, ["retrieve", "msg-9", "--conversation", cid, "--store", url])
    assert missing.exit_code == 1 and "NotFoundError" in missing.stderr and "sequence number" in missing.stderr
    nobody = runner.invoke(cli, ["retrieve", "msg-2", "--conversation", "c_nope", "--store", url])
    assert nobody.exit_code == 1 and "NotFoundError" in nobody.stderr and "c_nope" in nobody.stderr
