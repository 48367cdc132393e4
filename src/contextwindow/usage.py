"""Usage of one model call, as reported by the provider (the account stage's raw data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

UsageRole = Literal["main", "summarizer", "helper", "title"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and cost of one model call. ``input_tokens`` counts the whole prompt, cached part
    included; ``cache_read_tokens``/``cache_write_tokens`` say how much of it hit/filled the cache."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    model: str | None = None
    role: UsageRole = "main"
    cost_usd: float | None = None
    latency_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
