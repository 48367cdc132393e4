"""Reading usage out of an answer while it is relayed, without holding it back. Pure.

The bytes go to the client exactly as they came; a copy is watched on the side. For a stream, only
the events that carry usage are parsed (events are cut by the one reader of server-sent events,
:class:`contextwindow.llm.sse.EventReader`; one larger than ``MAX_EVENT`` is skipped, counted,
and never buffered further). Of a whole answer, JSON or a
stream, at most ``MAX_BODY`` bytes are kept, to read its usage and the model's reply from
(:mod:`.reply`, after the client has the last byte); gzip/deflate is undone on that copy only.
"""

from __future__ import annotations

import zlib
from typing import Any

from ..llm.sse import EventReader, event_data
from .history import parse_body  # orjson where it reads JSON as the stdlib does

MAX_EVENT = 1 << 20
MAX_BODY = 16 << 20
END_MARKS = (b"data: [DONE]", b"event: message_stop", b"event: response.completed", b'"type":"message_stop"', b'"type": "message_stop"')


class UsageTap:
    """Feed it every chunk relayed; ``events`` holds the parsed usage-bearing stream events."""

    def __init__(self, *, streaming: bool, encoding: str | None = None) -> None:
        self.streaming = streaming
        self.events: list[Any] = []
        self._unread = 0  # bodies too large or undecodable, events not JSON (see ``skipped``)
        self.bytes = 0
        self.finished = False  # the stream's own end event was seen ([DONE], message_stop, response.completed)
        self._events = EventReader(MAX_EVENT) if streaming else None
        self._body: list[bytes] = []
        self._body_size = 0
        self._parsed: tuple[Any] | None = None  # body(), parsed once (usage and reply both read it)
        enc = (encoding or "").strip().lower()
        self._decoder: Any = None
        if enc == "gzip":
            self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif enc == "deflate":
            self._decoder = zlib.decompressobj()
        elif enc not in ("", "identity"):
            self._unread += 1  # br/zstd: relayed, not read
            self._decoder = False

    @property
    def skipped(self) -> int:
        """Events or bodies too large (or undecodable) to read usage from."""
        return self._unread + (self._events.skipped if self._events is not None else 0)

    def feed(self, chunk: bytes) -> None:
        self.bytes += len(chunk)
        if self._decoder is False:
            return
        if self._decoder is not None:
            try:
                chunk = self._decoder.decompress(chunk)
            except zlib.error:
                self._decoder = False
                self._unread += 1
                return
        if self._events is not None:
            for ev in self._events.feed(chunk):
                self._event(ev)
        if self._body_size <= MAX_BODY:  # a stream's bytes too: the reply is read from them once it ended
            self._body.append(chunk)
            self._body_size += len(chunk)

    def _event(self, ev: bytes) -> None:
        if any(m in ev for m in END_MARKS):
            self.finished = True
        if b'"usage"' not in ev or len(ev) > MAX_EVENT:
            return
        data = event_data(ev)
        try:
            self.events.append(parse_body(data or b"", answer=True))
        except ValueError:
            self._unread += 1

    def body(self) -> Any:
        """The whole answer as JSON (None when it was too large or not JSON)."""
        if self.streaming or self._body_size > MAX_BODY:
            return None
        if self._parsed is None:
            try:
                self._parsed = (parse_body(b"".join(self._body), answer=True),)
            except ValueError:
                self._parsed = (None,)
        return self._parsed[0]

    def data(self) -> bytes | None:
        """The answer's bytes as received, decoded (None when over ``MAX_BODY`` or undecodable)."""
        if self._body_size > MAX_BODY or self._decoder is False:
            return None
        return b"".join(self._body)

    def close(self) -> None:
        if self._events is not None:
            for ev in self._events.close():
                self._event(ev)
