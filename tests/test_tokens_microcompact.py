"""Tool results Claude Code cleared from what it sent while its log keeps them (microcompact): a
``microcompact_boundary`` record names them, the import turns it into a clearing, and the estimate of every
later call counts the marker Claude Code sent in their place; without the record (Claude Code 2.0.x wrote
none) the fall is labelled as one the log cannot show and the growth re-anchors after it. Seeded logs made
here, with usage derived from the project's own counter so the only miss is what the log does (not) say."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from contextwindow.importers import load_transcript
from contextwindow.importers.model import CLEARED_RESULT_TEXT
from contextwindow.importers.report import import_report
from contextwindow.replay.accuracy import CAUSES, UNLOGGED, measure, points
from contextwindow.replay.engine import provider_view
from contextwindow.tokens import counter_for
from contextwindow.turns import validate

MODEL = "claude-sonnet-4-5-20250929"
BASE = 20_000  # the unlogged system prompt and tools
WORDS = ["const", "session", "=", "await", "load(path);", "if", "(!ok)", "return", "tokens", "//", "cache", "{", "}", "read"]


def _text(rng: random.Random, lines: int) -> str:
    return "\n".join(f"{n:6}→" + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12))) for n in range(1, lines + 1))


def session_records(seed: int, *, boundary: bool, usage: list[int] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """A Claude Code session: a user turn, ten responses each reading a file, and (when ``boundary``) a
    ``microcompact_boundary`` after the seventh response clearing the first five reads (plus one id this
    log does not hold). ``usage[k]`` is the k-th response's reported prompt. Returns the records and the
    cleared ids."""
    rng = random.Random(seed)
    recs: list[dict[str, Any]] = []
    parent: str | None = None
    n = 0

    def add(rec: dict[str, Any]) -> None:
        nonlocal parent, n
        n += 1
        rec.update(uuid=f"u{seed}-{n}", parentUuid=parent, sessionId=f"s{seed}", version="2.1.80", cwd="/work/app", isSidechain=False)
        recs.append(rec)
        parent = rec["uuid"]

    add({"type": "user", "message": {"role": "user", "content": "read the loader files and fix the cache bug"}})
    read_ids: list[str] = []
    for k in range(10):
        tid = f"toolu_{seed}_{k:02d}"
        read_ids.append(tid)
        reported = usage[k] if usage else 1
        u = {"input_tokens": reported, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": rng.randrange(40, 200)}
        mid = f"msg_{seed}_{k}"
        for block in ({"type": "text", "text": f"Reading part {k}."}, {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"/work/app/src/f{k}.ts"}}):
            add({"type": "assistant", "message": {"role": "assistant", "id": mid, "model": MODEL, "content": [block], "usage": u}})
        if boundary and k == 6:
            cleared = [*read_ids[:5], "toolu_not_in_this_log"]
            add({"type": "system", "subtype": "microcompact_boundary", "content": "Context microcompacted", "level": "info",
                 "microcompactMetadata": {"trigger": "auto", "preTokens": 0, "tokensSaved": 9_000, "compactedToolIds": cleared}})
        add({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": _text(rng, rng.randrange(60, 200))}]}})
    return recs, read_ids[:5]


def write(path: Path, recs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def billed(tmp_path: Path, seed: int) -> list[int]:
    """Each call's prompt as the provider saw it: the system prefix plus our count of the view with the
    cleared results sent as the marker (the truth these logs are made from)."""
    recs, _ = session_records(seed, boundary=True)
    s = load_transcript(write(tmp_path / "truth.jsonl", recs))
    counter = counter_for(MODEL)
    return [BASE + counter.count_messages(provider_view(s, c)) for c in s.calls]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_logged_microcompact_clears_the_named_results_from_the_estimate(tmp_path: Path, seed: int) -> None:
    usage = billed(tmp_path, seed)
    assert usage[6] < usage[5] - 1_000  # the clearing makes the reported prompt fall
    recs, cleared_ids = session_records(seed, boundary=True, usage=usage)
    s = load_transcript(write(tmp_path / "s.jsonl", recs))
    assert len(s.calls) == 10 and validate(s.messages, "anthropic") == []
    (cl,) = s.clearings
    assert cl.call_ids == tuple(cleared_ids) and cl.trigger == "auto" and cl.tokens_saved == 9_000
    assert cl.at == s.calls[6].index  # effective from the response written just before the record
    assert s.meta["record_types"]["system:microcompact_boundary"] == 1
    assert import_report(s)["dropped"] == {"microcompact_boundary id not in the conversation": 1}
    before, after = provider_view(s, s.calls[5]), provider_view(s, s.calls[6])
    assert sum(CLEARED_RESULT_TEXT in m.text for m in before) == 0
    assert sum(any(getattr(p, "call_id", None) in cleared_ids and p.text == CLEARED_RESULT_TEXT for p in m.parts) for m in after) == 5
    # The log itself keeps every result whole.
    assert all(CLEARED_RESULT_TEXT not in m.text for m in s.messages)
    pts = points(s)
    assert [p.reported for p in pts] == usage
    acc = measure(pts)
    assert CAUSES[1] not in {p.cause for p in pts}
    assert max(acc.step) < 0.001 and max(acc.growth) < 0.001


@pytest.mark.parametrize("seed", [4, 5])
def test_an_unlogged_microcompact_is_a_fall_the_growth_re_anchors_after(tmp_path: Path, seed: int) -> None:
    usage = billed(tmp_path, seed)
    recs, _ = session_records(seed, boundary=False, usage=usage)
    s = load_transcript(write(tmp_path / "s.jsonl", recs))
    assert s.clearings == []
    pts = points(s)
    assert [p.cause for p in pts].count(CAUSES[1]) == 1 and pts[6].cause == CAUSES[1]
    first = measure(pts)
    re_anchored = measure(pts, reanchor=UNLOGGED)
    # Anchored at the first call, every later growth carries the cleared results; re-anchored on the
    # report after the fall, the estimate follows the bill again. The fall's own step error stays in both.
    assert max(first.growth) > 0.1
    assert max(re_anchored.growth) < 0.001
    assert max(re_anchored.step) == max(first.step) > 0.05


@pytest.mark.parametrize(
    "metadata",
    [None, "cleared", {"compactedToolIds": "toolu_1"}, {"compactedToolIds": [3, None]}, {"compactedToolIds": ["toolu_gone"]}],
)
def test_a_boundary_with_nothing_to_clear_is_counted_not_applied(tmp_path: Path, metadata: Any) -> None:
    recs, _ = session_records(6, boundary=True)
    for r in recs:
        if r.get("subtype") == "microcompact_boundary":
            r["microcompactMetadata"] = metadata
    s = load_transcript(write(tmp_path / "s.jsonl", recs))
    assert s.clearings == [] and len(s.calls) == 10
    dropped = import_report(s)["dropped"]
    assert dropped["microcompact_boundary record with nothing to clear"] == 1
    assert dropped.get("microcompact_boundary id not in the conversation", 0) == (1 if metadata == {"compactedToolIds": ["toolu_gone"]} else 0)
