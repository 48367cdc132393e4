"""The one reader of server-sent events (llm/sse.py), and its three users reading alike: the HTTP
clients' (httpclient.parse_sse), the proxy's relay (UsageTap, in pieces as they arrive) and its
reply reader (reply.sse_events, whole)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.llm.httpclient import parse_sse
from contextwindow.llm.sse import EventReader, anthropic_stream, event_data, events_of, openai_stream, payloads

jsons = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


def encode(events: list[tuple[str | None, Any]], eol: str, comments: bool) -> bytes:
    out = []
    for name, data in events:
        lines = ([": keep-alive"] if comments else []) + ([f"event: {name}"] if name else [])
        text = json.dumps(data, ensure_ascii=False, indent=1 if isinstance(data, dict) else None)  # multi-line data too
        lines += [f"data: {line}" for line in text.split("\n")]
        out.append("\n".join(lines) + "\n\n")
    stream = "".join(out) + "data: [DONE]\n\n"
    return stream.replace("\n", eol).encode()


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    at = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *at, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.none() | st.sampled_from(["message_start", "ping", "content_block_delta"]), jsons), max_size=6),
       st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_events_fed_in_any_pieces_are_the_events_read_whole(events: list[Any], eol: str, comments: bool, cuts: list[int]) -> None:
    stream = encode(events, eol, comments)
    reader = EventReader()
    got = [ev for piece in pieces(stream, cuts) for ev in reader.feed(piece)] + reader.close()
    assert got == events_of(stream)
    assert [json.loads(p) for p in payloads(stream)] == [data for _, data in events]
    assert parse_sse(stream.decode()) == [data for _, data in events]


def test_a_last_event_without_its_blank_line_is_read_and_data_lines_lose_one_space() -> None:
    assert events_of(b"data: 1\n\ndata:  2") == [b"data: 1", b"data:  2"]
    assert event_data(b"event: x\ndata:  a\ndata:b") == b" a\nb"
    assert event_data(b": comment\nevent: ping") is None
    assert list(payloads(b"event: ping\n\ndata:\n\ndata: [DONE]\n\n")) == []


def test_an_event_over_the_bound_is_dropped_whole_counted_once_and_reading_goes_on() -> None:
    reader = EventReader(max_event=64)
    big = b"data: " + b"x" * 300 + b"\n\n"
    got: list[bytes] = []
    for i in range(0, len(big), 50):  # the big event arrives in pieces: never held past the bound
        got += reader.feed(big[i : i + 50])
        assert len(reader._buf) <= 64
    got += reader.feed(b"data: 2\n\n") + reader.close()
    assert got == [b"data: 2"] and reader.skipped == 1


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_an_oversize_event_ends_at_its_blank_line_wherever_a_piece_cuts_it(eol: bytes) -> None:
    """The blank line after a dropped event may be cut anywhere (inside its "\r\n" too): the event after it
    is still read, and so is a last event whose line end is a bare "\r"."""
    stream = b"data: a" + eol * 2 + b"data: " + b"y" * 40 + eol * 2 + b"data: b" + eol * 2 + b"data: c" + eol
    for size in range(1, 8):
        reader = EventReader(max_event=12)
        got = [ev for i in range(0, len(stream), size) for ev in reader.feed(stream[i : i + size])] + reader.close()
        assert [ev.rstrip(b"\n") for ev in got] == [b"data: a", b"data: b", b"data: c"] and reader.skipped == 1, size


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_the_relay_and_the_reply_reader_see_the_events_the_clients_do(protocol: str) -> None:
    from contextwindow.proxy.relay import UsageTap
    from contextwindow.proxy.reply import sse_events

    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    if protocol == "openai":
        body = {"id": "c", "model": "m", "created": 1, "usage": usage,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hello there, \u2028 world."}}]}
        stream = openai_stream(body)
    else:
        body = {"id": "m", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 3}, "content": [{"type": "text", "text": "Hello there, \u2028 world."}]}
        stream = anthropic_stream(body)
    whole = parse_sse(stream.decode())
    assert sse_events(stream) == whole
    tap = UsageTap(streaming=True)
    for piece in pieces(stream, list(range(0, len(stream), 7))):
        tap.feed(piece)
    tap.close()
    assert tap.finished and tap.skipped == 0
    assert tap.events == [e for e in whole if "usage" in json.dumps(e)]


def test_a_line_separator_inside_the_data_does_not_end_its_line() -> None:
    # str.splitlines (the clients' reader before) also cut at U+2028/U+0085, which JSON may hold raw
    assert parse_sse('data: {"t": "a\u2028b\x85c"}\r\n\r\n') == [{"t": "a\u2028b\x85c"}]
