"""``ctxw compact``: bring a whole conversation under a token budget, cheapest step first.

1. Nothing to do when it fits (values a later message superseded are still replaced by an
   ``[updated later: …]`` note: a stale value never leaves this function).
2. Mask old tool results and truncate (``compaction.compact`` without summaries): when that fits,
   the conversation keeps all its messages and no fold happens.
3. Otherwise up to ``rounds`` folds: everything before the newest turn becomes ONE cumulative
   brief (the previous fold's brief is the summarizer's prior), the newest turn stays verbatim;
   each further round re-folds with half the summary budget, only while still over the budget.
4. Still over: the degradation ladder (``compaction.degrade``) gives things up in its written
   order, the memory ledger last. An error only when even the newest user message and one line
   naming what was left out cannot fit.

The memory ledger is read from the user's own messages and from the ledger block of any fold
summary in the input, so chained runs keep it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..compaction import ViewItem, compact, make_items
from ..compaction.degrade import degrade, left_out_entries, newest_turn_start
from ..compaction.markers import span_ref
from ..compaction.mask import mask
from ..compaction.policy import CompactionConfig
from ..compaction.truncate import truncate
from ..compaction.view import Count, total
from ..errors import CompactionError, ConfigError
from ..folding import ledger as ledger_mod
from ..folding.base import Summarizer, SummaryRequest, fold_message, summary_text
from ..folding.constraints import asked_after, user_words
from ..folding.restore import restore_section
from ..folding.scrubbing import recall_superseded, remember_superseded, scrub_messages
from ..messages import Message
from ..tokens.base import TokenCounter
from ..turns import safe_cut_points
from .engine import constraints_kept, leading_system

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


def memory_ledger(messages: Sequence[Message]) -> list[ledger_mod.Entry]:
    """The ledger of a history: entries carried by fold summaries, then the user's own messages."""
    out: list[ledger_mod.Entry] = []
    asked = ""  # the assistant's last words before a user message: an answer of only a value is about its question
    for i, m in enumerate(messages):
        out += [e for e in recall_superseded(m) if (e.text, e.updated_to) not in {(o.text, o.updated_to) for o in out}]
        if _is_fold(m):
            for e in left_out_entries(m):  # what its memory line left out is still in force (a later round may have room)
                out = ledger_mod.add(out, e)
            for e in ledger_mod.from_text(summary_text(m)):
                out = ledger_mod.add(out, e)
        elif (said := user_words(m)) is not None:
            out = ledger_mod.update(out, said, source=str(i), asked=asked)
        asked = asked_after(asked, m)
    return out


CHEAP = CompactionConfig(strategies=("mask", "truncate"))


