"""Replay a real session's model calls under each policy and measure what each would have sent.

The agent's actions are fixed by the log: before call *k* the history is ``messages[:calls[k].index]``
and the call produced ``messages[index:reply_end]``. Each policy rebuilds the payload of every call;
the engine counts it, checks it is structurally valid for the provider, bills it with the cache
model of :mod:`.pricing` and, at the end, counts how many of the user's constraints (the ledger of
:mod:`contextwindow.folding.constraints` over the user messages) survive verbatim in the last payload.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import turns
from ..compaction.cache import CacheConfig
from ..errors import ConfigError, UnknownModelError
from ..folding import constraints as ledger_mod
from ..folding.base import Summarizer
from ..folding.extractive import ExtractiveSummarizer
from ..importers import CallRecord, ImportedSession
from ..importers.model import cleared
from ..messages import Message
from ..models import ModelSpec, get_model
from ..tokens import counter_for
from ..tokens.base import TokenCounter
from ..tokens.memo import CounterCount
from .floor import above_floor_share, floor_input_tokens
from .policies import POLICIES, Policy, ReplayContext, serialize
from .pricing import Pricing, bill, common_prefix
from .summaries import MeteredSummarizer, summary_billed_tokens

DEFAULT_POLICIES: tuple[str, ...] = tuple(POLICIES)


@dataclass(slots=True)
class PolicyResult:
    policy: str
    calls: int = 0
    peak_tokens: int = 0
    over_window_calls: int = 0
    invalid_payloads: int = 0
    compactions: int = 0
    folds: int = 0
    billed_input_tokens: float = 0.0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0
    constraints_total: int = 0
    constraints_kept: int = 0
    floor_input_tokens: float = 0.0  # what any policy must pay (see replay/floor.py); the same for every policy
    output_tokens: int = 0  # as logged (the agent's actions are fixed), the same for every policy
    output_cost_usd: float | None = None
    # the policy's summaries, priced as the model calls that would write them (replay/summaries.py)
    summary_calls: int = 0
    summary_input_tokens: int = 0
    summary_output_tokens: int = 0
    summary_billed_tokens: float = 0.0  # input-price tokens
    summary_cost_usd: float | None = 0.0
    seconds: float = 0.0  # wall time of this policy's replay (not in to_dict: it varies run to run)
    cpu_seconds: float = 0.0  # this process's CPU time for it (steadier than wall time on a shared machine)
    tokens_per_call: list[int] = field(default_factory=list)
    markers: list[tuple[int, str]] = field(default_factory=list)  # (call number, "compaction"/"fold")
    problems: list[str] = field(default_factory=list)

    @property
    def cache_hit_share(self) -> float:
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else 0.0

    @property
    def above_floor_share(self) -> float:
        """The share of the input bill above the floor: the part a policy controls."""
        return above_floor_share(self.billed_input_tokens, self.floor_input_tokens)

    @property
    def billed_with_summaries(self) -> float:
        """The input bill plus the summaries' own calls, in input-price tokens."""
        return self.billed_input_tokens + self.summary_billed_tokens

    @property
    def total_cost_usd(self) -> float | None:
        """Input (cache-priced) + output + the summaries' calls, in dollars; None when unpriced."""
        if self.cost_usd is None or self.output_cost_usd is None or self.summary_cost_usd is None:
            return None
        return self.cost_usd + self.output_cost_usd + self.summary_cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "calls": self.calls,
            "peak_tokens": self.peak_tokens,
            "over_window_calls": self.over_window_calls,
            "invalid_payloads": self.invalid_payloads,
            "compactions": self.compactions,
            "folds": self.folds,
            "billed_input_tokens": round(self.billed_input_tokens),
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cache_hit_share": round(self.cache_hit_share, 4),
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "floor_input_tokens": round(self.floor_input_tokens),
            "above_floor_share": round(self.above_floor_share, 4),
            "output_tokens": self.output_tokens,
            "output_cost_usd": None if self.output_cost_usd is None else round(self.output_cost_usd, 6),
            "summary_calls": self.summary_calls,
            "summary_input_tokens": self.summary_input_tokens,
            "summary_output_tokens": self.summary_output_tokens,
            "summary_billed_tokens": round(self.summary_billed_tokens),
            "summary_cost_usd": None if self.summary_cost_usd is None else round(self.summary_cost_usd, 6),
            "total_cost_usd": None if self.total_cost_usd is None else round(self.total_cost_usd, 6),
            "constraints_total": self.constraints_total,
            "constraints_kept": self.constraints_kept,
        }


@dataclass(slots=True)
class ReplayReport:
    session: str
    model: str
    window: int
    overhead: int
    summarizer: str
    policies: list[PolicyResult]

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "model": self.model,
            "window": self.window,
            "overhead_tokens": self.overhead,
            "summarizer": self.summarizer,
            "policies": [p.to_dict() for p in self.policies],
        }

    def policy(self, name: str) -> PolicyResult:
        for p in self.policies:
            if p.policy == name:
                return p
        raise KeyError(name)


