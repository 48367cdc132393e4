"""``ctxw inspect`` names every step the log does not explain: a call whose reported prompt changed by more
than UNEXPLAINED_TOKENS beyond the estimated change (content the client attached or cut without logging
it), with what the log shows about that step — in the text and in ``--json``. On a Claude Code log written
here (seeded), whose usage is the project's own estimate plus what chosen steps attached unlogged, and on
a real transcript."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.importers import load_all
from contextwindow.replay.accuracy import CAUSES, UNEXPLAINED_TOKENS, points, unexplained

MODEL = "claude-sonnet-4-5-20250929"
CWD = "/work/app"
PREFIX = 18_000  # the system prompt and tools the log does not hold


def _records(rng: random.Random, paths: list[str], usage: list[int] | None) -> list[dict[str, Any]]:
    """A user turn, then one Read per path (assistant tool_use + user tool_result), then a closing reply;
    the assistant records carry ``usage[k]`` as their whole prompt (all of it cache read)."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    n = 0

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent, n
        n += 1
        uid = f"u{n:04d}"
        out.append({"type": kind, "uuid": uid, "parentUuid": parent, "sessionId": "s1", "cwd": CWD, "version": "2.0.76",
                    "timestamp": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z", "message": message, **extra})
        parent = uid

    add("user", {"role": "user", "content": "review the loaders"})
    for k, path in enumerate([*paths, None]):
        reported = usage[k] if usage else 1
        body: list[dict[str, Any]] = [{"type": "text", "text": f"step {k}"}]
        if path is not None:
            body.append({"type": "tool_use", "id": f"toolu_{k:03d}", "name": "Read", "input": {"file_path": path}})
        add("assistant", {"role": "assistant", "id": f"msg_{k:03d}", "model": MODEL, "content": body,
                          "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": reported - 3, "output_tokens": 0}})
        if path is not None:
            text = "\n".join(f"{i:6}\u2192const v{i} = load('{path}', {rng.randrange(10**6)});" for i in range(1, 60))
            add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k:03d}", "content": text}]})
    return out


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _log(tmp_path: Path, seed: int, paths: list[str], attached: dict[int, int]) -> Path:
    """The log, its usage = PREFIX + the project's estimate of each call + what earlier steps attached."""
    f = tmp_path / f"session-{seed}.jsonl"
    _write(f, _records(random.Random(seed), paths, None))
    est = [p.estimated for p in points(load_all(f)[0])]
    extra = 0
    usage = []
    for k, e in enumerate(est):
        extra += attached.get(k, 0)
        usage.append(PREFIX + e + extra)
    _write(f, _records(random.Random(seed), paths, usage))
    return f


def test_inspect_names_the_steps_the_log_does_not_explain(tmp_path: Path) -> None:
    paths = [f"{CWD}/src/a.ts", f"{CWD}/src/b.ts", f"{CWD}/src/agents/c.ts", f"{CWD}/src/agents/d.ts"]
    # the read under src/agents/ (call 3) came with 2,400 unlogged tokens; the read of b.ts with 300 (under the bar)
    f = _log(tmp_path, 7, paths, {2: 300, 3: 2_400})
    res = CliRunner().invoke(cli, ["inspect", str(f), "--json"])
    assert res.exit_code == 0, res.output
    steps = json.loads(res.stdout)["unexplained_steps"]
    assert len(steps) == 1
    (s,) = steps
    assert s["tokens"] == 2_400 and s["reported_delta"] - s["estimated_delta"] == 2_400
    assert s["cause"] == CAUSES[4]  # a first read under src/agents/ that grew beyond the log
    session = load_all(f)[0]
    assert s["index"] == [c.index for c in session.calls][3]
    text = CliRunner().invoke(cli, ["inspect", str(f)])
    assert text.exit_code == 0, text.output
    assert f"steps the log does not explain (reported change beyond the estimate by > {UNEXPLAINED_TOKENS:,} tokens): 1, 2,400 tokens" in text.output
    assert f"@ message {s['index']}" in text.output and "first read under a directory" in text.output


def test_a_log_that_explains_every_step_says_none(tmp_path: Path) -> None:
    f = _log(tmp_path, 8, [f"{CWD}/src/a.ts", f"{CWD}/lib/b.ts"], {})
    res = CliRunner().invoke(cli, ["inspect", str(f)])
    assert res.exit_code == 0, res.output
    assert "steps the log does not explain (reported change beyond the estimate by > 500 tokens): none" in res.output


def test_a_fall_is_named_as_one(tmp_path: Path) -> None:
    # the client cut 6,000 tokens before the last call without logging it (an unlogged microcompact)
    f = _log(tmp_path, 9, [f"{CWD}/src/a.ts", f"{CWD}/src/b.ts", f"{CWD}/src/c.ts"], {3: -6_000})
    steps = unexplained(points(load_all(f)[0]))
    assert [(u.tokens, u.cause) for u in steps] == [(-6_000, CAUSES[1])]


def test_inspect_names_the_nested_claude_md_step_of_a_real_session(transcripts_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["inspect", str(transcripts_dir / "claude_code" / "codemie_session-624a4a58.jsonl"), "--json"])
    assert res.exit_code == 0, res.output
    steps = json.loads(res.stdout)["unexplained_steps"]
    first_reads = [s for s in steps if s["cause"] == CAUSES[4]]
    assert [s["index"] for s in first_reads] == [19]  # the first reads under src/agents/
    assert first_reads[0]["tokens"] > 5_000
    assert all(abs(s["tokens"]) > UNEXPLAINED_TOKENS for s in steps)


def test_a_log_without_usage_cannot_tell(tmp_path: Path) -> None:
    records = _records(random.Random(5), [f"{CWD}/src/a.ts"], None)
    for r in records:
        r["message"].pop("usage", None)
    f = tmp_path / "no-usage.jsonl"
    _write(f, records)
    res = CliRunner().invoke(cli, ["inspect", str(f)])
    assert res.exit_code == 0, res.output
    assert "steps the log does not explain (reported change beyond the estimate by > 500 tokens): cannot tell" in res.output
