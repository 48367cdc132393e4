"""The replay policies' sticky views are kept between calls and extended by the new messages only
(replay/policies.py). At every call of a seeded session and of a real transcript, under windows
small enough to fold, truncate and mask, the kept view must equal the view rebuilt from scratch
out of the same decisions, and the payload the policy sends must be that view."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.importers import CallRecord, ImportedSession, load_transcript
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, assistant, user
from contextwindow.replay import replay
from contextwindow.replay.engine import estimate_overhead, leading_system
from contextwindow.replay.policies import POLICIES, ReplayContext, StickyView
from contextwindow.tokens import counter_for

VIEW_POLICIES = ("claude-code", "wolffish", "masking", "microcompact")


def seeded_session(seed: int, turns: int = 14) -> ImportedSession:
    """User requests, assistant tool calls and results of very different sizes (some errors)."""
    rng = random.Random(seed)
    msgs: list[Message] = []
    calls: list[CallRecord] = []
    n = 0
    for t in range(turns):
        msgs.append(user(f"turn {t}: fix module m{t}. Never touch api.py. " + "detail " * rng.randint(5, 80)))
        for _ in range(rng.randint(1, 4)):
            calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
            n += 1
            tool = rng.choice(["read_file", "grep", "bash"])
            msgs.append(assistant(f"step {n}", ToolCallPart(f"c{n}", tool, json.dumps({"path": f"src/m{n % 7}.py"}))))
            lines = rng.choice([2, 10, 60, 400])
            body = "\n".join(f"{k}: line {k} of result {n} " + "x" * rng.randint(0, 40) for k in range(lines))
            msgs.append(Message("tool", (ToolResultPart(f"c{n}", (TextPart(body),), is_error=rng.random() < 0.1),)))
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
        msgs.append(assistant(f"done with turn {t}: " + "summary " * rng.randint(5, 60)))
    return ImportedSession("openai-chat", f"seeded-{seed}", msgs, calls, model="gpt-4o")


def fresh(view: StickyView) -> StickyView:
    """A view holding the same decisions, built from scratch on its first use."""
    out = StickyView(view.count)
    out.boundary, out.summary = view.boundary, view.summary
    out.replace, out.drop = dict(view.replace), set(view.drop)
    out.insert = {k: list(v) for k, v in view.insert.items()}
    return out


def drive(session: ImportedSession, window: int, overhead: int) -> dict[str, int]:
    """Run each view policy over ``session`` as the engine does; at every call compare the kept
    view with a rebuilt one. Returns how many calls changed something, per policy."""
    counter = counter_for("gpt-4o")
    ctx = ReplayContext(window=window, counter=counter, summarizer=ExtractiveSummarizer(counter.count_text), overhead=overhead)
    head = leading_system(session.messages)
    acted: dict[str, int] = {}
    for name in VIEW_POLICIES:
        pol = POLICIES[name](ctx)
        acted[name] = 0
        for call in sorted(session.calls, key=lambda c: c.index):
            history: Sequence[Message] = session.messages[min(len(head), call.index) : call.index]
            step = pol.before_call(list(history))
            view: StickyView = pol.view  # type: ignore[attr-defined]
            rebuilt = fresh(view).items(history)
            assert view.items(history) == rebuilt, (name, call.index)
            assert step.messages == [it.message for it in rebuilt], (name, call.index)
            acted[name] += bool(step.events)
            pol.after_call(session.messages[call.index : call.reply_end], 0)
    return acted


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_views_equal_rebuilt_views_on_seeded_sessions(seed: int) -> None:
    session = seeded_session(seed)
    acted = drive(session, window=6_000, overhead=500)
    assert all(n > 0 for n in acted.values()), acted  # the window is small enough for every policy to act


def test_kept_views_equal_rebuilt_views_on_a_real_transcript(transcripts_dir: Path) -> None:
    session = load_transcript(transcripts_dir / "openhands" / "multi_swe_bench_output.jsonl")
    counter = counter_for("gpt-4o")
    overhead = estimate_overhead(session, counter)
    acted = drive(session, window=overhead + 12_000, overhead=overhead)
    assert sum(acted.values()) > 0


def test_a_history_that_is_not_an_extension_is_read_afresh() -> None:
    counter = counter_for("gpt-4o")
    view = StickyView(counter.count_message)
    a = [user("first"), assistant("one")]
    b = [user("other"), assistant("two"), user("three")]
    assert [it.message for it in view.items(a)] == a
    assert [it.message for it in view.items(b)] == b  # same length or longer, different messages
    assert [it.message for it in view.items(b[:1])] == b[:1]  # shorter
    c = [user("changed"), b[1], b[2], assistant("four")]  # longer, the same object where the last view ended
    view.items(b)
    assert [it.message for it in view.items(c)] == c


def test_replay_numbers_do_not_depend_on_the_order_policies_run_in() -> None:
    session = seeded_session(4)
    forward = replay(session, list(POLICIES), window=6_000)
    backward = replay(session, list(reversed(POLICIES)), window=6_000)
    for p in POLICIES:
        assert forward.policy(p).to_dict() == backward.policy(p).to_dict()


def test_a_counter_that_forgets_its_memos_gives_the_same_answers() -> None:
    counter = counter_for("claude-sonnet-4-5")
    text = "a text long enough for the memo " * 20
    msg = user(text)
    first = (counter.count_text_memo(text), counter.count_message(msg))  # type: ignore[attr-defined]
    counter.forget_memos()  # type: ignore[attr-defined]
    assert (counter.count_text_memo(text), counter.count_message(msg)) == first  # type: ignore[attr-defined]