def resolve_model(name: str | None, window: int | None) -> ModelSpec:
    """The spec prices and tokenizer come from; with only ``window`` known, an unpriced stand-in."""
    if window is not None and window <= 0:
        raise ConfigError(f"--window must be a positive number of tokens, got {window}")
    if name:
        try:
            return get_model(name)
        except UnknownModelError:
            if window is None:
                raise ConfigError(
                    f"the model {name!r} is not known, so its window and prices are not either: "
                    "pass --model with a known model (e.g. --model claude-sonnet-4-6) or --window N"
                ) from None
            return get_model(name, default=True)
    if window is None:
        raise ConfigError("the log names no model: pass --model M (sets window, prices, tokenizer) or --window N")
    return get_model("unknown", default=True)


def user_constraints(messages: Iterable[Message]) -> list[ledger_mod.Constraint]:
    """The ledger over the user's own messages (superseded rules replaced), as the Session keeps it."""
    ledger: list[ledger_mod.Constraint] = []
    asked = ""  # the assistant's last words before a user message (folding/answers.py)
    for m in messages:
        said = ledger_mod.user_words(m)
        if said is not None:
            ledger = ledger_mod.update(ledger, said, source=str(len(ledger)), asked=asked)
        asked = ledger_mod.asked_after(asked, m)
    return [c for c in ledger if c.active]


def constraints_kept(ledger: Sequence[ledger_mod.Constraint], payload: Sequence[Message]) -> int:
    text = "\n".join(m.text for m in payload)
    return sum(1 for c in ledger if c.text in text)


def estimate_overhead(session: ImportedSession, counter: TokenCounter) -> int:
    """Tokens the provider counted that the log does not show (system prompt, tool definitions):
    the first reported call's input minus our count of the messages it was sent (never negative)."""
    first = next((c for c in session.calls if c.reported_input_tokens is not None), None)
    if first is None:
        return 0
    seen = provider_view(session, first)
    return max(0, (first.reported_input_tokens or 0) - counter.count_messages(seen))


def provider_view(session: ImportedSession, call: CallRecord) -> list[Message]:
    """What the provider was sent for ``call`` according to the log (an imported checkpoint's summary
    stands in for the messages it folded; tool results the log says the agent cleared go as the marker
    it sent in their place)."""
    cps = [cp for cp in session.checkpoints if cp.upto <= call.index]
    if not cps:
        view = session.messages[: call.index]
    else:
        cp = cps[-1]
        head = [m for m in session.messages[: cp.upto] if m.meta.get("cw") == "instructions"]
        view = [*head, cp.summary, *session.messages[cp.upto : call.index]]
    if session.clearings:
        view = cleared(view, {x for cl in session.clearings if cl.at <= call.index for x in cl.call_ids})
    return view


def provider_rules(spec: ModelSpec) -> str:
    return "anthropic" if spec.provider == "anthropic" or "claude" in spec.id else "openai"


def problems_of(payload: Sequence[Message], rules: str) -> list[str]:
    if rules == "anthropic":
        merged = turns.merge_for_alternation([m for m in payload if m.role != "system"], "anthropic")
        found = turns.validate(merged, "anthropic")
    else:
        found = turns.validate(payload, "openai")
    return [str(p) for p in found]


def replay(
    session: ImportedSession,
    policies: Sequence[str] = DEFAULT_POLICIES,
    *,
    model: str | None = None,
    window: int | None = None,
    summarizer: Summarizer | None = None,
    overhead: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_policy: Callable[[PolicyResult], None] | None = None,
    cache: CacheConfig | None = None,
) -> ReplayReport:
    """Replay ``session`` under each named policy. ``progress(n)`` is called after every n calls
    replayed, ``on_policy(result)`` after each policy (its ``seconds`` set)."""
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise ConfigError(f"unknown policy {unknown[0]!r} (known: {', '.join(POLICIES)})")
    spec = resolve_model(model or session.model, window)
    win = window or spec.context_window
    counter = counter_for(spec.id if spec.known else (model or session.model))
    # the memo's answers are the counter's own: a brief counted while it is fitted is not tokenized
    # again when its request and answer are metered, nor as the next fold's prior summary
    summ = summarizer or ExtractiveSummarizer(CounterCount(counter))
    fixed = estimate_overhead(session, counter) if overhead is None else overhead
    head = leading_system(session.messages)
    # the system prompt is no part of the history any policy may compact: it rides as a fixed prefix
    head_tokens = sum(counter.count_message(m) for m in head)
    pricing = Pricing.of(spec)
    ctx = ReplayContext(
        window=win, counter=counter, summarizer=summ, overhead=fixed + head_tokens, max_output=spec.max_output,
        read_weight=pricing.read_weight, write_weight=pricing.write_weight if pricing.charges_writes else 1.0, cache=cache,
        output_weight=spec.output_price / spec.input_price if spec.output_price and spec.input_price else 1.0,
    )
    rules = provider_rules(spec)
    calls = sorted(session.calls, key=lambda c: c.index)
    last_index = calls[-1].index if calls else len(session.messages)
    ledger = user_constraints(session.messages[:last_index])
    framing = counter.count_messages([])
    floor = floor_input_tokens(
        session.messages, calls, len(head), ctx.overhead + framing, counter.count_message, pricing,
        sent=lambda ms: counter.count_messages(ms) - framing,
    )
    out_tokens = sum(c.output_tokens or 0 for c in calls)
    out_cost = None if spec.output_price is None else out_tokens * spec.output_price / 1_000_000
    results = []
    for name in policies:
        started, cpu = time.perf_counter(), time.process_time()
        meter = MeteredSummarizer(summ, counter, win)
        pctx = replace(ctx, summarizer=meter)
        pol = POLICIES[name](pctx)
        try:
            res = _run(pol, session.messages, head, calls, pctx, pricing, rules, ledger, progress)
        finally:
            close = getattr(pol, "close", None)
            if close is not None:
                close()
        res.floor_input_tokens, res.output_tokens, res.output_cost_usd = floor, out_tokens, out_cost
        res.summary_calls, res.summary_input_tokens, res.summary_output_tokens = meter.calls, meter.input_tokens, meter.output_tokens
        res.summary_billed_tokens = summary_billed_tokens(meter, policy=name, overhead=ctx.overhead, read=pricing.read_weight, output=ctx.output_weight)
        res.summary_cost_usd = None if pricing.input_price is None else res.summary_billed_tokens * pricing.input_price / 1_000_000
        res.seconds = time.perf_counter() - started
        res.cpu_seconds = time.process_time() - cpu
        results.append(res)
        if on_policy is not None:
            on_policy(res)
    return ReplayReport(session.source, spec.id, win, fixed, getattr(summ, "name", type(summ).__name__), results)


