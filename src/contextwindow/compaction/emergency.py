"""Strategy 4 (last resort): drop the oldest whole turns, or inside one huge turn the oldest steps.

Whole turns go (about half, more if needed; never the newest) and a note says so; the note becomes
the new fold summary (with the prior summary kept), stored as a checkpoint — nothing is deleted.
A single huge turn keeps its user message and its newest steps; older steps (an assistant message
with all its tool results) are dropped from the view with a note, so no call loses its result.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..folding.base import fold_message, summary_text
from ..messages import Message, TextPart
from . import markers
from .steps import step_spans
from .summarize import FOLD_KEY, FoldDecision, nudge_item, split_prior, turn_spans
from .view import Count, ViewItem, is_synthetic, leading_markers, total


def drop_turns(items: Sequence[ViewItem], need: int, count: Count) -> tuple[list[ViewItem], dict[str, object], FoldDecision] | None:
    prior, body = split_prior(items)
    spans = turn_spans(body)
    if len(spans) < 2:
        return None
    k = max(1, len(spans) // 2)
    removed = sum(it.tokens for it in body[: spans[k - 1][1]])
    while removed < need and k < len(spans) - 1:
        k += 1
        removed = sum(it.tokens for it in body[: spans[k - 1][1]])
    cut = spans[k - 1][1]
    dropped, rest = body[:cut], body[cut:]
    real = [i for i in dropped if not is_synthetic(i)]
    earlier = ([prior.message.text] if prior else []) + leading_markers(dropped)
    first = markers.span_start(earlier, real[0].key)
    note = markers.dropped_turns(k, len(dropped), sum(i.tokens for i in dropped), first, real[-1].key)
    prior_text = summary_text(prior.source) if prior else ""
    summary = fold_message((prior_text + "\n\n" if prior_text else "") + note, method="emergency")
    fold_item = ViewItem(FOLD_KEY, summary, count(summary))
    out = [fold_item, *rest, nudge_item(rest[-1].key, False, count)]
    # the boundary is the last STORED message dropped
    decision = FoldDecision(real[-1].key, summary, "emergency", False, len(dropped), sum(i.tokens for i in dropped))
    step = {"method": "drop_turns", "turns": k, "targets": [i.key for i in dropped], "saved": total(items) - total(out), "tokens_after": total(out)}
    return out, step, decision


def drop_steps(items: Sequence[ViewItem], need: int, count: Count) -> tuple[list[ViewItem], dict[str, object]] | None:
    """Inside the newest turn: keep its user message and the newest steps; drop older steps."""
    prior, body = split_prior(items)
    spans = turn_spans(body)
    if not spans:
        return None
    t_start, t_end = spans[-1]
    turn = body[t_start:t_end]
    # keep everything up to and including the turn's user message (a preamble may precede it)
    first = next((i + 1 for i, it in enumerate(turn) if it.message.role == "user"), 0)
    steps = step_spans(turn, first)
    if len(steps) < 2:
        return None
    gone: list[ViewItem] = []
    n = 0
    for s, e in steps[:-1]:
        gone.extend(turn[s:e])
        n += 1
        if sum(i.tokens for i in gone) >= need:
            break
    keep_from = steps[n - 1][1]
    # the note's span reaches back as far as the markers dropped with these steps did
    real = [i for i in gone if not is_synthetic(i)]
    earlier = markers.span_of(leading_markers(gone))
    span = (earlier[0] if earlier else real[0].key, real[-1].key) if real else earlier
    text = markers.dropped_steps(len(gone), sum(i.tokens for i in gone), span)
    note_msg = Message(role="user", parts=(TextPart(text),), meta={"cw": "note"})
    note = ViewItem(f"note:{gone[0].key}", note_msg, count(note_msg))
    head = ([prior] if prior else []) + list(body[:t_start]) + list(turn[:first])
    out = [*head, note, *turn[keep_from:]]
    if total(out) >= total(items):
        return None
    return out, {"method": "drop_steps", "targets": [i.key for i in gone], "saved": total(items) - total(out), "tokens_after": total(out)}


__all__ = ["FOLD_KEY", "drop_steps", "drop_turns"]
