"""The call loop (session_calls.py), sync and async: one loop, so both send the same payloads, retry
the same way on a provider overflow and end in the same typed error; it reaches the Session only
through its public methods. A scripted model (our model protocol) stands in for the provider."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from contextwindow.budget import BudgetConfig
from contextwindow.errors import ContextOverflowError
from contextwindow.events import Recorder
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, dumps
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store

SRC = Path(__file__).resolve().parents[1] / "src" / "contextwindow" / "session_calls.py"


def _session(tmp_path: Path, name: str) -> tuple[Session, Recorder]:
    store = open_store(f"sqlite:///{tmp_path / f'{name}.db'}")
    cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None, cache=None)
    s = Session(store, window=200_000, max_output=1_000, system="You are a careful coding agent.", config=cfg)
    rec = Recorder()
    s.events.subscribe(rec)
    s.add(Message("user", (TextPart("Go."),)))
    for i in range(6):
        cid = f"call_{i}"
        out = "\n".join(f"src{i}/file_{k}.py:{k}: def handler_{k}(request): return process(request, retries={k})" for k in range(80))
        s.add(Message("assistant", (TextPart(f"step {i}"), ToolCallPart(cid, "bash", json.dumps({"cmd": f"grep -rn handler src/{i}"})))),
              Message("tool", (ToolResultPart(cid, (TextPart(out),)),)))
    return s, rec


def _run(s: Session, model: ScriptedModel, asynchronous: bool) -> Any:
    if asynchronous:
        return asyncio.run(s.acall(model))
    return s.call(model)


def _idless(s: str) -> str:
    """A message's JSON without the ids of its conversation's rows (cache anchors, retrieve refs)."""
    return re.sub(r"\b([cm])_[0-9a-f]{16}\b", r"\1_", s)


def _overflow() -> ContextOverflowError:
    return ContextOverflowError("prompt is too long: 250000 tokens > 200000 maximum", status=400)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["call", "acall"])
def test_an_overflow_forces_a_smaller_payload_then_the_reply_is_recorded(tmp_path: Path, asynchronous: bool) -> None:
    s, rec = _session(tmp_path, "one")
    model = ScriptedModel([_overflow(), "fine"])
    done = _run(s, model, asynchronous)
    assert done.text == "fine" and len(model.calls) == 2
    first, second = (sum(len(m.text) for m in c.messages) for c in model.calls)
    assert second < first * 0.8
    assert [e.data["attempt"] for e in rec.named("compaction.reactive")] == [1]
    assert s.store.list(s.id)[-1].message.text == "fine"  # recorded


@pytest.mark.parametrize("asynchronous", [False, True], ids=["call", "acall"])
def test_a_provider_that_keeps_overflowing_ends_in_the_typed_error_and_is_forgotten(tmp_path: Path, asynchronous: bool) -> None:
    s, rec = _session(tmp_path, "two")
    assert _run(s, ScriptedModel(["warm"]), asynchronous).text == "warm"  # a reported count the loop must forget
    model = ScriptedModel(lambda msgs, system: _overflow())
    with pytest.raises(ContextOverflowError):
        _run(s, model, asynchronous)
    tries = s.config.max_reactive_retries + 1
    assert len(model.calls) == tries
    assert [e.data["attempt"] for e in rec.named("compaction.reactive")] == list(range(1, tries + 1))
    # no sticky failure: the next call decides from the estimate and goes through
    assert _run(s, ScriptedModel(["ok"]), asynchronous).text == "ok"


def test_call_and_acall_send_the_same_payloads_and_say_the_same_events(tmp_path: Path) -> None:
    seen = []
    for asynchronous in (False, True):
        s, rec = _session(tmp_path, f"same{asynchronous}")
        model = ScriptedModel([_overflow(), _overflow(), "done"])
        _run(s, model, asynchronous)
        seen.append(([[_idless(dumps(m)) for m in c.messages] for c in model.calls], [c.max_tokens for c in model.calls],
                     [e.name for e in rec.events if e.name.startswith(("compaction", "build"))]))
    assert seen[0] == seen[1]
    assert len(seen[0][0]) == 3


def test_the_loop_reaches_the_session_only_through_public_methods() -> None:
    src = SRC.read_text(encoding="utf-8")
    assert re.findall(r"session\._\w+", src) == []
    assert "note_overflow" in src and "forget_provider_count" in src
