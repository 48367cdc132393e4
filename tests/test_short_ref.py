"""The short ref of a stored message (compaction/markers.ref_for): ``msg-<seq>`` where the view knows
the row's sequence number, read back by the conversation's sink like ``msg-<id>``."""

from __future__ import annotations

import re

import pytest

from contextwindow import Session
from contextwindow.compaction import markers
from contextwindow.compaction.cache import CacheConfig
from contextwindow.compaction.mask import is_masked
from contextwindow.errors import AmbiguousRefError, NotFoundError
from contextwindow.messages import Message, user
from contextwindow.session import SessionConfig
from contextwindow.sink import ConversationSink
from contextwindow.store.base import ConversationStore, Selection, new_id
from contextwindow.tokens import counter_for
from test_cache_clear import call, result


def test_a_stub_with_the_sequence_number_is_shorter_than_one_with_the_id() -> None:
    count = counter_for("claude-sonnet-4-5").count_text
    # a fixed id of new_id's shape: a random one made this flaky (0.6% of 16-hex ids count fewer than 10 tokens more than "24")
    key = "m_1f2e3d4c5b6a7988"
    assert re.fullmatch(r"m_[0-9a-f]{16}", key) and len(new_id("m")) == len(key)
    assert markers.ref_for(key) == f"msg-{key}" and markers.ref_for(key, 24) == "msg-24"
    by_id, by_seq = markers.masked_result("Bash", 454, key), markers.masked_result("Bash", 454, key, 24)
    assert count(by_seq) <= count(by_id) - 10
    assert count(markers.cleared_input(549, markers.ref_for(key, 24))) <= count(markers.cleared_input(549, markers.ref_for(key))) - 10


def test_the_sink_reads_a_message_by_its_sequence_number_or_its_id(store: ConversationStore) -> None:
    cid = store.create_conversation("t")
    rows = store.append(cid, [user("first"), user("second"), user("third")])
    sink = ConversationSink(store, cid)
    assert "second" in sink.get_offload(f"msg-{rows[1].seq}").content
    assert "third" in sink.get_offload(f"msg-{rows[2].id}").content
    with pytest.raises(NotFoundError, match="sequence number"):
        sink.get_offload("msg-999")
    with pytest.raises(NotFoundError, match="no message with that id"):
        sink.get_offload("msg-m_nope")
    for odd in ("msg-²", "msg-٣", "msg-1²", "msg-"):  # str.isdigit() takes these; int() does not: a NotFoundError, not a ValueError
        with pytest.raises(NotFoundError, match="no message with that id"):
            sink.get_offload(odd)


def test_a_session_s_cleared_result_names_its_row_by_sequence_number_and_reads_back_the_original(store: ConversationStore) -> None:
    s = Session(store, window=400_000, max_output=8_000, config=SessionConfig(cache=CacheConfig(clear_at_least=1_000, horizon_calls=12)))
    s.add(user("Port the parser."))
    for i in range(20):
        s.add(call(i), result(i, 400))
        sent = s.build().messages
    stubs = [m for m in sent if m.role == "tool" and is_masked(m)]
    assert stubs
    ref = re.search(r'retrieve\(ref="(msg-\d+)"\)', stubs[0].text)
    assert ref is not None
    rows = {sm.seq: sm for sm in s.store.list(s.id)}
    seq = int(ref.group(1)[4:])
    assert rows[seq].message.tool_results[0].call_id == stubs[0].tool_results[0].call_id  # the row the stub stands for
    assert rows[seq].message.text in ConversationSink(s.store, s.id).get_offload(ref.group(1)).content


def _stubbed_session(store: ConversationStore, results: int = 20) -> Session:
    s = Session(store, window=400_000, max_output=8_000, config=SessionConfig(cache=CacheConfig(clear_at_least=1_000, horizon_calls=12)))
    s.add(user("Port the parser."))
    for i in range(results):
        s.add(call(i), result(i, 400))
        s.build()
    return s


