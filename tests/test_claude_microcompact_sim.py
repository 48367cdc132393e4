"""Claude Code 2.0.x cleared old tool results without logging it; the importer simulates its documented rule
(importers/claude_microcompact.py). Seeded logs made here: twelve responses, each reading a file of a chosen
size, with chosen usage, so each condition of the rule (version, warning threshold, minimum saving, the
40k target, the 3 kept) can be switched alone; plus the fixtures where the rule must predict the one fall
and the sessions where it must predict none (skipped without ../shared)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from contextwindow.importers import load_all, load_transcript
from contextwindow.importers.claude_microcompact import SIMULATED_KIND, applies, result_tokens, warning_threshold
from contextwindow.importers.model import CLEARED_RESULT_TEXT
from contextwindow.importers.report import import_report
from contextwindow.messages import TextPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, points, unexplained
from contextwindow.replay.engine import provider_view
from contextwindow.replay.inspect import inspect_session, render_inspection
from contextwindow.tokens import counter_for
from contextwindow.turns import validate

MODEL = "claude-sonnet-4-5-20250929"
WORDS = ["const", "session", "=", "await", "load(path);", "if", "(!ok)", "return", "tokens", "//", "cache", "{", "}"]
READS = 12


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    n = 0
    while n < chars:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12)))
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)[:chars]


def records(
    seed: int, *, version: str = "2.0.76", chars: int = 24_000, usage: list[int] | None = None, tool: str = "Read", compacted_before: int | None = None
) -> list[dict[str, Any]]:
    """A user turn, then ``READS`` responses each calling ``tool`` for one file of ``chars`` characters
    (``chars / 4`` client tokens); ``usage[k]`` is the k-th response's reported prompt (140,000 when not
    given); ``compacted_before``: a logged compaction (boundary + summary) before that response."""
    rng = random.Random(seed)
    recs: list[dict[str, Any]] = []
    parent: str | None = None

    def add(rec: dict[str, Any]) -> None:
        nonlocal parent
        rec.update(uuid=f"u{seed}-{len(recs)}", parentUuid=parent, sessionId=f"s{seed}", version=version, cwd="/w", isSidechain=False)
        recs.append(rec)
        parent = rec["uuid"]

    add({"type": "user", "message": {"role": "user", "content": "read every module and summarise the cache layer"}})
    for k in range(READS):
        if k == compacted_before:
            recs.append({"type": "system", "subtype": "compact_boundary", "uuid": f"b{seed}", "parentUuid": None, "logicalParentUuid": parent,
                         "sessionId": f"s{seed}", "version": version, "compactMetadata": {"trigger": "auto", "preTokens": 150_000}})
            parent = f"b{seed}"
            add({"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": "This session is being continued from a previous conversation. Summary: the cache layer."}})
        u = {"input_tokens": usage[k] if usage else 140_000, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 90}
        tid = f"toolu_{seed}_{k:02d}"
        block = {"type": "tool_use", "id": tid, "name": tool, "input": {"file_path": f"/w/src/m{k}.ts"}}
        add({"type": "assistant", "message": {"role": "assistant", "id": f"msg_{seed}_{k}", "model": MODEL, "content": [block], "usage": u}})
        add({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": _text(rng, chars)}]}})
    return recs


def load(tmp_path: Path, recs: list[dict[str, Any]]) -> Any:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return load_transcript(path)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_rule_clears_the_oldest_results_once_the_saving_reaches_20k(tmp_path: Path, seed: int) -> None:
    s = load(tmp_path, records(seed))
    # 6,000 client tokens per result: with n results sent, clearing the oldest n - 6 brings them to 36k <= 40k;
    # that saves >= 20k first at n = 10 (4 results), then never again (7-9 sent, one to three to clear).
    (cl,) = s.clearings
    assert cl.simulated and cl.trigger is None and cl.tokens_saved == 24_000
    assert cl.at == s.calls[10].index and cl.call_ids == tuple(f"toolu_{seed}_{k:02d}" for k in range(4))
    assert validate(s.messages, "anthropic") == []
    before, after, last = (provider_view(s, s.calls[i]) for i in (9, 10, 11))
    marked = lambda view: [p.call_id for m in view for p in m.parts if isinstance(p, ToolResultPart) and p.text == CLEARED_RESULT_TEXT]  # noqa: E731
    assert marked(before) == [] and marked(after) == list(cl.call_ids) and marked(last) == list(cl.call_ids)
    assert all(CLEARED_RESULT_TEXT not in m.text for m in s.messages)  # the log's messages stay whole
    assert import_report(s)["repaired"] == {SIMULATED_KIND: 1}
    doc = inspect_session(s)
    assert doc["clearings"] == [{"call": 11, "index": cl.at, "results": 4, "tokens_saved": 24_000, "trigger": None, "simulated": True}]
    assert "4 old tool results cleared by Claude Code's microcompact at call 11" in render_inspection(doc)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"version": "2.1.7"}, "2.1.x replaced the rule"),
        ({"version": "1.0.98"}, "1.0.x used other thresholds"),
        ({"version": "unknown"}, "no version"),
        ({"usage": [130_000] * READS}, "below the 135k warning threshold"),
        ({"chars": 12_000}, "results of 3,000: never 40k + 20k to clear"),
        ({"tool": "Task"}, "a sub-agent's result is not compactable"),
        ({"compacted_before": 6}, "a logged compaction restarts the count: 6 results after it, 36k"),
    ],
)
def test_no_clearing_where_a_condition_fails(tmp_path: Path, change: dict[str, Any], why: str) -> None:
    s = load(tmp_path, records(3, **change))
    assert s.clearings == [], why
    assert import_report(s)["repaired"] == {}


@pytest.mark.parametrize(("first", "then", "clears"), [("2.0.76", "2.1.7", False), ("2.1.7", "2.0.76", True)])
def test_a_session_resumed_under_another_version_follows_each_calls_version(tmp_path: Path, first: str, then: str, clears: bool) -> None:
    # The rule fires first at response 10 (test above). Responses 0-5 written by `first`, 6-11 by `then`
    # (a resume after an upgrade or a downgrade): the response of each call decides, not the first record.
    recs = records(5, version=first)
    for r in recs[13:]:  # the user turn, then 6 responses with their results: 13 records
        r["version"] = then
    s = load(tmp_path, recs)
    assert s.meta["version"] == first and [c.client_version for c in s.calls] == [first] * 6 + [then] * 6
    assert (len(s.clearings) == 1) is clears
    if clears:
        assert s.clearings[0].at == s.calls[10].index


def test_a_log_that_records_clearings_later_keeps_the_simulated_ones_before_them(tmp_path: Path) -> None:
    # 12 responses of 2.0.76 (the rule fires at response 10), then the session resumed under a client that
    # logs its clearings: one more response and its microcompact_boundary clearing two later reads.
    recs = records(6)
    parent = recs[-1]["uuid"]
    tid = "toolu_6_late"
    late = [
        {"type": "assistant", "message": {"role": "assistant", "id": "msg_6_late", "model": MODEL, "content": [{"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": "/w/x.ts"}}],
                                          "usage": {"input_tokens": 150_000, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 50}}},
        {"type": "system", "subtype": "microcompact_boundary", "content": "Context microcompacted", "level": "info",
         "microcompactMetadata": {"trigger": "auto", "preTokens": 150_000, "tokensSaved": 12_000, "compactedToolIds": ["toolu_6_04", "toolu_6_05"]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "x"}]}},
    ]
    for n, r in enumerate(late):
        r.update(uuid=f"late-{n}", parentUuid=parent, sessionId="s6", version="2.1.30", cwd="/w", isSidechain=False)
        parent = r["uuid"]
    s = load(tmp_path, recs + late)
    simulated, logged = s.clearings
    assert simulated.simulated and simulated.at == s.calls[10].index and simulated.call_ids == tuple(f"toolu_6_{k:02d}" for k in range(4))
    assert not logged.simulated and logged.call_ids == ("toolu_6_04", "toolu_6_05") and logged.at > simulated.at
    assert import_report(s)["repaired"] == {SIMULATED_KIND: 1}


def test_the_warning_threshold_is_the_previous_responses_usage_with_its_output(tmp_path: Path) -> None:
    # The client compares the last response's usage (prompt + output) with the threshold: 134,900 + 90 misses
    # it by 10 tokens, so the clearing waits for the next response's usage.
    usage = [134_900] * 10 + [134_910, 134_910]
    s = load(tmp_path, records(4, usage=usage))
    (cl,) = s.clearings
    assert cl.at == s.calls[11].index
    assert warning_threshold(200_000, 64_000) == 135_000 and warning_threshold(200_000, 8_192) == 158_808
    assert warning_threshold(1_000_000, 64_000) == 935_000


def test_the_estimate_follows_a_bill_made_with_the_clearing(tmp_path: Path) -> None:
    """The bill: a fixed unlogged prefix plus our count of what was sent, with the four oldest results sent
    as the marker from the 11th call on. Imported, the simulated clearing explains the fall; the same log
    from a 2.1.x client (no simulation) shows the fall as a step the log cannot explain."""
    truth = load(tmp_path, records(5))
    counter = counter_for(MODEL)
    usage = [100_000 + counter.count_messages(provider_view(truth, c)) for c in truth.calls]
    assert usage[10] < usage[9] - 10_000
    s = load(tmp_path, records(5, usage=usage))
    assert [p.reported for p in points(s)] == usage
    assert unexplained(points(s)) == []
    plain = load(tmp_path, records(5, version="2.1.7", usage=usage))
    (step,) = unexplained(points(plain))
    assert step.index == plain.calls[10].index and step.cause == CAUSES[1] and step.tokens < -10_000


def test_result_size_is_the_clients_count() -> None:
    assert result_tokens(ToolResultPart(call_id="t", content=(TextPart("x" * 9),))) == 3
    assert result_tokens(ToolResultPart(call_id="t", content=(TextPart("\U0001f600" * 4),))) == 2  # UTF-16: 2 units each
    assert applies("2.0.0") and applies("2.0.76") and not applies("2.1.0") and not applies("1.0.68") and not applies(None)


def test_the_fixtures_fall_is_predicted_and_no_other(transcripts_dir: Path) -> None:
    """Every Claude Code fixture: the rule fires once, in held-out 3fe1b6bc (2.0.76) at the call whose
    reported prompt fell 25,101 while the log only appended; nowhere else — FIT 624a4a58 (2.0.76) is above
    the warning threshold for 30 calls but never has 20k to save."""
    folder = transcripts_dir / "claude_code"
    found: dict[str, list[int]] = {}
    for f in sorted(folder.glob("*.jsonl")):
        for s in load_all(f):
            if s.clearings:
                found[f.name] = [cl.at for cl in s.clearings]
                (cl,) = s.clearings
                n = next(i for i, c in enumerate(s.calls) if c.index == cl.at)
                assert s.calls[n].reported_input_tokens == 117_569 and s.calls[n - 1].reported_input_tokens == 142_670
                assert len(cl.call_ids) == 10
    assert list(found) == ["codemie_session-3fe1b6bc.jsonl"]
