"""Each step of an imported session is labelled by what its log shows (replay/accuracy.py CAUSES): a
step that reads a file in a directory no earlier Read touched, and whose reported prompt grew more than
500 tokens beyond the log, is labelled a first read there (Claude Code attaches that directory's
CLAUDE.md, when it has one, without logging it); the growth re-anchors after it. Sessions built here,
their usage made from the project's own counter plus what each step attached unlogged."""

from __future__ import annotations

import json

import pytest

from contextwindow.importers import CallRecord, ImportedSession
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, UNLOGGED, measure, points
from contextwindow.tokens import counter_for

FIRST_READ = CAUSES[4]
MODEL = "claude-sonnet-4-5"


def _session(paths: list[str], attached: list[int], cwd: str | None = "/work/app") -> ImportedSession:
    """One Read per step of ``paths``; step k's reported prompt also holds ``attached[k]`` tokens the log
    does not (what Claude Code attached with that read's result)."""
    counter = counter_for(MODEL)
    msgs = [Message("user", (TextPart("look at the code"),))]
    index = []
    for k, path in enumerate(paths):
        index.append(len(msgs))
        msgs.append(Message("assistant", (ToolCallPart(f"c{k}", "Read", json.dumps({"file_path": path})),)))
        body = "\n".join(f"{n:6}→const v{n} = load('{path}', {n});" for n in range(1, 40))
        msgs.append(Message("tool", (ToolResultPart(f"c{k}", (TextPart(body),), name="Read"),)))
    index.append(len(msgs))
    msgs.append(Message("assistant", (TextPart("done"),)))
    calls = []
    unlogged = 0
    for k, i in enumerate(index):
        if k > 0:
            unlogged += attached[k - 1]
        calls.append(CallRecord(index=i, reply_end=i + 1, reported_input_tokens=20_000 + counter.count_messages(msgs[:i]) + unlogged, model=MODEL))
    return ImportedSession("claude-code", "made.jsonl", msgs, calls, meta={"cwd": cwd} if cwd else {})


@pytest.mark.parametrize(
    ("paths", "attached", "want"),
    [
        # src/ then src/agents/ are new and came with an attachment; a second file there is not new
        (["/work/app/src/a.ts", "/work/app/src/agents/b.ts", "/work/app/src/agents/c.ts"], [2_000, 3_000, 0], [True, True, False]),
        # a new directory that attached nothing (no CLAUDE.md there) is not labelled
        (["/work/app/lib/a.ts", "/work/app/docs/b.md"], [0, 1_500], [False, True]),
        # a deeper first read counts once, its parents with it; the cwd's own files attach nothing new
        (["/work/app/src/x/y/z.ts", "/work/app/src/x/w.ts", "/work/app/README.md"], [2_500, 2_500, 2_500], [True, False, False]),
        # outside the working directory: no nested CLAUDE.md of the project
        (["/etc/hosts", "/work/other/src/a.ts"], [2_000, 2_000], [False, False]),
    ],
)
def test_a_read_in_a_new_directory_that_grew_beyond_the_log_is_labelled(paths: list[str], attached: list[int], want: list[bool]) -> None:
    pts = points(_session(paths, attached))
    assert [p.cause == FIRST_READ for p in pts[1:]] == want


def test_the_growth_re_anchors_after_an_unlogged_attachment() -> None:
    paths = ["/work/app/src/a.ts", "/work/app/src/b.ts", "/work/app/src/c.ts", "/work/app/src/d.ts"]
    pts = points(_session(paths, [3_000, 0, 0, 0]))
    assert pts[1].cause == FIRST_READ
    first, re_anchored = measure(pts), measure(pts, reanchor=UNLOGGED)
    assert min(first.growth) > 0.2  # every later growth carries the 3,000 unlogged tokens
    assert max(re_anchored.growth) < 0.001
    assert max(first.step) == max(re_anchored.step) > 0.05  # the step itself still counts


def test_without_a_cwd_in_the_log_no_step_is_a_first_read() -> None:
    pts = points(_session(["/work/app/src/a.ts", "/work/app/lib/b.ts"], [2_000, 2_000], cwd=None))
    assert all(p.cause == CAUSES[-1] for p in pts[1:])
