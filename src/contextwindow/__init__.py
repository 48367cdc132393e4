"""contextwindow: manage the context window of LLM agents.

admit → clip → compact → fold → curate → account. See the README for the tour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import (
    CompactionError,
    ConfigError,
    ContextOverflowError,
    ContextWindowError,
    InputError,
    LimitExceeded,
    NotFoundError,
    PayloadError,
    ProviderError,
    StoreError,
    SummarizerError,
)
from .messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__version__ = "0.1.0"

if TYPE_CHECKING:  # the lazy names below, for type checkers and editors
    from .admission import admit
    from .budget import BudgetConfig
    from .clipping import clip, retrieve
    from .compaction import compact
    from .events import EventBus
    from .formats import get_format
    from .importers import load_transcript
    from .models import ModelSpec, get_model
    from .session import Build, Session, SessionConfig
    from .store import ConversationStore, open_store
    from .tokens import counter_for
    from .tools import ToolSpec
    from .usage import Usage

# Heavier parts load on first use, so `import contextwindow` stays fast.
_LAZY = {
    "Session": ".session",
    "SessionConfig": ".session",
    "Build": ".session",
    "open_store": ".store",
    "ConversationStore": ".store",
    "counter_for": ".tokens",
    "get_model": ".models",
    "ModelSpec": ".models",
    "clip": ".clipping",
    "retrieve": ".clipping",
    "compact": ".compaction",
    "admit": ".admission",
    "EventBus": ".events",
    "Usage": ".usage",
    "ToolSpec": ".tools",
    "BudgetConfig": ".budget",
    "load_transcript": ".importers",
    "get_format": ".formats",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "BudgetConfig",
    "Build",
    "CompactionError",
    "ConfigError",
    "ContextOverflowError",
    "ContextWindowError",
    "ConversationStore",
    "EventBus",
    "ImagePart",
    "InputError",
    "LimitExceeded",
    "Message",
    "ModelSpec",
    "NotFoundError",
    "Part",
    "PayloadError",
    "ProviderError",
    "ReasoningPart",
    "Session",
    "SessionConfig",
    "StoreError",
    "SummarizerError",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "ToolSpec",
    "Usage",
    "__version__",
    "admit",
    "clip",
    "compact",
    "counter_for",
    "get_format",
    "get_model",
    "load_transcript",
    "open_store",
    "retrieve",
]
