"""`ctxw import` through click's runner, into a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.store import open_store


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_import_fixtures_into_sqlite(transcripts_dir: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    cc = transcripts_dir / "claude_code" / "codemie_session-624a4a58.jsonl"
    oh = transcripts_dir / "openhands" / "multi_swe_bench_output.jsonl"
    code, out, _ = _run("import", str(cc), str(oh), "--store", url, "--json")
    assert code == 0
    doc = json.loads(out)
    assert [c["source"] for c in doc["conversations"]] == [str(cc)] + [str(oh)] * 3
    assert doc["skipped"] == []
    store = open_store(url)
    try:
        first = doc["conversations"][0]
        rows = store.list(first["id"])
        assert len(rows) == first["messages"] == 123
        (cp,) = store.list_checkpoints(first["id"])
        assert cp.summary.meta["cw"] == "fold_summary" and 0 < cp.upto_seq < rows[-1].seq
        info = store.get_conversation(first["id"])
        assert info.metadata["imported"]["format"] == "claude-code"
        assert len(info.metadata["imported"]["calls"]) == 55
        assert len(store.list_usage(first["id"])) == 55
    finally:
        store.close()


def test_import_reports_bad_lines_and_files(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    good = tmp_path / "chat.jsonl"
    good.write_text('{"role": "user", "content": "hi"}\nnot json\n{"role": "assistant", "content": "hello"}\n')
    empty = tmp_path / "empty.json"
    empty.write_text("")
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    code, out, _ = _run("import", str(good), str(empty), str(tmp_path / "missing.jsonl"), str(nothing), "--store", url, "--json")
    assert code == 1  # some files failed: said in the exit status, the good one is imported anyway
    doc = json.loads(out)
    assert sorted(doc["failed"]) == sorted([str(empty), str(tmp_path / "missing.jsonl"), str(nothing)])
    assert len(doc["conversations"]) == 1 and doc["conversations"][0]["messages"] == 2
    by_source = {(k["source"], k["line"]): k["reason"] for k in doc["skipped"]}
    assert by_source[(str(good), 2)].startswith("not valid JSON")
    assert "empty" in by_source[(str(empty), None)]
    assert "no such file" in by_source[(str(tmp_path / "missing.jsonl"), None)]
    assert "directory" in by_source[(str(nothing), None)]


def test_import_nothing_importable_exits_non_zero(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("# only a comment\n")
    code, _, err = _run("import", str(bad), "--store", url)
    assert code == 1
    assert "nothing could be imported" in err and f"{bad}" in err
    code, _, err = _run("import", str(bad), "--store", url, "--format", "nope")
    assert code == 1 and "unknown transcript format 'nope'" in err
