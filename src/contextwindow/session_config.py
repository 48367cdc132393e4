"""What a :class:`~contextwindow.session.Session` is configured with (:class:`SessionConfig`), what
its ``build`` returns (:class:`Build`), and how a Session's window and cache prices follow from its
model. ``SessionConfig`` and ``Build`` are importable from :mod:`contextwindow.session` as well
(and from :mod:`contextwindow`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .budget import Budget, BudgetConfig, Decision, Gauge, Limits
from .compaction import CompactionConfig, CompactionResult
from .compaction.cache import CacheConfig
from .errors import ConfigError
from .folding.guard import DEFAULT_DEADLINE_S
from .formats import cache_marks
from .messages import Message


@dataclass(frozen=True, slots=True)
class SessionConfig:
    budget: BudgetConfig = field(default_factory=lambda: BudgetConfig.from_env(os.environ))  # CONTEXTWINDOW_TRIGGER, ...
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    clip_budget_tokens: int | None = 4_000  # None: no clipping at append
    max_reactive_retries: int = 2
    model_call_deadline_s: float | None = DEFAULT_DEADLINE_S  # total, per summarizer use inside build()/fold()
    restore_files: int = 5
    restore_file_tokens: int = 5_000
    restore_total_tokens: int = 50_000  # and never more than a quarter of the history budget
    restore_root: str | None = None  # restored files are read from disk here (default: cwd) when they still exist
    limits: Limits = field(default_factory=lambda: Limits.from_env(os.environ))  # 200 turns, 1M tokens, 200 tool calls, $2, 30 min
    cache: CacheConfig | None = field(default_factory=CacheConfig)  # per-call clearing when it pays; None: off
    incremental: bool = True  # False: every build walks the whole view again (the same payloads, slower; for checking)
    cache_marks: cache_marks.CacheMode = "5m"  # prompt-cache breakpoints on Anthropic payloads (formats/cache_marks.py): "off" / "5m" / "1h"


@dataclass(frozen=True, slots=True)
class Build:
    """What ``build`` produced: the payload and everything needed to explain it. The payload is
    read-only: its message dicts are shared with the next build's where the message is the same
    (copy before changing one)."""

    payload: dict[str, Any]
    messages: list[Message]
    system: str
    tokens: int  # estimated whole prompt: system + tools + history
    budget: Budget
    decision: Decision
    compaction: CompactionResult | None
    prefix_share: float  # share of this payload that is a byte prefix of the previous one
    gauge: Gauge
    prefix_reuse: float = 1.0  # share of the previous payload that is still a prefix of this one
    id_map: dict[str, str] = field(default_factory=dict)  # call id sent -> stored, where the provider's id rules changed it
    cache_anchors: tuple[int, ...] = ()  # messages whose end should carry a prompt-cache breakpoint (formats/cache_marks.py)

    def sent_messages(self, conversation_id: str) -> list[Message]:
        """``messages`` with the cache anchors marked for a model client (AnthropicModel places its
        breakpoints there; OpenAICompatibleModel takes ``conversation_id`` as ``prompt_cache_key``)."""
        return cache_marks.hint(self.messages, self.cache_anchors, conversation_id) if self.cache_anchors else self.messages


def resolve_limits(model: str | None, window: int | None, max_output: int | None) -> tuple[int, int]:
    """(window, max output) in tokens: as given, else the model's (the bundled registry), else the defaults."""
    from .budget import DEFAULT_MAX_OUTPUT, DEFAULT_WINDOW

    if window is not None and window <= 0:
        raise ConfigError(f"window must be a positive number of tokens, got {window}")
    if model and (window is None or max_output is None):
        from .models import get_model

        spec = get_model(model)
        return window or spec.context_window, max_output or spec.max_output
    return window or DEFAULT_WINDOW, max_output or DEFAULT_MAX_OUTPUT


def priced_cache(base: CacheConfig | None, model: str | None) -> CacheConfig | None:
    """``base`` priced for ``model`` (its cache read/write prices), as is when the model is unknown."""
    if base is None:
        return base
    from .models import find_model

    return CacheConfig.for_model(find_model(model), base)
