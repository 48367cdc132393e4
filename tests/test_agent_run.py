"""``ctxw run`` through click's runner against the real local server (both protocols).

Every assertion is on what the server received or on what the CLI printed and stored; nothing of
ours is patched."""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from contextwindow.cli.main import cli
from contextwindow.llm import LocalProviderServer, ReceivedRequest, Reply, ToolCallSpec
from contextwindow.store import open_store

MODEL = "gpt-5.4-mini"  # no retirement date (gpt-4.1-mini retires 2027-01-14: `ctxw run` would say so on stderr)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    (d / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (d / "src").mkdir()
    (d / "src" / "app.py").write_text("def main():\n    return 1\n")
    return d


def run(srv: LocalProviderServer | None, work: Path, *args: str, provider: str = "openai", env: dict[str, str] | None = None) -> Result:
    base = [] if srv is None else ["--base-url", srv.openai_base_url if provider == "openai" else srv.base_url]
    store = f"sqlite:///{work.parent / 'store.db'}"
    argv = ["run", *args, "--model", MODEL, "--provider", provider, "--store", store, "--cwd", str(work), *base]
    return CliRunner().invoke(cli, argv, env={"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "HOME": str(work.parent), **(env or {})})


def tool_msgs(body: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


def test_run_parallel_tools_confined_and_json(work: Path) -> None:
    (work / "escape").symlink_to("/etc")
    calls = (
        ToolCallSpec("read_file", {"path": "a.txt"}, id="c1"),
        ToolCallSpec("bash", {"command": "echo hi; exit 3"}, id="c2"),
        ToolCallSpec("read_file", {"path": "../store.db"}, id="c3"),
        ToolCallSpec("read_file", {"path": "escape/hostname"}, id="c4"),
        ToolCallSpec("grep", {"pattern": "ret", "glob": "*.py"}, id="c5"),
    )
    with LocalProviderServer([Reply(tool_calls=calls), "all done"]) as srv:
        r = run(srv, work, "look around", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["answer"] == "all done" and out["stopped"] == "answer"
    assert len(out["calls"]) == 2 and all(c["usage"]["input_tokens"] > 0 for c in out["calls"])
    assert out["cost_usd"] == pytest.approx(sum(c["cost_usd"] for c in out["calls"])) and out["cost_usd"] > 0
    # the five calls of one response are answered together, in call order, before the next call
    second = srv.bodies[1]
    results = tool_msgs(second)
    assert list(results) == ["c1", "c2", "c3", "c4", "c5"]
    assert "1\talpha" in results["c1"]
    assert "hi" in results["c2"] and "[exit code 3]" in results["c2"]
    assert "outside the working directory" in results["c3"]
    assert "outside the working directory" in results["c4"]  # a symlink out is refused, not followed
    assert "src/app.py:2:    return 1" in results["c5"]
    roles = [m["role"] for m in out["messages"]]
    assert roles[:3] == ["system", "user", "assistant"] and roles.count("tool") == 5 and roles[-1] == "assistant"
    assert open_store(f"sqlite:///{work.parent / 'store.db'}").get_conversation(out["conversation_id"])


def test_bad_arguments_and_raising_tools_are_error_results(work: Path) -> None:
    calls = (
        ToolCallSpec("read_file", '{"path": "a.txt"', id="bad"),  # malformed JSON
        ToolCallSpec("write_file", {"path": "a.txt/inner", "content": "x"}, id="oserr"),  # a file is not a directory
        ToolCallSpec("edit_file", {"path": "a.txt", "old": "a", "new": "b"}, id="many"),
        ToolCallSpec("no_such_tool", {}, id="unknown"),
        ToolCallSpec("read_file", {"path": 3}, id="type"),
    )
    with LocalProviderServer([Reply(tool_calls=calls), Reply(tool_calls=(ToolCallSpec("edit_file", {"path": "a.txt", "old": "beta", "new": "BETA"}, id="ok"),)), "ok"]) as srv:
        r = run(srv, work, "edit")
    assert r.exit_code == 0, r.output
    res = tool_msgs(srv.bodies[1])
    assert "not valid JSON" in res["bad"]
    assert res["oserr"].startswith("error:")
    assert "occurs 5 times" in res["many"]
    assert "no tool 'no_such_tool'" in res["unknown"]
    assert "path must be a string" in res["type"]
    assert (work / "a.txt").read_text() == "alpha\nBETA\ngamma\n"
    assert "replaced 1 occurrence at line 2" in tool_msgs(srv.bodies[2])["ok"]


def test_bash_timeout_kills_and_huge_output_is_clipped(work: Path) -> None:
    big = "seq 1 14000000"  # ~100 MB of output
    calls = (ToolCallSpec("bash", {"command": "sleep 30; echo never", "timeout_s": 0.5}, id="slow"), ToolCallSpec("bash", {"command": big}, id="big"))

    def reply(req: ReceivedRequest) -> Reply | str:
        n = len(srv.requests)
        if n == 1:
            return Reply(tool_calls=calls)
        if n == 2:
            ref = re.search(r"ofl_[0-9a-f]+", tool_msgs(req.body)["big"]).group(0)  # type: ignore[union-attr]
            return Reply(tool_calls=(ToolCallSpec("retrieve", {"ref": ref, "offset": 13999990, "limit": 5}, id="back"),))
        return "done"

    with LocalProviderServer(reply) as srv:
        r = run(srv, work, "run them")
    assert r.exit_code == 0, r.output
    res = tool_msgs(srv.bodies[1])
    assert "killed after 0.5 s" in res["slow"] and "never" not in res["slow"]
    assert len(res["big"]) < 40_000 and "14000000" in res["big"] and "retrieve" in res["big"]
    assert len(srv.requests[1].raw) < 100_000
    back = tool_msgs(srv.bodies[2])["back"]
    assert "13999991" in back and "13999995" in back


def test_anthropic_protocol_streaming(work: Path) -> None:
    with LocalProviderServer([Reply(tool_calls=(ToolCallSpec("list_dir", {}, id="t1"),), stream=True), Reply(text="listed it", stream=True)]) as srv:
        r = run(srv, work, "list", "--json", provider="anthropic")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["answer"] == "listed it"
    assert srv.requests[0].path == "/v1/messages"
    blocks = [b for m in srv.bodies[1]["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
    result = next(b for b in blocks if b.get("type") == "tool_result")
    assert result["tool_use_id"] == "t1" and "a.txt" in json.dumps(result["content"])


def test_openai_streaming_tool_call_fragments(work: Path) -> None:
    calls = (ToolCallSpec("write_file", {"path": "new/dir/n.txt", "content": "line one\nline two\n"}, id="w"),)
    with LocalProviderServer([Reply(tool_calls=calls, stream=True), Reply(text="wrote", stream=True)]) as srv:
        r = run(srv, work, "write")
    assert r.exit_code == 0, r.output
    assert r.output.strip() == "wrote"
    assert (work / "new" / "dir" / "n.txt").read_text() == "line one\nline two\n"


def test_rate_limit_retried_and_resume_last(work: Path) -> None:
    busy = Reply.error(429, {"error": {"type": "rate_limit", "message": "slow down"}}, headers={"retry-after": "0"})
    with LocalProviderServer([busy, "first answer", "second answer"]) as srv:
        assert run(srv, work, "first task").exit_code == 0
        r = run(srv, work, "second task", "--resume", "last", "--json")
    assert r.exit_code == 0, r.output
    assert len(srv.requests) == 3
    sent = json.dumps(srv.bodies[2]["messages"])
    assert "first task" in sent and "first answer" in sent and "second task" in sent


def test_max_turns_stops_with_reason(work: Path) -> None:
    with LocalProviderServer([Reply(tool_calls=(ToolCallSpec("list_dir", {}),))] * 3) as srv:
        r = run(srv, work, "loop", "--max-turns", "2")
    assert r.exit_code == 2
    assert "--max-turns 2" in r.stderr and len(srv.requests) == 2


def test_overflow_compacts_and_retries(work: Path) -> None:
    (work / "big.log").write_text("".join(f"line {i} of the log with some words\n" for i in range(4000)))
    overflow = Reply.error(400, {"error": {"message": "This model's maximum context length is 4000 tokens. However, your messages resulted in 9000 tokens.", "code": "context_length_exceeded"}})
    script = [Reply(tool_calls=(ToolCallSpec("read_file", {"path": "big.log"}, id="r1"),)), Reply(tool_calls=(ToolCallSpec("read_file", {"path": "big.log", "offset": 10}, id="r2"),)), overflow, "fits now"]
    with LocalProviderServer(script) as srv:
        r = run(srv, work, "read the log", "--window", "16000", env={})
    # gpt-4.1-mini is known, so --window overrides its window
    assert r.exit_code == 0, r.stderr
    assert len(srv.requests) == 4
    assert len(srv.requests[3].raw) < len(srv.requests[2].raw)


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--model", "no-such-model-xyz"], {}, "--window"),
        ([], {"OPENAI_API_KEY": ""}, "OPENAI_API_KEY"),
        (["--api-key-env", "MY_KEY"], {}, "MY_KEY"),
        (["--provider", "anthropic"], {}, "ANTHROPIC_API_KEY"),
    ],
)
def test_bad_setup_one_line(work: Path, args: list[str], env: dict[str, str], needle: str) -> None:
    argv = ["run", "t", "--model", MODEL, "--store", f"sqlite:///{work.parent / 's.db'}", "--cwd", str(work), *args]
    r = CliRunner().invoke(cli, argv, env={"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "MY_KEY": "", **env})
    assert r.exit_code != 0
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unreachable_server_names_url(work: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    r = CliRunner().invoke(cli, ["run", "t", "--model", MODEL, "--base-url", url, "--store", f"sqlite:///{work.parent / 's.db'}", "--cwd", str(work)])
    assert r.exit_code != 0
    assert f"127.0.0.1:{port}" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_corrupt_store_refused_untouched(work: Path) -> None:
    bad = work.parent / "corrupt.db"
    bad.write_bytes(b"this is not a database\n" * 100)
    before = bad.read_bytes()
    with LocalProviderServer(["never"]) as srv:
        r = CliRunner().invoke(cli, ["run", "t", "--model", MODEL, "--base-url", srv.openai_base_url, "--store", f"sqlite:///{bad}", "--cwd", str(work)])
    assert r.exit_code != 0 and "refusing to touch it" in r.stderr
    assert bad.read_bytes() == before and not srv.requests
    assert not [p for p in os.listdir(work.parent) if p.startswith("corrupt.db-")]


def test_auto_fold_at_the_threshold_reaches_the_next_call(work: Path) -> None:
    summary = "## Goal\nCount the files.\n## State & done\nCounted: 2 files in /work.\n## Next steps\nReport.\n## Constraints & preferences\n-\n## Data\n-"

    def asks_summary(body: dict) -> bool:  # flat transcript (no tools) or the brief instruction over the cached prefix
        return "tools" not in body or "Write a handoff brief" in json.dumps(body["messages"][-1])

    def reply(req: ReceivedRequest) -> Reply | str:
        if asks_summary(req.body):
            return summary  # the summarizer's call
        if len(srv.requests) == 1:
            return Reply(text="there are 2 files", input_tokens=15_500)  # 97% of a 16k window: fold due
        return "still 2"

    with LocalProviderServer(reply) as srv:
        assert run(srv, work, "count the files", "--window", "16000").exit_code == 0
        r = run(srv, work, "sure?", "--window", "16000", "--resume", "last", "--json")
    assert r.exit_code == 0, r.stderr
    kinds = ["summarizer" if asks_summary(b) else "main" for b in srv.bodies]
    assert kinds == ["main", "summarizer", "main"]
    first = srv.bodies[0]["messages"]
    assert srv.bodies[1]["messages"][: len(first)] == first  # the summary rode the first call's cached prefix
    last = json.dumps(srv.bodies[2]["messages"])
    assert "Counted: 2 files in /work." in last  # the next call starts from the fold's summary
    assert not [m for m in srv.bodies[2]["messages"] if m.get("content") in ("count the files", "there are 2 files")]
    events = CliRunner().invoke(cli, ["sessions", "events", json.loads(r.output)["conversation_id"], "--store", f"sqlite:///{work.parent / 'store.db'}"])
    assert "fold applied (auto" in events.output
