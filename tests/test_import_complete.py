"""Complete import, said out loud: logs generated here (seeded) reproduce the kinds of real logs that lost
data — a compaction boundary with a dangling parent link, Claude Code 1.0.x sub-agent turns written
inline, a history re-written on resume, Codex rollouts whose usage comes before/without what was
expected, images sized from their own headers — and every transcript in the fixtures is checked for
imported calls == the log's own distinct API responses with a valid history."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.importers import load_all, load_transcript
from contextwindow.importers.report import import_report
from contextwindow.messages import ImagePart, Message
from contextwindow.store import open_store
from contextwindow.tokens import counter_for, image_tokens
from contextwindow.turns import validate

# --- a Claude Code log generator ----------------------------------------------------------


class CC:
    """Builds Claude Code records: one API response per ``reply`` (split into one record per block)."""

    def __init__(self, seed: int, *, sidechain: bool = False, session: str = "s1") -> None:
        self.rng = random.Random(seed)
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.n = 0
        self.sidechain = sidechain
        self.session = session

    def uid(self) -> str:
        self.n += 1
        return f"{self.session}-{'side' if self.sidechain else 'main'}-{self.n}-{self.rng.randrange(10**6)}"

    def _rec(self, type_: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        u = self.uid()
        rec = {"type": type_, "uuid": u, "parentUuid": self.parent, "sessionId": self.session, "isSidechain": self.sidechain, "message": message, **extra}
        self.records.append(rec)
        self.parent = u
        return rec

    def user(self, text: str) -> None:
        self._rec("user", {"role": "user", "content": text})

    def reply(self, tools: int = 0, model: str = "claude-sonnet-4-5", text: bool = True) -> list[str]:
        mid = f"msg_{self.rng.randrange(16**12):012x}"
        usage = {
            "input_tokens": self.rng.randrange(1, 50),
            "cache_read_input_tokens": self.rng.randrange(1000, 9000),
            "cache_creation_input_tokens": self.rng.randrange(0, 900),
            "output_tokens": self.rng.randrange(5, 400),
        }
        blocks: list[dict[str, Any]] = [{"type": "text", "text": f"step {self.rng.random():.6f}"}] if text else []
        ids = [f"toolu_{self.rng.randrange(16**10):010x}" for _ in range(tools)]
        blocks += [{"type": "tool_use", "id": i, "name": "Bash", "input": {"command": f"ls {k}"}} for k, i in enumerate(ids)]
        for b in blocks:
            self._rec("assistant", {"role": "assistant", "id": mid, "model": model, "content": [b], "usage": usage})
        for i in ids:
            self._rec("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": f"out {i}"}]})
        return ids

    def turn(self, steps: int) -> None:
        self.user(f"please do task {self.rng.randrange(1000)}")
        for _ in range(steps):
            self.reply(tools=self.rng.randrange(1, 3))
        self.reply(tools=0)


def distinct_responses(records: list[dict[str, Any]]) -> int:
    return len({r["message"]["id"] for r in records if r.get("type") == "assistant" and r["message"].get("model") != "<synthetic>"})


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def assert_valid(messages: list[Message], provider: str = "anthropic") -> None:
    assert validate(messages, provider) == []
    assert messages[0].role in ("user", "system")


# --- Claude Code ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dangling_compact_boundary_continues_at_the_previous_main_line_record(tmp_path: Path, seed: int) -> None:
    cc = CC(seed)
    for _ in range(4):
        cc.turn(steps=3)
    before = list(cc.records)
    boundary = {
        "type": "system", "subtype": "compact_boundary", "uuid": "boundary-1", "parentUuid": None,
        "logicalParentUuid": "not-in-this-file", "sessionId": "s1", "compactMetadata": {"trigger": "auto", "preTokens": 167_000},
    }
    cc.records.append(boundary)
    cc.parent = "boundary-1"
    cc._rec("user", {"role": "user", "content": "This session is being continued from a previous conversation. Summary: …"}, isCompactSummary=True)
    for _ in range(3):
        cc.turn(steps=2)
    s = load_transcript(write(tmp_path / "s.jsonl", cc.records))
    assert len(s.calls) == distinct_responses(cc.records)
    assert len([c for c in s.calls if c.index < s.checkpoints[0].upto]) == distinct_responses(before)
    assert s.checkpoints[0].pre_tokens == 167_000
    assert_valid(s.messages)
    assert import_report(s)["repaired"] == {"dangling parent link followed in file order": 1}


@pytest.mark.parametrize("seed", [4, 5])
def test_inline_sidechains_become_linked_child_conversations(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    main = CC(seed)
    main.user("build the app")
    records: list[dict[str, Any]] = []
    tasks: list[str] = []
    mid = "msg_task_call"
    main_usage = {"input_tokens": 3, "cache_read_input_tokens": 5000, "output_tokens": 90}
    task_ids = []
    for k in range(3):
        tid = f"toolu_task{k}"
        prompt = f"sub-task {k}: {rng.random():.5f}"
        tasks.append(prompt)
        task_ids.append(tid)
        main._rec("assistant", {"role": "assistant", "id": mid, "model": "claude-sonnet-4-5", "usage": main_usage,
                                "content": [{"type": "tool_use", "id": tid, "name": "Task", "input": {"prompt": prompt, "description": f"t{k}"}}]})
    records = list(main.records)
    side_total = 0
    results = []
    for k, prompt in enumerate(tasks):
        side = CC(seed * 100 + k, sidechain=True)
        side.user(prompt)
        for _ in range(rng.randrange(2, 5)):
            side.reply(tools=1)
        side.reply(tools=0)
        side_total += distinct_responses(side.records)
        records += side.records  # inline, in file order, between the parent's records
        results.append({"type": "tool_result", "tool_use_id": task_ids[k], "content": f"done {k}"})
    main.records = []
    main.parent = records[len([r for r in records if not r["isSidechain"]]) - 1]["uuid"]
    for r in results:
        main._rec("user", {"role": "user", "content": [r]})
    main.reply(tools=0)
    records += main.records
    sessions = load_all(write(tmp_path / "old.jsonl", records))
    parent, children = sessions[0], sessions[1:]
    assert len(children) == 3
    assert sum(len(s.calls) for s in sessions) == distinct_responses(records)
    assert sum(len(c.calls) for c in children) == side_total
    assert [c.meta["parent"]["tool_call_id"] for c in children] == task_ids
    assert parent.meta["subagents"] == 3 and parent.meta["subagent_calls"] == side_total
    for s in sessions:
        assert_valid(s.messages)


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_history_rewritten_on_resume_keeps_one_copy_in_order(tmp_path: Path, seed: int) -> None:
    cc = CC(seed)
    for _ in range(3):
        cc.turn(steps=3)
    original = list(cc.records)
    # Resume: the same records written again under new uuids (same message.ids), then the session goes on.
    cc.parent = None
    remap: dict[str, str] = {}
    for r in original:
        copy = json.loads(json.dumps(r))
        copy["uuid"] = remap[r["uuid"]] = r["uuid"] + "-resumed"
        copy["parentUuid"] = remap.get(r["parentUuid"]) if r["parentUuid"] else None
        cc.records.append(copy)
    cc.parent = cc.records[-1]["uuid"]
    cc.turn(steps=2)
    s = load_transcript(write(tmp_path / "resumed.jsonl", cc.records))
    assert len(s.calls) == distinct_responses(cc.records)
    assert len({c.response_id for c in s.calls}) == len(s.calls)
    assert_valid(s.messages)
    rep = import_report(s)
    assert "orphan tool result kept as user text" not in rep["repaired"]
    assert rep["dropped"].get("record of an abandoned branch", 0) == 0


def test_rewritten_history_mixed_into_the_chain(tmp_path: Path) -> None:
    """The resumed copy links back into the original for part of the way: each response still once."""
    cc = CC(9)
    for _ in range(2):
        cc.turn(steps=2)
    original = list(cc.records)
    half = len(original) // 2
    cc.parent = original[half - 1]["uuid"]
    for r in original[half:]:
        copy = json.loads(json.dumps(r))
        copy["uuid"] = r["uuid"] + "-again"
        copy["parentUuid"] = cc.parent
        cc.records.append(copy)
        cc.parent = copy["uuid"]
    cc.turn(steps=1)
    s = load_transcript(write(tmp_path / "mixed.jsonl", cc.records))
    assert len(s.calls) == distinct_responses(cc.records)
    assert_valid(s.messages)


# --- Codex ---------------------------------------------------------------------------------


def codex_rollout(seed: int, *, usage_first: bool = False, late_items: bool = False, old_style: bool = False, repeats: bool = False, model: bool = True) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"type": "session_meta", "payload": {"id": "r1", "cli_version": "0.47.0", "base_instructions": {"text": "You are Codex."}}}]
    if model:
        out.append({"type": "turn_context", "payload": {"model": "gpt-5-codex"}})
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}

    def count() -> None:
        last = {"input_tokens": rng.randrange(2000, 9000), "cached_input_tokens": rng.randrange(0, 1500), "output_tokens": rng.randrange(10, 300)}
        for k in total:
            total[k] += last[k]
        if old_style:
            out.append({"type": "event_msg", "payload": {"type": "token_count", **last}})
        else:
            info = {"total_token_usage": dict(total), "last_token_usage": last, "model_context_window": 258_400}
            out.append({"type": "event_msg", "payload": {"type": "token_count", "info": info}})
        if repeats:
            out.append(dict(out[-1]))

    for t in range(3):
        out.append({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"task {t}"}]}})
        for k in range(rng.randrange(1, 4)):
            cid = f"call_{t}_{k}"
            out.append({"type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA" + "x" * 40}})
            out.append({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": cid}})
            count()
            out.append({"type": "response_item", "payload": {"type": "function_call_output", "call_id": cid, "output": "ok"}})
        final = {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}}
        if late_items:  # the usage event sits between the response's items
            out.append({"type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAB"}})
            count()
            out.append(final)
        elif usage_first:  # the usage event is written before the response's items
            count()
            out.append(final)
        else:
            out.append(final)
            count()
    return out


def distinct_token_counts(records: list[dict[str, Any]]) -> int:
    keys = set()
    for r in records:
        p = r.get("payload") or {}
        if r["type"] == "event_msg" and p.get("type") == "token_count" and (p.get("info") is not None or "input_tokens" in p):
            keys.add(json.dumps(p, sort_keys=True))
    return len(keys)


@pytest.mark.parametrize(
    ("usage_first", "late_items", "old_style", "repeats"),
    [(False, False, False, False), (True, False, False, False), (False, True, False, False), (False, False, True, False), (True, False, True, True), (False, True, False, True)],
)
def test_codex_usage_kept_for_every_response(tmp_path: Path, usage_first: bool, late_items: bool, old_style: bool, repeats: bool) -> None:
    recs = codex_rollout(11, usage_first=usage_first, late_items=late_items, old_style=old_style, repeats=repeats)
    s = load_transcript(write(tmp_path / "rollout.jsonl", recs))
    with_usage = [c for c in s.calls if c.reported_input_tokens is not None]
    assert len(with_usage) == len(s.calls) == distinct_token_counts(recs)
    assert s.calls[-1].reported_input_tokens is not None  # the last call keeps its usage
    assert s.messages[-1].role == "assistant" and s.messages[s.calls[-1].index].role == "assistant"
    assert_valid(s.messages, "openai")
    if not old_style:
        assert s.meta["model_context_window"] == 258_400


# --- images -----------------------------------------------------------------------------------


def png(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def gif(w: int, h: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", w, h) + b"\x00\x00\x00"


def jpeg(w: int, h: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof


def webp(w: int, h: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00" + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


@pytest.mark.parametrize(("make", "media"), [(png, "image/png"), (gif, "image/gif"), (jpeg, "image/jpeg"), (webp, "image/webp")])
def test_images_sized_from_their_headers_and_costed_per_provider(tmp_path: Path, make: Any, media: str) -> None:
    rng = random.Random(media)
    w, h = rng.randrange(200, 3000), rng.randrange(200, 3000)
    data = base64.b64encode(make(w, h)).decode()
    cc = CC(12)
    cc._rec("user", {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}]})
    cc.reply()
    s = load_transcript(write(tmp_path / "img.jsonl", cc.records))
    (img,) = [p for m in s.messages for p in m.parts if isinstance(p, ImagePart)]
    assert (img.width, img.height) == (w, h)
    assert counter_for("claude-sonnet-4-5").count_image(img) == image_tokens("anthropic", w, h)  # type: ignore[attr-defined]
    codex = [
        {"type": "session_meta", "payload": {"id": "r"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": f"data:{media};base64,{data}"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}},
    ]
    s2 = load_transcript(write(tmp_path / "img-rollout.jsonl", codex))
    (img2,) = [p for m in s2.messages for p in m.parts if isinstance(p, ImagePart)]
    assert (img2.width, img2.height) == (w, h)
    assert counter_for("gpt-4o").count_image(img2) == image_tokens("openai", w, h)  # type: ignore[attr-defined]


# --- every fixture ------------------------------------------------------------------------------


def _fixture_files(transcripts_dir: Path) -> list[Path]:
    return sorted(p for p in transcripts_dir.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".traj"))


def test_every_fixture_imports_every_response_with_a_valid_history(transcripts_dir: Path) -> None:
    checked = 0
    for path in _fixture_files(transcripts_dir):
        sessions = load_all(path)
        provider = "anthropic" if path.parent.name == "claude_code" else "openai"
        for s in sessions:
            assert validate(s.messages, provider) == [], path.name
        calls = sum(len(s.calls) for s in sessions)
        lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.suffix == ".jsonl" else []
        if path.parent.name == "claude_code":
            assert calls == distinct_responses([r for r in lines if isinstance(r.get("message"), dict)]), path.name
            checked += 1
        elif path.parent.name == "codex":
            with_usage = sum(1 for s in sessions for c in s.calls if c.reported_input_tokens is not None)
            assert with_usage == distinct_token_counts(lines), path.name
            checked += 1
    assert checked >= 10


# --- ctxw import ----------------------------------------------------------------------------------


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_import_directory_recursively_once_and_fail_loudly(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    (root / "a" / "b").mkdir(parents=True)
    cc = CC(13)
    cc.turn(steps=2)
    write(root / "a" / "one.jsonl", cc.records)
    write(root / "a" / "b" / "two.jsonl", codex_rollout(14))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    code, out, _ = _run("import", str(root), "--store", url, "--json")
    assert code == 0
    doc = json.loads(out)
    assert sorted(Path(c["source"]).name for c in doc["conversations"]) == ["one.jsonl", "two.jsonl"]
    assert all("report" in c for c in doc["conversations"])
    # the same content again (a copy under another name): not stored twice
    write(root / "copy.jsonl", cc.records)
    code, out, _ = _run("import", str(root), "--store", url, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["conversations"] == [] and len(doc["already_imported"]) == 3
    store = open_store(url)
    try:
        assert len(store.list_conversations()) == 2
    finally:
        store.close()
    # one bad file among good ones: the good ones import, the exit status says a file failed
    (root / "bad.jsonl").write_text("# nothing\n")
    code, out, err = _run("import", str(root / "bad.jsonl"), str(root / "a" / "one.jsonl"), "--store", url)
    assert code == 1 and "1 of 2 file(s) could not be imported" in err


def test_import_reports_repairs_by_kind_on_stderr_and_in_json(tmp_path: Path) -> None:
    cc = CC(16)
    cc.turn(steps=2)
    cc.records.append({"type": "system", "subtype": "compact_boundary", "uuid": "b", "parentUuid": None, "logicalParentUuid": "gone", "sessionId": "s1"})
    cc.parent = "b"
    cc._rec("user", {"role": "user", "content": "continued"}, isCompactSummary=True)
    cc.turn(steps=1)
    path = write(tmp_path / "s.jsonl", cc.records)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    code, out, err = _run("import", str(path), "--store", url)
    assert code == 0 and "repaired 1 (1 dangling parent link followed in file order)" in err
    code, out, err = _run("inspect", str(path), "--json")
    assert code == 0 and json.loads(out)["import_report"]["repaired"] == {"dangling parent link followed in file order": 1}
    code, out, err = _run("replay", str(path), "--json", "--policy", "none")
    assert code == 0, err
    assert json.loads(out)["import_report"]["repaired"] == {"dangling parent link followed in file order": 1}
