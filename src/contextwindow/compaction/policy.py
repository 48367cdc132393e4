"""The layered in-flight compaction policy: cheapest strategy first, guaranteed progress.

``compact`` is pure given a pure summarizer (the extractive one is; an LLM summarizer is injected
by the Session). Each strategy must lower the token count or it is skipped; the loop is bounded by
the number of strategies. The result fits ``budget`` or :class:`~contextwindow.errors.CompactionError`
says, with the numbers, why it cannot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..errors import CompactionError
from ..folding.base import Summarizer
from .emergency import drop_steps, drop_turns
from .mask import MaskConfig, mask
from .steps import summarize_steps
from .summarize import FoldDecision, summarize_oldest
from .truncate import TruncateConfig, truncate
from .view import Count, ViewItem, split_pinned, total

STRATEGIES = ("mask", "truncate", "summarize", "summarize_steps", "drop_turns", "drop_steps", "squeeze")
SQUEEZE = TruncateConfig(keep_last_per_role=0, min_chars=0, min_keep_ratio=0.01, floor_chars=200, protect_first_user=False)


@dataclass(frozen=True, slots=True)
class CompactionConfig:
    mask: MaskConfig = field(default_factory=MaskConfig)
    truncate: TruncateConfig = field(default_factory=TruncateConfig)
    summary_tokens: int = 4_000
    summary_share: float = 0.15  # the summary never takes more than this share of the budget
    keep_last_steps: int = 3  # summarize_steps keeps the newest steps of the current turn
    strategies: tuple[str, ...] = STRATEGIES

    def summary_budget(self, budget: int) -> int:
        return max(200, min(self.summary_tokens, int(budget * self.summary_share)))


@dataclass(frozen=True, slots=True)
class CompactionResult:
    items: list[ViewItem]
    tokens_before: int
    tokens_after: int
    target: int
    budget: int
    steps: list[dict[str, object]]
    fold: FoldDecision | None = None
    forced: bool = False
    duration_s: float = 0.0  # measured by the caller (this module reads no clock)

    @property
    def changed(self) -> bool:
        return bool(self.steps)

    @property
    def reached_target(self) -> bool:
        return self.tokens_after <= self.target

    def report(self) -> dict[str, object]:
        return {
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "target": self.target,
            "budget": self.budget,
            "reached_target": self.reached_target,
            "forced": self.forced,
            "steps": self.steps,
            "fold": None if self.fold is None else {"upto": self.fold.upto_key, "method": self.fold.method, "ok": self.fold.ok},
            "duration_s": round(self.duration_s, 6),
        }


def fold_first(config: CompactionConfig) -> CompactionConfig:
    """``config`` with ``summarize`` (fold the oldest turns) moved first: for a pass whose cost
    model chose a fold (compaction/economics.py), truncating or masking what the fold then takes
    would rewrite it for nothing, and truncating what it keeps would lose detail for nothing."""
    if "summarize" not in config.strategies:
        return config
    return replace(config, strategies=("summarize", *(s for s in config.strategies if s != "summarize")))


def _squeeze(items: list[ViewItem], goal: int, budget: int, count: Count) -> tuple[list[ViewItem], dict[str, object]] | None:
    """Last resort: head+tail everything that is not synthetic, a few bounded rounds."""
    cur, targets = items, []
    aim = min(goal, budget - max(16, budget // 50))  # head+tail sizes by estimate: leave a margin
    for _ in range(4):
        now = total(cur)
        if now <= budget:
            break
        res = truncate(cur, now - aim, count, SQUEEZE)
        if res is None:
            break
        cur = res[0]
        targets += list(res[1]["targets"])  # type: ignore[call-overload]
    after = total(cur)
    if after >= total(items):
        return None
    return cur, {"method": "squeeze", "targets": sorted(set(targets)), "saved": total(items) - after, "tokens_after": after}


def compact(
    items: Sequence[ViewItem],
    *,
    budget: int,
    target: int,
    count: Count,
    config: CompactionConfig | None = None,
    summarizer: Summarizer | None = None,
    constraints: Sequence[str] = (),
    instructions: str | None = None,
    force: bool = False,
    superseded: Sequence[str] = (),
) -> CompactionResult:
    """Bring ``items`` down to ``target`` tokens (at most ``budget``), cheapest strategy first.

    ``force`` (the provider said "too long" although the estimate fit) aims at 70% of the current
    size as well, since the estimate is evidently low.
    """
    from ..argcheck import check_int, check_sequence

    check_sequence(items, "compact(items)")
    check_int(budget, "compact(budget)", minimum=0)
    check_int(target, "compact(target)", minimum=0)
    config = config or CompactionConfig()
    before = total(items)
    goal = min(target, int(before * 0.7)) if force else target
    # leading system messages are the caller's fixed prefix: never compacted, but they count
    pinned = split_pinned(items)[0]
    n_pinned = len(pinned)
    fixed = total(pinned)
    goal, budget_all, budget = goal - fixed, budget, budget - fixed
    cur = list(items[n_pinned:])
    steps: list[dict[str, object]] = []
    fold: FoldDecision | None = None
    for name in config.strategies:
        now = total(cur)
        if now <= goal:
            break
        need = now - goal
        res: tuple | None = None
        if name == "mask":
            res = mask(cur, need, count, config.mask, budget)
        elif name == "truncate":
            res = truncate(cur, need, count, config.truncate, keep_texts=constraints)
        elif name == "summarize" and summarizer is not None:
            res = summarize_oldest(
                cur, need, count, summarizer, summary_budget=config.summary_budget(budget),
                constraints=constraints, instructions=instructions, superseded=superseded,
            )
        elif name == "summarize_steps" and summarizer is not None:
            res = summarize_steps(
                cur, need, count, summarizer, summary_budget=config.summary_budget(budget), keep_last=config.keep_last_steps,
                constraints=constraints, superseded=superseded, instructions=instructions,
            )
        elif name == "drop_turns" and now > budget:
            res = drop_turns(cur, need, count)
        elif name == "drop_steps" and now > budget:
            res = drop_steps(cur, need, count)
        elif name == "squeeze" and now > budget:
            res = _squeeze(cur, goal, budget, count)
        if res is None or total(res[0]) >= now:
            continue
        cur, step = res[0], res[1]
        if len(res) == 3:
            fold = res[2]
        steps.append(step)
    cur = pinned + cur
    after = total(cur)
    for step in steps:
        step["tokens_after"] = int(step["tokens_after"]) + fixed  # type: ignore[call-overload]
    if after > budget_all:
        raise CompactionError(
            f"compaction could not fit the context: {after} tokens remain after {[s['method'] for s in steps] or 'no applicable strategy'} "
            f"(from {before}; {fixed} of them in leading system messages); the history budget is {budget_all}. "
            "To recover: fold the conversation at a turn boundary (Session.fold()), raise the window or budget, "
            "or fork a new conversation from a fold; nothing stored is lost.",
            tokens=after,
            budget=budget_all,
        )
    return CompactionResult(cur, before, after, goal + fixed, budget_all, steps, fold, force)
