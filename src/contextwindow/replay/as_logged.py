"""The "as logged" row of a replay: what the session really sent and cost, from the log's own usage
priced at each call's model (cost.py) — the reference every policy's row is read against."""

from __future__ import annotations

from typing import Any

from ..cost import Parts, calls_total, parts_cost, prices_for
from ..importers import ImportedSession


def as_logged(session: ImportedSession, window: int) -> dict[str, Any]:
    """Calls, peak prompt, calls over ``window``, compactions, input cost in input-price tokens,
    cache hit share and dollars (input side, output, total) of the calls as the log recorded them."""
    reported = [c.reported_input_tokens for c in session.calls if c.reported_input_tokens is not None]
    total = calls_total(session.calls)
    input_usd = 0.0
    output_usd = 0.0
    billed = 0.0
    priced_input = True
    for c in session.calls:
        if c.reported_input_tokens is None:
            continue
        p = Parts.of(c.reported_input_tokens, c.cache_read_tokens, c.cache_write_tokens, 0, c.cache_write_1h_tokens)
        prices = prices_for(c.model)
        cost = parts_cost(p, prices)
        if cost is None or prices is None or not prices.input:
            priced_input = False
            continue
        input_usd += cost
        billed += cost * 1_000_000 / prices.input
        out = parts_cost(Parts(output=c.output_tokens or 0), prices)
        output_usd += out or 0.0
    inp = sum(reported)
    read = sum(c.cache_read_tokens or 0 for c in session.calls)
    return {
        "policy": "as logged",
        "calls": len(session.calls),
        "calls_with_usage": len(reported),
        "peak_tokens": max(reported, default=0),
        "over_window_calls": sum(1 for n in reported if n > window),
        "compactions": len(session.checkpoints),
        "input_tokens": inp,
        "cache_read_tokens": read,
        "cache_write_tokens": sum(c.cache_write_tokens or 0 for c in session.calls),
        "cache_hit_share": round(read / inp, 4) if inp else 0.0,
        "billed_input_tokens": round(billed) if priced_input and reported else None,
        "cost_usd": round(input_usd, 6) if priced_input and reported else None,
        "output_tokens": sum(c.output_tokens or 0 for c in session.calls),
        "output_cost_usd": round(output_usd, 6) if priced_input and reported else None,
        "total_cost_usd": None if total.cost_usd is None else round(total.usd, 6),
        "unpriced_calls": total.unpriced_calls,
        "cost_text": total.text(),
    }


def as_logged_cells(row: dict[str, Any]) -> list[str]:
    """The row formatted for the replay table's columns (what a log cannot say is "—")."""
    def n(v: Any) -> str:
        return "—" if v is None else f"{round(v):,}"

    return [
        "as logged",
        str(row["calls"]),
        n(row["peak_tokens"]),
        str(row["over_window_calls"]),
        "—",
        str(row["compactions"]),
        "—",
        n(row["billed_input_tokens"]),
        "—",
        "—",
        "—",
        f"{100 * row['cache_hit_share']:.0f}%",
        "unpriced" if row["cost_usd"] is None else f"{row['cost_usd']:.4f}",
        "—",
    ]
