"""A client re-sends its previous request's history byte for byte: what the proxy keeps of that
request so that only the new messages are checked again. Pure.

An agent's next request is, in bytes, its previous request with the new messages spliced in
where the history list closed: ``head + "," + NEW + tail``, where ``head`` is the previous body
up to the end of its last message and ``tail`` the rest (the ``]`` closing the list, the keys
after it). When a body has that shape, its first ``count`` messages are the previous request's,
parsed from the same bytes in the same place, so their fingerprints, the scan for long integers
and the provider-rules check of those messages are the previous request's too; only ``NEW`` is
read again.

What proves the shape (:func:`splice`, then :func:`confirm` once the body is parsed):

- the new body starts with the previous ``head`` and ends with its ``tail`` (compared as bytes);
- ``head`` ends with ``}`` (a message closed) and ``tail`` starts with ``]`` (whitespace aside);
- what lies between is ``,`` followed by ``NEW``, and ``[NEW]`` parses as a list of objects;
- the whole body, parsed, has exactly ``count + len(NEW)`` messages and its last ones equal the
  parsed ``NEW``.

A splice anywhere else (inside a message, inside another list, inside a string) cannot pass the
last test: ``[NEW]`` is balanced JSON, so spliced elsewhere it leaves the history's length as it
was (or is not JSON at that place at all). Anything that fails a test is read whole, as before:
an edited, rewound or reordered history, moved cache breakpoints, new tools before the messages.

Where the previous request's history ended is learned from the first request that extends it:
the longest common prefix of the two bodies (found by halving, comparing slices), which ends
where the old list closed and the new one goes on with ``,``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

try:
    import orjson
except ImportError:  # the proxy extra installs it; without it there is no fast path
    orjson = None  # type: ignore[assignment]

_WS = b" \t\r\n"
STEP = 4096  # bytes compared at a time while looking for the common prefix


@dataclass(slots=True)
class Sent:
    """One request's body as the next request of its conversation may extend it."""

    raw: bytes
    count: int  # messages in its history list
    fingerprints: tuple[str, ...]  # of those messages (Anthropic: the system first)
    clean: bool  # no run of 19+ digits anywhere: orjson read it as the stdlib does
    anchor: int | None = None  # where its last message ends (None: learned from the next request)
    call_ids: frozenset[Any] | None = None  # Chat: its list passed the provider rules, with these call ids
    tools: list[Any] | None = None  # its tools as ToolSpecs (the next body that extends it has the same bytes there)
    start: int = 0  # where its first message begins (with ``ends``)
    ends: list[int] | None = None  # where each message ends, where the body is written as orjson writes (:func:`message_ends`)
    lead: int = 0  # fingerprints before the messages' (Anthropic: 1 with a system prompt, else 0)


@dataclass(frozen=True, slots=True)
class Splice:
    """A body found to be ``prev`` with ``new`` (bytes, the messages only) spliced in at ``at``."""

    prev: Sent
    new: bytes
    at: int  # where the new body's own last message ends (its anchor)


def common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` (slices compared in C)."""
    n = min(len(a), len(b))
    lo = 0
    while lo + STEP <= n and a[lo : lo + STEP] == b[lo : lo + STEP]:
        lo += STEP
    hi = min(n, lo + STEP)
    while lo < hi:  # a[:lo] == b[:lo]; the first difference is before hi (or there is none)
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def splice(prev: Sent, raw: bytes) -> Splice | None:
    """``raw`` as ``prev`` with messages spliced in after its last one, or None. Bytes only: the
    caller confirms with the parsed body (:func:`confirm`)."""
    old = prev.raw
    if len(raw) <= len(old) + 2:
        return None
    at = prev.anchor
    if at is None:
        at = common_prefix(old, raw)
    elif not raw.startswith(old[:at]):
        return None
    tail = old[at:]
    if not raw.endswith(tail) or not old[:at].rstrip(_WS).endswith(b"}") or not tail.lstrip(_WS).startswith(b"]"):
        return None
    between = raw[at : len(raw) - len(tail)].lstrip(_WS)
    if not between.startswith(b","):
        return None
    return Splice(prev, between[1:], len(raw) - len(tail))


def spliced(sp: Splice) -> list[Any] | None:
    """The spliced-in messages parsed on their own (None when they are not a non-empty list of objects)."""
    if orjson is None:
        return None
    try:
        new = orjson.loads(b"[" + sp.new + b"]")
    except orjson.JSONDecodeError:
        return None
    return new if new and all(isinstance(m, dict) for m in new) else None


def confirm(sp: Splice, messages: list[Any]) -> bool:
    """True when the parsed body's ``messages`` are the previous request's plus exactly the
    spliced-in ones (module docstring)."""
    new = spliced(sp)
    k = sp.prev.count
    return new is not None and len(messages) == k + len(new) and messages[k:] == new


def call_ids(messages: list[Any]) -> list[Any]:
    """The call ids of a Chat list's assistant messages, as sent."""
    return [c.get("id") if isinstance(c, dict) else None
            for m in messages if isinstance(m, dict) and m.get("role") == "assistant" for c in m.get("tool_calls") or ()]


_KEY = b'"messages":['


def message_ends(raw: bytes, messages: Sequence[Any], start: int | None = None, known: Sequence[int] = ()) -> tuple[int, list[int]] | None:
    """Where the history list's first message begins and where each message ends, for a body that
    writes its history as orjson does (compact, keys as given, text unescaped: what httpx and
    ``JSON.stringify`` send), each message verified byte for byte; ``start``/``known``: the
    beginning and the first ends, known from a body with the same bytes there. None otherwise."""
    if orjson is None:
        return None
    ends = list(known)
    if start is None:
        at = raw.find(_KEY)
        if at < 0 or raw.count(b'"messages"') != 1:  # (a quote inside a string is escaped: this is the body's own key)
            return None
        start = at + len(_KEY)
    pos = ends[-1] if ends else start
    for i in range(len(ends), len(messages)):
        if i:
            if raw[pos : pos + 1] != b",":
                return None
            pos += 1
        try:
            d = orjson.dumps(messages[i])
        except TypeError:
            return None
        if not raw.startswith(d, pos):
            return None
        pos += len(d)
        ends.append(pos)
    return (start, ends) if raw[pos : pos + 1] == b"]" else None


_MESSAGES_KEY = re.compile(rb'"messages"\s*:')  # a key: inside a string its quotes are escaped


def names_messages_again(raw: bytes, at: int) -> bool:
    """True when ``raw`` names a ``messages`` key after byte ``at``: a JSON reader keeps the last
    of two, so the history it reads need not begin with the messages written before ``at``."""
    return _MESSAGES_KEY.search(raw, at) is not None


def prefix(prev: Sent, raw: bytes) -> tuple[int, int]:
    """How many of ``prev``'s messages lie whole in the bytes ``raw`` shares with it from the
    start (they are the same messages in ``raw``: parsed from the same bytes in the same place),
    and how many bytes it shares. A client that edits its last messages (moves a cache
    breakpoint, replaces a per-call block) keeps the ones before. None when ``raw`` names
    ``messages`` again after the shared bytes (:func:`names_messages_again`)."""
    if prev.ends is None:
        return 0, 0
    at = common_prefix(prev.raw, raw)
    if names_messages_again(raw, at):  # another history list after the shared bytes: none of them is taken over
        return 0, at
    return bisect_right(prev.ends, at), at
