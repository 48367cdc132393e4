"""The floor of a replay's input bill: what any context policy must pay on the same session. Pure.

Every call sends the fixed prefix (system prompt, tool definitions, leading system messages); the
best any policy can do is read it from the provider's cache on every call after the first, and send
each token the agent produced (a user message, a tool result, the model's own reply) once: written
to the cache where the provider charges cache writes, else at the input price. Nothing a policy
does (masking, truncating, summarizing) can bill less for the history the log shows; a summary
costs its own write on top. ``floor_input_tokens`` is that bill in input-price tokens, the unit of
``billed_input_tokens``; the share of a bill above the floor is the part a policy controls.

A policy that clips tool results at append (``default``) sends fewer new tokens than the log
holds, so its bill can sit slightly under this floor on sessions with huge tool outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..importers import CallRecord
from ..messages import Message
from .pricing import Pricing


def floor_input_tokens(
    messages: Sequence[Message],
    calls: Sequence[CallRecord],
    head: int,
    prefix_tokens: int,
    count: Callable[[Message], int],
    pricing: Pricing,
    *,
    sent: Callable[[Sequence[Message]], int] | None = None,
) -> float:
    """The floor over ``calls`` (sorted by index): ``prefix_tokens`` (fixed prefix incl. the first
    ``head`` system messages) read from the cache on every call but the first, and every message
    of ``messages[head:]`` a call is sent written once (``count`` measures a message; ``sent``,
    when given, measures the new messages of a call as that call sends them, e.g. without the
    reasoning a provider drops once a new user message follows it)."""
    write = pricing.write_weight if pricing.charges_writes else 1.0
    total = 0.0
    seen = head
    for n, call in enumerate(calls):
        fresh = messages[max(seen, head) : call.index]
        new = sent(fresh) if sent is not None else sum(count(m) for m in fresh)
        seen = max(seen, call.index)
        cached = n > 0 and prefix_tokens >= pricing.min_cacheable
        total += prefix_tokens * (pricing.read_weight if cached else write if pricing.charges_writes else 1.0)
        total += new * write
    return total


def above_floor_share(billed: float, floor: float) -> float:
    """The share of a bill above the floor (0 when at or under it)."""
    return max(0.0, billed - floor) / billed if billed > 0 else 0.0
