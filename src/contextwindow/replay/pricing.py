"""The prompt-cache and price model a replay bills each call with. Pure.

A call's *cached* part is the longest common prefix of its payload with the previous call's payload,
measured at message granularity (the serialized messages that are identical from the start), counted
in tokens, plus the fixed prefix the log does not show (system prompt and tool definitions, the same
for every call). The prefix counts only when it is at least the model's minimum cacheable length.

Billing, per call (``tokens`` = the whole prompt):

- providers that charge cache writes (a ``cache_write_price`` in the model data, Anthropic): the
  cached prefix at the cache-read price, everything after it at the cache-write price (Claude Code
  marks the end of each prompt as a cache breakpoint, so the new tail is written for the next call);
  a prompt shorter than the minimum cacheable length is plain input;
- other providers (OpenAI and most others, automatic caching): the cached prefix at the cache-read
  price, the rest at the input price.

``billed_input_tokens`` is that cost expressed in input-price tokens (cost ÷ input price), so it
compares across policies and models; with no prices known, cache reads weigh 0.1 and writes 1.25
(Anthropic's ratios). Cache entries never expire in this model (real caches last 5 minutes or
more after each use; a replay has no clock).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import ModelSpec

DEFAULT_READ_WEIGHT = 0.1
DEFAULT_WRITE_WEIGHT = 1.25


@dataclass(frozen=True, slots=True)
class Pricing:
    """Per-1M-token prices (None when the model data has none) and the cache rules of one model."""

    input_price: float | None
    cache_read_price: float | None
    cache_write_price: float | None
    min_cacheable: int = 1024

    @classmethod
    def of(cls, spec: ModelSpec) -> Pricing:
        return cls(spec.input_price, spec.cache_read_price, spec.cache_write_price, spec.min_cacheable_tokens)

    @property
    def charges_writes(self) -> bool:
        return bool(self.cache_write_price)

    @property
    def read_weight(self) -> float:
        if self.input_price and self.cache_read_price is not None:
            return self.cache_read_price / self.input_price
        return DEFAULT_READ_WEIGHT

    @property
    def write_weight(self) -> float:
        if self.input_price and self.cache_write_price:
            return self.cache_write_price / self.input_price
        return DEFAULT_WRITE_WEIGHT


@dataclass(frozen=True, slots=True)
class CallBill:
    tokens: int
    cached: int
    written: int
    uncached: int
    billed: float  # input-price-equivalent tokens
    cost_usd: float | None


def common_prefix(prev: Sequence[str], cur: Sequence[str]) -> int:
    """How many leading units of ``cur`` equal those of ``prev``."""
    n = 0
    for a, b in zip(prev, cur, strict=False):
        if a != b:
            break
        n += 1
    return n


def bill(tokens: int, prefix_tokens: int, pricing: Pricing, *, first: bool = False) -> CallBill:
    """Bill one prompt of ``tokens`` whose first ``prefix_tokens`` match the previous prompt."""
    cached = 0 if first or prefix_tokens < pricing.min_cacheable else min(prefix_tokens, tokens)
    rest = tokens - cached
    written = rest if pricing.charges_writes and tokens >= pricing.min_cacheable else 0
    uncached = rest - written
    billed = uncached + cached * pricing.read_weight + written * pricing.write_weight
    cost = None if pricing.input_price is None else billed * pricing.input_price / 1_000_000
    return CallBill(tokens, cached, written, uncached, billed, cost)
