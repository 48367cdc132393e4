"""``ctxw compact``: bring a whole conversation under a token budget with the default policy.

First the layered in-flight compaction (mask, truncate, summarize, emergency drops) down to the
budget; then ``rounds`` folds in a row, each folding the previous round's output into one cumulative
checkpoint summary (the summarizer gets the previous summary as its prior, as a live fold does).
User constraints (the ledger over the user messages) are carried verbatim through every round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..compaction import ViewItem, compact, make_items
from ..compaction.view import is_synthetic
from ..errors import CompactionError, ConfigError
from ..folding import constraints as ledger_mod
from ..folding.base import Summarizer, SummaryRequest, fold_message, summary_text
from ..folding.restore import restore_section
from ..messages import Message
from ..tokens.base import TokenCounter
from .engine import constraints_kept, leading_system, user_constraints

#: A fold made by ``ctxw compact`` may use this share of the budget (the rest: restored files, slack).
FOLD_SUMMARY_SHARE = 0.6
FOLD_SUMMARY_CAP = 16_000


@dataclass(slots=True)
class CompactReport:
    tokens_before: int
    tokens_after: int
    budget: int
    rounds: int
    summarizer: str
    messages_before: int
    messages_after: int
    constraints_total: int
    constraints_kept: int
    steps: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "budget_tokens": self.budget,
            "rounds": self.rounds,
            "summarizer": self.summarizer,
            "messages_before": self.messages_before,
            "messages_after": self.messages_after,
            "constraints_total": self.constraints_total,
            "constraints_kept": self.constraints_kept,
            "steps": self.steps,
        }


def _is_fold(m: Message) -> bool:
    return m.meta.get("cw") == "fold_summary"


MAX_ROUNDS = 32  # folds in a row; past a few, each round only re-summarizes a summary


def compact_conversation(
    messages: Sequence[Message],
    *,
    budget: int,
    counter: TokenCounter,
    summarizer: Summarizer,
    rounds: int = 1,
    instructions: str | None = None,
) -> tuple[list[Message], CompactReport]:
    """``messages`` compacted to at most ``budget`` tokens (whole prompt, as ``counter`` counts it)."""
    if budget <= 0:
        raise ConfigError(f"--budget-tokens must be a positive number of tokens, got {budget}")
    if not 0 <= rounds <= MAX_ROUNDS:
        raise ConfigError(f"--rounds must be between 0 and {MAX_ROUNDS}, got {rounds} (each round re-folds the previous summary)")
    ledger = user_constraints(messages)
    rules = ledger_mod.texts(ledger)
    before = counter.count_messages(messages)
    # the system prompt is kept as it is, ahead of the history that is compacted
    head = leading_system(messages)
    body = list(messages[len(head) :])
    fixed = counter.count_messages(head)
    steps: list[str] = []
    items: list[ViewItem] = make_items([str(i) for i in range(len(body))], body, counter.count_message)
    if before > budget:
        room = budget - fixed
        if room <= 0:
            raise CompactionError(f"the system prompt alone takes {fixed} tokens, over the budget of {budget}", tokens=fixed, budget=budget)
        try:
            result = compact(
                items, budget=room, target=room, count=counter.count_message,
                summarizer=summarizer, constraints=rules, instructions=instructions,
            )
            items = result.items
            steps += [str(s["method"]) for s in result.steps]
        except CompactionError:
            if rounds == 0:
                raise
            steps.append("compaction could not fit; folding")
    current = [*head, *(it.message for it in items)]
    originals = [it.source for it in items if not it.key.startswith("fold:") and not is_synthetic(it)]
    prior = next((summary_text(m) for m in current if _is_fold(m)), None)
    summary_budget = max(200, min(FOLD_SUMMARY_CAP, int(budget * FOLD_SUMMARY_SHARE)))
    for r in range(rounds):
        request = SummaryRequest(
            messages=originals, prior_summary=prior, instructions=instructions, constraints=tuple(rules), budget_tokens=summary_budget
        )
        outcome = summarizer.summarize(request)
        files = restore_section(originals, counter.count_text, 5, max(100, budget // 10), max(200, budget // 4)) if r == 0 else ""
        folded = [*head, fold_message(outcome.text, method=outcome.method, extra_sections=[files])]
        if counter.count_messages(folded) > budget:
            folded = [*head, fold_message(outcome.text, method=outcome.method)]
        current, originals, prior = folded, [], summary_text(folded[-1])
        steps.append(f"fold {r + 1} ({outcome.method}{'' if outcome.ok else ', fallback'})")
    after = counter.count_messages(current)
    if after > budget:
        raise CompactionError(
            f"could not compact to {budget} tokens: {after} remain after {', '.join(steps) or 'no step'} "
            f"(the {len(rules)} user constraint(s) are always kept verbatim); raise --budget-tokens",
            tokens=after,
            budget=budget,
        )
    report = CompactReport(
        tokens_before=before,
        tokens_after=after,
        budget=budget,
        rounds=rounds,
        summarizer=getattr(summarizer, "name", type(summarizer).__name__),
        messages_before=len(messages),
        messages_after=len(current),
        constraints_total=len(ledger),
        constraints_kept=constraints_kept(ledger, current),
        steps=steps,
    )
    return current, report
