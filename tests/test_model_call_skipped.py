"""No model call when the harness's part of a brief leaves the model less than MIN_MODEL_BUDGET tokens (review debt of
issue 11): its text would be cut away to fit beside the user's words and the memory block, so nothing is spent on it;
the extractive brief is the outcome and says so. A real scripted model records every call it gets."""

from __future__ import annotations

from collections.abc import Sequence

from contextwindow.folding import LLMSummarizer
from contextwindow.folding.anchor import MIN_MODEL_BUDGET, anchored
from contextwindow.folding.base import SummaryRequest
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, TextPart
from contextwindow.replay.summaries import MeteredSummarizer
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)
COUNT = COUNTER.count_text
BRIEF = "## Goal\nShip the kiln scheduler.\n## Progress\n- read the firing logs\n## Next steps\n- wire the alarms\n## Data\n- none"
RULES = tuple(f"Never fire kiln {k} above {900 + 10 * k} degrees without the glaze sheet {k} signed." for k in range(14))


def answer(messages: Sequence[Message], system: str | None = None) -> str:
    return BRIEF


def request(budget: int) -> SummaryRequest:
    said = [Message("user", (TextPart("Please build the kiln scheduler for the pottery studio, with alarms."),)),
            Message("assistant", (TextPart("Reading the firing logs now."),))]
    return SummaryRequest(said, constraints=RULES, budget_tokens=budget)


def tight_budget() -> int:
    """A budget the memory block and the user's request leave under MIN_MODEL_BUDGET of."""
    return harness_part() + MIN_MODEL_BUDGET // 2


def harness_part() -> int:
    """Tokens of the user's words and the memory block alone (the brief with no model text)."""
    return COUNT(anchored("", request(4_000), COUNT))


def test_no_model_call_when_the_harness_leaves_too_little() -> None:
    model = ScriptedModel(answer)
    req = request(tight_budget())
    assert 0 < req.budget_tokens - harness_part() < MIN_MODEL_BUDGET
    out = LLMSummarizer(model, count=COUNT).summarize(req)
    assert model.calls == []
    assert (out.method, out.ok, out.calls) == ("extractive", True, 0)
    assert "no model call" in str(out.extra["model_skipped"])
    assert all(r in out.text for r in RULES)
    assert COUNT(out.text) <= req.budget_tokens


def test_the_model_is_asked_when_it_has_its_room() -> None:
    model = ScriptedModel(answer)
    req = request(tight_budget() + MIN_MODEL_BUDGET)
    out = LLMSummarizer(model, count=COUNT).summarize(req)
    assert len(model.calls) == 1
    assert (out.method, out.ok) == ("llm", True)
    assert "model_skipped" not in out.extra
    assert "wire the alarms" in out.text


def test_a_skipped_model_call_is_not_billed_by_the_replay_meter() -> None:
    model = ScriptedModel(answer)
    meter = MeteredSummarizer(LLMSummarizer(model, count=COUNT), COUNTER)
    meter.summarize(request(tight_budget()))
    assert (meter.calls, meter.input_tokens, meter.output_tokens, model.calls) == (0, 0, 0, [])
