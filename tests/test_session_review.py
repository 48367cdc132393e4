"""Review of the Session and compaction core: each test pins a defect found in review (it failed
before its fix). Real SQLite store, real local HTTP server, real transcripts, scripted models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextwindow.budget import BudgetConfig
from contextwindow.compaction import CompactionConfig
from contextwindow.events import Recorder
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.turns import validate


@pytest.fixture
def store(tmp_path: Path):
    s = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield s
    s.close()


def lines(n: int, tag: str) -> str:
    return "\n".join(f"{tag}/file_{i}.py:{i}: def handler_{i}(request): return process(request, retries={i})" for i in range(n))


def step(i: int, size: int = 60) -> tuple[Message, Message]:
    cid = f"call_{i}"
    call = Message("assistant", (TextPart(f"step {i}"), ToolCallPart(cid, "bash", json.dumps({"cmd": f"grep -rn handler src/{i}"}))))
    res = Message("tool", (ToolResultPart(cid, (TextPart(lines(size, f"src{i}")),)),))
    return call, res


def session(store, window: int = 8_000, **kw) -> Session:
    cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None, **kw)
    return Session(store, window=window, max_output=1_000, system="You are a careful coding agent.", config=cfg)


# --- an in-flight fold whose last folded item is a synthetic note ---------------------------------


@pytest.mark.parametrize("strategies", [None, ("summarize", "drop_turns", "squeeze")])
def test_in_flight_fold_after_a_nudge_ending_a_turn_is_stored(store, strategies) -> None:
    # build() after the final reply puts the continuation nudge at the END of a turn; a later fold
    # of that turn must end at the last stored message, not at the nudge (it crashed: StopIteration)
    kw = {} if strategies is None else {"compaction": CompactionConfig(strategies=strategies)}
    s = session(store, **kw)
    rec = Recorder()
    s.events.subscribe(rec)
    for t in range(12):
        s.add(Message("user", (TextPart(f"turn {t}"),)), *step(t))
        s.record(Message("assistant", (TextPart(f"done {t}"),)))
        b = s.build()
        assert validate(b.messages, provider="openai") == []
        assert b.tokens - b.budget.system <= b.budget.history_budget
    assert len(store.list_checkpoints(s.id)) >= 2
    assert len(store.list(s.id)) == 12 * 4
