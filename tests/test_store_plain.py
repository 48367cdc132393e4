"""store/plain.py: the messages a MemoryStore keeps as given instead of decoding its own JSON of
them. Whatever ``round_trips`` accepts decodes to a ``repr``-identical message (so the store's
listing is the same with and without it), and the store lists exactly what decoding would give."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import messages as m
from contextwindow.errors import PayloadError
from contextwindow.store.memory import MemoryStore
from contextwindow.store.plain import round_trips

texts = st.text(max_size=12)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | texts
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(texts, inner, max_size=3), max_leaves=6)
dicts = st.dictionaries(texts, values, max_size=3)
text_parts = st.builds(m.TextPart, text=texts, extra=dicts)
image_parts = st.builds(
    m.ImagePart, source=st.sampled_from(["base64", "url", "file"]), data=texts, media_type=st.none() | texts,
    width=st.none() | st.integers(1, 4000) | st.just(True), height=st.none() | st.integers(1, 4000), extra=dicts,
)
parts = st.one_of(
    text_parts,
    image_parts,
    st.builds(m.ReasoningPart, text=texts, signature=st.none() | texts, encrypted=st.none() | texts, provider=st.none() | texts, extra=dicts),
    st.builds(m.ToolCallPart, id=texts, name=texts, arguments=texts, extra=dicts),
    st.builds(
        m.ToolResultPart, call_id=texts, content=st.lists(text_parts | image_parts, max_size=2).map(tuple),
        is_error=st.booleans() | st.sampled_from([0, 1]), name=st.none() | texts, extra=dicts,
    ),
)
messages = st.builds(
    m.Message, role=st.sampled_from(["system", "user", "assistant", "tool"]), parts=st.lists(parts, max_size=4).map(tuple),
    name=st.none() | texts, extra=dicts, meta=dicts,
)


def _decoded(msg: m.Message) -> m.Message:
    return m.loads(m.dumps(msg))


@settings(max_examples=300, deadline=None)
@given(messages)
def test_what_round_trips_decodes_to_the_same_repr(msg: m.Message) -> None:
    if round_trips(msg):
        assert repr(_decoded(msg)) == repr(msg)


def test_round_trips_says_no_to_what_json_changes() -> None:
    call = m.ToolCallPart("c1", "read", "{}")
    assert round_trips(m.Message("assistant", (call,), meta={"a": 1, "b": [1.5, "x", None, True]}))
    assert not round_trips(m.Message("assistant", (call,), meta={"b": 1, "a": 2}))  # keys come back sorted
    assert not round_trips(m.Message("assistant", (call,), meta={"a": (1, 2)}))  # a tuple comes back a list
    assert not round_trips(m.Message("assistant", (call,), meta={"a": float("nan")}))
    assert not round_trips(m.Message("tool", (m.ToolResultPart("c1", (m.TextPart("x"),), is_error=1),)))  # type: ignore[arg-type]
    assert not round_trips(m.Message("user", [m.TextPart("x")]))  # type: ignore[arg-type]
    assert not round_trips(m.Message("bogus", (m.TextPart("x"),)))  # type: ignore[arg-type]


def test_what_decoding_refuses_is_still_refused_at_append() -> None:
    store = MemoryStore()
    cid = store.create_conversation()
    with pytest.raises(PayloadError, match="unknown role"):
        store.append(cid, [m.Message("bogus", (m.TextPart("x"),))])  # type: ignore[arg-type]


def _store_lists_what_decoding_gives(msgs: list[m.Message]) -> int:
    store = MemoryStore(deterministic=True)
    cid = store.create_conversation()
    given_back = store.append(cid, msgs)
    listed = store.list(cid)
    assert [repr(sm.message) for sm in listed] == [repr(_decoded(x)) for x in msgs]
    assert all(a.message is b for a, b in zip(given_back, msgs, strict=True))
    return sum(sm.message is x for sm, x in zip(listed, msgs, strict=True))


@settings(max_examples=60, deadline=None)
@given(st.lists(messages, max_size=6))
def test_the_store_lists_what_decoding_would_give(msgs: list[m.Message]) -> None:
    _store_lists_what_decoding_gives(msgs)


def test_a_seeded_session_is_kept_as_given_where_it_round_trips() -> None:
    rng = random.Random(5)
    msgs = []
    for i in range(200):
        meta = {"output_tokens": rng.randint(1, 900)} if rng.random() < 0.5 else {}
        msgs.append(m.Message("assistant", (m.TextPart(f"step {i}"), m.ToolCallPart(f"c{i}", "bash", '{"cmd": "ls"}')), meta=meta))
        msgs.append(m.tool_result(f"c{i}", "x" * rng.randint(0, 50), name="bash"))
        if rng.random() < 0.1:
            msgs.append(m.Message("user", (m.TextPart("go on"),), meta={"b": 1, "a": (1,)}))  # decoded
    kept = _store_lists_what_decoding_gives(msgs)
    assert 0 < kept < len(msgs)


def test_real_sessions_are_listed_as_decoding_would_give(transcripts_dir: Path) -> None:
    from contextwindow.importers import load_all

    kept = total = 0
    for f in sorted(transcripts_dir.glob("*/*"))[:12]:
        for s in load_all(f):
            kept += _store_lists_what_decoding_gives(list(s.messages))
            total += len(s.messages)
    assert total > 200 and kept > total // 2


def test_a_reply_carrying_its_output_count_is_stored_as_given() -> None:
    """``with_output_count`` writes its two keys in sorted order, so a counted reply round-trips
    (the store keeps it instead of decoding its own JSON of it again)."""
    from contextwindow.tokens.retention import with_output_count

    reply = with_output_count(m.Message("assistant", (m.TextPart("done"), m.ToolCallPart("c1", "read", "{}"))), 42)
    assert list(reply.meta) == sorted(reply.meta) and reply.meta["output_tokens"] == 42
    assert round_trips(reply)
    assert _store_lists_what_decoding_gives([reply]) == 1
