"""Turn boundaries, safe cuts, validation and repair (contextwindow.turns): explicit cases."""

from __future__ import annotations

import pytest

from contextwindow.errors import ConfigError, InvalidPayloadError
from contextwindow.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    assistant,
    system,
    tool_result,
    user,
)
from contextwindow.turns import (
    PROVIDERS,
    SYNTHETIC_RESULT_TEXT,
    Turn,
    assert_valid,
    group_turns,
    is_safe_cut,
    merge_for_alternation,
    repair,
    safe_cut_points,
    tool_pairs,
    turn_starts,
    validate,
)


def call(cid: str, name: str = "read") -> ToolCallPart:
    return ToolCallPart(cid, name, '{"path":"a.py"}')


def codes(messages: list[Message], provider: str = "openai") -> list[tuple[int, str]]:
    return [(p.index, p.code) for p in validate(messages, provider)]


VALID = [
    system("be brief"),
    user("list files"),
    assistant("", call("c1", "ls"), call("c2", "pwd")),
    tool_result("c1", "a.py b.py"),
    tool_result("c2", "/repo"),
    assistant("two files"),
    user("read a.py"),
    assistant("", call("c3")),
    tool_result("c3", "print(1)"),
    assistant("it prints 1"),
]


# --- turns -------------------------------------------------------------------------------------


def test_turn_starts_skip_tool_results_and_system() -> None:
    assert turn_starts(VALID) == [1, 6]


def test_user_message_holding_tool_results_does_not_start_a_turn() -> None:
    anthropic_style = Message("user", (ToolResultPart("c1", (TextPart("x"),)), TextPart("and also")))
    msgs = [user("q"), assistant("", call("c1")), anthropic_style, user("next")]
    assert turn_starts(msgs) == [0, 3]


def test_group_turns_with_preamble() -> None:
    turns = group_turns(VALID)
    assert turns == [Turn(0, 1, preamble=True), Turn(1, 6), Turn(6, 10)]
    assert [len(t) for t in turns] == [1, 5, 4]


def test_group_turns_edge_cases() -> None:
    assert group_turns([]) == []
    only_preamble = [system("s"), assistant("hello")]
    assert group_turns(only_preamble) == [Turn(0, 2, preamble=True)]
    assert group_turns([user("a"), user("b")]) == [Turn(0, 1), Turn(1, 2)]


# --- pairs and cuts ----------------------------------------------------------------------------


def test_tool_pairs_and_safe_cuts() -> None:
    assert [(p.call_id, p.call_index, p.result_index) for p in tool_pairs(VALID)] == [
        ("c1", 2, 3),
        ("c2", 2, 4),
        ("c3", 7, 8),
    ]
    # cuts 3, 4 (between the call and its results) and 8 are unsafe
    assert safe_cut_points(VALID) == [0, 1, 2, 5, 6, 7, 9, 10]
    assert set(turn_starts(VALID)) <= set(safe_cut_points(VALID))
    assert is_safe_cut(VALID, 6) and not is_safe_cut(VALID, 4)
    assert is_safe_cut(VALID, 0) and is_safe_cut(VALID, len(VALID))


def test_is_safe_cut_rejects_bad_index() -> None:
    with pytest.raises(ConfigError, match=r"0\.\.10"):
        is_safe_cut(VALID, 11)
    with pytest.raises(ConfigError):
        is_safe_cut(VALID, -1)


def test_duplicate_ids_pair_with_nearest_assistant() -> None:
    msgs = [user("q"), assistant("", call("x")), tool_result("x", "1"), assistant("", call("x")), tool_result("x", "2")]
    assert [(p.call_index, p.result_index) for p in tool_pairs(msgs)] == [(1, 2), (3, 4)]
    assert safe_cut_points(msgs) == [0, 1, 3, 5]


def test_out_of_order_result_makes_the_span_unsafe() -> None:
    msgs = [user("q"), assistant("", call("x")), user("hurry"), tool_result("x", "late")]
    assert safe_cut_points(msgs) == [0, 1, 4]


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_valid_history_is_valid_for_every_provider(provider: str) -> None:
    msgs = merge_for_alternation(VALID, provider)
    assert validate(msgs, provider) == []
    assert_valid(msgs, provider)


def test_unanswered_orphan_duplicate_and_empty() -> None:
    msgs = [
        user("q"),
        assistant("", call("a"), call("a")),
        tool_result("a", "r"),
        tool_result("zz", "nobody asked"),
        Message("assistant", (TextPart("   "),)),
        user("ok"),
    ]
    assert codes(msgs) == [
        (1, "duplicate_call_id"),
        (1, "unanswered_call"),
        (3, "orphan_result"),
        (4, "empty_message"),
    ]


