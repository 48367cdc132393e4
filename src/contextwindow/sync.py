"""Matching a history that a client re-sends in full against what the store holds. Pure.

A client behind the proxy re-sends its whole conversation on every call. Most of it is stored
already: those messages are recognised by fingerprint and skipped. Two kinds of stored rows are
*provisional* until the client's next history confirms them:

- the **tail**: the last message of a request when it is on the user side (a prompt, tool results,
  or a block the client adds to every call and drops again — our own ``ctxw run`` ends each request
  with a runtime block, Claude Code and IDE plugins add reminders/context the same way);
- the **reply**: the model's answer, stored from the provider's response (the client sends its own
  rendering of it back on the next call).

When the next history arrives, a provisional row is either confirmed (the same fingerprint; a reply
that converts to the same message), *trimmed* (the client kept only its leading parts: a runtime
block merged into the tool results' message and gone the next time), or *superseded* (the client
does not hold it any more). Nothing is deleted: a decision is ``keep`` = the number of leading parts
the conversation's view keeps (0: none), saved in the conversation's state (:data:`STATE_KEY`), and
the view leaves out what it says (a trimmed row takes the client's message-level wire extras too, e.g.
Anthropic's "content was a list", so it renders as the client now sends it). A stored row that is *not* provisional and does not match is a
rewrite: the caller continues in a new conversation, as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .compaction.view import ViewItem
from .messages import Message, part_to_dict
from .store.base import StoredMessage, content_hash

KIND_KEY = "provisional"  # message meta: TAIL or REPLY
PARTS_KEY = "pfp"  # message meta of a tail with more than one part: the fingerprints of its parts as given
TAIL, REPLY = "tail", "reply"
STATE_KEY = "transient"  # conversation state: row id -> [keep, the client's fingerprint, the client's message extra]


def part_fingerprints(m: Message) -> tuple[str, ...]:
    """One content hash per part, as the message was given (before any clipping)."""
    return tuple(content_hash(json.dumps(part_to_dict(p), ensure_ascii=False, sort_keys=True, separators=(",", ":"))) for p in m.parts)


def same_message(a: Message, b: Message) -> bool:
    """The same message to a provider: role, name, parts and provider extras (meta is ours)."""
    return a.role == b.role and a.name == b.name and a.parts == b.parts and a.extra == b.extra


@dataclass(slots=True)
class Row:
    """What sync needs to know of one stored message."""

    id: str
    fp: str | None  # the fingerprint the client's copy has (None: a reply not yet seen back)
    kind: str | None = None  # TAIL, REPLY or None (confirmed when added)
    part_fps: tuple[str, ...] = ()
    keep: int | None = None  # None: whole; 0: superseded; n: the first n parts
    message: Message | None = None  # kept for a provisional reply only (compared when the client sends it back)

    @classmethod
    def of(cls, sm: StoredMessage, fp_key: str, decided: Mapping[str, Any] | None = None) -> Row:
        meta = sm.message.meta
        kind = meta.get(KIND_KEY)
        kind = kind if kind in (TAIL, REPLY) else None
        pfps = meta.get(PARTS_KEY)
        fp = meta.get(fp_key)
        row = cls(sm.id, fp if isinstance(fp, str) else None, kind, tuple(pfps) if isinstance(pfps, list) else (),
                  message=sm.message if kind == REPLY else None)
        d = (decided or {}).get(sm.id)
        if isinstance(d, list) and len(d) >= 2 and isinstance(d[0], int):
            row.keep = d[0]
            if isinstance(d[1], str):
                row.fp = d[1]
        return row


def provisional_start(rows: Sequence[Row]) -> int:
    """Where the trailing run of provisional rows begins (what a reopened conversation assumes the
    client has not confirmed yet)."""
    i = len(rows)
    while i > 0 and (rows[i - 1].kind is not None or rows[i - 1].keep == 0):
        i -= 1
    return i


@dataclass(slots=True)
class Match:
    """How a client's history lines up with the stored rows."""

    known: int  # leading messages of the history the store holds (confirmed, trimmed or equal)
    diverged_at: int | None = None  # a confirmed row the history does not hold: a rewrite
    decided: dict[int, tuple[int, str | None, dict[str, Any] | None]] = field(default_factory=dict)  # row -> (keep, fp, extra)
    confirmed: dict[int, str] = field(default_factory=dict)  # row index -> the client's fingerprint of a reply
    rows_for: list[int] = field(default_factory=list)  # row index of each known message
    tails: list[int] = field(default_factory=list)  # history index of each provisional tail it confirmed


