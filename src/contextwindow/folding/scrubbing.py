"""Superseded values out of what the model sees: every output, not only summaries.

A value the user later changed ("the release is March 1" … "the release slipped to March 3") is
replaced, wherever it is about to be shown again, by ``[updated later: <new value>]``
(``ledger.scrub``). This module applies that to messages: the user's and the assistant's text
and fold summaries; tool output and opaque parts (signatures, encrypted reasoning) are left as
they are. The store keeps the originals — this only changes what a view or an output shows.
Pure functions over plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..messages import Message, TextPart
from . import ledger as ledger_mod


def scrub_message(m: Message, ledger: Sequence[ledger_mod.Entry]) -> Message:
    """``m`` with superseded values replaced by their note (``m`` itself when nothing changes)."""
    if m.role not in ("user", "assistant") or m.is_tool_result:
        return m
    changed = False
    parts = []
    for p in m.parts:
        if isinstance(p, TextPart) and p.text:
            t = ledger_mod.scrub(p.text, ledger)
            if t != p.text:
                p, changed = replace(p, text=t), True
        parts.append(p)
    return replace(m, parts=tuple(parts)) if changed else m


def scrub_messages(messages: Sequence[Message], ledger: Sequence[ledger_mod.Entry]) -> list[Message]:
    """Each message scrubbed (the list as it is when no entry was superseded)."""
    if not ledger_mod.stale(ledger):
        return list(messages)
    return [scrub_message(m, ledger) for m in messages]


#: meta key under which a compacted conversation carries the entries it has scrubbed (never sent)
SUPERSEDED_META = "cw_superseded"


def remember_superseded(messages: Sequence[Message], ledger: Sequence[ledger_mod.Entry]) -> list[Message]:
    """``messages`` with the superseded entries of ``ledger`` recorded in the first message's
    meta, so a later compaction of this output still knows which values were replaced: the
    scrubbed text no longer states them, and a fold's memory block lists only entries in force.
    Without it, a chained run could let an old value back in (a summary line that happens to
    repeat it) or read a later update as changing another subject."""
    olds = ledger_mod.stale(ledger)
    if not olds or not messages:
        return list(messages)
    known = [dict(e) for e in messages[0].meta.get(SUPERSEDED_META, []) or [] if isinstance(e, dict)]
    rows = known + [
        {"text": e.text, "kind": e.kind, "subject": e.subject, "value": e.value, "values": list(e.values), "updated_to": e.updated_to,
         "signature": e.signature}
        for e in olds
    ]
    unique = list({(r["text"], r["updated_to"]): r for r in rows}.values())
    first = replace(messages[0], meta={**messages[0].meta, SUPERSEDED_META: unique})
    return [first, *messages[1:]]


def recall_superseded(m: Message) -> list[ledger_mod.Entry]:
    """The superseded entries ``remember_superseded`` recorded on ``m`` (inactive entries)."""
    out = []
    for r in m.meta.get(SUPERSEDED_META, []) or []:
        if isinstance(r, dict) and r.get("updated_to"):
            out.append(ledger_mod.Entry(
                text=str(r.get("text", "")), kind=str(r.get("kind", "fact")), subject=str(r.get("subject", "")), value=str(r.get("value", "")),
                values=tuple(str(v) for v in r.get("values", []) or []), source="superseded", active=False,
                updated_to=str(r["updated_to"]), signature=str(r.get("signature", "")),
            ))
    return out