def cheap_steps(items: list[ViewItem], room: int, count: Count, rules: Sequence[str]) -> tuple[list[ViewItem], list[str]]:
    """Mask, then truncate, as far as they go (no summary, never an error)."""
    steps: list[str] = []
    for name in CHEAP.strategies:
        now = total(items)
        if now <= room:
            break
        res = mask(items, now - room, count, CHEAP.mask, room) if name == "mask" else truncate(items, now - room, count, CHEAP.truncate, keep_texts=[*rules, *(r.split(": ", 1)[1] for r in rules if r.startswith("Goal: "))])
        if res is not None and total(res[0]) < now:
            items = res[0]
            steps.append(name)
    return items, steps


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
    ledger = memory_ledger(messages)
    live = ledger_mod.active(ledger)
    rules = [ledger_mod.stated(e) for e in live]
    before = counter.count_messages(messages)
    head = leading_system(messages)
    fixed = counter.count_messages(head) - counter.count_messages([]) if head else 0  # the priming is counted once, with the body
    room = budget - fixed
    if room <= 0:
        raise CompactionError(f"the system prompt alone takes {fixed} tokens, over the budget of {budget}", tokens=fixed, budget=budget)
    body = scrub_messages(messages[len(head) :], ledger)
    steps: list[str] = []
    count = counter.count_messages
    for _ in range(2):  # a summary may quote a stale value: scrubbed, the notes can cost a little more
        if count([*head, *body]) > budget:
            try:
                body, more = _fit(body, room, counter, summarizer, rounds if not steps else 0, instructions, ledger, rules)
            except CompactionError as exc:  # numbers for the whole prompt, as the caller gave them
                tokens = None if exc.tokens is None else exc.tokens + fixed
                raise CompactionError(f"could not compact to {budget} tokens: {exc}", tokens=tokens, budget=budget) from exc
            steps += more
        body = scrub_messages(body, ledger)  # summaries and restored text included
    if count([*head, *body]) > budget:  # the notes cost a few tokens more than the values they replaced
        ref = span_ref("0", str(max(0, len(messages) - len(head) - 1)))
        try:
            body, rungs = degrade(body, budget=room, count=count, ledger=ledger, ref=ref)
        except CompactionError as exc:
            tokens = None if exc.tokens is None else exc.tokens + fixed
            raise CompactionError(f"could not compact to {budget} tokens: {exc}", tokens=tokens, budget=budget) from exc
        body = scrub_messages(body, ledger)
        steps += [f"degrade:{r}" for r in dict.fromkeys(rungs)]
    current = [*head, *remember_superseded(body, ledger)]
    after = count(current)
    if after > budget:  # degrade raises before this; kept as the invariant's last guard
        raise CompactionError(f"could not compact to {budget} tokens: {after} remain after {', '.join(steps)}", tokens=after, budget=budget)
    report = CompactReport(
        tokens_before=before,
        tokens_after=after,
        budget=budget,
        rounds=sum(1 for s in steps if s.startswith("fold")),
        summarizer=getattr(summarizer, "name", type(summarizer).__name__),
        messages_before=len(messages),
        messages_after=len(current),
        constraints_total=len(live),
        constraints_kept=constraints_kept(live, current),
        steps=steps,
    )
    return current, report


