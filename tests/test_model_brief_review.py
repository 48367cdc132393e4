"""The model-summarizer path's review, mended (docs/memory.md): a model that copies the harness's
sections, superseded values in the harness's user section, a goal heading read too loosely, and the
replay's bill of a fold that rode the cached prefix."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from contextwindow.folding import ExtractiveSummarizer, LLMSummarizer
from contextwindow.folding.anchor import GOAL_READING, anchored, split_goal
from contextwindow.folding.base import CachedPrefix, SummaryRequest, scrub_stale
from contextwindow.folding.cached import instruction, prompt_room
from contextwindow.folding.extractive import sections
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, TextPart
from contextwindow.replay.summaries import MeteredSummarizer
from test_model_brief_anchor import COUNT, COUNTER, RULE, session


def parrot(messages: Sequence[Message], system: str | None = None) -> str:
    """A compliant model of the old prompt: re-writes the earlier brief whole, with every section it
    had (the harness's too), and adds the last two tool lines it was shown."""
    text = messages[-1].text
    m = re.search(r"<earlier-summary>\n(.*)\n</earlier-summary>", text, re.S)
    prior = m.group(1) if m else "## Goal\nsomething\n## Progress\n- started"
    tools = re.findall(r"^TOOL\(.*$", text.split("<transcript>", 1)[-1], re.M)
    return prior + "\n" + "\n".join(f"- {t[:60]}" for t in tools[-2:])


def test_a_model_copying_the_harness_sections_does_not_grow_them() -> None:
    msgs = session()
    summ = LLMSummarizer(ScriptedModel(parrot, window=16_000), count=COUNT)
    prior: str | None = None
    sizes = []
    for k in range(10):
        part = msgs[len(msgs) * k // 10 : len(msgs) * (k + 1) // 10]
        out = summ.summarize(SummaryRequest(part, prior_summary=prior, constraints=(RULE,), budget_tokens=1_500))
        assert out.method == "llm" and out.ok
        prior = out.text
        sizes.append(COUNT(prior))
        heads = re.findall(r"^## (.*)$", prior, re.M)
        for owned in ("Goal", "Latest user request", "User messages", "Memory: the user's"):
            assert sum(h.startswith(owned) for h in heads) <= 1, (k, heads)
        assert " / " not in sections(prior).get("latest user request", ""), prior
    assert prior is not None
    # before the mend: 10 "Latest user request" headings, 105 -> 871 tokens; now the model's own
    # progress lines (two a fold) are what grows
    assert max(sizes) < 400, sizes
    assert sections(prior)["latest user request"] == "Write the config loader next."
    assert prior.count(RULE) == 2  # the memory block, and the user's message that said it


def test_the_prompts_say_which_sections_are_the_harness_s() -> None:
    from contextwindow.folding import prompts

    asked = prompts.brief_prompt("x", budget=500, prior="## Goal\ng", instructions=None)
    assert "Do not write those sections" in asked and "without the sections the harness writes" in asked


def test_superseded_values_do_not_return_through_the_user_section() -> None:
    msgs = [
        Message("user", (TextPart("Build the uploader. The retry limit is 5."),)),
        Message("assistant", (TextPart("ok"),)),
        Message("user", (TextPart("Keep the uploader on port 8080, and the retry limit is 5 for now."),)),
        Message("assistant", (TextPart("ok"),)),
        Message("user", (TextPart("Actually the retry limit is 7."),)),
        Message("assistant", (TextPart("ok"),)),
        Message("user", (TextPart("Now write the tests."),)),
    ]
    # superseded but no ledger: how compaction/steps.py and compaction/summarize.py build requests
    req = SummaryRequest(msgs, constraints=("The retry limit is 7.",), superseded=("The retry limit is 5.",), budget_tokens=1_500)
    for text in (anchored("## Progress\n- did stuff", req, COUNT), ExtractiveSummarizer(COUNT).summarize(req).text):
        assert not re.search(r"limit is 5\b", text), text
        assert "port 8080" in text and "The retry limit is 7." in text
    assert scrub_stale("the retry limit is 5 for now", ("The retry limit is 7.",), ("The retry limit is 5.",)) != "the retry limit is 5 for now"


def test_a_heading_that_starts_with_task_is_not_the_goal() -> None:
    model = (
        "## Goal\nBuild it.\n## Tasks completed\n- wrote parser.py and its tests\n## Task list (remaining)\n"
        "- add retries to the uploader\n## Progress\n- read batches 0-2"
    )
    body, goal = split_goal(model)
    assert goal == "Build it."
    assert "## Tasks completed" in body and "## Task list (remaining)" in body
    for heading in ("## Goal", "## **Goal**", "## Task", "## Goals:", "## Main goal", "## Goal (user's words)"):
        assert split_goal(f"{heading}\nShip v2.\n## Progress\n- a")[1] == "Ship v2.", heading
    out = anchored(model, SummaryRequest(session()[:12], constraints=(RULE,), budget_tokens=2_000), COUNT)
    assert "- add retries to the uploader" in out and GOAL_READING in out


def test_the_replay_bills_the_path_the_summarizer_took() -> None:
    msgs = tuple(session()[:24])
    reply = "## Goal\nx\n## Progress\n- read batches 0-5 and everything went fine\n## Remaining\n- batch 6"
    window, budget = 16_000, 3_000
    base = SummaryRequest(msgs, constraints=(RULE,), budget_tokens=budget)
    pre = CachedPrefix(messages=msgs, system="sys", provider="openai", tokens=0, sent=len(msgs))
    ask = COUNT(instruction(replace(base, prefix=pre), pre))
    # a prefix too large for the whole budget's room, not for the model's (the harness's part leaves it less)
    tokens = prompt_room(window, budget) - ask + 60
    meter = MeteredSummarizer(LLMSummarizer(ScriptedModel([reply], window=window), count=COUNT), COUNTER, window)
    out = meter.summarize(replace(base, prefix=replace(pre, tokens=tokens)))
    assert out.extra["request"] == "cached_prefix"
    read, fresh, _ = meter.sizes[-1]
    assert read == COUNTER.count_messages(msgs) and fresh < ask + 10
    # and a flat request is billed flat, whatever the prefix
    meter2 = MeteredSummarizer(LLMSummarizer(ScriptedModel(["no brief here", reply], window=window), count=COUNT), COUNTER, window)
    out2 = meter2.summarize(replace(base, prefix=replace(pre, tokens=1_000)))
    assert out2.extra["request"] == "flat" and meter2.sizes[-1][0] == 0


def test_the_replay_bills_every_call_s_output_and_no_fallback_text() -> None:
    from contextwindow.llm.base import Completion
    from contextwindow.usage import Usage

    msgs = session()[:24]
    brief = "## Goal\nx\n## Progress\n- read batches 0-5 and everything went fine\n## Remaining\n- batch 6"

    def done(text: str, out: int) -> Completion:
        return Completion(text=text, usage=Usage(input_tokens=900, output_tokens=out), raw=None, finish_reason="stop", message=None)

    base = SummaryRequest(msgs, constraints=(RULE,), budget_tokens=3_000)
    pre = CachedPrefix(messages=tuple(msgs), system="sys", provider="openai", tokens=1_000, sent=len(msgs))
    # a cached-prefix answer that is no brief (70 tokens out), then the flat brief (40): both were written
    meter = MeteredSummarizer(LLMSummarizer(ScriptedModel([done("I will keep going with batch 6 now, sure thing. " * 4, 70), done(brief, 40)], window=16_000), count=COUNT), COUNTER, 16_000)
    out = meter.summarize(replace(base, prefix=pre))
    assert out.ok and out.calls == 2 and meter.sizes[-1][2] == 110
    # every call fails: the extractive fallback's user words are not billed as model output
    failing = MeteredSummarizer(LLMSummarizer(ScriptedModel([done("no", 1)] * 40, window=16_000), count=COUNT), COUNTER, 16_000)
    out = failing.summarize(base)
    assert not out.ok and out.method == "extractive" and failing.sizes[-1][2] == 1
    # an extractive brief priced as a model's is still billed as its text
    plain = MeteredSummarizer(ExtractiveSummarizer(COUNT), COUNTER, 16_000)
    plain.summarize(base)
    assert plain.sizes[-1][2] > 50
