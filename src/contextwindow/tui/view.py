"""What the TUI shows, as plain values: rows of the record, the account panel's lines.

Everything here is formatting over the library's own values (``curation.segments``, the store's
usage totals, ``budget.gauge``); no rule of curation or accounting is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from ..budget import Gauge, gauge
from ..curation import CuratedTurn, Segment, first_line_title
from ..importers.stored import reported_input, stored_window
from ..store.base import ConversationInfo
from ..tokens.base import TokenCounter
from ..usage import Usage

SEVERITY_STYLE = {"ok": "bold green", "warn": "bold yellow", "critical": "bold red"}
BAR_WIDTH = 20


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the record panel: a fold, a turn, or a segment header (not selectable)."""

    kind: Literal["fold", "turn", "header"]
    key: str  # option id: "fold:<seq>", "turn:<index>", "header:<segment>"
    number: int
    text: str
    indent: bool = False


def conversation_label(info: ConversationInfo, shown: int) -> str:
    """``title`` (or the id when untitled), its message count (``shown``: not the rows a later
    history of the client's superseded, sync_state.row_counts) and creation date."""
    when = datetime.fromtimestamp(info.created_at, tz=UTC).strftime("%Y-%m-%d %H:%M")
    return f"{info.title or info.id}\n  {shown} msgs · {when}"


def turn_tokens(turn: CuratedTurn, counter: TokenCounter) -> int:
    return sum(counter.count_message(s.message) for s in turn.messages)


def record_rows(segs: Sequence[Segment], counter: TokenCounter) -> list[Row]:
    """Archived segments as their fold followed by the turns it folded away, then the loaded turns."""
    rows: list[Row] = []
    for seg in segs:
        if seg.kind == "archived" and seg.fold is not None:
            k = seg.fold
            span = f"turns {seg.turns[0].index}–{seg.turns[-1].index}" if seg.turns else "no turns"
            head = first_line_title(k.summary.text) or "(empty summary)"
            rows.append(Row("fold", f"fold:{k.seq}", k.seq, f"fold {k.seq} · {head}  [{span}]"))
        else:
            after = f" after fold {seg.fold.seq}" if seg.fold is not None else ""
            rows.append(Row("header", f"header:{seg.index}", seg.index, f"── loaded{after} ({len(seg.turns)} turns) ──"))
        for t in seg.turns:
            head = "(preamble) " + t.headline if t.preamble else t.headline
            toks = turn_tokens(t, counter)
            rows.append(Row("turn", f"turn:{t.index}", t.index, f"{t.index:>3}  {head}  · {len(t.messages)} msgs · {toks:,} tok", True))
    return rows


def window_of(info: ConversationInfo) -> tuple[str | None, int]:
    """The model the conversation's metadata names (if any) and its context window: the one an
    imported log stated, else the registry's, else the default (see importers/stored.py)."""
    model, window, _ = stored_window(info.metadata)
    return model, window


def window_source(info: ConversationInfo) -> str:
    return stored_window(info.metadata)[2]


def view_tokens(segs: Sequence[Segment], counter: TokenCounter) -> int:
    """Tokens of what the model sees now: the latest fold's summary and the loaded turns."""
    loaded = segs[-1]
    used = sum(turn_tokens(t, counter) for t in loaded.turns)
    if loaded.fold is not None:
        used += counter.count_message(loaded.fold.summary)
    return used


def gauge_bar(g: Gauge) -> str:
    filled = min(BAR_WIDTH, round(BAR_WIDTH * g.used / g.window))
    return "█" * filled + "░" * (BAR_WIDTH - filled)


def account_gauge(segs: Sequence[Segment], info: ConversationInfo, counter: TokenCounter, usages: Sequence[Usage] = ()) -> Gauge:
    """An imported session: its last reported prompt (as inspect and replay gauge it); a proxied
    conversation: its last main call's reported prompt; else our count of the view."""
    _, window = window_of(info)
    reported = reported_input(info.metadata, usages)
    return gauge(reported if reported is not None else view_tokens(segs, counter), window)


def spend_lines(by_role: dict[str, dict[str, Any]]) -> list[str]:
    """Per role: calls, input tokens (with the share read from the provider's cache), cache
    writes, output tokens and cost (calls of unknown cost are counted, not hidden)."""
    if not by_role:
        return ["  (no model calls recorded)"]
    out = []
    for role in sorted(by_role):
        t = by_role[role]
        inp, read, write = t.get("input_tokens", 0), t.get("cache_read_tokens", 0), t.get("cache_write_tokens", 0)
        parts = [f"{t.get('calls', 0)} calls", f"in {inp:,}" + (f" ({100 * read / inp:.0f}% cache hit)" if inp else "")]
        if write:
            parts.append(f"cache write {write:,}")
        parts.append(f"out {t.get('output_tokens', 0):,}")
        priced = t.get("calls", 0) - t.get("cost_unknown_calls", 0)
        cost = f"${t.get('cost_usd', 0.0):.4f}" if priced else "unpriced"
        if priced and t.get("cost_unknown_calls"):
            cost += f" +{t['cost_unknown_calls']} unpriced"
        parts.append(cost)
        out.append(f"  {role}: " + ", ".join(parts))
    return out
