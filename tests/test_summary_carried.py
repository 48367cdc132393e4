"""The user's rules the ledger holds are carried into a brief by the harness, not written by the model.

A fold's brief ends with the memory block: every rule the user stated, verbatim
(base.ensure_constraints). A summarizer told which rules the harness appends need not copy them,
so they are not model output (5x the input price for Claude) on every fold; the replay prices a
summary's output without that block (replay/summaries.py). The extractive brief does not list a
user message twice when the memory block carries it whole.
"""

from __future__ import annotations

import json

from contextwindow.folding import LLMSummarizer
from contextwindow.folding.base import SummaryRequest, constraints_block
from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.folding.prompts import CARRIED
from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.replay.summaries import MeteredSummarizer
from contextwindow.tokens import counter_for

RULE = "Never push to main."
BRIEF_WITHOUT_RULES = "## Goal\nPort the CLI.\n## Progress\nRan grep over src0.\n## Remaining\nstep 2"
CARRIED_HEAD = CARRIED.split("{rules}")[0].strip()


def history() -> list[Message]:
    return [
        Message("user", (TextPart(f"Port the CLI. {RULE}"),)),
        Message("assistant", (TextPart("step 0"), ToolCallPart("call_0", "bash", json.dumps({"cmd": "grep -rn handler src0"})))),
        Message("tool", (ToolResultPart("call_0", (TextPart("src0/f.py:1: def handler()"),)),)),
        Message("assistant", (TextPart("done with step 0"),)),
    ]


def test_the_model_is_told_which_rules_the_harness_carries_and_the_brief_still_holds_them() -> None:
    with LocalProviderServer([Reply(text=BRIEF_WITHOUT_RULES, input_tokens=500, output_tokens=30)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        summarizer = LLMSummarizer(model, window=60_000, count=counter_for("gpt-4o").count_text)
        out = summarizer.summarize(SummaryRequest(history(), constraints=(RULE,), budget_tokens=1_000))
        prompt = srv.requests[0].body["messages"][-1]["content"]
    assert CARRIED_HEAD in prompt and f"- {RULE}" in prompt.split(CARRIED_HEAD, 1)[1]
    assert out.method == "llm" and "Ran grep over src0." in out.text
    assert out.text.endswith(constraints_block((RULE,)))  # appended by the harness, verbatim


def test_what_the_model_writes_beside_the_carried_rules_is_kept() -> None:
    """The model is told to write under Constraints & preferences only what the harness does not carry:
    those lines survive the memory block replacing the section (a preference the ledger did not parse)."""
    brief = BRIEF_WITHOUT_RULES + "\n## Constraints & preferences\n- Prefers tabs over spaces in the Makefile.\n- Replies in French."
    with LocalProviderServer([Reply(text=brief, input_tokens=500, output_tokens=40)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        out = LLMSummarizer(model, window=60_000, count=counter_for("gpt-4o").count_text).summarize(
            SummaryRequest(history(), constraints=(RULE,), budget_tokens=1_000)
        )
    assert "- Prefers tabs over spaces in the Makefile." in out.text and "- Replies in French." in out.text
    # the goal is the user's first request verbatim (folding/anchor.py); past it, the rule is in the memory block only
    goal, rest = out.text.split("\n\n", 1)
    assert goal == f"## Goal\nPort the CLI. {RULE}"
    assert out.text.endswith(constraints_block((RULE,))) and rest.count(RULE) == 1


def test_no_rules_no_carried_words() -> None:
    with LocalProviderServer([Reply(text=BRIEF_WITHOUT_RULES, input_tokens=500, output_tokens=30)]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        LLMSummarizer(model, window=60_000, count=counter_for("gpt-4o").count_text).summarize(SummaryRequest(history(), budget_tokens=1_000))
        prompt = srv.requests[0].body["messages"][-1]["content"]
    assert CARRIED_HEAD not in prompt


def test_extractive_brief_lists_a_carried_user_message_once() -> None:
    rules = [f"step {t}: never touch the prod database, turn {t}." for t in range(4)]
    msgs: list[Message] = []
    for t, rule in enumerate(rules):
        msgs += [Message("user", (TextPart(rule),)), Message("assistant", (TextPart(f"reply {t}"),))]
    msgs.append(Message("user", (TextPart("a plain request with no rule in it"),)))
    msgs.append(Message("assistant", (TextPart("ok"),)))
    text = ExtractiveSummarizer().summarize(SummaryRequest(msgs, constraints=tuple(rules), budget_tokens=2_000)).text
    assert text.count(rules[0]) == 2  # the goal (the first request) and the memory block
    for rule in rules[1:]:
        assert text.count(rule) == 1, rule  # in the memory block only, not under "User messages" again
    assert constraints_block(rules) in text
    # a message the memory block does not carry whole is still listed
    assert "a plain request with no rule in it" in text


def test_the_replay_prices_a_summary_without_the_carried_block() -> None:
    counter = counter_for("claude-sonnet-4-5")
    meter = MeteredSummarizer(ExtractiveSummarizer(), counter)
    with_rules = SummaryRequest(history(), constraints=(RULE,), budget_tokens=1_000)
    text = meter.summarize(with_rules).text
    block = constraints_block((RULE,))
    assert block in text
    assert meter.sizes[-1][2] == counter.count_text(text.replace(block, "", 1)) < counter.count_text(text)
    text = meter.summarize(SummaryRequest(history(), budget_tokens=1_000)).text
    assert meter.sizes[-1][2] == counter.count_text(text)
