"""The short ref of a stored message (compaction/markers.ref_for): ``msg-<seq>`` where the view knows
the row's sequence number, read back by the conversation's sink like ``msg-<id>``."""

from __future__ import annotations

import re

import pytest

from contextwindow import Session
from contextwindow.compaction import markers
from contextwindow.compaction.cache import CacheConfig
from contextwindow.compaction.mask import is_masked
from contextwindow.errors import NotFoundError
from contextwindow.messages import user
from contextwindow.session import SessionConfig
from contextwindow.sink import ConversationSink
from contextwindow.store.base import new_id
from contextwindow.store.memory import MemoryStore
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


def test_the_sink_reads_a_message_by_its_sequence_number_or_its_id() -> None:
    store = MemoryStore()
    cid = store.create_conversation("t")
    rows = store.append(cid, [user("first"), user("second"), user("third")])
    sink = ConversationSink(store, cid)
    assert "second" in sink.get_offload(f"msg-{rows[1].seq}").content
    assert "third" in sink.get_offload(f"msg-{rows[2].id}").content
    with pytest.raises(NotFoundError, match="sequence number"):
        sink.get_offload("msg-999")
    with pytest.raises(NotFoundError, match="no message with that id"):
        sink.get_offload("msg-m_nope")


def test_a_session_s_cleared_result_names_its_row_by_sequence_number_and_reads_back_the_original() -> None:
    s = Session(MemoryStore(), window=400_000, max_output=8_000, config=SessionConfig(cache=CacheConfig(clear_at_least=1_000, horizon_calls=12)))
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