def _fit(
    body: list[Message],
    room: int,
    counter: TokenCounter,
    summarizer: Summarizer,
    rounds: int,
    instructions: str | None,
    ledger: Sequence[ledger_mod.Entry],
    rules: list[str],
) -> tuple[list[Message], list[str]]:
    count = counter.count_messages
    steps: list[str] = []
    keys = [str(i) for i in range(len(body))]
    ref = span_ref(keys[0], keys[-1]) if keys else "span-0-0"
    items: list[ViewItem] = make_items(keys, body, counter.count_message)
    # 1. the cheap steps: mask and truncate (no fold when they fit)
    cheap, cheap_names = cheap_steps(items, room, counter.count_message, rules)
    if count([it.message for it in cheap]) <= room:
        return [it.message for it in cheap], cheap_names
    if rounds == 0:
        try:
            res = compact(items, budget=room, target=room, count=counter.count_message, summarizer=summarizer, constraints=rules, instructions=instructions)
            return [it.message for it in res.items], [str(s["method"]) for s in res.steps]
        except CompactionError:
            out, rungs = degrade(body, budget=room, count=count, ledger=ledger, ref=ref)
            return out, ["compaction could not fit", *(f"degrade:{r}" for r in dict.fromkeys(rungs))]
    # 2. folds: everything before the newest turn becomes one cumulative brief
    start = newest_turn_start(body)
    if start == 0 or start >= len(body):
        start = len(body) if start >= len(body) else start
    older, newest = body[:start], body[start:]
    prior = next((summary_text(m) for m in reversed(older) if _is_fold(m)), None)
    originals = [m for m in older if not _is_fold(m) and m.meta.get("cw") != "nudge"]
    newest_cost = count(newest)
    share = max(200, min(FOLD_SUMMARY_CAP, int(room * FOLD_SUMMARY_SHARE), room - newest_cost - 50))
    current = body
    for r in range(rounds):
        folded, outcome = _fold(originals, prior, newest, share, room, counter, summarizer, instructions, ledger, rules, ref)
        if r == 0 and start < len(body):
            # sized by this brief, fold less and keep more of the newest messages verbatim: earlier
            # turns when the newest one leaves room; when the newest turn alone is over the room,
            # its user message and as many of its newest steps as fit (its older steps are folded)
            sized_by, tried = folded, set()
            for _ in range(KEEP_MORE_TRIES):  # a brief of other messages has another size: re-size by it
                cut = _keep_more(body, start, sized_by, room, count)
                if cut is None or cut in tried:
                    break
                tried.add(cut)
                kept = body[cut:] if cut <= start else [body[start], *body[cut:]]
                fewer = [m for m in body[:cut] if not _is_fold(m) and m.meta.get("cw") != "nudge"]
                fold_share = max(200, min(FOLD_SUMMARY_CAP, int(room * FOLD_SUMMARY_SHARE), room - count(kept) - 50))
                again, outcome2 = _fold(fewer, prior, kept, fold_share, room, counter, summarizer, instructions, ledger, rules, ref)
                if count(again) <= room:
                    folded, outcome = again, outcome2
                    break
                sized_by = [again[0], *newest]  # as if the first fold had made this brief
        current, originals, prior = folded, [], summary_text(folded[0])
        steps.append(f"fold {r + 1} ({outcome.method}{'' if outcome.ok else ', fallback'})")
        if count(current) <= room:
            return current, steps
        share = max(100, share // 2)
    # 3. still over: the newest turn compacted the cheap way, then the ladder
    items = make_items([f"k{i}" for i in range(len(current))], current, counter.count_message)
    cheap, cheap_names = cheap_steps(items, room, counter.count_message, rules)
    current = [it.message for it in cheap]
    steps += cheap_names
    if count(current) <= room:
        return current, steps
    out, rungs = degrade(current, budget=room, count=count, ledger=ledger, ref=ref)
    return out, steps + [f"degrade:{r}" for r in dict.fromkeys(rungs)]


#: a fold keeps more of the newest messages verbatim only when at least this share of the room is unused
KEEP_MORE_FROM = 0.1
#: what a re-folded brief may grow by (its share of the room) before the result no longer fits
KEEP_MORE_SLACK = 0.05
#: briefs made to find the cut (each re-sized by the last one's size)
KEEP_MORE_TRIES = 3


def _fold(
    originals: list[Message], prior: str | None, newest: list[Message], share: int, room: int, counter: TokenCounter,
    summarizer: Summarizer, instructions: str | None, ledger: Sequence[ledger_mod.Entry], rules: list[str], ref: str,
) -> tuple[list[Message], Any]:
    """``originals`` (and the prior brief) folded into ONE brief, followed by ``newest`` verbatim."""
    request = SummaryRequest(
        messages=originals, prior_summary=prior, instructions=instructions, constraints=tuple(rules), budget_tokens=share, ledger=tuple(ledger),
    )
    outcome = summarizer.summarize(request)
    text = ledger_mod.scrub(outcome.text, ledger)
    files = restore_section(originals, counter.count_text, 5, max(100, room // 10), max(200, room // 4)) if originals else ""
    files = ledger_mod.scrub(files, ledger)
    span = f"[The {len(originals)} original messages summarized here: retrieve(ref=\"{ref}\") reads them back.]" if originals else ""
    folded = [fold_message(text, method=outcome.method, extra_sections=[files, span]), *newest]
    if counter.count_messages(folded) > room:
        folded = [fold_message(text, method=outcome.method, extra_sections=[span]), *newest]
    return folded, outcome


def _keep_more(body: list[Message], start: int, folded: list[Message], room: int, count: Callable[[Sequence[Message]], int]) -> int | None:
    """Where a fold sized by the brief in ``folded`` should cut ``body`` to keep the most of it
    verbatim within ``room``: the earliest safe cut before the newest turn (``start``) whose
    messages fit beside the brief, when the fold leaves room; when the newest turn does not fit,
    the earliest safe cut inside it whose steps fit beside the brief and the turn's user message.
    None when the fold already uses the room or no cut keeps more. Never before a fold summary
    already in ``body`` (that one is re-folded)."""
    used = count(folded)
    brief = count(folded[:1]) + int(room * KEEP_MORE_SLACK)
    cuts = safe_cut_points(body)
    if used <= room:
        if room - used < room * KEEP_MORE_FROM:
            return None
        floor = max((i + 1 for i, m in enumerate(body[:start]) if _is_fold(m)), default=0)
        best = None
        for c in reversed([c for c in cuts if floor < c < start]):
            if brief + count(body[c:]) > room:
                break
            best = c
        return best
    ask = count(body[start : start + 1])
    for c in [c for c in cuts if start + 1 < c < len(body)]:
        if brief + ask + count(body[c:]) <= room:
            return c
    return None
