"""Events that last: every Session event carries its conversation id and is kept by the store;
``ctxw sessions events ID`` reads them back (text and --json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow import Session
from contextwindow.cli.main import cli
from contextwindow.events import EventBus, Recorder, describe
from contextwindow.llm import ScriptedModel
from contextwindow.messages import Message, TextPart, ToolResultPart
from contextwindow.store import open_store


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_every_event_carries_its_id_and_is_stored(tmp_path: Path, kind: str) -> None:
    store = open_store("memory:" if kind == "memory" else f"sqlite:///{tmp_path / 's.db'}")
    bus = EventBus()
    seen = Recorder()
    bus.subscribe(seen)
    s = Session(store, window=8_000, max_output=1_000, events=bus)
    child = s.subagent()
    s.add(Message("user", (TextPart("hello"),)))
    s.call(ScriptedModel(["hi"]))
    child.add(Message("user", (TextPart("sub task"),)))
    child.call(ScriptedModel(["sub answer"]))
    s.fold()
    assert seen.events and all(e.conversation_id in (s.id, child.id) for e in seen.events)
    stored = store.list_events(s.id)
    names = [e.name for e in stored]
    assert "build" in names and "gauge" in names and "fold.started" in names and "fold.applied" in names
    assert [e.name for e in seen.events if e.conversation_id == s.id] == names
    assert {e.name for e in store.list_events(child.id)} >= {"build", "gauge"}
    assert all(e.conversation_id == child.id for e in store.list_events(child.id))
    assert store.list_events(s.id, limit=2) == stored[:2]


def test_clip_event_and_cli(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    s = Session(store, window=32_000, max_output=1_000)
    from contextwindow.messages import ToolCallPart

    s.add(Message("user", (TextPart("run it"),)), Message("assistant", (ToolCallPart("c1", "bash", "{}"),)))
    s.add(Message("tool", (ToolResultPart("c1", (TextPart("\n".join(f"row {i} value {i * 7}" for i in range(20_000))),), name="bash"),)))
    store.close()
    r = CliRunner().invoke(cli, ["sessions", "events", s.id, "--store", url])
    assert r.exit_code == 0, r.output
    assert "clip.applied" in r.output and "clipped bash" in r.output and "ofl_" in r.output
    r = CliRunner().invoke(cli, ["sessions", "events", s.id, "--store", url, "--json"])
    rows = json.loads(r.output)
    clip = next(e for e in rows if e["name"] == "clip.applied")
    assert clip["conversation_id"] == s.id and clip["data"]["tokens_before"] > clip["data"]["tokens_after"]
    bad = CliRunner().invoke(cli, ["sessions", "events", "c_nope", "--store", url])
    assert bad.exit_code != 0 and "c_nope" in bad.stderr


def test_describe_compaction_card() -> None:
    line = describe("compaction.applied", {"tokens_before": 120_000, "tokens_after": 60_000, "duration_s": 0.25,
                                           "steps": [{"method": "mask", "tokens_before": 120_000, "tokens_after": 80_000}]})
    assert "120.0k → 60.0k" in line and "saved 60.0k" in line and "mask 120.0k→80.0k" in line and "0.25 s" in line
