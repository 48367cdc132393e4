"""contextwindow: manage the context window of LLM agents.

admit → clip → compact → fold → curate → account. See the README for the tour.
"""

from __future__ import annotations

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

__all__ = [
    "CompactionError",
    "ConfigError",
    "ContextOverflowError",
    "ContextWindowError",
    "ImagePart",
    "InputError",
    "LimitExceeded",
    "Message",
    "NotFoundError",
    "Part",
    "PayloadError",
    "ProviderError",
    "ReasoningPart",
    "StoreError",
    "SummarizerError",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "__version__",
]
