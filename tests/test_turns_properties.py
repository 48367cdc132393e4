"""Property tests for contextwindow.turns: any history → repair validates, cuts are safe, turns partition."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.messages import (
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    user,
)
from contextwindow.turns import (
    PROVIDERS,
    group_turns,
    is_safe_cut,
    merge_for_alternation,
    repair,
    safe_cut_points,
    tool_pairs,
    turn_starts,
    validate,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ids = st.sampled_from(["a", "b", "c", "d", "a~2"])  # few ids: collisions, and one that looks like a rename
texts = st.sampled_from(["", " ", "hello", "ls -la", "done", "x"])

text_part = texts.map(TextPart)
call_part = st.builds(ToolCallPart, ids, st.sampled_from(["ls", "cat", "bash"]), st.just("{}"))
result_part = st.builds(
    ToolResultPart, ids, st.tuples(text_part), st.booleans(), st.sampled_from([None, "ls"])
)
reasoning_part = st.builds(ReasoningPart, texts, st.sampled_from([None, "sig"]))


def _message(role: str, parts: list[Part]) -> Message:
    return Message(role=role, parts=tuple(parts))  # type: ignore[arg-type]


assistant_msg = st.lists(st.one_of(text_part, call_part, call_part, reasoning_part), max_size=4).map(
    lambda ps: _message("assistant", ps)
)
tool_msg = st.lists(st.one_of(result_part, result_part, result_part, text_part), max_size=3).map(
    lambda ps: _message("tool", ps)
)
user_msg = st.lists(st.one_of(text_part, text_part, result_part, call_part), max_size=3).map(
    lambda ps: _message("user", ps)
)
system_msg = st.lists(text_part, max_size=2).map(lambda ps: _message("system", ps))

any_message = st.one_of(assistant_msg, assistant_msg, tool_msg, tool_msg, user_msg, system_msg)
random_histories = st.lists(any_message, max_size=40)


@st.composite
def plausible_histories(draw: st.DrawFn) -> list[Message]:
    """Agent-like turns (user, assistant calls, their results) then damaged: messages deleted,
    swapped, duplicated, inserted — interrupted calls, late results, reused ids."""
    out: list[Message] = []
    k = 0
    for _ in range(draw(st.integers(1, 6))):
        out.append(user(draw(texts) or "q"))
        for _ in range(draw(st.integers(0, 3))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                k += 1
                cid = draw(st.sampled_from([f"t{k}", f"t{k}", f"t{k}", "a"]))  # mostly fresh ids, some reuse
                calls.append(ToolCallPart(cid, "bash", "{}"))
            out.append(_message("assistant", calls))
            for c in calls:
                out.append(_message("tool", [ToolResultPart(c.id, (TextPart("r"),))]))
        out.append(_message("assistant", [TextPart("ok")]))
    for _ in range(draw(st.integers(0, 6))):
        if not out:
            break
        i = draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["delete", "swap", "duplicate", "insert"]))
        if op == "delete":
            del out[i]
        elif op == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif op == "duplicate":
            out.insert(i, out[i])
        elif op == "insert":
            out.insert(i, draw(any_message))
    return out


histories = st.one_of(random_histories, plausible_histories())


def _with_user_first(messages: list[Message]) -> list[Message]:
    """Anthropic/Gemini need a user message first: the one thing repair cannot invent."""
    k = 0
    while k < len(messages) and messages[k].role == "system":
        k += 1
    if k < len(messages) and messages[k].role in ("user", "tool"):
        return messages
    return [*messages[:k], user("start"), *messages[k:]]


def _key(part: Part) -> str:
    """A part's identity apart from call ids (repair may rename a duplicate id)."""
    if isinstance(part, ToolCallPart):
        return f"call:{part.name}:{part.arguments}"
    if isinstance(part, ToolResultPart):
        return f"result:{part.text}:{part.is_error}:{part.name}"
    return repr(part)


