"""A client's history as the proxy reads it: fingerprinted from the raw request, converted to
messages only where needed. Pure.

An agent re-sends its whole conversation on every request; almost all of it is already stored.
So each message is fingerprinted straight from its JSON (breakpoints taken out first, keys
sorted), and only the messages the store does not hold yet — plus the few the identity reads —
are converted (:mod:`contextwindow.formats`). Chat Completions and Anthropic map one request
message to one message; the Responses API groups items into messages, so it is converted whole.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, overload

from ..errors import PayloadError
from ..formats import get_format
from ..messages import Message, dumps
from ..store.base import content_hash
from . import breakpoints

try:
    import orjson
except ImportError:  # the proxy extra installs it; without it the stdlib writes the same JSON, slower
    orjson = None  # type: ignore[assignment]


def hash_json(value: Any) -> str:
    """sha256 of ``value`` as canonical JSON (keys sorted, no spaces, UTF-8). orjson writes it about
    4x faster; where orjson refuses (integers past 64 bits, lone surrogates) the stdlib writes it.
    The two agree byte for byte except on some floats (orjson writes ``1e-05`` as ``0.00001``), so
    a message with such a float hashes differently with and without orjson (the proxy extra
    installs it): a store written by one continues in a new conversation under the other."""
    if orjson is not None:
        try:
            return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
    return content_hash(json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True))


_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))  # every digit a "0", the rest a space
_LONG_NUMBER = b"0" * 19  # an integer orjson might read as a float (past 64 bits) has at least this many digits


def long_number(raw: bytes) -> bool:
    """True when a run of 19 or more digits stands anywhere in ``raw`` (where orjson might read
    an integer past 64 bits as a float)."""
    return _LONG_NUMBER in raw.translate(_DIGITS)


def parse_body(raw: bytes, *, answer: bool = False) -> Any:
    """JSON the proxy reads (a request body, an answer, a stream's event), parsed into what the
    stdlib's ``json.loads`` gives, about 2.5x faster where orjson reads it the same: not where a run
    of 19 or more digits stands anywhere (orjson reads an integer past 64 bits as a float), and not
    what orjson refuses (lone surrogates, UTF-16, numbers past a double): those go to the stdlib,
    whose error a bad body gets. ``NaN`` and ``Infinity`` (not JSON) are refused in a request (a
    400); in an ``answer`` they are read as the client's SDK reads them (Python's ``json``: some
    servers write a -inf logprob as ``-Infinity``), so its usage and reply are not lost. The one
    reader of JSON with long integers in the proxy: :func:`parse_request` and :func:`exact_body`
    are its two halves, for a request whose scan is deferred."""
    if orjson is not None and not long_number(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return _stdlib(raw, answer)


def parse_request(raw: bytes) -> tuple[Any, bool]:
    """``raw`` parsed as :func:`parse_body` does, without the scan for long digit runs yet, and
    whether that is known to be the stdlib's reading (False: orjson read it and the scan is still
    owed). :meth:`Conversations.parse <contextwindow.proxy.conversations.Conversations.parse>`
    scans only what the conversation's previous request did not hold, where it can, and reads the
    body again with the stdlib when a long run stands in it."""
    if orjson is not None:
        try:
            return orjson.loads(raw), False
        except orjson.JSONDecodeError:
            pass
    return _stdlib(raw), True


def exact_body(raw: bytes) -> Any:
    """``raw`` as the stdlib reads it (a body :func:`parse_request` read with orjson, in which a
    long digit run stands)."""
    return _stdlib(raw)


def _stdlib(raw: bytes, constants: bool = False) -> Any:
    return json.loads(raw) if constants else json.loads(raw, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def json_key(value: Any) -> bytes:
    """``value`` as JSON bytes, keys as given: an exact dict key for a value seen again (the same
    tools on every request), cheaper than a sorted hash (two orders of the same keys: two keys)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


class LazyHistory(Sequence[Message]):
    """The request's messages, each converted on first access (errors name the request's index)."""

    def __init__(self, fmt: str, items: Sequence[Any], system: Any = None) -> None:
        self.fmt = fmt
        self.items = list(items)
        self.offset = 0 if system is None else 1
        self.system = system
        self._done: dict[int, Message] = {}

    def __len__(self) -> int:
        return len(self.items) + self.offset

    def _convert(self, i: int) -> Message:
        m = self._done.get(i)
        if m is None:
            conv = get_format(self.fmt).from_payload
            if i < self.offset:
                m = conv({"system": self.system, "messages": []})[0]
            else:
                n = i - self.offset
                try:
                    (m,) = conv([self.items[n]])
                except PayloadError as exc:  # re-said with this message's index in the request
                    text = str(exc).split(": ", 1)[1] if str(exc).startswith("message 0") else str(exc)
                    raise PayloadError(text, index=n, field=exc.field) from None
            self._done[i] = m
        return m

    @overload
    def __getitem__(self, i: int) -> Message: ...
    @overload
    def __getitem__(self, i: slice) -> list[Message]: ...
    def __getitem__(self, i: int | slice) -> Message | list[Message]:
        if isinstance(i, slice):
            return [self._convert(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._convert(i)


def normalize(body: Mapping[str, Any], fmt: str) -> tuple[Sequence[Message], list[str], dict[str, list[breakpoints.Mark]]]:
    """The request's history without breakpoints, its fingerprints, and the breakpoints by fingerprint."""
    stripped, raw = breakpoints.strip_payload(body, fmt)
    if fmt in ("openai", "anthropic"):
        items = stripped["messages"]
        system = stripped.get("system") if fmt == "anthropic" else None
        history: Sequence[Message] = LazyHistory(fmt, items, system)
        fps = ([hash_json({"system": system})] if system is not None else []) + [hash_json(d) for d in items]
    else:
        history = get_format(fmt).from_payload(stripped)
        fps = [content_hash(dumps(m)) for m in history]
    return history, fps, breakpoints.marks_by_fingerprint(history, fps, raw, fmt)
