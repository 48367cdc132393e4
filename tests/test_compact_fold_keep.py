"""A fold made by ``ctxw compact`` keeps as much of the newest history verbatim as the budget allows."""

from __future__ import annotations

import random

from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from contextwindow.replay.compact import compact_conversation
from contextwindow.tokens import counter_for
from contextwindow.turns import validate

COUNTER = counter_for(None)
SUMM = ExtractiveSummarizer(COUNTER.count_text)


def _turns(seed: int, n_turns: int, steps: int, big: int = 0) -> list[Message]:
    """``n_turns`` turns of ``steps`` tool steps each; the newest turn's steps carry ``big`` words more."""
    rng = random.Random(seed)
    msgs: list[Message] = []
    k = 0
    for t in range(n_turns):
        msgs.append(user(f"Please look at module m{t} next. Never delete files under /srv/keep{t}."))
        for _ in range(steps):
            k += 1
            words = rng.randint(60, 140) + (big if t == n_turns - 1 else 0)
            msgs += [assistant("", ToolCallPart(f"c{k}", "shell", f'{{"command": "check {k}"}}')),
                     tool_result(f"c{k}", " ".join(f"line{k}-{i}" for i in range(words)), name="shell")]
        msgs.append(assistant(f"Turn {t} done: module m{t} checked. " + " ".join(f"note{t}-{i}" for i in range(rng.randint(150, 250)))))
    return msgs


def test_a_fold_keeps_earlier_turns_verbatim_when_they_fit() -> None:
    for seed in range(3):
        msgs = _turns(seed, n_turns=30, steps=3)
        budget = COUNTER.count_messages(msgs) // 6
        out, rep = compact_conversation(msgs, budget=budget, counter=COUNTER, summarizer=SUMM, rounds=1)
        assert rep.rounds == 1 and rep.tokens_after <= budget and not validate(out, "openai")
        ask = max(i for i, m in enumerate(msgs) if m.role == "user" and not m.is_tool_result)
        assert len(out) - 1 > len(msgs) - ask  # not only the newest turn
        assert [id(m) for m in out[1:]] == [id(m) for m in msgs[len(msgs) - len(out) + 1 :]]  # verbatim, in order
        assert rep.tokens_after >= budget * 0.75  # the room is used, not left empty


def test_a_newest_turn_over_the_budget_keeps_its_request_and_newest_steps() -> None:
    msgs = _turns(7, n_turns=6, steps=12, big=300)
    ask = max(i for i, m in enumerate(msgs) if m.role == "user" and not m.is_tool_result)
    newest = COUNTER.count_messages(msgs[ask:])
    budget = newest // 2
    out, rep = compact_conversation(msgs, budget=budget, counter=COUNTER, summarizer=SUMM, rounds=1)
    assert rep.tokens_after <= budget and not validate(out, "openai")
    assert out[1] is msgs[ask]  # the newest request verbatim, right after the brief
    assert [id(m) for m in out[2:]] == [id(m) for m in msgs[len(msgs) - len(out) + 2 :]]  # the newest steps verbatim
    assert len(out) >= 6
    assert not any(s.startswith("degrade") for s in rep.steps)
    assert rep.tokens_after >= budget * 0.6
