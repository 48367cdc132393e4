"""Session.sync with provisional rows (contextwindow/sync.py): a client that re-sends its history
with a changing last block, and replies stored from the answers. No HTTP here: the store and the
Session alone (the proxy's use is tested end to end in test_proxy_transient.py)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from contextwindow import Session
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import SessionConfig
from contextwindow.store import open_store
from contextwindow.sync import KIND_KEY, REPLY, STATE_KEY, Row, match


def session(store: Any, cid: str | None = None, clip: int | None = None) -> Session:
    return Session(store, cid, window=200_000, config=SessionConfig(clip_budget_tokens=clip, cache=None))


def reply(m: Message) -> Message:
    return replace(m, meta={KIND_KEY: REPLY})


def view(s: Session) -> list[tuple[str, tuple[Any, ...]]]:
    return [(it.message.role, it.message.parts) for it in s.view()]


def shape(ms: list[Message]) -> list[tuple[str, tuple[Any, ...]]]:
    return [(m.role, m.parts) for m in ms]


U = Message("user", (TextPart("Find the retry logic."),))
CALL = Message("assistant", (ToolCallPart("c1", "grep", '{"pattern":"retry"}'),))
RESULT = Message("tool", (ToolResultPart("c1", (TextPart("src/http.py:12: def retry():"),)),))


def rt(i: int, extra: str = "") -> Message:
    return Message("user", (TextPart(f"# Runtime\nIteration {i} in this turn.{extra}"),))


def test_a_trailing_block_that_changes_is_superseded_and_the_reply_confirmed() -> None:
    store = open_store("memory://")
    s = session(store)
    first = s.sync([U, rt(1)])
    assert (first.known, len(first.added), first.superseded) == (0, 2, 0)
    s.add(reply(CALL))  # the proxy stores the reply from the answer
    second = s.sync([U, CALL, RESULT, rt(2)])
    assert (second.known, [sm.message.role for sm in second.added], second.superseded) == (2, ["tool", "user"], 1)
    assert view(s) == shape([U, CALL, RESULT, rt(2)])
    # a fresh Session (a restarted proxy) reads the decisions from the store
    s2 = session(store, s.id)
    assert view(s2) == shape([U, CALL, RESULT, rt(2)])
    s2.add(reply(Message("assistant", (TextPart("It is in src/http.py."),))))
    third = s2.sync([U, CALL, RESULT, Message("assistant", (TextPart("It is in src/http.py."),)), Message("user", (TextPart("thanks"),))])
    assert third.diverged_at is None and third.superseded == 1 and len(third.added) == 1
    assert [m.text for _, m in zip(range(9), (it.message for it in s2.view()), strict=False)][-2:] == ["It is in src/http.py.", "thanks"]
    assert len(store.list(s.id)) == 7  # nothing deleted: both runtime blocks are still in the record


def test_a_block_merged_into_the_last_message_is_trimmed_and_the_clipped_results_kept() -> None:
    big = "".join(f"src/module_{i}.py:{i}: retry(request)\n" for i in range(3000))
    store = open_store("memory://")
    s = session(store, clip=200)
    merged = Message("user", (TextPart("Fix the flaky test."), TextPart("# Runtime 1")))
    s.sync([merged])
    s.add(reply(CALL))
    results = Message("tool", (ToolResultPart("c1", (TextPart(big),)), TextPart("# Runtime 2")))
    got = s.sync([Message("user", (TextPart("Fix the flaky test."),)), CALL, results])
    assert (got.superseded, got.trimmed, got.known) == (0, 1, 2)  # the first message cut to the part the client kept
    clipped = s.view()[2].message.parts[0]
    assert isinstance(clipped, ToolResultPart) and "ofl_" in clipped.text and len(clipped.text) < len(big) // 4
    later = Message("tool", (ToolResultPart("c1", (TextPart(big),)),))
    s.add(reply(Message("assistant", (TextPart("done"),))))
    again = s.sync([Message("user", (TextPart("Fix the flaky test."),)), CALL, later, Message("assistant", (TextPart("done"),))])
    assert (again.superseded, again.trimmed, again.added) == (0, 1, [])  # the results message trimmed, the reply confirmed
    items = s.view()
    assert items[2].message.parts == (clipped,)  # the same clipped text (the same offload ref), byte for byte
    assert [len(it.message.parts) for it in items] == [1, 1, 1, 1]
    assert store.get_state(s.id, STATE_KEY)[items[2].key][0] == 1


def test_rules_in_a_transient_block_never_enter_the_ledger_and_confirmed_ones_do() -> None:
    store = open_store("memory://")
    s = session(store)
    s.sync([U, Message("user", (TextPart("Reminder: never push to main while tests run."),))])
    # provisional: not yet the user's word; only the confirmed opening request is read (as the session's goal)
    goal_only = [("goal", "Find the retry logic.")]
    assert [(c.kind, c.text) for c in s.constraints()] == goal_only
    s.add(reply(CALL))
    s.sync([U, CALL, RESULT, Message("user", (TextPart("Always run ruff before committing."),))])
    assert [(c.kind, c.text) for c in s.constraints()] == goal_only
    s.add(reply(Message("assistant", (TextPart("ok"),))))
    s.sync([U, CALL, RESULT, Message("user", (TextPart("Always run ruff before committing."),)), Message("assistant", (TextPart("ok"),)),
            Message("user", (TextPart("go on"),))])
    texts = " ".join(c.text for c in s.constraints())
    assert "ruff" in texts and "push to main" not in texts


def test_a_rewritten_confirmed_message_still_diverges_and_a_retry_drops_the_unheld_reply() -> None:
    store = open_store("memory://")
    s = session(store)
    s.sync([U, CALL, RESULT])
    s.add(reply(Message("assistant", (TextPart("found it"),))))
    retry = s.sync([U, CALL, RESULT])  # the client never got the answer and asks again
    assert retry.diverged_at is None and retry.superseded == 1 and retry.added == []
    assert view(s) == shape([U, CALL, RESULT])
    edited = s.sync([U, Message("assistant", (TextPart("something else"),))])
    assert edited.diverged_at == 1 and edited.added == []


def test_match_is_pure_and_says_where_a_rewrite_is() -> None:
    rows = [Row("a", "f1"), Row("b", "f2"), Row("c", "f3", kind="tail")]
    ms = [U, U, U]
    assert match(rows, 2, ["f1", "f2", "x"], ms).decided == {2: (0, None, None)}
    assert match(rows, 2, ["f1", "x"], ms[:2]).diverged_at == 1
    assert match(rows, 0, ["f1", "f2", "f3"], ms).tails == [2]


def client_run(rng: random.Random, steps: int, restarts: bool) -> None:
    """A client with its own history; on most calls it adds a transient block, always of one kind (a
    message of its own, or a text part on its last message), and it sends replies back as they came
    or re-rendered. After every sync the view is what the client sent; after the reply, that plus
    the reply."""
    store = open_store("memory://")
    s = session(store)
    own: list[Message] = [Message("system", (TextPart("You are an agent."),)), U]
    kind = rng.choice(["message", "part"])
    for i in range(steps):
        mode = kind if rng.random() < 0.7 else "none"
        sent = list(own)
        if mode == "message":
            sent.append(rt(i, "x" * rng.randint(0, 3)))
        elif mode == "part":
            sent[-1] = replace(sent[-1], parts=(*sent[-1].parts, TextPart(f"<reminder>{i}</reminder>")))
        got = s.sync(sent)
        assert got.diverged_at is None, (i, mode)
        assert view(s) == shape(sent), (i, mode)
        if rng.random() < 0.7:
            answer = Message("assistant", (TextPart(f"step {i}"), ToolCallPart(f"c{i}", "grep", "{}")))
        else:
            answer = Message("assistant", (TextPart(f"answer {i}"),))
        s.add(reply(answer))  # stored from the answer
        assert view(s) == shape([*sent, answer])
        if rng.random() < 0.9:  # 1 in 10 answers never reaches the client (it retries with its own history)
            echoed = answer if rng.random() < 0.5 else replace(answer, extra={"openai": {"fields": {"refusal": None}}})
            own.append(echoed)
            own.append(Message("tool", (ToolResultPart(f"c{i}", (TextPart(f"out {i}"),)),)) if answer.tool_calls
                       else Message("user", (TextPart(f"next {i}"),)))
        if restarts and rng.random() < 0.3:
            s = session(store, s.id)


def test_seeded_clients_with_transient_blocks_always_see_their_own_history() -> None:
    for seed in range(60):
        client_run(random.Random(seed), 12, restarts=seed % 2 == 1)


def test_a_compaction_replacement_of_a_trimmed_row_is_cut_to_the_parts_the_client_kept() -> None:
    from contextwindow.compaction.view import ViewItem
    from contextwindow.sync import cut_items

    whole = Message("tool", (ToolResultPart("c1", (TextPart("[truncated: 3 of 300 lines]"),)), TextPart("# Runtime 2")))
    items = [ViewItem("m1", U, 5), ViewItem("m2", whole, 9, original=whole)]
    out = cut_items(items, {"m2": [1, "fp", None]}, lambda m: 3 * len(m.parts))
    assert out[0] is items[0] and out[1].message.parts == whole.parts[:1] and out[1].tokens == 3
    assert cut_items(items, {"m2": [0, None, None]}, len) is items  # superseded rows never reach the items


def test_a_reply_read_from_the_answer_gets_the_stored_call_ids_back() -> None:
    from contextwindow.proxy.conversations import Answer, Conversations

    body = {"content": [{"type": "text", "text": "again"}, {"type": "tool_use", "id": "toolu_sent_1", "name": "Bash", "input": {}}]}
    msg = Conversations._reply("c", Answer("anthropic", body, False), {"toolu_sent_1": "call:1"})
    assert msg is not None and msg.tool_calls[0].id == "call:1" and msg.meta[KIND_KEY] == REPLY
    assert Conversations._reply("c", Answer("anthropic", {"type": "error"}, False), None) is None


def test_a_resumed_match_is_the_match_from_the_beginning() -> None:
    """match(resume=...) after rows before the provisional ones (what Session does for a client that
    re-sends the history it synced last) gives exactly the walk from the first row."""
    rng = random.Random(2024)
    for _ in range(300):
        n = rng.randint(1, 14)
        rows = [Row(f"r{i}", f"f{i}", kind=rng.choice([None, None, "tail", "reply"]) if i >= n - 3 else None,
                    keep=0 if rng.random() < 0.1 else None) for i in range(n)]
        start = rng.randint(max(0, n - 3), n)
        fps = [r.fp or "" for r in rows if r.keep != 0]
        cut = rng.randint(0, len(fps))
        fps = fps[:cut] + [rng.choice(["x", "y", f"f{n - 1}"]) for _ in range(rng.randint(0, 3))]  # the client's end differs
        history = [U] * len(fps)
        full = match(rows, start, fps, history)
        for k in range(1, len(full.rows_for) + 1):
            if full.rows_for[k - 1] >= start:
                break
            assert match(rows, start, fps, history, resume=full.rows_for[:k]) == full, (n, start, fps, k)