def test_result_after_next_assistant_is_misplaced_except_for_responses() -> None:
    msgs = [user("q"), assistant("", call("a")), assistant("still thinking"), tool_result("a", "r")]
    assert codes(msgs, "openai") == [(3, "misplaced_result")]
    # Anthropic/Gemini converters merge the two assistant messages into one turn: fine there
    assert codes(msgs, "anthropic") == [] and codes(msgs, "gemini") == []
    assert codes(msgs, "openai_responses") == []
    # a whole user turn in between is misplaced for them too
    later = [user("q"), assistant("", call("a")), user("hi"), assistant("x"), tool_result("a", "r")]
    assert codes(later, "anthropic") == [(4, "misplaced_result")]
    assert codes(later, "gemini") == [(4, "misplaced_result")]
    assert codes(later, "openai_responses") == []


def test_openai_wants_results_right_after_the_call() -> None:
    msgs = [user("q"), assistant("", call("a")), user("interjection"), tool_result("a", "r")]
    assert codes(msgs, "openai") == [(3, "misplaced_result")]
    # Anthropic merges user-side messages into one turn, but wants the results before the text
    assert codes(msgs, "anthropic") == [(3, "results_not_first")]
    assert codes(msgs, "gemini") == []
    assert validate(merge_for_alternation(msgs, "anthropic"), "anthropic") == []


def test_openai_result_role_and_tool_without_result() -> None:
    msgs = [
        user("q"),
        assistant("", call("a")),
        Message("user", (ToolResultPart("a", (TextPart("r"),)),)),
        Message("tool", (TextPart("stray text"),)),
    ]
    assert codes(msgs, "openai") == [
        (2, "misplaced_result"),
        (2, "result_outside_tool_message"),
        (3, "tool_without_result"),
    ]


def test_call_outside_assistant() -> None:
    msgs = [Message("user", (TextPart("q"), call("a"))), assistant("x")]
    assert (0, "call_outside_assistant") in codes(msgs)


def test_anthropic_and_gemini_want_the_user_first() -> None:
    for provider in ("anthropic", "gemini"):
        assert codes([system("s"), assistant("hi"), user("q")], provider) == [(1, "first_not_user")]
        assert codes([system("s"), tool_result("a", "r")], provider) == [(1, "orphan_result")]
    # OpenAI chat accepts an assistant first
    assert codes([system("s"), assistant("hi"), user("q")], "openai") == []


def test_merged_view_rules_match_the_converters() -> None:
    """Consecutive same-side messages and mid-history system messages are what the Anthropic and
    Gemini converters merge and lift: not problems."""
    msgs = [user("a"), user("b"), assistant("c"), system("late"), assistant("d"), user("e")]
    for provider in ("anthropic", "gemini"):
        assert codes(msgs, provider) == []
        merged = merge_for_alternation(msgs, provider)
        assert [m.role for m in merged] == ["system", "user", "assistant", "user"]
        assert validate(merged, provider) == []


def test_anthropic_results_first() -> None:
    mixed = Message("user", (TextPart("note"), ToolResultPart("a", (TextPart("r"),))))
    msgs = [user("q"), assistant("", call("a")), mixed]
    assert codes(msgs, "anthropic") == [(2, "results_not_first")]
    merged = merge_for_alternation(msgs, "anthropic")
    assert isinstance(merged[2].parts[0], ToolResultPart)
    assert validate(merged, "anthropic") == []


def test_assert_valid_lists_problems() -> None:
    msgs = [user("q"), assistant("", call("a")), tool_result("b", "r")]
    with pytest.raises(InvalidPayloadError) as info:
        assert_valid(msgs)
    msg = str(info.value)
    assert "2 structural problem(s) for openai" in msg
    assert "unanswered_call" in msg and "orphan_result" in msg and "'a'" in msg and "'b'" in msg


def test_unknown_provider() -> None:
    with pytest.raises(ConfigError, match="cohere"):
        validate(VALID, "cohere")
    with pytest.raises(ConfigError):
        merge_for_alternation(VALID, "cohere")


# --- repair ------------------------------------------------------------------------------------


def test_repair_leaves_valid_history_alone() -> None:
    out, report = repair(VALID)
    assert out == VALID
    assert not report and report.describe() == "nothing to repair"
    assert all(a is b for a, b in zip(out, VALID, strict=True))


