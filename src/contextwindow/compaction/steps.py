"""Strategy 3b: inside the newest turn, summarize its oldest steps.

Agent sessions are often ONE user turn with hundreds of tool calls, where "fold the oldest turns"
has nothing to fold. Here the turn keeps its user message (and any preamble) and its newest
``keep_last`` steps — a step is an assistant message with all the tool results that answer it —
and the older steps become one step summary placed right after the user message. A later pass
folds the previous step summary into the new one (cumulative). No call is separated from its
result; the store keeps every original.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..folding.base import Summarizer, SummaryRequest
from ..messages import Message, TextPart
from . import markers
from .summarize import nudge_item, split_prior, turn_spans
from .view import Count, ViewItem, is_synthetic, leading_markers, total

STEP_SUMMARY = "step_summary"
HEADER = "[Summary of the earlier steps of this task, condensed to fit the context window; the originals are in the conversation store.]"


def step_spans(turn: Sequence[ViewItem], start: int) -> list[tuple[int, int]]:
    """Steps from index ``start``: an assistant message and the tool messages that follow it."""
    spans: list[tuple[int, int]] = []
    i = start
    while i < len(turn):
        j = i + 1
        while j < len(turn) and turn[j].message.role == "tool":
            j += 1
        spans.append((i, j))
        i = j
    return spans


def is_step_summary(item: ViewItem) -> bool:
    return item.message.meta.get("cw") == STEP_SUMMARY


def summarize_steps(
    items: Sequence[ViewItem],
    need: int,
    count: Count,
    summarizer: Summarizer,
    *,
    summary_budget: int,
    keep_last: int = 3,
    constraints: Sequence[str] = (),
    superseded: Sequence[str] = (),
    instructions: str | None = None,
) -> tuple[list[ViewItem], dict[str, object]] | None:
    prior, body = split_prior(items)
    spans = turn_spans(body)
    if not spans:
        return None
    t_start, t_end = spans[-1]
    turn = list(body[t_start:t_end])
    first = next((i + 1 for i, it in enumerate(turn) if it.message.role == "user" and not is_synthetic(it)), 0)
    old_summary = turn[first] if first < len(turn) and is_step_summary(turn[first]) else None
    start = first + (1 if old_summary else 0)
    steps = [sp for sp in step_spans(turn, start) if turn[sp[0]].message.role == "assistant"]
    if len(steps) <= keep_last:
        return None
    # the fewest oldest steps whose removal (net of the summary) meets the need; keep the newest
    n, removed = 0, 0
    for s, e in steps[:-keep_last]:
        n += 1
        removed += sum(it.tokens for it in turn[s:e])
        if removed - summary_budget >= need:
            break
    cut = steps[n - 1][1]
    chosen = [it for it in turn[start:cut] if not is_synthetic(it)]
    request = SummaryRequest(
        messages=[it.source for it in chosen],
        prior_summary=old_summary.message.text[len(HEADER) :].strip() if old_summary else None,
        instructions=instructions,
        constraints=tuple(constraints),
        budget_tokens=summary_budget,
        superseded=tuple(superseded),
    )
    outcome = summarizer.summarize(request)
    body_text = f"{HEADER}\n{outcome.text.strip()}"
    if chosen:
        # an older step summary or drop note replaced here named earlier messages: reach back to them
        body_text += "\n" + markers.folded_span(markers.span_start(leading_markers(turn[first:cut]), chosen[0].key), chosen[-1].key, len(chosen))
    msg = Message("user", (TextPart(body_text),), meta={"cw": STEP_SUMMARY, "method": outcome.method})
    head = ([prior] if prior else []) + list(body[:t_start]) + turn[:first]
    rest = turn[cut:]
    anchor = (chosen[0].key if chosen else turn[first - 1].key) if first else "start"
    out = [*head, ViewItem(f"note:{anchor}", msg, count(msg)), *rest]
    if not outcome.ok:
        out.append(nudge_item(rest[-1].key if rest else anchor, False, count))
    if total(out) >= total(items):
        return None
    return out, {
        "method": "summarize_steps",
        "summarizer": outcome.method,
        "summary_ok": outcome.ok,
        "steps": n,
        "targets": [it.key for it in chosen],
        "saved": total(items) - total(out),
        "tokens_after": total(out),
        "summarizer_calls": outcome.calls,
    }
