"""Curation: segments and turns over the record, forks from selected turns/folds, titles."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import messages as m
from contextwindow.curation import auto_title, build_from_selection, first_line_title, segments
from contextwindow.errors import ConfigError, ProviderError, SelectionError
from contextwindow.importers import load_transcript
from contextwindow.llm.base import Completion, ScriptedModel
from contextwindow.store import ConversationStore, MemoryStore
from contextwindow.turns import group_turns, validate
from contextwindow.usage import Usage


def pairing_problems(msgs: list[m.Message]) -> list[str]:
    return [str(p) for p in validate(msgs, "openai") if p.code in ("unanswered_call", "orphan_result")]


def tool_turn(i: int) -> list[m.Message]:
    call = m.ToolCallPart(id=f"call_{i}", name="read", arguments=f'{{"n": {i}}}')
    return [m.user(f"question {i}"), m.assistant(f"reading {i}", call), m.tool_result(f"call_{i}", f"content {i}"), m.assistant(f"answer {i}")]


def snapshot(store: ConversationStore, cid: str) -> tuple[object, ...]:
    return (store.get_conversation(cid), store.list(cid), store.list_checkpoints(cid))


@pytest.fixture
def folded(store: ConversationStore) -> tuple[ConversationStore, str]:
    """system + 6 tool turns (4 messages each); fold 1 after turn 2 (seq 9), fold 2 after turn 4 (seq 17)."""
    cid = store.create_conversation("folded")
    store.append(cid, [m.system("be brief")])
    for i in range(1, 7):
        store.append(cid, tool_turn(i))
    store.checkpoint(cid, m.text_message("user", "summary of turns 1-2", cw="fold_summary"), 9)
    store.checkpoint(cid, m.text_message("user", "summary of turns 1-4", cw="fold_summary"), 17)
    return store, cid


def test_segments_group_the_record_by_folds_and_turns(folded: tuple[ConversationStore, str]) -> None:
    store, cid = folded
    segs = segments(store, cid)
    assert [(s.kind, s.start_seq, s.end_seq) for s in segs] == [("archived", 1, 9), ("archived", 10, 17), ("loaded", 18, 25)]
    assert [s.fold.seq if s.fold else None for s in segs] == [1, 2, 2]
    assert [[t.index for t in s.turns] for s in segs] == [[1, 2, 3], [4, 5], [6, 7]]
    preamble = segs[0].turns[0]
    assert preamble.preamble and [x.message.role for x in preamble.messages] == ["system"]
    t = segs[1].turns[0]
    assert (t.first_seq, t.last_seq, t.headline) == (10, 13, "question 3")
    assert [x.message.role for x in t.messages] == ["user", "assistant", "tool", "assistant"]
    # the segments cover the record exactly, in order
    assert [x.seq for s in segs for t in s.turns for x in t.messages] == list(range(1, 26))
    # the loaded segment is what list_active returns
    assert [x.seq for t in segs[-1].turns for x in t.messages] == [x.seq for x in store.list_active(cid)]


def test_segments_of_an_unfolded_conversation(store: ConversationStore) -> None:
    cid = store.create_conversation()
    assert [(s.kind, s.turns) for s in segments(store, cid)] == [("loaded", ())]
    store.append(cid, [*tool_turn(1), m.user("thanks")])
    (seg,) = segments(store, cid)
    assert seg.fold is None and [len(t.messages) for t in seg.turns] == [4, 1]


def test_build_from_selection_keeps_order_uses_fold_summaries_and_leaves_source_alone(
    folded: tuple[ConversationStore, str],
) -> None:
    store, cid = folded
    before = snapshot(store, cid)
    new = build_from_selection(store, cid, turns=[7, 4], folds=[1], title="curated")
    assert snapshot(store, cid) == before
    got = [x.message for x in store.list(new)]
    texts = [x.text for x in got]
    assert texts[0] == "summary of turns 1-2"  # fold 1 sits where its segment ended
    assert texts[1:5] == ["question 3", "reading 3", "content 3", "answer 3"]
    assert texts[5:] == ["question 6", "reading 6", "content 6", "answer 6"]
    assert got[0].meta == {"cw": "fold_summary"}
    kept = build_from_selection(store, cid, turns=[1, 6])
    assert [x.message.text for x in store.list(kept)][:2] == ["be brief", "question 5"]  # turn 1 is the preamble
    assert pairing_problems(got) == []
    info = store.get_conversation(new)
    assert (info.title, info.parent_id) == ("curated", cid)


def test_a_fold_and_its_own_turns_are_mutually_exclusive(folded: tuple[ConversationStore, str]) -> None:
    store, cid = folded
    before = snapshot(store, cid)
    n = len(store.list_conversations())
    with pytest.raises(SelectionError, match=r"fold 2 and its own turn\(s\) 5"):
        build_from_selection(store, cid, turns=[5], folds=[2])
    # a turn archived by an earlier fold is not fold 2's own
    new = build_from_selection(store, cid, turns=[2], folds=[2])
    assert [x.message.text for x in store.list(new)][-1] == "summary of turns 1-4"
    for bad_turns, bad_folds, match in [([99], [], "turn 99"), ([], [3], "fold 3"), ([0], [], "turn 0")]:
        with pytest.raises(SelectionError, match=match):
            build_from_selection(store, cid, turns=bad_turns, folds=bad_folds)
    with pytest.raises(ConfigError, match="integers"):
        build_from_selection(store, cid, turns=["1"])  # type: ignore[list-item]
    assert snapshot(store, cid) == before
    assert len(store.list_conversations()) == n + 1


def test_a_fold_inside_a_turn_cannot_orphan_a_tool_call(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, tool_turn(1) + tool_turn(2))
    store.checkpoint(cid, m.user("summary"), 6)  # between turn 2's call (6) and its result (7)
    segs = segments(store, cid)
    cut = segs[0].turns[-1]
    assert cut.last_seq == 6 and cut.messages[-1].message.tool_calls
    with pytest.raises(SelectionError, match="tool call"):
        build_from_selection(store, cid, turns=[cut.index])
    whole = build_from_selection(store, cid, turns=[cut.index, cut.index + 1])
    assert pairing_problems([x.message for x in store.list(whole)]) == []


@pytest.mark.fixtures
def test_curating_a_real_claude_code_session(transcripts_dir: Path, store: ConversationStore) -> None:
    session = load_transcript(transcripts_dir / "claude_code" / "codemie_session-196820da.jsonl")
    msgs = session.messages
    turns = group_turns(msgs)
    assert len(turns) >= 10
    cid = store.create_conversation(session.title)
    store.append(cid, msgs)
    store.checkpoint(cid, m.user("fold A"), turns[3].end)  # seqs are 1-based: end index == last seq
    store.checkpoint(cid, m.user("fold B"), turns[8].end)
    before = snapshot(store, cid)
    segs = segments(store, cid)
    assert sum(len(s.turns) for s in segs) == len(turns)
    assert [x.message for s in segs for t in s.turns for x in t.messages] == msgs
    picked = [segs[0].turns[1].index, segs[2].turns[0].index, segs[2].turns[-1].index]
    new = build_from_selection(store, cid, turns=picked, folds=[2])
    out = [x.message for x in store.list(new)]
    assert out[: len(segs[0].turns[1].messages)] == [x.message for x in segs[0].turns[1].messages]
    assert any(x.text == "fold B" for x in out) and not any(x.text == "fold A" for x in out)
    assert sum(len(x.tool_calls) for x in out) > 0
    assert pairing_problems(out) == []
    assert snapshot(store, cid) == before


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=8), st.data())
def test_any_valid_selection_builds_a_valid_conversation(shape: list[int], data: st.DataObject) -> None:
    store = MemoryStore()
    cid = store.create_conversation()
    for i, calls in enumerate(shape):
        store.append(cid, [m.user(f"u{i}")])
        for j in range(calls):
            store.append(cid, tool_turn(i * 10 + j)[1:3])
        store.append(cid, [m.assistant(f"done {i}")])
    ends = [t.last_seq for seg in segments(store, cid) for t in seg.turns]
    fold_at = sorted(set(data.draw(st.lists(st.sampled_from(ends), max_size=3))))
    for upto in fold_at:
        store.checkpoint(cid, m.user(f"sum {upto}"), upto)
    segs = segments(store, cid)
    all_turns = [t.index for s in segs for t in s.turns]
    folds = data.draw(st.lists(st.sampled_from(range(1, len(fold_at) + 1)), max_size=2)) if fold_at else []
    own = {t.index for s in segs if s.kind == "archived" and s.fold and s.fold.seq in folds for t in s.turns}
    chosen = data.draw(st.lists(st.sampled_from(all_turns), max_size=6))
    chosen = [t for t in chosen if t not in own]
    before = snapshot(store, cid)
    new = build_from_selection(store, cid, turns=chosen, folds=folds)
    out = [x.message for x in store.list(new)]
    assert pairing_problems(out) == []
    assert snapshot(store, cid) == before
    expected = sum(len(t.messages) for s in segs for t in s.turns if t.index in set(chosen))
    assert len(out) == expected + len(set(folds))


# --- titles ----------------------------------------------------------------------------------


def test_first_line_title_trims_at_a_word() -> None:
    assert first_line_title("\n\n  Fix   the bug\nin parser") == "Fix the bug"
    long = "Please refactor the tokenizer module so that it handles unicode normalization everywhere"
    t = first_line_title(long)
    assert len(t) <= 60 and t.endswith("…") and long.startswith(t[:-1])
    assert first_line_title("x" * 100) == "x" * 59 + "…"


def test_auto_title_waits_for_the_first_exchange_then_uses_the_first_line(store: ConversationStore) -> None:
    cid = store.create_conversation()
    assert auto_title(store, cid) is None
    store.append(cid, [m.system("sys"), m.user("Why does `ctxw replay` crash on empty files?\nTrace below")])
    assert auto_title(store, cid) is None
    assert store.get_conversation(cid).title is None
    store.append(cid, [m.assistant("Because the reader assumes one line.")])
    assert auto_title(store, cid) == "Why does `ctxw replay` crash on empty files?"
    assert store.get_conversation(cid).title == "Why does `ctxw replay` crash on empty files?"
    assert store.list_conversations()[0].title == "Why does `ctxw replay` crash on empty files?"
    store.set_title(cid, "kept")
    assert auto_title(store, cid) == "kept"


def test_auto_title_from_a_helper_model_records_its_usage(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, [m.user("please make the parser faster"), m.assistant("Profiling shows the regex is hot.")])
    model = ScriptedModel(['"Speeding up the parser."'], name="helper-mini")
    assert auto_title(store, cid, model) == "Speeding up the parser"
    (call,) = model.calls
    assert "please make the parser faster" in call.prompt_text and "regex is hot" in call.prompt_text
    assert call.max_tokens <= 64
    (u,) = store.list_usage(cid)
    assert (u.role, u.model) == ("title", "helper-mini") and u.input_tokens > 0


def test_auto_title_falls_back_when_the_model_fails_or_says_nothing(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, [m.user("add retries to the client"), m.assistant("ok")])
    failing = ScriptedModel([ProviderError("boom", status=500)])
    assert auto_title(store, cid, failing) == "add retries to the client"
    blank = ScriptedModel([Completion(text="   ", usage=Usage(input_tokens=5, output_tokens=0, model="b"))])
    assert auto_title(store, cid, blank, force=True) == "add retries to the client"
    assert [u.role for u in store.list_usage(cid)] == ["title"]
