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
- ``default``'s Session does the same since its summary requests ride the last payload
  (folding/cached.py): a request carrying that prefix is billed as the fixed prefix and the
  payload's messages at the read price, the messages stored since and the appended instruction
  at the input price. A request with no prefix (no build before it, a view that changed in the
  same build, or a prefix too large for the summarizer's window with the summary's room) is what
  the summarizer sends then: a flat transcript, at the input price;
- the others (``wolffish``) render the messages to summarize as one flat transcript inside one
  user message, a prompt no cache holds: input at the input price.

Either way the summary itself is output, at the output price (as input-price tokens: output price
÷ input price; 1 when unpriced): all of it but the memory block of the user's rules a request
carries (``SummaryRequest.constraints``, ``default``'s ledger; the others carry none), which the
summarizer is told the harness appends verbatim, and not to copy (folding/prompts.py ``carried``); a
model's brief is priced as what the model wrote (``SummaryOutcome.written``: the user's own words the
harness puts around it, folding/anchor.py, are not its output). Both sides are counted with the replay's counter: the request's
messages and prior summary in (or the prefix and instruction), the summary text out (files a
policy restores after a fold are the harness's, not the model's, and are billed where they are
sent: in the next payloads).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..folding.base import Summarizer, SummaryOutcome, SummaryRequest, constraints_block
from ..folding.cached import instruction, prompt_room
from ..tokens.base import TokenCounter
from ..tokens.memo import CounterCount

#: policies whose summary request rides the conversation's cached prefix (module docstring)
CACHE_SHARING = frozenset({"claude-code"})


@dataclass(slots=True)
class MeteredSummarizer:
    """``inner`` with every request and answer counted (tokens in, tokens out, per call).
    ``sizes`` holds per call ``(read, fresh, out)``: input a cache holds (the last payload a
    request rides), input at the input price, output. ``window``: the summarizer's window, for
    whether a prefix fits it (``None``: it does)."""

    inner: Summarizer
    counter: TokenCounter
    window: int | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    sizes: list[tuple[int, int, int]] = field(default_factory=list)
    name: str = ""
    _count_text: CounterCount = field(init=False, repr=False)  # the counter's count, through its memo

    def __post_init__(self) -> None:
        self.name = getattr(self.inner, "name", type(self.inner).__name__)
        self._count_text = CounterCount(self.counter)


    def _input(self, request: SummaryRequest, path: object = None) -> tuple[int, int]:
        """(read, fresh) input tokens of the request the summarizer sends (module docstring).
        ``path``: the request the summarizer reports it sent (``SummaryOutcome.extra["request"]``,
        ``"cached_prefix"`` or ``"flat"``), followed as it says: a model summarizer decides with the
        room of ITS budget (what the harness's part leaves, folding/anchor.py), not the whole one;
        ``None`` (an extractive brief priced as a model's): decided here, with the whole budget."""
        prefix = request.prefix
        if prefix is not None and prefix.messages and path != "flat":
            ask = self._count_text(instruction(request, prefix))
            room = None if self.window is None else prompt_room(self.window, request.budget_tokens)
            if path == "cached_prefix" or room is None or prefix.tokens + ask <= room:
                sent = self.counter.count_messages(prefix.messages[: prefix.sent])
                since = self.counter.count_messages(prefix.messages[prefix.sent :]) if prefix.sent < len(prefix.messages) else 0
                return sent, since + ask
        got = self.counter.count_messages(request.messages)
        if request.prior_summary:
            got += self._count_text(request.prior_summary)
        return 0, got

    @staticmethod
    def _written(text: str, request: SummaryRequest) -> str:
        """What of ``text`` the model writes: all of it but the memory block of the rules the
        request carries, which the harness appends verbatim (the model is told not to copy it,
        folding/prompts.py ``carried``; base.ensure_constraints appends it)."""
        block = constraints_block(request.constraints)
        return text.replace(block, "", 1) if block and block in text else text

    def _output(self, outcome: SummaryOutcome, request: SummaryRequest) -> int:
        """Output tokens of the summary's calls. One model call that answered: what it wrote
        (``written``), counted here. Several (chunks and their merges, a cached-prefix answer that
        was no brief before the flat retry): the calls' own reported output, summed, when every
        call reported it (``written`` is only the last). A model summary that failed (the
        extractive fallback's text is no model's output): the reported output of the calls that
        answered, nothing when none did. No model call at all (an extractive brief priced as a
        model's): the brief less the memory block."""
        reported = [u.output_tokens for u in outcome.usages]
        if outcome.calls > 1 and len(reported) == outcome.calls and all(reported):
            return sum(reported)
        if outcome.written is not None:
            return self._count_text(outcome.written)
        if not outcome.ok and outcome.calls:
            return sum(reported)
        return self._count_text(self._written(outcome.text, request))

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        outcome = self.inner.summarize(request)
        if outcome.extra.get("model_skipped"):
            return outcome  # the model summarizer asked no model (folding/anchor.py model_left_out): nothing billed
        read, fresh = self._input(request, outcome.extra.get("request"))
        out = self._output(outcome, request)
        self.calls += 1
        self.input_tokens += read + fresh
        self.output_tokens += out
        self.sizes.append((read, fresh, out))
        return outcome


def summary_billed_tokens(meter: MeteredSummarizer, *, policy: str, overhead: int, read: float, output: float) -> float:
    """The summaries' bill in input-price tokens (module docstring): per call, its input (plus the
    fixed prefix for a request over the cached prefix) at the read or input price, its output at ``output``."""
    if policy in CACHE_SHARING:
        return sum((overhead + r + f) * read + o * output for r, f, o in meter.sizes)
    return sum(((overhead + r) * read if r else 0.0) + f + o * output for r, f, o in meter.sizes)
