"""Pick the right counter for a model name: exact where a tokenizer exists, else estimate."""

from __future__ import annotations

import functools
import re

from .base import TokenCounter
from .counting import ANTHROPIC_KEEPS_THINKING, OPENAI_HARMONY
from .estimate import Estimator
from .exact import ExactCounter
from .retention import keeps_all_thinking

# OpenAI model names (after any "provider/" prefix) -> encoding. Order matters: first match wins.
_OPENAI_ENCODINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(ft:)?(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|codex-|gpt-oss|computer-use)"), "o200k_base"),
    (re.compile(r"^(ft:)?(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002|davinci-002|babbage-002)"), "cl100k_base"),
)
#: OpenAI models whose prompt is rendered in the harmony format (reasoning models): no call ids.
_HARMONY = re.compile(r"^(ft:)?(o1|o3|o4|gpt-5|codex-|gpt-oss)")
_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"claude|anthropic"), "anthropic"),
    (re.compile(r"gemini|gemma|google/|vertex"), "gemini"),
)


def tokenizer_family(model: str | None) -> str:
    """``o200k_base`` | ``cl100k_base`` | ``claude`` | ``gemini`` | ``estimate`` for a model name."""
    if not model:
        return "estimate"
    name = model.strip().lower()
    bare = name.rsplit("/", 1)[-1]
    for pat, enc in _OPENAI_ENCODINGS:
        if pat.match(bare):
            return enc
    for pat, fam in _FAMILIES:
        if pat.search(name):
            return "claude" if fam == "anthropic" else fam
    return "estimate"


def counter_for(model: str | None) -> TokenCounter:
    """The counter for ``model`` (any name, with or without a provider prefix; None = unknown).

    OpenAI gpt-4o / 4.1 / 5 / o-series → exact o200k_base; gpt-4 / 3.5 → exact cl100k_base;
    Claude → the estimator with Anthropic's rates, framing and image formula (and the model's
    thinking-retention rule); Gemini → the
    Gemini-flavoured estimator; anything else → the generic estimator (Claude-like rates, the
    safer side). Counters are cached per name and share their per-message caches.
    """
    from ..argcheck import check_str

    return _counter_for(check_str(model, "counter_for(model)", optional=True))


@functools.lru_cache(maxsize=256)
def _counter_for(model: str | None) -> TokenCounter:
    family = tokenizer_family(model)
    if family in ("o200k_base", "cl100k_base"):
        bare = (model or "").strip().lower().rsplit("/", 1)[-1]
        return ExactCounter(family, OPENAI_HARMONY) if _HARMONY.match(bare) else ExactCounter(family)
    if family == "claude":
        # Thinking retention follows Anthropic's documented rule per model (tokens/retention.py).
        if keeps_all_thinking(model):
            return Estimator("anthropic", profile=ANTHROPIC_KEEPS_THINKING)
        return Estimator("anthropic")
    if family == "gemini":
        return Estimator("gemini")
    return Estimator("generic")