def test_repair_synthesizes_result_for_interrupted_call() -> None:
    msgs = [user("q"), assistant("", call("a", "bash"), call("b")), tool_result("b", "ok"), user("next")]
    out, report = repair(msgs)
    assert [m.role for m in out] == ["user", "assistant", "tool", "tool", "user"]
    synth = out[3]
    assert synth.meta == {"cw": "synthetic_result"}
    part = synth.parts[0]
    assert isinstance(part, ToolResultPart)
    assert part.call_id == "a" and part.is_error and part.name == "bash"
    assert part.text == SYNTHETIC_RESULT_TEXT
    assert [(a.index, a.action, a.call_id) for a in report.actions] == [(1, "synthetic_result", "a")]
    assert validate(out) == []


def test_repair_drops_orphan_and_returns_it() -> None:
    orphan = tool_result("ghost", "who called me")
    msgs = [user("q"), assistant("hi"), orphan, user("more")]
    out, report = repair(msgs)
    assert out == [msgs[0], msgs[1], msgs[3]]
    assert [d.part for d in report.dropped_parts] == list(orphan.parts)
    assert report.dropped_parts[0].index == 2
    assert [a.action for a in report.actions] == ["dropped_orphan_result", "removed_empty"]
    # the shell of the emptied message (its role, extra, meta) is returned too
    assert report.dropped_messages[0].index == 2 and report.dropped_messages[0].message.role == "tool"


def test_repair_moves_late_results_back_to_their_call() -> None:
    late = tool_result("a", "late")
    msgs = [user("q"), assistant("", call("a")), assistant("meanwhile"), late, user("next")]
    out, report = repair(msgs)
    assert out == [msgs[0], msgs[1], late, msgs[2], msgs[4]]
    assert [(a.index, a.action) for a in report.actions] == [(3, "moved_result")]


def test_repair_splits_a_message_with_results_for_two_calls() -> None:
    both = Message("tool", (ToolResultPart("a", (TextPart("ra"),)), ToolResultPart("b", (TextPart("rb"),))))
    msgs = [user("q"), assistant("", call("a")), assistant("", call("b")), both]
    out, report = repair(msgs)
    assert [m.role for m in out] == ["user", "assistant", "tool", "assistant", "tool"]
    assert out[2].tool_results[0].call_id == "a" and out[2].meta == {"cw": "moved_result"}
    assert out[4].tool_results[0].call_id == "b"
    assert report.counts() == {"moved_result": 1}
    assert validate(out) == []


def test_repair_anthropic_style_user_results_become_tool_messages() -> None:
    mixed = Message("user", (ToolResultPart("a", (TextPart("r"),)), TextPart("also, hurry")))
    msgs = [user("q"), assistant("", call("a")), mixed]
    out, report = repair(msgs)
    assert [m.role for m in out] == ["user", "assistant", "tool", "user"]
    assert out[3].text == "also, hurry"
    assert report.counts() == {"moved_result": 1}
    assert validate(out) == []


def test_repair_renames_duplicate_call_ids() -> None:
    msgs = [
        user("q"),
        assistant("", call("x")),
        tool_result("x", "1"),
        assistant("", call("x")),
        tool_result("x", "2"),
    ]
    out, report = repair(msgs)
    assert [a.action for a in report.actions] == ["renamed_duplicate_call"]
    assert out[3].tool_calls[0].id == "x~2" and out[4].tool_results[0].call_id == "x~2"
    assert out[4].tool_results[0].text == "2"
    assert validate(out) == []


def test_repair_renamed_id_avoids_existing_ids() -> None:
    msgs = [user("q"), assistant("", call("x"), call("x~2"), call("x")), tool_result("x", "1")]
    out, _ = repair(msgs)
    ids = [c.id for c in out[1].tool_calls]
    assert ids == ["x", "x~2", "x~3"] and len(set(ids)) == 3


def test_repair_removes_empty_and_relabels_text_only_tool_message() -> None:
    msgs = [user("q"), Message("assistant", ()), Message("tool", (TextPart("banner"),)), assistant("done")]
    out, report = repair(msgs)
    assert [m.role for m in out] == ["user", "user", "assistant"]
    assert out[1].text == "banner"
    assert report.counts() == {"removed_empty": 1, "relabelled_tool_as_user": 1}
    assert report.dropped_messages[0].message == msgs[1]


def test_repair_drops_calls_outside_assistant_with_their_results() -> None:
    msgs = [Message("user", (TextPart("q"), call("a"))), tool_result("a", "r"), assistant("x")]
    out, report = repair(msgs)
    assert out == [Message("user", (TextPart("q"),)), assistant("x")]
    assert [type(d.part).__name__ for d in report.dropped_parts] == ["ToolCallPart", "ToolResultPart"]