def leading_system(messages: Sequence[Message]) -> list[Message]:
    """The system messages a history starts with (the system prompt / instructions)."""
    head: list[Message] = []
    for m in messages:
        if m.role != "system":
            break
        head.append(m)
    return head


def _unit(m: Message, seen: dict[int, tuple[Message, str]], known: dict[int, tuple[Message, str]]) -> str:
    """``serialize(m)``, reused when the previous payload held the same object (bounded: one payload)."""
    hit = known.get(id(m))
    unit = hit[1] if hit is not None and hit[0] is m else serialize(m)
    seen[id(m)] = (m, unit)
    return unit


def _run(
    pol: Policy,
    messages: Sequence[Message],
    head: Sequence[Message],
    calls: Sequence[CallRecord],
    ctx: ReplayContext,
    pricing: Pricing,
    rules: str,
    ledger: Sequence[ledger_mod.Constraint],
    progress: Callable[[int], None] | None,
) -> PolicyResult:
    res = PolicyResult(pol.name, constraints_total=len(ledger))
    prev_units: list[str] | None = None
    known: dict[int, tuple[Message, str]] = {}  # the previous payload's units by message object
    seen: dict[int, tuple[Message, str]] = {}
    last_payload: list[Message] = []
    framing = ctx.counter.count_messages([])
    for n, call in enumerate(calls):
        h = min(len(head), call.index)
        step = pol.before_call(messages[h : call.index])
        payload = [*head[:h], *step.messages]
        tokens = ctx.prompt_tokens(step.messages)
        units = [_unit(m, seen, known) for m in payload]
        known, seen = seen, {}
        k = common_prefix(prev_units, units) if prev_units is not None else 0
        if k >= h:  # the fixed prefix (overhead + system messages) is shared; then the common messages.
            # What follows them is counted as sent in THIS payload (count_messages of the suffix drops
            # the reasoning a provider drops before the last user message, as ``tokens`` does), so the
            # cached part is never counted with reasoning the prompt no longer carries
            prefix = tokens - (ctx.counter.count_messages(payload[k:]) - framing) if k > h else ctx.overhead
        else:
            prefix = 0
        b = bill(tokens, prefix, pricing, first=prev_units is None)
        prev_units = units
        res.calls += 1
        res.tokens_per_call.append(tokens)
        res.peak_tokens = max(res.peak_tokens, tokens)
        res.over_window_calls += tokens > ctx.window
        problems = problems_of(payload, rules)
        if problems:
            res.invalid_payloads += 1
            res.problems.append(f"call {n}: {problems[0]}")
        for ev in step.events:
            res.markers.append((n, ev))
        res.compactions += step.events.count("compaction")
        res.folds += step.events.count("fold")
        res.billed_input_tokens += b.billed
        res.input_tokens += tokens
        res.cache_read_tokens += b.cached
        res.cache_write_tokens += b.written
        if b.cost_usd is None:
            res.cost_usd = None
        elif res.cost_usd is not None:
            res.cost_usd += b.cost_usd
        last_payload = payload
        pol.after_call(messages[call.index : call.reply_end], tokens)
        if progress is not None:
            progress(1)
    take = getattr(pol, "take_events", None)
    if take is not None:
        late = take()
        res.folds += late.count("fold")
        res.compactions += late.count("compaction")
    res.constraints_kept = constraints_kept(ledger, last_payload)
    return res
