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
