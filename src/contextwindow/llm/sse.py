"""Server-sent events: the one reader of a stream, and the encodings of a whole answer.

Reading (:class:`EventReader`, :func:`events_of`, :func:`payloads`): a stream is cut into
events at blank lines (``\n\n``; ``\r\n`` and bare ``\r`` line ends read as ``\n``, as the SSE
format allows; a line holding only spaces is not blank), in pieces as they arrive or
whole; an event's ``data`` is its ``data:`` lines (one leading space dropped) joined by ``\n``.
``[DONE]`` and events without data carry no payload. What a payload holds (JSON, read by whoever
asked) is not this module's concern. Used by the HTTP clients (:mod:`.httpclient`, a body that
streamed although it was not asked to) and by the proxy (:mod:`contextwindow.proxy.relay` while
an answer is relayed, :mod:`contextwindow.proxy.reply` once it is whole).

Writing (:func:`openai_stream`, :func:`anthropic_stream`): used by
:class:`~contextwindow.llm.localserver.LocalProviderServer` to answer a streaming request
(``"stream": true``, or a :class:`Reply` with ``stream=True``): the same answer as the
non-streaming body, cut into the chunks/events each provider sends (text in small deltas,
tool-call arguments in fragments, usage last).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

DONE = b"[DONE]"


class EventReader:
    """Cuts a stream fed in pieces into whole events (their raw bytes, ``\r\n`` and ``\r`` read as ``\n``).
    An event still open past ``max_event`` bytes is dropped, counted in ``skipped``, and what
    follows until its end is dropped with it (no buffer grows without bound)."""

    __slots__ = ("_buf", "_dropping", "max_event", "skipped")

    def __init__(self, max_event: int | None = None) -> None:
        self.max_event = max_event
        self.skipped = 0
        self._buf = b""
        self._dropping = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """The events ``chunk`` completes, in order."""
        buf = self._buf + chunk
        held = b""
        if b"\r" in buf:
            if buf.endswith(b"\r"):  # it may be the first half of "\r\n": read with the next piece
                buf, held = buf[:-1], b"\r"
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # a bare "\r" ends a line too
        *events, rest = buf.split(b"\n\n")
        if self._dropping and events:  # the oversized event's end: what follows is read again
            events.pop(0)
            self._dropping = False
        if self.max_event is not None and len(rest) > self.max_event:
            if not self._dropping:
                self.skipped += 1
            self._dropping = True
            rest = rest[-1:] if rest.endswith(b"\n") else b""  # half of a blank line kept
        self._buf = rest + held
        return events

    def close(self) -> list[bytes]:
        """The last event, when the stream ended without a blank line after it."""
        rest, self._buf = self._buf, b""
        if rest.endswith(b"\r"):  # the stream's last line end, held back in case a "\n" followed
            rest = rest[:-1] + b"\n"
        *events, rest = rest.split(b"\n\n")
        if self._dropping and events:
            events.pop(0)
            self._dropping = False
        if self._dropping or not rest.strip():
            return events
        return [*events, rest]


def event_data(event: bytes) -> bytes | None:
    """The ``data`` of one event (its ``data:`` lines, one leading space dropped, joined by
    ``\n``), or None when it has none."""
    lines = [line[6:] if line.startswith(b"data: ") else line[5:] for line in event.split(b"\n") if line.startswith(b"data:")]
    return b"\n".join(lines) if lines else None


def events_of(stream: bytes) -> list[bytes]:
    """The events of a whole stream."""
    reader = EventReader()
    return reader.feed(stream) + reader.close()


def payloads(stream: bytes) -> Iterator[bytes]:
    """The ``data`` of each event of a whole stream that has some (``[DONE]`` and empty data left out)."""
    for event in events_of(stream):
        data = event_data(event)
        if data is not None and data.strip() and data.strip() != DONE:
            yield data


def looks_like_sse(text: str) -> bool:
    """Whether a body is a server-sent-events stream."""
    return text.lstrip().startswith(("data:", "event:", ":", "id:", "retry:"))


def _pieces(text: str, size: int = 7) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]


def _event(data: Any, name: str | None = None) -> str:
    head = f"event: {name}\n" if name else ""
    return head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"


def openai_stream(body: dict[str, Any]) -> bytes:
    """A ``chat.completion`` body → the ``chat.completion.chunk`` stream that carries it."""
    head = {k: body[k] for k in ("id", "model", "created") if k in body}
    choice = body["choices"][0]
    msg = choice["message"]
    out = [_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})]

    def chunk(delta: dict[str, Any]) -> None:
        out.append(_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}))

    for piece in _pieces(msg.get("content") or ""):
        chunk({"content": piece})
    for i, call in enumerate(msg.get("tool_calls") or []):
        fn = call["function"]
        chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function", "function": {"name": fn["name"], "arguments": ""}}]})
        for piece in _pieces(fn["arguments"]):
            chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    out.append(_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}))
    out.append(_event({**head, "object": "chat.completion.chunk", "choices": [], "usage": body["usage"]}))
    out.append(_event("[DONE]"))
    return "".join(out).encode("utf-8")


def anthropic_stream(body: dict[str, Any]) -> bytes:
    """A Messages API body → its ``message_start`` … ``message_stop`` event stream."""
    usage = body["usage"]
    start = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    out = [_event({"type": "message_start", "message": start}, "message_start")]
    for i, block in enumerate(body["content"]):
        if block["type"] == "text":
            out.append(_event({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}, "content_block_start"))
            for piece in _pieces(block["text"]):
                out.append(_event({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}}, "content_block_delta"))
        else:
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out.append(_event({"type": "content_block_start", "index": i, "content_block": first}, "content_block_start"))
            for piece in _pieces(json.dumps(block["input"])):
                out.append(_event({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta"))
        out.append(_event({"type": "content_block_stop", "index": i}, "content_block_stop"))
    delta = {"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None}, "usage": {"output_tokens": usage["output_tokens"]}}
    out.append(_event(delta, "message_delta"))
    out.append(_event({"type": "message_stop"}, "message_stop"))
    return "".join(out).encode("utf-8")
