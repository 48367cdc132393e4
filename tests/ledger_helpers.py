"""Helpers the ledger tests share: a ledger made of user messages, and the values it keeps live or
holds superseded."""

from __future__ import annotations

from contextwindow.folding import ledger as L


def ledger_of(*messages: str) -> list[L.Entry]:
    """The ledger after each message in turn."""
    out: list[L.Entry] = []
    for m in messages:
        out = L.update(out, m)
    return out


def live_values(ledger: list[L.Entry]) -> set[str]:
    return {v for e in L.active(ledger) for v in e.values}


def stale_values(ledger: list[L.Entry]) -> set[str]:
    return {v for e in L.stale(ledger) for v in e.values}
