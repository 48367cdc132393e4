"""A model's brief cannot lose what the user said: the harness puts the user's words in.

The model below is lossy on purpose, the way a cheap summarizer is: it names as the goal the
first user line of what it is shown (after a fold, some later request), lists the last few tool
lines, and drops everything else. Whatever it writes, the fold's brief has the user's request as
its goal, their earlier messages, and the memory block; the model's own text is what gives way to
the budget.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.folding import ExtractiveSummarizer, LLMSummarizer
from contextwindow.folding.anchor import CUT_NOTE, GOAL_READING, anchored, model_budget
from contextwindow.folding.base import SummaryRequest, constraints_block, summary_text
from contextwindow.folding.extractive import sections
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.replay.compact import compact_conversation
from contextwindow.replay.summaries import MeteredSummarizer
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)
COUNT = COUNTER.count_text
ASK = "Please build a tide-gauge alert service for the harbour office, end to end."
RULE = "Never write to the harbour's /srv/tides/raw folder."


def forgetful(messages: Sequence[Message], system: str | None = None) -> str:
    """The first USER line it is shown as the goal, the last two tool lines, nothing the user said."""
    shown = messages[-1].text.split("<transcript>", 1)[-1]
    users = re.findall(r"^USER: (.*)$", shown, re.MULTILINE)
    tools = re.findall(r"^TOOL\(.*$", shown, re.MULTILINE)
    return "\n".join(["## Goal", users[0] if users else "keep going", "## Progress", *(f"- {t[:80]}" for t in tools[-2:]), "## Remaining", "- go on"])


def turn(t: int, said: str, lines: int = 30) -> list[Message]:
    out = "\n".join(f"gauge-{t}-{k} level={k * 7 % 91} cm ok" for k in range(lines))
    return [
        Message("user", (TextPart(said),)),
        Message("assistant", (TextPart(f"Looking at batch {t}."), ToolCallPart(f"c{t}", "run", json.dumps({"cmd": f"tide-log --batch {t}"})))),
        Message("tool", (ToolResultPart(f"c{t}", (TextPart(out),), name="run"),)),
        Message("assistant", (TextPart(f"Batch {t} read: nothing odd."),)),
    ]


REQUESTS = [
    ASK,
    f"{RULE} The inspector audits it.",
    "Check the gauge data for gaps.",
    "The harbour master is Ingrid Solberg.",
    "Profile the slow query.",
    "Add a test for the edge case we just hit.",
    "Look at the latest output and summarise it.",
    "Try the next batch.",
    "Clean up the warnings.",
    "Write the config loader next.",
]


def session() -> list[Message]:
    return [m for t, said in enumerate(REQUESTS) for m in turn(t, said)]


def summarizer() -> LLMSummarizer:
    return LLMSummarizer(ScriptedModel(forgetful, window=16_000), count=COUNT)


def test_the_goal_is_the_users_request_whatever_the_model_names() -> None:
    msgs = session()
    out = summarizer().summarize(SummaryRequest(msgs[4:], prior_summary=f"## Goal\n{ASK}\n## Progress\n- batch 0 read", budget_tokens=2_000))
    assert out.method == "llm" and out.ok
    # the model named "the first user line it was shown" (the rule) as the goal; the brief's goal is the user's request
    assert sections(out.text)["goal"] == ASK
    # the model's goal was a user line the brief carries anyway: not repeated as its reading
    assert GOAL_READING not in out.text


def test_the_first_fold_takes_the_opening_request_and_a_new_reading_of_the_model_is_kept() -> None:
    msgs = session()[:12]
    model = ScriptedModel(["## Goal\nThe user now wants a dashboard, not alerts.\n## Progress\n- read batches 0-2"], window=16_000)
    out = LLMSummarizer(model, count=COUNT).summarize(SummaryRequest(msgs, budget_tokens=2_000))
    assert sections(out.text)["goal"] == ASK
    assert f"{GOAL_READING}\nThe user now wants a dashboard, not alerts." in out.text
    assert "- read batches 0-2" in out.text


def test_the_users_earlier_messages_are_in_the_brief_when_the_model_drops_them() -> None:
    msgs = session()[:24]
    out = summarizer().summarize(SummaryRequest(msgs, constraints=(RULE,), budget_tokens=2_000))
    for said in ("Check the gauge data for gaps.", "Profile the slow query.", "The harbour master is Ingrid Solberg."):
        assert said in out.text, said
    assert out.text.endswith(constraints_block((RULE,)))
    assert COUNT(out.text) <= 2_000


def test_the_model_is_asked_for_what_the_users_words_leave() -> None:
    msgs = session()[:24]
    request = SummaryRequest(msgs, constraints=(RULE,), budget_tokens=1_500)
    model = ScriptedModel(forgetful, window=16_000)
    LLMSummarizer(model, count=COUNT).summarize(request)
    asked = model.calls[0].max_tokens
    assert asked == model_budget(request, COUNT)
    # less than the whole budget by what the harness carries (its memory block and the user's words)
    assert 200 <= asked <= 1_500 - COUNT(constraints_block((RULE,))) - COUNT(ASK)


def test_over_budget_the_models_text_goes_first() -> None:
    msgs = session()[:24]
    budget = 700
    request = SummaryRequest(msgs, constraints=(RULE,), budget_tokens=budget)
    long_brief = "## Progress\n" + "\n".join(f"- step {k}: ran tide-log over batch {k} and read {k * 13} lines" for k in range(300))
    text = anchored(long_brief, request, COUNT)
    assert COUNT(text) <= budget
    assert CUT_NOTE in text and "- step 0:" in text and "- step 299:" not in text
    assert sections(text)["goal"] == ASK
    assert "## User messages" in text and "Profile the slow query." in text
    assert text.endswith(constraints_block((RULE,)))


def test_five_rounds_with_a_forgetful_model_keep_what_the_extractive_brief_keeps() -> None:
    """Compacted 5 rounds in a row (each round appends the next part and compacts it, as a long
    session does) at a budget where the goal and the rules fit: the forgetful model's folds keep
    the goal and the rule, as the extractive folds do."""
    msgs = session()
    budget = COUNTER.count_messages(msgs) // 4
    kept: dict[str, str] = {}
    for name, summ in (("extractive", ExtractiveSummarizer(COUNT)), ("model", summarizer())):
        state: list[Message] = []
        for k in range(5):
            part = msgs[len(msgs) * k // 5 : len(msgs) * (k + 1) // 5]
            state, report = compact_conversation([*state, *part], budget=budget, counter=COUNTER, summarizer=summ, rounds=1)
            assert report.tokens_after <= budget
        folds = [m for m in state if m.meta.get("cw") == "fold_summary"]
        assert [m.meta.get("method") for m in folds] == ["llm" if name == "model" else "extractive"]
        assert sections(summary_text(folds[0]))["goal"] == ASK, name
        kept[name] = "\n".join(m.text for m in state)
    for name, text in kept.items():
        assert "/srv/tides/raw" in text and "Ingrid Solberg" in text, name
    # every request of the user the extractive folds kept, the model's folds kept too
    lost = [said for said in REQUESTS if said in kept["extractive"] and said not in kept["model"]]
    assert not lost


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=120), max_size=60),
    budget=st.integers(min_value=50, max_value=3_000),
    upto=st.integers(min_value=4, max_value=40),
)
def test_any_model_text_any_budget_the_brief_fits_when_the_users_part_does(lines: list[str], budget: int, upto: int) -> None:
    request = SummaryRequest(session()[:upto], constraints=(RULE,), budget_tokens=budget)
    text = anchored("## Progress\n" + "\n".join(lines), request, COUNT)
    ours = anchored("", request, COUNT)  # the harness's part alone, at the same limits
    assert text.endswith(constraints_block((RULE,)))
    assert sections(text)["goal"].startswith(ASK[:40])
    if COUNT(ours) <= budget:
        assert COUNT(text) <= budget


def test_a_replay_prices_what_the_model_wrote_not_the_users_words_around_it() -> None:
    reply = "## Goal\nBuild the alert service.\n## Progress\n- read batches 0-5\n## Remaining\n- batch 6"
    meter = MeteredSummarizer(LLMSummarizer(ScriptedModel([reply], window=16_000), count=COUNT), COUNTER)
    out = meter.summarize(SummaryRequest(session()[:24], constraints=(RULE,), budget_tokens=2_000))
    assert out.method == "llm" and out.written == reply
    assert "Profile the slow query." in out.text  # put in by the harness...
    assert meter.sizes[-1][2] == COUNT(reply) < COUNT(out.text)  # ...and not priced as the model's output
