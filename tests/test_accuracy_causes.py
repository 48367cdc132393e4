"""Each step of an imported session is labelled by what its log shows (replay/accuracy.py CAUSES): a
step that reads a file in a directory no earlier Read touched is labelled a first read there (Claude Code
attaches that directory's CLAUDE.md, when it has one, without logging it). Sessions built here."""

from __future__ import annotations

import json

import pytest

from contextwindow.importers import CallRecord, ImportedSession
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, points

FIRST_READ = CAUSES[4]


def _session(paths: list[str], cwd: str | None = "/work/app") -> ImportedSession:
    msgs = [Message("user", (TextPart("look at the code"),))]
    calls = []
    for k, path in enumerate(paths):
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, reported_input_tokens=10_000 + 500 * k, model="claude-sonnet-4-5"))
        msgs.append(Message("assistant", (ToolCallPart(f"c{k}", "Read", json.dumps({"file_path": path})),)))
        msgs.append(Message("tool", (ToolResultPart(f"c{k}", (TextPart(f"     1→line of {path}"),), name="Read"),)))
    calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, reported_input_tokens=10_000 + 500 * len(paths), model="claude-sonnet-4-5"))
    msgs.append(Message("assistant", (TextPart("done"),)))
    return ImportedSession("claude-code", "made.jsonl", msgs, calls, meta={"cwd": cwd} if cwd else {})


@pytest.mark.parametrize(
    ("paths", "want"),
    [
        # src/ then src/agents/ are new; a second file in src/agents/ is not; the top of the cwd has no nested file
        (["/work/app/src/a.ts", "/work/app/src/agents/b.ts", "/work/app/src/agents/c.ts", "/work/app/README.md"], [True, True, False, False]),
        # a deeper first read counts once, its parents with it
        (["/work/app/src/x/y/z.ts", "/work/app/src/x/w.ts", "/work/app/src/v.ts"], [True, False, False]),
        # outside the working directory: no nested CLAUDE.md of the project
        (["/etc/hosts", "/work/other/src/a.ts"], [False, False]),
    ],
)
def test_a_read_in_a_new_directory_under_the_cwd_is_labelled(paths: list[str], want: list[bool]) -> None:
    pts = points(_session(paths))
    assert [p.cause == FIRST_READ for p in pts[1:]] == want


def test_without_a_cwd_in_the_log_no_step_is_a_first_read() -> None:
    pts = points(_session(["/work/app/src/a.ts", "/work/app/lib/b.ts"], cwd=None))
    assert all(p.cause == CAUSES[-1] for p in pts[1:])