def match(
    rows: Sequence[Row], start: int, fps: Sequence[str], history: Sequence[Message],
    parts_of: Callable[[Message], tuple[str, ...]] = part_fingerprints, resume: Sequence[int] = (),
) -> Match:
    """Line ``history`` (with its fingerprints) up with ``rows``; rows from ``start`` on that are
    marked provisional may be confirmed, trimmed or superseded, the others must match.
    ``resume``: the rows its first messages are already known to line up with (a caller that
    matched the same leading fingerprints before, against rows before ``start``, which no sync
    changes); the walk goes on after them, with the same outcome as from the beginning."""
    out = Match(0)
    i = j = 0
    if resume:
        out.rows_for = list(resume)
        i, j = resume[-1] + 1, len(resume)
    n, m = len(rows), len(fps)
    while i < n:
        row = rows[i]
        if row.keep == 0:
            i += 1
            continue
        prov = i >= start and row.kind is not None
        if j < m:
            if row.fp is not None and row.fp == fps[j]:
                if prov and row.kind == TAIL:
                    out.tails.append(j)
                out.rows_for.append(i)
                i, j = i + 1, j + 1
                continue
            # a reply is the same message wherever it stands (a reopened conversation has not seen the client's copy yet)
            if row.kind == REPLY and row.message is not None and same_message(row.message, history[j]):
                out.confirmed[i] = fps[j]
                out.rows_for.append(i)
                i, j = i + 1, j + 1
                continue
            if prov and row.kind == TAIL and len(row.part_fps) > 1:
                mine = parts_of(history[j])
                if 0 < len(mine) < len(row.part_fps) and tuple(row.part_fps[: len(mine)]) == mine:
                    out.decided[i] = (len(mine), fps[j], dict(history[j].extra))
                    out.tails.append(j)
                    out.rows_for.append(i)
                    i, j = i + 1, j + 1
                    continue
        if prov:
            out.decided[i] = (0, None, None)
            i += 1
            continue
        return Match(j, j)  # a confirmed row the client no longer holds: nothing decided
    out.known = j
    return out


def left_out(decisions: Iterable[Any]) -> tuple[int, int]:
    """How many of ``decisions`` (each ``(keep, fp, extra)``, a list once stored) *superseded* their
    row (keep 0: the view leaves it out) and how many *trimmed* it (cut to its first ``keep`` parts,
    still shown). The one count of both: a sync's result, ``ctxw sessions`` and the TUI use it."""
    gone = cut = 0
    for d in decisions:
        if isinstance(d, (list, tuple)) and d and isinstance(d[0], int):
            if d[0] == 0:
                gone += 1
            else:
                cut += 1
    return gone, cut


def trimmed(sm: StoredMessage, keep: int, extra: Any = None) -> StoredMessage:
    m = sm.message
    return replace(sm, message=replace(m, parts=m.parts[:keep], extra=extra if isinstance(extra, dict) else m.extra))


def visible(active: Sequence[StoredMessage], decided: Mapping[str, Any]) -> list[StoredMessage]:
    """``active`` as the conversation's view sees it: superseded rows left out, trimmed ones cut."""
    if not decided:
        return list(active)
    out: list[StoredMessage] = []
    for sm in active:
        d = decided.get(sm.id)
        if not (isinstance(d, list) and d and isinstance(d[0], int)):
            out.append(sm)
        elif d[0] > 0:
            out.append(trimmed(sm, d[0], d[2] if len(d) > 2 else None))
    return out


def cut_items(items: list[ViewItem], decided: Mapping[str, Any], count: Callable[[Message], int]) -> list[ViewItem]:
    """``items`` with a trimmed row's compaction replacement (made from the whole row) cut to the
    parts the client kept."""
    out = items
    for n, it in enumerate(items):
        d = decided.get(it.key)
        if isinstance(d, list) and d and isinstance(d[0], int) and 0 < d[0] < len(it.message.parts):
            if out is items:
                out = list(items)
            out[n] = it.with_message(replace(it.message, parts=it.message.parts[: d[0]]), count)
    return out