def test_repair_keeps_opaque_data_of_moved_message() -> None:
    late = Message("tool", (ToolResultPart("a", (TextPart("r"),)),), extra={"openai": {"x": 1}}, meta={"k": "v"})
    msgs = [user("q"), assistant("", call("a")), user("wait"), late]
    out, _ = repair(msgs)
    assert out[2] == late


def test_repair_is_idempotent_on_a_messy_history() -> None:
    msgs = [
        system("s"),
        assistant("", call("a"), call("b")),
        user("hey"),
        tool_result("b", "rb"),
        Message("user", ()),
        assistant("", call("a")),
        tool_result("a", "ra"),
        tool_result("q", "orphan"),
        Message("assistant", (ReasoningPart("hmm", signature="sig"), call("c"))),
    ]
    out, report = repair(msgs)
    assert report.changed
    again, report2 = repair(out)
    assert again == out and not report2
    for provider in ("openai", "openai_responses"):
        assert validate(out, provider) == []


def test_merge_for_alternation_keeps_every_part() -> None:
    msgs = [
        system("s"),
        user("a"),
        user("b"),
        assistant("", call("x")),
        assistant("", call("y")),
        tool_result("x", "rx"),
        tool_result("y", "ry"),
        system("late rule"),
        assistant("done"),
    ]
    merged = merge_for_alternation(msgs, "gemini")
    assert [m.role for m in merged] == ["system", "system", "user", "assistant", "tool", "assistant"]
    assert merged[1].text == "late rule"  # lifted into the system prompt, as the converters do
    assert merged[2].meta == {"cw_merged": 2}
    assert [type(p).__name__ for p in merged[4].parts] == ["ToolResultPart", "ToolResultPart"]
    assert sorted(map(repr, (p for m in merged for p in m.parts))) == sorted(map(repr, (p for m in msgs for p in m.parts)))
    assert merge_for_alternation(msgs, "openai") == msgs


def test_report_and_problem_text() -> None:
    msgs = [user("q"), assistant("", call("a")), tool_result("zz", "r")]
    problem = validate(msgs)[0]
    assert str(problem).startswith("message 1: unanswered_call: tool call 'a'")
    _, report = repair(msgs)
    assert report.describe() == "dropped_orphan_result ×1, removed_empty ×1, synthetic_result ×1"
    assert str(report) == report.describe()
    assert [str(a) for a in report.actions] == [
        "message 1: synthetic_result call 'a': no result was recorded for read",
        "message 2: dropped_orphan_result call 'zz': no matching call before it",
        "message 2: removed_empty: nothing left after the repairs above",
    ]


def test_empty_message_definition() -> None:
    from contextwindow.turns import is_empty_message

    assert is_empty_message(Message("user", ()))
    assert is_empty_message(Message("user", (TextPart(" \n"), TextPart(""))))
    assert not is_empty_message(Message("assistant", (ReasoningPart(""),)))
    assert not is_empty_message(Message("tool", (ToolResultPart("a"),)))


def test_module_is_pure() -> None:
    """Invariant 7: turns imports nothing that reaches a clock, disk, network or env."""
    import ast
    import inspect

    from contextwindow import turns

    imported = set()
    for node in ast.walk(ast.parse(inspect.getsource(turns))):
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported <= {"__future__", "collections.abc", "dataclasses", "typing", ".errors", ".messages"}


def test_fold_summary_is_preamble_not_a_turn() -> None:
    summary = Message("user", (TextPart("Goal: ..."),), meta={"cw": "fold_summary"})
    msgs = [system("s"), summary, user("next task"), assistant("ok")]
    assert turn_starts(msgs) == [2]
    assert group_turns(msgs) == [Turn(0, 2, preamble=True), Turn(2, 4)]


def test_repair_puts_results_first_for_anthropic() -> None:
    mixed = Message("tool", (ToolResultPart("a", (TextPart("ra"),)), TextPart("<reminder>")))
    msgs = [user("q"), assistant("", call("a"), call("b")), mixed, tool_result("b", "rb")]
    assert validate(msgs, "openai") == []
    assert codes(msgs, "anthropic") == [(3, "results_not_first")]
    out, report = repair(msgs)
    assert [m.role for m in out] == ["user", "assistant", "tool", "tool", "user"]
    assert out[4].text == "<reminder>" and out[4].meta == {"cw": "tool_text"}
    assert report.counts() == {"split_tool_text": 1}
    assert validate(out, "anthropic") == [] and validate(out, "openai") == []
    assert turn_starts(out) == [0]  # text that came with tool results starts no turn
