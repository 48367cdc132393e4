"""Strategy 3: fold the oldest whole turns into a summary (a fold decided in flight).

The summarizer reads the originals of the chosen turns plus the prior summary (cumulative); the
result replaces them at the head of the view. The caller stores it as a checkpoint row — nothing
is deleted. The newest turn is never summarized here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..folding.base import Summarizer, SummaryRequest, fold_message, summary_text
from ..messages import Message, TextPart
from ..turns import turn_starts
from . import markers
from .view import Count, ViewItem, is_synthetic, leading_markers, total

FOLD_KEY = "fold:pending"


@dataclass(frozen=True, slots=True)
class FoldDecision:
    """Fold everything up to and including ``upto_key`` into ``summary``."""

    upto_key: str
    summary: Message
    method: str
    ok: bool
    folded_messages: int
    folded_tokens: int


def split_prior(items: Sequence[ViewItem]) -> tuple[ViewItem | None, list[ViewItem]]:
    if items and items[0].key.startswith("fold:"):
        return items[0], list(items[1:])
    return None, list(items)


def turn_spans(items: Sequence[ViewItem]) -> list[tuple[int, int]]:
    """[start, end) spans of whole turns; a preamble before the first user message joins turn 1."""
    starts = [i for i in turn_starts([it.message for it in items]) if not is_synthetic(items[i])]
    if not starts:
        return [(0, len(items))] if items else []
    starts = [0, *starts[1:]] if starts[0] > 0 else starts
    ends = [*starts[1:], len(items)]
    return list(zip(starts, ends, strict=True))


def nudge_item(after_key: str, ok: bool, count: Count) -> ViewItem:
    msg = Message(role="user", parts=(TextPart(markers.NUDGE_SUMMARY_OK if ok else markers.NUDGE_SUMMARY_FAILED),), meta={"cw": "nudge"})
    return ViewItem(f"nudge:{after_key}", msg, count(msg))


def summarize_oldest(
    items: Sequence[ViewItem],
    need: int,
    count: Count,
    summarizer: Summarizer,
    *,
    summary_budget: int,
    constraints: Sequence[str] = (),
    instructions: str | None = None,
    superseded: Sequence[str] = (),
) -> tuple[list[ViewItem], dict[str, object], FoldDecision] | None:
    prior, body = split_prior(items)
    spans = turn_spans(body)
    if len(spans) < 2:
        return None
    # the fewest oldest turns whose removal (net of the summary) meets the need; never the newest turn
    k, removed = 0, 0
    for start, end in spans[:-1]:
        k += 1
        removed += sum(it.tokens for it in body[start:end])
        if removed - summary_budget >= need:
            break
    cut = spans[k - 1][1]
    chosen, rest = body[:cut], body[cut:]
    # step summaries inside the folded turns carry their steps' story: they join the prior summary
    earlier = [summary_text(prior.source)] if prior else []
    earlier += [it.message.text for it in chosen if it.message.meta.get("cw") == "step_summary"]
    request = SummaryRequest(
        messages=[it.source for it in chosen if not is_synthetic(it)],
        prior_summary="\n\n".join(earlier) or None,
        instructions=instructions,
        constraints=tuple(constraints),
        budget_tokens=summary_budget,
        superseded=tuple(superseded),
    )
    outcome = summarizer.summarize(request)
    real = [it for it in chosen if not is_synthetic(it)]
    # the span starts where the replaced markers' spans start (the prior summary, notes folded here)
    replaced = ([prior.message.text] if prior else []) + leading_markers(chosen)
    span = markers.folded_span(markers.span_start(replaced, real[0].key), real[-1].key, len(real)) if real else ""
    summary = fold_message(outcome.text, method=outcome.method, extra_sections=[span])
    fold_item = ViewItem(FOLD_KEY, summary, count(summary))
    last = rest[-1].key if rest else chosen[-1].key
    out = [fold_item, *rest, nudge_item(last, outcome.ok, count)]
    if total(out) >= total(items):
        return None
    # the boundary is the last STORED message folded (a nudge or note may end the chosen turns)
    decision = FoldDecision(real[-1].key, summary, outcome.method, outcome.ok, len(chosen), sum(i.tokens for i in chosen))
    step: dict[str, object] = {
        "method": "summarize",
        "summarizer": outcome.method,
        "summary_ok": outcome.ok,
        "turns": k,
        "targets": [it.key for it in chosen],
        "saved": total(items) - total(out),
        "tokens_after": total(out),
        "summarizer_calls": outcome.calls,
    }
    if outcome.extra.get("model_skipped"):  # the in-flight fold's compaction.applied event says a model was skipped, and why
        step["model_skipped"] = str(outcome.extra["model_skipped"])
    return out, step, decision
