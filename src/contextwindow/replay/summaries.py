"""What a policy's summaries would cost if a model wrote them: the fold call's own bill.

A replay runs every policy with the same summarizer (extractive unless a model is named), and an
extractive brief costs nothing. Claude Code's compaction, though, is always a model call, and a
Session configured with a model makes one per fold. So a replay prices every summary a policy asks
for as the model call that would write it, by the policy's own design of that call:

- ``claude-code`` sends its compaction request over the conversation's cached prefix (Claude Code
  keeps the system prompt, tools and messages of the main loop and appends the summary instruction,
  so the request reads the conversation from the prompt cache; anthropics/claude-code issue #95694
  names the flag, ``tengu_compact_cache_prefix``, on by default): its input — the fixed prefix and
  the messages it summarizes — is billed at the cache-read price;
- the others (``default``'s Session summarizer, ``wolffish``) render the messages to summarize as one
  flat transcript inside one user message, a prompt no cache holds: input at the input price.

Either way the summary itself is output, at the output price (as input-price tokens: output price
÷ input price; 1 when unpriced). Both sides are counted with the replay's counter: the request's
messages and prior summary in, the summary text out (files a policy restores after a fold are
the harness's, not the model's, and are billed where they are sent: in the next payloads).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..folding.base import Summarizer, SummaryOutcome, SummaryRequest
from ..tokens.base import TokenCounter

#: policies whose summary request rides the conversation's cached prefix (module docstring)
CACHE_SHARING = frozenset({"claude-code"})


@dataclass(slots=True)
class MeteredSummarizer:
    """``inner`` with every request and answer counted (tokens in, tokens out, per call)."""

    inner: Summarizer
    counter: TokenCounter
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    sizes: list[tuple[int, int]] = field(default_factory=list)
    name: str = ""

    def __post_init__(self) -> None:
        self.name = getattr(self.inner, "name", type(self.inner).__name__)

    def _count_text(self, text: str) -> int:
        """The counter's count, through its memo where it keeps one (the same answer)."""
        memo = getattr(self.counter, "count_text_memo", None)
        return memo(text) if memo is not None else self.counter.count_text(text)

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        outcome = self.inner.summarize(request)
        got = self.counter.count_messages(request.messages)
        if request.prior_summary:
            got += self._count_text(request.prior_summary)
        out = self._count_text(outcome.text)
        self.calls += 1
        self.input_tokens += got
        self.output_tokens += out
        self.sizes.append((got, out))
        return outcome


def summary_billed_tokens(meter: MeteredSummarizer, *, policy: str, overhead: int, read: float, output: float) -> float:
    """The summaries' bill in input-price tokens (module docstring): per call, its input (plus the
    fixed prefix for a cache-sharing request) at the read or input price, its output at ``output``."""
    if policy in CACHE_SHARING:
        return sum((overhead + i) * read + o * output for i, o in meter.sizes)
    return sum(i + o * output for i, o in meter.sizes)
