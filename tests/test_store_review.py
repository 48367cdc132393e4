"""Review of the conversation store: edge cases a fleet of agents on one store runs into.

Each test pins a defect found in review (it failed before its fix): real SQLite files and a real
PostgreSQL server (tests/conftest.py), nothing of ours monkeypatched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from contextwindow import messages as m
from contextwindow.curation import auto_title
from contextwindow.errors import ConfigError, NotFoundError, SelectionError, StoreBusyError
from contextwindow.store import ConversationStore, Selection, open_store
from contextwindow.usage import Usage


def test_postgres_busy_timeout_zero_fails_fast_instead_of_waiting_forever(pg_url: str) -> None:
    # PostgreSQL's lock_timeout = 0 means "wait forever"; busy_timeout=0 must mean "do not wait"
    s = open_store(pg_url + "&busy_timeout=0")
    cid = s.create_conversation()
    holder = psycopg.connect(pg_url)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            s.append(cid, [m.user("blocked")])
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    try:
        holder.execute("SELECT 1 FROM conversations WHERE id = %s FOR UPDATE", (cid,))
        th = threading.Thread(target=write)
        th.start()
        th.join(60)  # a liveness guard, not a speed bound: "wait forever" would still be waiting
        failed_while_locked = list(outcome)  # the lock is still held here
    finally:
        holder.rollback()
        holder.close()
    th.join()
    s.close()
    assert failed_while_locked, "append waited on a lock although busy_timeout=0"
    assert isinstance(failed_while_locked[0], StoreBusyError)


def test_agents_appending_the_same_content_in_another_order_do_not_deadlock(pg_url: str) -> None:
    # content is shared by hash: two agents inserting the same new blobs in opposite orders used to
    # deadlock, and one append was lost as a (false) "stayed locked" StoreBusyError
    a, b = open_store(pg_url), open_store(pg_url)
    ca, cb = a.create_conversation(), b.create_conversation()
    errors: list[BaseException] = []

    def run(store: ConversationStore, cid: str, batch: list[m.Message]) -> None:
        try:
            store.append(cid, batch)
        except BaseException as exc:
            errors.append(exc)

    for rnd in range(4):
        batch = [m.user(f"shared tool output {rnd}-{i}") for i in range(1500)]
        threads = [threading.Thread(target=run, args=(a, ca, batch)), threading.Thread(target=run, args=(b, cb, batch[::-1]))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    assert len(a.list(ca)) == len(b.list(cb)) == 4 * 1500
    a.close()
    b.close()


@pytest.mark.parametrize(
    "content",
    [
        "binary tool output \x00\x01\x02 with NULs\x00",  # `cat` of a binary file; PostgreSQL TEXT refuses NUL
        "a file name decoded with surrogateescape: caf\udce9.txt",  # lone surrogate: not encodable as UTF-8
        "plain 👍🏽 text",
    ],
)
def test_offloads_store_any_python_string_exactly(store: ConversationStore, content: str) -> None:
    ref = store.put_offload(content, {"tool": "cat"})
    assert store.get_offload(ref).content == content
    assert store.get_offload(ref).meta == {"tool": "cat"}


def test_offloads_with_nul_survive_reopen(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/o.db"
    s = open_store(url)
    ref = s.put_offload("x\x00y\udcff")
    s.close()
    s = open_store(url)
    assert s.get_offload(ref).content == "x\x00y\udcff"
    s.close()


@pytest.mark.parametrize("bad_id", ["c_\x00nul", "c_\ud800surrogate", 5, ["c_1"]], ids=["nul", "surrogate", "int", "list"])
def test_an_impossible_conversation_id_is_not_found_everywhere(store: ConversationStore, bad_id: object) -> None:
    # PostgreSQL raised its own "text = smallint"/"cannot contain NUL" errors, SQLite a raw UnicodeEncodeError
    cid: Any = bad_id
    calls: list[Callable[[], object]] = [
        lambda: store.get_conversation(cid),
        lambda: store.list(cid),
        lambda: store.list_active(cid),
        lambda: store.latest_checkpoint(cid),
        lambda: store.list_checkpoints(cid),
        lambda: store.append(cid, [m.user("x")]),
        lambda: store.append(cid, []),
        lambda: store.checkpoint(cid, m.user("s"), 0),
        lambda: store.fork(cid, Selection()),
        lambda: store.set_title(cid, "t"),
        lambda: store.get_state(cid, "k"),
        lambda: store.set_state(cid, "k", 1),
        lambda: store.record_usage(cid, Usage(1, 1)),
        lambda: store.list_usage(cid),
        lambda: store.usage_by_role(cid),
        lambda: store.create_conversation(parent_id=cid),
    ]
    for call in calls:
        with pytest.raises(NotFoundError, match="unknown conversation"):
            call()
    assert store.list_conversations() == []


def test_messages_and_json_values_with_lone_surrogates_are_stored_exactly(store: ConversationStore) -> None:
    # tool output decoded with surrogateescape carries lone surrogates; every store raised a raw
    # UnicodeEncodeError while hashing the message (and SQL stores while binding JSON values)
    text = "ls output: caf\udce9.txt and \ud83d alone, NUL \x00, emoji 👍🏽"
    cid = store.create_conversation("t", metadata={"cwd": "/tmp/caf\udce9"})
    out = store.append(cid, [m.user(text), m.assistant("ok")])
    assert [s.message.text for s in store.list(cid)] == [text, "ok"]
    assert store.list_active(cid)[0].message == out[0].message
    k = store.checkpoint(cid, m.user("summary of caf\udce9"), 2, {"note": "\udce9"})
    assert store.latest_checkpoint(cid) == k
    fork = store.fork(cid, Selection(seqs=(1,)))
    assert store.list(fork)[0].message.text == text
    assert store.get_conversation(cid).metadata == {"cwd": "/tmp/caf\udce9"}
    store.set_state(cid, "ledger", {"paths": ["caf\udce9"]})
    assert store.get_state(cid, "ledger") == {"paths": ["caf\udce9"]}
    store.record_usage(cid, Usage(1, 1, extra={"raw": "\udce9"}))
    assert store.list_usage(cid)[0].extra == {"raw": "\udce9"}


@pytest.mark.parametrize("bad", ["a\x00b", "caf\udce9"], ids=["nul", "surrogate"])
def test_names_no_database_can_hold_are_refused_the_same_by_every_backend(store: ConversationStore, bad: str) -> None:
    # PostgreSQL failed with its own NUL error, SQLite with a raw UnicodeEncodeError, memory stored them
    cid = store.create_conversation("ok")
    anything: Any = bad
    calls: list[Callable[[], object]] = [
        lambda: store.create_conversation(anything),
        lambda: store.set_title(cid, anything),
        lambda: store.fork(cid, Selection(), title=anything),
        lambda: store.set_state(cid, anything, 1),
        lambda: store.get_state(cid, anything),
        lambda: store.record_usage(cid, Usage(1, 1, model=anything)),
        lambda: store.record_usage(cid, Usage(1, 1, role=anything)),
    ]
    for call in calls:
        with pytest.raises(ConfigError):
            call()
    assert [c.id for c in store.list_conversations()] == [cid]
    assert store.get_conversation(cid).title == "ok"
    assert store.list_usage(cid) == []


def test_memory_store_checks_titles_like_the_sql_stores() -> None:
    s = open_store("memory:")
    cid = s.create_conversation()
    title: Any = 5
    with pytest.raises(ConfigError, match="title"):
        s.create_conversation(title)
    with pytest.raises(ConfigError, match="title"):
        s.fork(cid, Selection(), title=title)
    assert [c.id for c in s.list_conversations()] == [cid]


def test_auto_title_of_a_first_line_with_nul_characters_works_on_every_backend(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.append(cid, [m.user("fix\x00 the\x07 parser caf\udce9\nmore"), m.assistant("done")])
    title = auto_title(store, cid)
    assert title == "fix the parser caf\ufffd"
    assert store.get_conversation(cid).title == title


@pytest.mark.parametrize(
    "usage",
    [
        Usage(None, 1),  # type: ignore[arg-type]
        Usage(2**70, 1),
        Usage(1, 1, cost_usd="0.1"),  # type: ignore[arg-type]
        Usage(1, 1, cost_usd=float("nan")),
        Usage(1, 1, latency_s=float("inf")),
    ],
    ids=["none-tokens", "huge-tokens", "str-cost", "nan-cost", "inf-latency"],
)
def test_usage_rows_that_cannot_be_kept_exactly_are_refused(store: ConversationStore, usage: Usage) -> None:
    # raw TypeError/OverflowError before; SQLite kept "0.1" as text (then usage_by_role crashed) and
    # NaN as NULL (a priced call silently became "no price")
    cid = store.create_conversation()
    with pytest.raises(ConfigError, match="usage"):
        store.record_usage(cid, usage)
    assert store.list_usage(cid) == []
    assert store.usage_by_role(cid) == {}


def test_usage_with_no_cost_is_kept_and_counted_apart(store: ConversationStore) -> None:
    cid = store.create_conversation()
    store.record_usage(cid, Usage(10, 2, model="m", cost_usd=None, latency_s=None))
    store.record_usage(cid, Usage(5, 1, model="m", cost_usd=0.5, latency_s=1))
    assert [u.cost_usd for u in store.list_usage(cid)] == [None, 0.5]
    tot = store.usage_by_role(cid)["main"]
    assert (tot["calls"], tot["cost_usd"], tot["cost_unknown_calls"], tot["input_tokens"]) == (2, 0.5, 1, 15)


_MALFORMED: list[tuple[str, Any]] = [("s", ("a", 1)), ("s", ([1],)), ("s", (True,)), ("k", ([1],)), ("k", (True,)), ("s", 1)]


@pytest.mark.parametrize(
    "selection",
    [Selection(seqs=s) if k == "s" else Selection(checkpoints=s) for k, s in _MALFORMED],
    ids=["mixed", "unhashable", "bool-seq", "unhashable-fold", "bool-fold", "not-a-tuple"],
)
def test_a_malformed_fork_selection_is_a_selection_error(store: ConversationStore, selection: Selection) -> None:
    # raw TypeError ('<' not supported, unhashable) before; True passed as seq 1 except on PostgreSQL
    cid = store.create_conversation()
    store.append(cid, [m.user("a"), m.assistant("b")])
    store.checkpoint(cid, m.user("s"), 1)
    with pytest.raises(SelectionError):
        store.fork(cid, selection)
    assert len(store.list_conversations()) == 1


def test_list_conversations_limit_is_checked_the_same_by_every_backend(store: ConversationStore) -> None:
    # memory took -1 as "all but the last"; a limit past 64 bits was a raw OverflowError on SQLite
    ids = [store.create_conversation(f"c{i}") for i in range(3)]
    for bad in (-1, True, 1.5):
        limit: Any = bad
        with pytest.raises(ConfigError, match="limit"):
            store.list_conversations(limit)
    assert len(store.list_conversations(2**70)) == 3
    assert len(store.list_conversations(0)) == 0
    assert {c.id for c in store.list_conversations(None)} == set(ids)


def test_append_takes_any_iterable_of_messages(store: ConversationStore) -> None:
    # the memory store consumed a generator twice: raw "zip() argument 2 is longer" ValueError
    cid = store.create_conversation()
    gen: Any = (x for x in [m.user("a"), m.assistant("b")])
    out = store.append(cid, gen)
    assert [s.seq for s in out] == [1, 2]
    assert [s.message.text for s in store.list(cid)] == ["a", "b"]


def test_reading_large_messages_does_not_pin_them_in_memory(tmp_path: object) -> None:
    # decoded messages were cached by count only (50k entries): reading a record of big tool
    # outputs kept every one of them alive for the life of the store object
    import gc
    import tracemalloc

    s = open_store(f"sqlite:///{tmp_path}/big.db")
    cid = s.create_conversation()
    for i in range(12):
        s.append(cid, [m.user(f"{i} " + "x" * 5_000_000)])
    s.close()
    s = open_store(f"sqlite:///{tmp_path}/big.db")
    tracemalloc.start()
    try:
        assert len(s.list(cid)) == 12
        assert len(s.list_active(cid)) == 12
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    s.close()
    assert retained < 20_000_000, f"{retained:,} bytes still held after the results were dropped"


def test_a_fork_keeps_the_model_of_its_source(store) -> None:
    from contextwindow.messages import assistant, user
    from contextwindow.store import Selection

    cid = store.create_conversation("src", {"model": "claude-sonnet-4-5", "other": 1})
    store.append(cid, [user("hi"), assistant("hello")])
    fork = store.fork(cid, Selection(seqs=(1, 2)))
    md = store.get_conversation(fork).metadata
    assert md["model"] == "claude-sonnet-4-5" and md["forked_from"] == cid and "other" not in md


def test_a_deterministic_memory_store_gives_the_same_ids_every_run() -> None:
    from contextwindow.messages import assistant, user
    from contextwindow.store.memory import MemoryStore

    def run() -> tuple[list[str], str]:
        s = MemoryStore(deterministic=True)
        cid = s.create_conversation("x")
        ids = [m.id for m in s.append(cid, [user("hi"), assistant("hello")])]
        return [cid, *ids], s.put_offload("big output", {"tool": "grep"})

    assert run() == run()
    a, b = MemoryStore(), MemoryStore()
    assert a.create_conversation("x") != b.create_conversation("x")  # random by default
    s = MemoryStore(deterministic=True)
    ref = s.put_offload("same")
    assert s.get_offload(ref).content == "same"