def _parts(messages: Sequence[Message]) -> Counter[str]:
    return Counter(_key(p) for m in messages for p in m.parts)


@SETTINGS
@given(histories)
def test_repaired_history_validates_for_every_provider(history: list[Message]) -> None:
    out, _ = repair(history)
    for provider in PROVIDERS:
        sendable = _with_user_first(out)
        assert validate(sendable, provider) == [], provider
        assert validate(merge_for_alternation(sendable, provider), provider) == [], provider
    # repair's own output is already in the strictest (OpenAI chat) form
    assert validate(out, "openai") == []


@SETTINGS
@given(histories)
def test_repair_is_idempotent(history: list[Message]) -> None:
    out, _ = repair(history)
    again, report = repair(out)
    assert again == out
    assert not report.actions and not report.dropped_parts and not report.dropped_messages


@SETTINGS
@given(histories)
def test_repair_loses_nothing_silently(history: list[Message]) -> None:
    out, report = repair(history)
    synthetic = [m for m in out if m.meta.get("cw") == "synthetic_result"]
    kept = [m for m in out if m.meta.get("cw") != "synthetic_result"]
    dropped = Counter(_key(d.part) for d in report.dropped_parts) + _parts([d.message for d in report.dropped_messages])
    assert _parts(kept) + dropped == _parts(history)
    assert len(synthetic) == report.counts().get("synthetic_result", 0)
    # calls are never dropped from assistant messages
    assistant_calls = sum(len(m.tool_calls) for m in history if m.role == "assistant")
    assert sum(len(m.tool_calls) for m in out) == assistant_calls


@SETTINGS
@given(histories)
def test_valid_history_is_a_fixed_point(history: list[Message]) -> None:
    if validate(history, "openai") or validate(_with_user_first(history), "anthropic"):
        history, _ = repair(history)
    out, report = repair(history)
    assert out == history and not report


@SETTINGS
@given(histories)
def test_safe_cuts_separate_no_pair(history: list[Message]) -> None:
    cuts = safe_cut_points(history)
    pairs = [(p.call_index, p.result_index) for p in tool_pairs(history)]
    for i in range(len(history) + 1):
        separates = any(c < i <= r for c, r in pairs)
        assert (i in cuts) == (not separates)
        assert is_safe_cut(history, i) == (i in cuts)
    assert 0 in cuts and len(history) in cuts


@SETTINGS
@given(histories)
def test_safe_cuts_of_repaired_history_by_ids(history: list[Message]) -> None:
    """Independent oracle on repaired (unique-id) histories: no call before the cut whose id has a
    result after it; and every turn start is a safe cut."""
    out, _ = repair(history)
    cuts = set(safe_cut_points(out))
    for i in range(len(out) + 1):
        before = {c.id for m in out[:i] for c in m.tool_calls}
        after = {r.call_id for m in out[i:] for r in m.tool_results}
        assert (i in cuts) == (not (before & after)), i
    assert set(turn_starts(out)) <= cuts


@SETTINGS
@given(histories)
def test_group_turns_partitions_exactly(history: list[Message]) -> None:
    turns = group_turns(history)
    rebuilt = [m for t in turns for m in history[t.start : t.end]]
    assert rebuilt == history
    assert all(len(t) > 0 for t in turns)
    assert all(a.end == b.start for a, b in itertools.pairwise(turns))
    assert [t.start for t in turns if not t.preamble] == turn_starts(history)
    assert all(not t.preamble for t in turns[1:])


@SETTINGS
@given(histories)
def test_merged_view_keeps_validity(history: list[Message]) -> None:
    """What validates for Anthropic/Gemini still validates once merged as their converters send it,
    and merging keeps every part."""
    for provider in ("anthropic", "gemini"):
        merged = merge_for_alternation(history, provider)
        assert _parts(merged) == _parts(history)
        if not validate(history, provider):
            assert validate(merged, provider) == []
