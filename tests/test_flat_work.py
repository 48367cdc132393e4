"""Per-call work that does not grow with the history: token counts kept with the rows, tool names
kept incrementally, the memory store decoding once. Work is counted (calls made), never timed;
the speed numbers live in benchmarks/bench_append.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextwindow import Session
from contextwindow.errors import ConfigError, NotFoundError
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, assistant, user
from contextwindow.session import SessionConfig
from contextwindow.store import ConversationStore, open_store
from contextwindow.store.base import TokenCounts
from contextwindow.store.memory import MemoryStore
from contextwindow.tokens import Estimator
from contextwindow.tokens.fingerprint import counter_key


class PartCounting(Estimator):
    """A real estimator that counts how many message parts it measured."""

    def __init__(self) -> None:
        super().__init__("anthropic")
        self.parts = 0

    def count_part(self, part):  # type: ignore[no-untyped-def]
        self.parts += 1
        return super().count_part(part)


class Listing(MemoryStore):
    """A memory store that counts list_active calls (its own behaviour is untouched)."""

    def __init__(self) -> None:
        super().__init__()
        self.listed = 0

    def list_active(self, conversation_id: str):  # type: ignore[no-untyped-def]
        self.listed += 1
        return super().list_active(conversation_id)


def call(i: int, name: str = "read_file") -> Message:
    return Message("assistant", (ToolCallPart(f"c{i}", name, f'{{"path": "f{i}.py"}}'),))


def result(i: int, text: str = "ok") -> Message:
    return Message("tool", (ToolResultPart(f"c{i}", (TextPart(text),)),))


def test_counts_are_kept_with_the_rows_and_only_for_active_messages(store: ConversationStore) -> None:
    cid = store.create_conversation()
    a = store.append(cid, [user("a"), assistant("b")], token_counts=TokenCounts("est#1", (5, 7)))
    b = store.append(cid, [user("c")])
    assert store.active_token_counts(cid, "est#1") == {a[0].id: 5, a[1].id: 7}
    assert store.active_token_counts(cid, "other#2") == {}
    store.put_token_counts(cid, "est#1", {b[0].id: 3, a[0].id: 6})  # a recount replaces
    assert store.active_token_counts(cid, "est#1") == {a[0].id: 6, a[1].id: 7, b[0].id: 3}
    store.checkpoint(cid, user("summary"), upto_seq=2)
    assert store.active_token_counts(cid, "est#1") == {b[0].id: 3}


def test_bad_counts_are_refused_before_anything_is_written(store: ConversationStore) -> None:
    cid = store.create_conversation()
    with pytest.raises(ConfigError, match="2 counts for 1 messages"):
        store.append(cid, [user("a")], token_counts=TokenCounts("est", (1, 2)))
    with pytest.raises(ConfigError, match="token count"):
        store.append(cid, [user("a")], token_counts=TokenCounts("est", (-1,)))
    assert store.list(cid) == []
    with pytest.raises(NotFoundError, match="no message 'm_nope'"):
        store.put_token_counts(cid, "est", {"m_nope": 1})
    with pytest.raises(ConfigError, match="counter name"):
        store.active_token_counts(cid, "")


def test_counter_key_changes_with_how_a_counter_counts() -> None:
    assert counter_key(Estimator("anthropic")) == counter_key(Estimator("anthropic"))
    assert counter_key(Estimator("anthropic")) != counter_key(Estimator("anthropic").with_scale(1.1))
    assert counter_key(Estimator("anthropic")).startswith("estimate:anthropic#")


def test_a_reopened_conversation_reads_its_counts_instead_of_recounting(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    cfg = SessionConfig(cache=None)  # counts are the subject here, not clearing
    s = Session(open_store(url), model="claude-sonnet-4-5", counter=PartCounting(), config=cfg)
    s.add(user("Fix the parser. Never touch the public API."))
    for i in range(40):
        s.add(call(i), result(i, f"line {i}\n" * 30))
    first = s.build()
    again = PartCounting()
    reopened = Session(open_store(url), s.id, model="claude-sonnet-4-5", counter=again, config=cfg)
    counter_key(again)  # its fingerprint measures a few probe messages
    again.parts = 0
    b = reopened.build()
    assert again.parts == 0  # every active message's count came from the store
    assert b.tokens == first.tokens
    # a counter that counts differently does not trust those numbers
    other = Session(open_store(url), s.id, model="claude-sonnet-4-5", counter=PartCounting().with_scale(1.5), config=cfg)
    assert other.build().tokens > first.tokens


def test_messages_without_stored_counts_are_counted_once_and_written_back() -> None:
    store = MemoryStore()
    cid = store.create_conversation()
    rows = store.append(cid, [user("written by another program"), assistant("no counts with it")])
    c = PartCounting()
    Session(store, cid, counter=c).build()
    assert set(store.active_token_counts(cid, counter_key(c))) == {r.id for r in rows}


def test_appending_a_tool_result_does_not_read_the_history() -> None:
    store = Listing()
    s = Session(store)
    s.add(user("go"))
    for i in range(50):
        s.add(call(i, name="grep"))
        s.add(result(i, "match\n" * 5_000))  # over the clip budget: clipped, named by its call
    assert store.listed == 0
    clipped = [sm.message for sm in store.list_active(s.id) if sm.message.role == "tool"]
    assert all("grep" in m.text or "retrieve" in m.text for m in clipped)


def test_a_result_of_a_call_added_elsewhere_finds_its_name_in_the_store() -> None:
    store = Listing()
    s = Session(store)
    store.append(s.id, [user("go"), call(1, name="bash")])  # another writer added the call
    s.add(result(1, "error: boom\n" * 5_000))
    assert store.listed == 1  # looked up once, on demand
    s.add(call(2, name="bash"), result(2, "x\n" * 5_000))
    assert store.listed == 1


def test_check_is_the_decision_build_starts_from_without_reading_the_view() -> None:
    store = Listing()
    s = Session(store, window=40_000, max_output=4_000, config=SessionConfig(cache=None))
    s.add(user("start"))
    s.build()
    listed = store.listed
    for i in range(30):
        s.add(call(i), result(i, "data " * 200))
        d = s.check()
    assert store.listed == listed
    assert d.over == s.build().decision.over
    assert d.effective == s.build().decision.effective


def test_the_memory_store_decodes_a_message_once() -> None:
    store = MemoryStore()
    cid = store.create_conversation()
    store.append(cid, [user("a"), assistant("b")])
    first = store.list_active(cid)
    again = store.list_active(cid)
    assert [x.message for x in first] == [user("a"), assistant("b")]
    assert all(x.message is y.message for x, y in zip(first, again, strict=True))


def test_a_forced_pass_on_a_reopened_conversation_counts_only_what_it_changed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    cfg = SessionConfig(cache=None)
    s = Session(open_store(url), model="claude-sonnet-4-5", window=30_000, max_output=2_000, counter=PartCounting(), config=cfg)
    s.add(user("Fix the parser. Never touch the public API."))
    for i in range(40):
        s.add(call(i), result(i, f"line {i}\n" * 60))
    again = PartCounting()
    reopened = Session(open_store(url), s.id, model="claude-sonnet-4-5", window=30_000, max_output=2_000, counter=again, config=cfg)
    counter_key(again)
    again.parts = 0
    b = reopened.build(force=True)
    assert b.compaction is not None and b.compaction.changed
    changed = sum(1 for m in b.messages if m.meta.get("cw_masked") or m.meta.get("cw"))
    kept = len(b.messages) - changed
    assert kept > 20
    # the messages the pass made are counted; the ones it kept carry their stored counts
    assert again.parts <= 3 * changed, (again.parts, changed, kept)
