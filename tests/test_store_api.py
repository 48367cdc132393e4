"""One suite, three backends (memory, SQLite, a real PostgreSQL server): the store's contract."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow import messages as m
from contextwindow.errors import ConfigError, NotFoundError, SelectionError
from contextwindow.store import Checkpoint, ConversationStore, Selection, StoredMessage, open_store
from contextwindow.usage import Usage


def rich_messages() -> list[m.Message]:
    call = m.ToolCallPart(id="call_1", name="grep", arguments='{"pattern": "TODO"}', extra={"openai": {"type": "function"}})
    return [
        m.system("You are terse."),
        m.user("find the TODOs\nin src/"),
        m.Message(
            role="assistant",
            parts=(
                m.ReasoningPart(text="let me grep", signature="sig==", provider="anthropic"),
                m.TextPart("Searching."),
                call,
            ),
            extra={"anthropic": {"id": "msg_01"}},
            meta={"cw": "note"},
        ),
        m.tool_result("call_1", "src/a.py:3: # TODO fix", name="grep"),
        m.Message(role="user", parts=(m.TextPart("and this?"), m.ImagePart(source="base64", data="iVBORw0KGgo=", media_type="image/png"))),
        m.assistant("Done: 1 TODO in src/a.py."),
    ]


def test_public_surface_is_declared() -> None:
    import contextwindow.store as store_pkg

    for name in store_pkg.__all__:
        assert hasattr(store_pkg, name), name
    assert {"open_store", "ConversationStore", "Selection", "StoredMessage", "Checkpoint"} <= set(store_pkg.__all__)


def test_open_store_returns_a_conversation_store(store: ConversationStore) -> None:
    assert isinstance(store, ConversationStore)
    assert isinstance(store.url, str) and store.url


def test_conversations_create_get_list_title(store: ConversationStore) -> None:
    a = store.create_conversation("first", {"agent": "demo", "n": 1})
    b = store.create_conversation(parent_id=a)
    info = store.get_conversation(a)
    assert (info.id, info.title, info.parent_id, info.metadata, info.message_count) == (a, "first", None, {"agent": "demo", "n": 1}, 0)
    assert store.get_conversation(b).parent_id == a
    assert store.get_conversation(b).title is None
    store.set_title(b, "second")
    assert store.get_conversation(b).title == "second"
    listed = store.list_conversations()
    assert {c.id for c in listed} == {a, b}
    assert [c.id for c in listed] == [c.id for c in sorted(listed, key=lambda c: c.created_at, reverse=True)]
    assert len(store.list_conversations(limit=1)) == 1


def test_append_assigns_contiguous_seqs_and_round_trips_losslessly(store: ConversationStore) -> None:
    cid = store.create_conversation("t")
    msgs = rich_messages()
    first = store.append(cid, msgs[:2])
    rest = store.append(cid, msgs[2:])
    stored = first + rest
    assert [s.seq for s in stored] == list(range(1, len(msgs) + 1))
    assert len({s.id for s in stored}) == len(msgs)
    assert all(isinstance(s, StoredMessage) and s.conversation_id == cid for s in stored)
    listed = store.list(cid)
    assert [s.message for s in listed] == msgs
    assert [m.dumps(s.message) for s in listed] == [m.dumps(x) for x in msgs]
    assert [(s.id, s.seq) for s in listed] == [(s.id, s.seq) for s in stored]
    assert store.get_conversation(cid).message_count == len(msgs)
    assert store.append(cid, []) == []


def test_identical_messages_are_separate_rows(store: ConversationStore) -> None:
    cid = store.create_conversation()
    out = store.append(cid, [m.user("same"), m.user("same")])
    assert [s.seq for s in out] == [1, 2]
    assert out[0].id != out[1].id
    assert [s.message.text for s in store.list(cid)] == ["same", "same"]


def test_unknown_conversation_is_not_found_everywhere(store: ConversationStore) -> None:
    bad = "c_doesnotexist00"
    calls: list[Any] = [
        lambda: store.get_conversation(bad),
        lambda: store.set_title(bad, "x"),
        lambda: store.append(bad, [m.user("x")]),
        lambda: store.append(bad, []),
        lambda: store.list(bad),
        lambda: store.list_active(bad),
        lambda: store.checkpoint(bad, m.user("s"), 0),
        lambda: store.latest_checkpoint(bad),
        lambda: store.list_checkpoints(bad),
        lambda: store.fork(bad, Selection()),
        lambda: store.record_usage(bad, Usage()),
        lambda: store.list_usage(bad),
        lambda: store.get_state(bad, "k"),
        lambda: store.set_state(bad, "k", 1),
        lambda: store.create_conversation(parent_id=bad),
    ]
    for call in calls:
        with pytest.raises(NotFoundError, match=bad):
            call()


def test_append_rejects_non_messages_without_writing(store: ConversationStore) -> None:
    cid = store.create_conversation()
    with pytest.raises(ConfigError, match="Message"):
        store.append(cid, [m.user("ok"), {"role": "user"}])  # type: ignore[list-item]
    assert store.list(cid) == []


def test_checkpoint_moves_the_boundary_and_deletes_nothing(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, rich_messages())
    assert store.latest_checkpoint(cid) is None
    assert [s.seq for s in store.list_active(cid)] == [1, 2, 3, 4, 5, 6]
    s1 = m.text_message("user", "summary one", cw="fold_summary")
    k1 = store.checkpoint(cid, s1, 4, meta={"tokens_before": 900})
    assert isinstance(k1, Checkpoint)
    assert (k1.seq, k1.upto_seq, k1.summary, k1.meta) == (1, 4, s1, {"tokens_before": 900})
    assert [s.seq for s in store.list_active(cid)] == [5, 6]
    store.append(cid, [m.user("more"), m.assistant("ok")])
    k2 = store.checkpoint(cid, m.user("summary two"), 7)
    assert k2.seq == 2
    assert store.latest_checkpoint(cid) == k2
    assert store.list_checkpoints(cid) == [k1, k2]
    assert [s.seq for s in store.list_active(cid)] == [8]
    assert len(store.list(cid)) == 8  # nothing deleted
    store.checkpoint(cid, m.user("summary three"), 8)
    assert store.list_active(cid) == []


@pytest.mark.parametrize("upto", [-1, 3, 99])
def test_checkpoint_out_of_range_is_refused(store: ConversationStore, upto: int) -> None:
    cid = store.create_conversation()
    store.append(cid, [m.user(str(i)) for i in range(10)])
    store.checkpoint(cid, m.user("s"), 4)
    with pytest.raises(ConfigError, match="upto_seq"):
        store.checkpoint(cid, m.user("s2"), upto)
    assert len(store.list_checkpoints(cid)) == 1


def test_fork_copies_selection_in_order_and_leaves_source_untouched(store: ConversationStore) -> None:
    cid = store.create_conversation("src")
    store.append(cid, rich_messages())
    k1 = store.checkpoint(cid, m.user("summary of 1-4"), 4)
    store.append(cid, [m.user("q7"), m.assistant("a8")])
    before = (store.list(cid), store.list_checkpoints(cid), store.get_conversation(cid))
    fid = store.fork(cid, Selection(seqs=(8, 5, 6), checkpoints=(1,)), title="fork")
    after = (store.list(cid), store.list_checkpoints(cid), store.get_conversation(cid))
    assert before == after
    info = store.get_conversation(fid)
    assert (info.title, info.parent_id, info.message_count) == ("fork", cid, 4)
    assert info.metadata["forked_from"] == cid
    got = [s.message for s in store.list(fid)]
    src = [s.message for s in before[0]]
    assert got == [k1.summary, src[4], src[5], src[7]]
    assert [s.seq for s in store.list(fid)] == [1, 2, 3, 4]
    assert store.list_checkpoints(fid) == []


def test_fork_refuses_a_fold_with_its_own_messages(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, [m.user(str(i)) for i in range(6)])
    store.checkpoint(cid, m.user("s1"), 2)
    store.checkpoint(cid, m.user("s2"), 4)
    with pytest.raises(SelectionError, match="fold 2"):
        store.fork(cid, Selection(seqs=(3,), checkpoints=(2,)))
    # a message folded by an earlier fold is not the later fold's own
    fid = store.fork(cid, Selection(seqs=(1, 5), checkpoints=(2,)))
    assert [s.message.text for s in store.list(fid)] == ["0", "s2", "4"]
    with pytest.raises(SelectionError, match="seq 7"):
        store.fork(cid, Selection(seqs=(7,)))
    with pytest.raises(SelectionError, match="fold 3"):
        store.fork(cid, Selection(checkpoints=(3,)))
    assert len(store.list_conversations()) == 2  # the failed forks created nothing


def test_offloads_round_trip_and_refuse_forged_refs(store: ConversationStore) -> None:
    big = "line\n" * 5000
    ref = store.put_offload(big, {"tool": "grep", "tokens": 12000})
    assert len(ref) <= 24 and ref.startswith("ofl_")
    got = store.get_offload(ref)
    assert (got.ref, got.content, got.meta) == (ref, big, {"tool": "grep", "tokens": 12000})
    assert store.put_offload(big) != ref
    for forged in ["../../etc/passwd", "ofl_" + "0" * 16 + "/..", "OFL_0000000000000000", "", "ofl_zz", ref + "0"]:
        with pytest.raises(NotFoundError) as info:
            store.get_offload(forged)
        assert repr(forged) in str(info.value)
    with pytest.raises(NotFoundError, match="ofl_0000000000000000"):
        store.get_offload("ofl_0000000000000000")
    with pytest.raises(NotFoundError):
        store.get_offload(None)  # type: ignore[arg-type]


def test_a_large_offload_round_trips_across_its_pieces(store: ConversationStore) -> None:
    # over 1 M characters the SQL stores keep pieces (offload_chunks); a NUL and a lone surrogate
    # in the middle piece only, and a multi-byte character cut exactly at a piece boundary
    body = "".join(f"{i:07d} log line é\n" for i in range(120_000))  # 2.4 M characters
    body = body[:999_999] + "€" + body[1_000_000:1_500_000] + "\x00 \udcff" + body[1_500_003:]
    ref = store.put_offload(body, {"big": True})
    got = store.get_offload(ref)
    assert (len(got.content), got.content == body, got.meta) == (len(body), True, {"big": True})
    pieces = list(store.iter_offload(ref)) if hasattr(store, "iter_offload") else [got.content]
    assert "".join(pieces) == body
    assert len(pieces) == (3 if hasattr(store, "iter_offload") else 1)


@pytest.mark.parametrize("store_url", ["sqlite", "postgres"], indirect=True)
def test_durable_backends_keep_everything_after_reopen(store_url: str) -> None:
    s = open_store(store_url)
    cid = s.create_conversation("keep", {"k": [1, 2]})
    s.append(cid, rich_messages())
    s.checkpoint(cid, m.user("sum"), 3, {"why": "test"})
    ref = s.put_offload("original", {"n": 1})
    s.record_usage(cid, Usage(input_tokens=10, output_tokens=2, model="x", role="summarizer", cost_usd=0.01))
    s.set_state(cid, "ledger", {"constraints": ["never push"]})
    s.close()
    s2 = open_store(store_url)
    try:
        assert [x.message for x in s2.list(cid)] == rich_messages()
        assert [x.seq for x in s2.list_active(cid)] == [4, 5, 6]
        assert s2.get_offload(ref).content == "original"
        assert s2.list_usage(cid)[0].role == "summarizer"
        assert s2.get_state(cid, "ledger") == {"constraints": ["never push"]}
        assert s2.get_conversation(cid).metadata == {"k": [1, 2]}
    finally:
        s2.close()


def test_usage_rows_and_totals_per_role(store: ConversationStore) -> None:
    a = store.create_conversation()
    b = store.create_conversation()
    u1 = Usage(input_tokens=1000, output_tokens=100, cache_read_tokens=800, model="m1", role="main", cost_usd=0.5, latency_s=1.5, extra={"id": "r1"})
    u2 = Usage(input_tokens=300, output_tokens=50, model="m2", role="summarizer", cost_usd=None)
    u3 = Usage(input_tokens=10, output_tokens=5, cache_write_tokens=7, reasoning_tokens=3, model="m1", role="main", cost_usd=0.25)
    store.record_usage(a, u1)
    store.record_usage(a, u2)
    store.record_usage(b, u3)
    store.record_usage(None, Usage(input_tokens=1, role="helper"))
    assert store.list_usage(a) == [u1, u2]
    assert store.list_usage(b) == [u3]
    assert len(store.list_usage()) == 4
    by_role = store.usage_by_role()
    assert by_role["main"]["calls"] == 2
    assert by_role["main"]["input_tokens"] == 1010
    assert by_role["main"]["cache_write_tokens"] == 7
    assert by_role["main"]["cost_usd"] == pytest.approx(0.75)
    assert by_role["summarizer"]["cost_unknown_calls"] == 1
    assert set(store.usage_by_role(a)) == {"main", "summarizer"}
    with pytest.raises(ConfigError):
        store.record_usage(a, {"input_tokens": 1})  # type: ignore[arg-type]


def test_state_is_json_per_conversation(store: ConversationStore) -> None:
    a = store.create_conversation()
    b = store.create_conversation()
    assert store.get_state(a, "ledger") is None
    store.set_state(a, "ledger", {"items": ["never force-push", "cap 3 files"]})
    store.set_state(b, "ledger", [1])
    assert store.get_state(a, "ledger") == {"items": ["never force-push", "cap 3 files"]}
    store.set_state(a, "ledger", {"items": []})
    assert store.get_state(a, "ledger") == {"items": []}
    assert store.get_state(b, "ledger") == [1]
    with pytest.raises(ConfigError, match="JSON"):
        store.set_state(a, "bad", {1, 2})
    with pytest.raises(ConfigError, match="JSON"):
        store.create_conversation(metadata={"x": object()})


ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.lists(st.text(max_size=8), min_size=0, max_size=4)),
        st.tuples(st.just("fold"), st.floats(0, 1)),
    ),
    max_size=12,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops)
def test_any_append_fold_sequence_keeps_the_record(store: ConversationStore, program: list[tuple[str, Any]]) -> None:
    cid = store.create_conversation()
    texts: list[str] = []
    floor = 0
    for op, arg in program:
        if op == "append":
            out = store.append(cid, [m.user(t) for t in arg])
            assert [s.seq for s in out] == list(range(len(texts) + 1, len(texts) + len(arg) + 1))
            texts += arg
        else:
            upto = floor + round(arg * (len(texts) - floor))
            store.checkpoint(cid, m.user(f"sum {upto}"), upto)
            floor = upto
        assert [s.message.text for s in store.list(cid)] == texts
        assert [s.message.text for s in store.list_active(cid)] == texts[floor:]
