"""Token counting: exact offline tokenizers for OpenAI families, a class-rate estimator for
everything else, calibration from provider usage, and incremental accounting.

    from contextwindow.tokens import counter_for
    c = counter_for("claude-sonnet-4-6")
    c.count_messages(messages), c.count_message(m), c.count_tools(tools), c.count_text(s)
"""

from __future__ import annotations

from .base import TokenCounter
from .calibration import Calibration, anchored_estimate, calibrate, effective_tokens, median_ratio
from .counting import PROFILES, MessageCounter, Profile
from .estimate import Estimator, Rates
from .exact import ExactCounter, VocabularyError
from .images import image_tokens
from .ledger import RunningCount
from .select import counter_for, tokenizer_family

__all__ = [
    "PROFILES",
    "Calibration",
    "Estimator",
    "ExactCounter",
    "MessageCounter",
    "Profile",
    "Rates",
    "RunningCount",
    "TokenCounter",
    "VocabularyError",
    "anchored_estimate",
    "calibrate",
    "counter_for",
    "effective_tokens",
    "image_tokens",
    "median_ratio",
    "tokenizer_family",
]