def _refs_name_their_rows(sent: list[Message], sink: ConversationSink) -> int:
    """Every stub's ref reads back the very result it stands for (same call id); returns how many."""
    n = 0
    for m in sent:
        if m.role == "tool" and is_masked(m):
            ref = re.search(r'retrieve\(ref="(msg-[A-Za-z0-9_]+)"\)', m.text)
            assert ref is not None, m.text
            got = sink.get_offload(ref.group(1))
            assert got.meta["role"] == "tool"
            assert f"w{m.tool_results[0].call_id[1:]}_0 " in got.content, (ref.group(1), got.content[:40])
            n += 1
    return n


def test_a_ref_written_in_the_source_names_the_same_message_in_a_fork_or_fails_loudly(store: ConversationStore) -> None:
    src = store.create_conversation("source")
    rows = store.append(src, [user(f"r{i}") for i in range(1, 7)])
    store.checkpoint(src, user("summary of r1..r3; the plan is in msg-2"), 3)
    # the fork renumbers: its row 1 is the fold summary, rows 2-4 are the source's 4-6, row 5 is new
    fork = store.fork(src, Selection(seqs=(4, 5, 6), checkpoints=(1,)))
    store.append(fork, [user("r7, said in the fork")])
    sink = ConversationSink(store, fork)
    # msg-2 (quoted by the summary) named the source's r2; the fork's row 2 is r4: not read silently
    for n in (1, 2, 3, 4, 5):
        with pytest.raises(AmbiguousRefError, match=f"msg-{n}.*{src}"):
            sink.get_offload(f"msg-{n}")
    # a number only one conversation of the lineage has is the message it names there
    assert sink.get_offload("msg-6").content.endswith("r6") and sink.get_offload("msg-6").meta["conversation_id"] == src
    # an id is unique in the store: a source row's id reads back through the fork
    assert sink.get_offload(f"msg-{rows[1].id}").content.endswith("r2")
    with pytest.raises(NotFoundError, match="sequence number"):
        sink.get_offload("msg-99")
    # a fork of a prefix holds the source's messages at the source's numbers: nothing is ambiguous there
    prefix = store.fork(src, Selection(seqs=(1, 2, 3)))
    psink = ConversationSink(store, prefix)
    assert [psink.get_offload(f"msg-{n}").content.endswith(f"r{n}") for n in range(1, 7)] == [True] * 6
    # and the source itself is untouched by its forks
    assert ConversationSink(store, src).get_offload("msg-2").content.endswith("r2")


def test_a_fork_s_session_writes_refs_that_read_back_the_row_they_stand_for(store: ConversationStore) -> None:
    s = _stubbed_session(store)
    last = max(sm.seq for sm in store.list(s.id))
    # the fork leaves out the first two results' rows: every later row moves down by 4
    fork = store.fork(s.id, Selection(seqs=(1, *range(6, last + 1))))
    f = Session(store, fork, window=400_000, max_output=8_000, config=s.config)
    for i in range(20, 34):
        f.add(call(i), result(i, 400))
        sent = f.build().messages
    fsink = ConversationSink(store, fork)
    assert _refs_name_their_rows(sent, fsink) >= 5
    # none of the fork's own stubs uses a number its source holds another message under
    assert not re.findall(r'retrieve\(ref="msg-\d+"\)', "\n".join(m.text for m in sent if m.role == "tool"))
    # the source's session still writes numbers, and they still read back
    for i in range(20, 24):
        s.add(call(100 + i), result(100 + i, 400))
        sent = s.build().messages
    assert re.findall(r'retrieve\(ref="msg-\d+"\)', "\n".join(m.text for m in sent if m.role == "tool"))
    assert _refs_name_their_rows(sent, ConversationSink(store, s.id)) >= 5


def test_a_fork_of_a_prefix_keeps_short_refs_for_the_rows_it_copied(store: ConversationStore) -> None:
    s = _stubbed_session(store)
    last = max(sm.seq for sm in store.list(s.id))
    fork = store.fork(s.id, Selection(seqs=tuple(range(1, last + 1))))
    f = Session(store, fork, window=400_000, max_output=8_000, config=s.config)
    for i in range(20, 30):
        f.add(call(i), result(i, 400))
        sent = f.build().messages
    tools = "\n".join(m.text for m in sent if m.role == "tool")
    assert re.findall(r'retrieve\(ref="msg-\d+"\)', tools) and re.findall(r'retrieve\(ref="msg-m_', tools)
    assert _refs_name_their_rows(sent, ConversationSink(store, fork)) >= 5
