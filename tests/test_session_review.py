"""Review of the Session and compaction core: each test pins a defect found in review (it failed
before its fix). Real SQLite store, real local HTTP server, real transcripts, scripted models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.budget import BudgetConfig
from contextwindow.compaction import CompactionConfig
from contextwindow.errors import CompactionError
from contextwindow.events import Recorder
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.turns import validate
from test_session import lines, step

# lines() and step() are shared with test_session.py


@pytest.fixture
def store(tmp_path: Path):
    s = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield s
    s.close()


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
        s.add(Message("user", (TextPart(f"turn {t}"),)), *step(t, 60))
        s.record(Message("assistant", (TextPart(f"done {t}"),)))
        b = s.build()
        assert validate(b.messages, provider="openai") == []
        assert b.tokens - b.budget.system <= b.budget.history_budget
    assert len(store.list_checkpoints(s.id)) >= 2
    assert len(store.list(s.id)) == 12 * 4


# --- the LLM summarizer over a real local server that enforces its context window ----------------

SUMMARIZER_WINDOW = 4_000


def windowed_handler(window: int = SUMMARIZER_WINDOW):
    """A provider with a real window: over it, the OpenAI overflow error; else a brief of about
    ``max_tokens`` tokens (a real model fills its output budget)."""
    from contextwindow.llm.localserver import Reply

    def handle(req):
        asked = len(req.raw) // 4 + int(req.body.get("max_tokens") or 0)
        if asked > window:
            msg = f"This model's maximum context length is {window} tokens. However, you requested {asked} tokens."
            return Reply.error(400, {"error": {"message": msg, "type": "invalid_request_error", "code": "context_length_exceeded"}})
        want = int(req.body.get("max_tokens") or 200) * 3  # characters: a little under the cap
        body = "## Goal\nPort the CLI.\n## Progress\n" + "- read src/app.py and fixed the parser\n" * (want // 40)
        return Reply(text=body[:want])

    return handle


def llm_summarizer(srv, declared_window: int = SUMMARIZER_WINDOW):
    from contextwindow.folding import LLMSummarizer
    from contextwindow.llm.openai_compat import OpenAICompatibleModel
    from contextwindow.llm.retry import RetryPolicy
    from contextwindow.tokens import counter_for

    model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
    return LLMSummarizer(model, window=declared_window, count=counter_for(None).count_text)


def test_llm_summarizer_splits_a_single_message_larger_than_its_window() -> None:
    from contextwindow.folding.base import SummaryRequest
    from contextwindow.llm.localserver import LocalProviderServer

    big = "\n".join(f"data line {i}: value={i * 7}" for i in range(1_500))  # ~15k tokens, one message
    msgs = [
        Message("user", (TextPart("Load the data. Never drop a row."),)),
        Message("assistant", (ToolCallPart("c1", "bash", json.dumps({"cmd": "cat data.txt"})),)),
        Message("tool", (ToolResultPart("c1", (TextPart(big),)),)),
    ]
    with LocalProviderServer(windowed_handler()) as srv:
        out = llm_summarizer(srv).summarize(SummaryRequest(msgs, budget_tokens=400, constraints=("Never drop a row.",)))
        sent = [r.raw.decode() for r in srv.requests]
    assert out.method == "llm" and out.ok, out.error
    assert all(len(r) // 4 + 400 <= SUMMARIZER_WINDOW for r in sent)  # no request overflowed
    seen = "".join(sent)
    assert "data line 0:" in seen and "data line 1499:" in seen  # every part of the message was read
    assert "Never drop a row." in out.text


def test_llm_summarizer_splits_and_retries_when_the_provider_says_too_long() -> None:
    # the declared window is wrong (4x the real one): the overflow answer must split the part, not give up
    from contextwindow.folding.base import SummaryRequest
    from contextwindow.llm.localserver import LocalProviderServer

    msgs = [Message("user", (TextPart("Audit the handlers."),))]
    for i in range(6):
        msgs += list(step(i, 60))
    with LocalProviderServer(windowed_handler()) as srv:
        out = llm_summarizer(srv, declared_window=4 * SUMMARIZER_WINDOW).summarize(SummaryRequest(msgs, budget_tokens=400))
        statuses = [r.body.get("max_tokens") for r in srv.requests]
    assert out.method == "llm" and out.ok, out.error
    assert out.calls <= 2 * len(statuses)
    assert len(statuses) >= 3  # the overflowing part, its halves, a merge


def test_llm_summarizer_merges_many_parts_within_its_window() -> None:
    # 8 parts of ~400-token briefs do not fit one merge prompt in a 4k window: merge in rounds
    from contextwindow.folding.base import SummaryRequest
    from contextwindow.llm.localserver import LocalProviderServer

    msgs = [Message("user", (TextPart("Audit the handlers."),))]
    for i in range(16):
        msgs += list(step(i, 40))
    with LocalProviderServer(windowed_handler()) as srv:
        out = llm_summarizer(srv).summarize(SummaryRequest(msgs, budget_tokens=400))
        sent = [r.raw for r in srv.requests]
    assert out.method == "llm" and out.ok, out.error
    assert all(len(r) // 4 + 400 <= SUMMARIZER_WINDOW for r in sent)
    assert out.calls == len(sent) <= 2 * 16


# --- invariant 5: whatever leaves the view stays reachable by a ref the payload names ------------


def unreachable(s: Session, payload: dict) -> list[str]:
    """Stored messages that are neither in the view nor named by a retrieve ref in the payload."""
    ids = [sm.id for sm in s.store.list(s.id)]
    text = json.dumps(payload)
    reach = {it.key for it in s.view()} | set(re.findall(r"msg-([A-Za-z0-9_]+)", text))
    for first, last in re.findall(r"span-([A-Za-z0-9_]+)-([A-Za-z0-9_]+)", text):
        if first in ids and last in ids:
            reach.update(ids[ids.index(first) : ids.index(last) + 1])
    return [i for i in ids if i not in reach]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6_000, 20_000), st.lists(st.tuples(st.integers(5, 120), st.booleans(), st.booleans()), min_size=8, max_size=30))
def test_every_message_that_leaves_the_view_is_named_by_a_ref(window, plan) -> None:
    s = session(open_store("memory:"), window=window)
    s.add(Message("user", (TextPart("Audit the handlers. Never push to main."),)))
    for t, (size, new_turn, build_at_end) in enumerate(plan):
        if new_turn:
            s.record(Message("assistant", (TextPart(f"done {t}"),)))
            if build_at_end:
                s.build()
            s.add(Message("user", (TextPart(f"next {t}"),)))
        s.add(*step(t, size))
        try:
            b = s.build()
        except CompactionError:
            return
        assert unreachable(s, b.payload) == [], [st_["method"] for st_ in (b.compaction.steps if b.compaction else [])]


def test_dropped_steps_read_back_through_the_note_ref(store) -> None:
    s = session(store, window=6_000, compaction=CompactionConfig(strategies=("drop_steps", "squeeze")))
    s.add(Message("user", (TextPart("Audit the handlers."),)))
    for i in range(6):
        s.add(*step(i, 40))
        b = s.build()
    note = next(m.text for m in b.messages if m.meta.get("cw") == "note")
    ref = re.search(r'retrieve\(ref="(span-[A-Za-z0-9_]+-[A-Za-z0-9_]+)"', note).group(1)  # type: ignore[union-attr]
    out = s.run_retrieve(ToolCallPart("r", "retrieve", json.dumps({"ref": ref, "grep": "src0/file_3.py"})))
    assert not out.tool_results[0].is_error and "handler_3(request)" in out.tool_results[0].text


def test_repeated_folds_keep_every_earlier_message_reachable(store) -> None:
    # a model's brief does not repeat the prior fold's span ref: the new fold's ref must reach back
    from contextwindow.folding import LLMSummarizer
    from contextwindow.llm.base import ScriptedModel

    brief = "## Goal\nAudit the handlers.\n## Progress\nread the files\n## Remaining\nthe rest"
    s = session(store, window=60_000)
    s.summarizer = LLMSummarizer(ScriptedModel(lambda msgs, system: brief), count=s.counter.count_text)
    for r in range(3):
        s.add(Message("user", (TextPart(f"Round {r}: audit the handlers."),)), *step(r, 10))
        s.record(Message("assistant", (TextPart(f"round {r} done"),)))
        s.fold()
        assert unreachable(s, s.build().payload) == []


def test_a_discarded_background_fold_still_puts_its_spend_on_the_ledger(store) -> None:
    import asyncio
    import threading

    from contextwindow.folding import LLMSummarizer
    from contextwindow.llm.base import Completion, ScriptedModel
    from contextwindow.usage import Usage

    gate = threading.Event()

    def summary(msgs, system):
        if not threading.current_thread().name.startswith(threading.main_thread().name):  # the deadline thread is named after its caller
            assert gate.wait(5)
        return Completion(text="## Goal\nship it\n## Progress\nall done so far\n## Remaining\nmore", usage=Usage(input_tokens=500, output_tokens=50))

    s = session(store, window=60_000)
    s.summarizer = LLMSummarizer(ScriptedModel(summary), count=s.counter.count_text)
    s.add(Message("user", (TextPart("Ship it."),)))
    s.record(Message("assistant", (TextPart("turn one done"),)))

    async def run() -> None:
        task = s.fold_in_background()
        await asyncio.sleep(0)
        s.add(Message("user", (TextPart("And the docs."),)))
        s.record(Message("assistant", (TextPart("docs done"),)))
        s.fold()  # moves the boundary past the background fold's
        gate.set()
        assert await task is None  # stale: discarded

    asyncio.run(run())
    assert len(store.list_checkpoints(s.id)) == 1
    assert store.usage_by_role(s.id)["summarizer"]["input_tokens"] == 1_000  # both summaries were paid for


def test_truncation_keeps_the_reasoning_of_the_current_tool_loop_after_a_nudge() -> None:
    # Anthropic with thinking: the assistant message whose tool_use is being answered must keep its
    # signed thinking block. A continuation nudge (a synthetic user message) is not a new turn.
    from contextwindow.compaction import make_items
    from contextwindow.compaction.summarize import nudge_item
    from contextwindow.compaction.truncate import TruncateConfig, truncate
    from contextwindow.messages import ReasoningPart
    from contextwindow.tokens import counter_for

    count = counter_for(None).count_message
    think = ReasoningPart("let me think " * 200, signature="sig-abc", provider="anthropic")
    msgs = [
        Message("user", (TextPart("Audit the handlers."),)),
        Message("assistant", (think, ToolCallPart("c1", "bash", json.dumps({"cmd": "ls"})))),
        Message("tool", (ToolResultPart("c1", (TextPart(lines(200, "a")),)),)),
    ]
    items = [*make_items(["m1", "m2", "m3"], msgs, count), nudge_item("m3", True, count)]
    out = truncate(items, 10_000, count, TruncateConfig(keep_last_per_role=0))
    assert out is not None
    kept = next(it.message for it in out[0] if it.key == "m2")
    assert any(isinstance(p, ReasoningPart) and p.signature == "sig-abc" for p in kept.parts)


def test_provider_repair_is_counted_in_the_budget() -> None:
    # an unanswered call gets a synthetic result at send time: those tokens must fit the budget too
    # (the payload went out 1 token over: 901 > 900; found by test_session_faults' property test)
    cfg = SessionConfig(budget=BudgetConfig(output_cap=500, safety_buffer=100), clip_budget_tokens=None)
    s = Session(open_store("memory:"), window=1_500, max_output=500, config=cfg)
    s.add(Message("user", (TextPart("task 0: " + "please fix it " * 180),)))
    s.add(Message("assistant", (ToolCallPart("c1", "bash", json.dumps({"cmd": "ls"})),)))
    s.add(Message("tool", (ToolResultPart("c1", (TextPart("out " * 63),)),)))
    s.add(Message("assistant", (ToolCallPart("c2", "bash", json.dumps({"cmd": "ls"})),)))  # never answered
    history = sum(s.counter.count_message(it.message) for it in s.view())
    assert history <= s.budget().history_budget  # the stored history alone fits
    b = s.build()
    assert any(m.meta.get("cw") == "synthetic_result" for m in b.messages)
    assert sum(s.counter.count_message(m) for m in b.messages) <= b.budget.history_budget
