"""A fold whose model call is skipped (the memory block and the user's words leave the model under MIN_MODEL_BUDGET,
folding/anchor.py) says so in an event, not only as method="extractive" (review debt of issue 11). A real scripted model
records every call it gets; a real SQLite store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from contextwindow import Session
from contextwindow.events import describe
from contextwindow.folding import LLMSummarizer
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, assistant, user
from contextwindow.store import open_store
from contextwindow.tokens import counter_for

COUNT = counter_for(None).count_text
RULES = " ".join(f"Never fire kiln {k} above {900 + 10 * k} degrees without the glaze sheet {k} signed." for k in range(14))


def _answer(messages: Sequence[Message], system: str | None = None) -> str:
    return "## Goal\nShip the kiln scheduler.\n## Next steps\n- wire the alarms"


def _fold(tmp_path: Path, window: int) -> tuple[list[tuple[str, dict[str, object]]], ScriptedModel]:
    model = ScriptedModel(_answer)
    s = Session(open_store(f"sqlite:///{tmp_path / 's.db'}"), window=window, max_output=100, summarizer=LLMSummarizer(model, count=COUNT))
    seen: list[tuple[str, dict[str, object]]] = []
    s.events.subscribe(lambda ev: seen.append((ev.name, dict(ev.data))))
    for m in (user("Please build the kiln scheduler for the pottery studio. " + RULES), assistant("Reading the firing logs now."),
              user("Add the alarms next."), assistant("Alarms wired.")):
        s.add(m)
    s.fold()
    return seen, model


def test_a_skipped_model_call_is_an_event(tmp_path: Path) -> None:
    seen, model = _fold(tmp_path, window=1_200)
    assert model.calls == []
    skipped = [d for n, d in seen if n == "summarizer.model_skipped"]
    assert len(skipped) == 1 and "no model call" in str(skipped[0]["reason"])
    applied = next(d for n, d in seen if n == "fold.applied")
    assert applied["method"] == "extractive" and applied["model_skipped"]
    assert "no model call" in describe("fold.applied", applied)


def test_a_fold_that_asks_the_model_says_nothing_was_skipped(tmp_path: Path) -> None:
    seen, model = _fold(tmp_path, window=60_000)
    assert len(model.calls) == 1
    assert not [n for n, _ in seen if n == "summarizer.model_skipped"]
    applied = next(d for n, d in seen if n == "fold.applied")
    assert applied["method"] == "llm" and "model_skipped" not in applied
