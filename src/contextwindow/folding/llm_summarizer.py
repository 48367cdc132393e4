"""A summarizer backed by a chat model: structured brief, chunked input, extractive fallback.

When the request carries the conversation's prompt as last sent (``SummaryRequest.prefix``), the
summary is asked over it: the same system prompt, tools and messages, with the brief instruction
appended as a last user turn (folding/cached.py), so the provider reads the prompt from its cache.
An answer that is no brief, a provider "too long", or a prefix that cannot carry the request falls
back to the flat transcript. Otherwise the transcript is rendered flat into ONE user message. Input larger than the summarizer's window
is split (on message boundaries, and inside a message larger than a part), summarized in parts
and merged in rounds that each fit the window. A part the provider still calls too long is split
in two and retried. The number of calls is bounded. Any failure (provider error after the
client's retries, empty or garbage output, the bound) falls back to the extractive brief,
reported as ``ok=False``. The user's own words are the harness's, not the model's: the goal, the
latest request, the earlier user messages and the ledger's memory block are put in around the
model's text, which is written in (and cut to) what they leave of the budget (folding/anchor.py).
When they leave less than ``anchor.MIN_MODEL_BUDGET`` for it, no model is called: the extractive
brief is the outcome (``method="extractive"``, ``ok=True``, no call, ``extra["model_skipped"]`` says why).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..errors import ContextOverflowError, ContextWindowError
from ..messages import Message, TextPart
from ..usage import Usage
from . import prompts
from .anchor import anchored, harness, model_budget, model_left_out
from .base import SummaryOutcome, SummaryRequest
from .cached import cached_messages, prompt_room
from .extractive import ExtractiveSummarizer
from .transcript import render_message

CountText = Callable[[str], int]
MIN_USEFUL_CHARS = 40
_SECTIONS = re.compile(r"\b(goal|task|progress|done|remaining|next steps?|data|decisions?|constraints?|preferences)\b", re.IGNORECASE)


def looks_like_a_brief(text: str) -> bool:
    """At least two of the brief's section names appear (as headings, bold or plain words): an
    HTML error page or a chatty refusal does not pass; a brief with other formatting does."""
    return len({m.group(1).lower().rstrip("s") for m in _SECTIONS.finditer(text)}) >= 2
MIN_SPLIT_CHARS = 400  # a part this small that still overflows is not split further
PROMPT_SLACK = 200  # tokens for chat framing and counter differences


def split_text(text: str, pieces: int) -> list[str]:
    """``text`` cut into about ``pieces`` consecutive pieces, on line ends where possible."""
    size = max(1, -(-len(text) // max(1, pieces)))
    out: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            nl = text.rfind("\n", start + size // 2, end)
            end = nl + 1 if nl > start else end
        out.append(text[start:end])
        start = end
    return out or [text]


class _Calls:
    """The bounded call budget of one summary."""

    def __init__(self, limit: int) -> None:
        self.n = 0
        self.limit = limit
        self.usages: list[Usage] = []


class LLMSummarizer:
    name = "llm"

    def __init__(self, model: Any, *, window: int | None = None, count: CountText | None = None, max_parts: int = 16) -> None:
        """``model`` implements the ChatModel protocol: ``complete(messages, system=, max_tokens=)``."""
        self.model = model
        self.window = window or getattr(model, "window", None) or 128_000
        self.max_parts = max_parts
        self._fallback = ExtractiveSummarizer(count)
        self._count: CountText = count or self._fallback._count
        self.name = f"llm:{getattr(model, 'name', type(model).__name__)}"

    def _call(self, prompt: str, budget: int, calls: _Calls) -> str:
        if calls.n >= calls.limit:
            raise ContextWindowError(f"summary needs more than {calls.limit} summarizer calls")
        return self._complete([Message("user", (TextPart(prompt),))], prompts.SYSTEM, budget, calls)

    def _complete(self, messages: list[Message], system: Any, budget: int, calls: _Calls, tools: Any = None) -> str:
        """One model call, counted and its usage kept (the flat prompt's and the cached prefix's)."""
        calls.n += 1
        kw = {"tools": tools} if tools is not None else {}
        done = self.model.complete(messages, system=system, max_tokens=budget, **kw)
        usage = getattr(done, "usage", None)
        if usage is not None:
            calls.usages.append(usage)
        return str(getattr(done, "text", "") or "")

    def _cached(self, request: SummaryRequest, calls: _Calls) -> str | None:
        """The brief asked over the cached prefix, or ``None`` when that path does not apply or
        its answer is no brief (the flat transcript is asked next)."""
        got = cached_messages(request, room=prompt_room(self.window, request.budget_tokens), count=self._count)
        if got is None:
            return None
        messages, prefix = got
        try:
            text = self._complete(messages, prefix.system, request.budget_tokens, calls, tools=prefix.tools)
        except ContextOverflowError:
            return None
        return text if len(text.strip()) >= MIN_USEFUL_CHARS and looks_like_a_brief(text) else None

    def _room(self, budget: int, request: SummaryRequest) -> int:
        """Tokens of transcript one prompt can carry: the window less the output, the prompt's own
        words, the prior summary (sent with the first part) and some slack."""
        fixed = self._count(prompts.SYSTEM + prompts.brief_prompt("", budget=budget, prior=None, instructions=request.instructions, part=(1, 2), constraints=request.constraints))
        return max(200, int(self.window * 0.9) - budget - fixed - PROMPT_SLACK - self._count(request.prior_summary or ""))

    def _pieces(self, messages: Sequence[Message], room: int) -> list[tuple[str, int]]:
        """Each message rendered flat (tool names resolved across the whole transcript); a
        message larger than ``room`` is cut into pieces that fit."""
        names: dict[str, str] = {}
        out: list[tuple[str, int]] = []
        for m in messages:
            text = render_message(m, names)
            if not text:
                continue
            n = self._count(text)
            if n <= room:
                out.append((text, n))
                continue
            for piece in split_text(text, -(-n // room) + 1):
                out.append((piece, self._count(piece)))
        return out

    def _chunks(self, messages: Sequence[Message], room: int) -> list[str]:
        chunks: list[list[str]] = [[]]
        size = 0
        for text, n in self._pieces(messages, room):
            if chunks[-1] and size + n > room:
                chunks.append([])
                size = 0
            chunks[-1].append(text)
            size += n
        return ["\n\n".join(c) for c in chunks if c]

    def _part(self, transcript: str, request: SummaryRequest, part: tuple[int, int], calls: _Calls) -> list[str]:
        """Briefs of one part; a part the provider calls too long is split in two and retried."""
        prompt = prompts.brief_prompt(
            transcript, budget=request.budget_tokens, prior=request.prior_summary if part[0] == 1 else None,
            instructions=request.instructions, part=part, constraints=request.constraints,
        )
        try:
            return [self._call(prompt, request.budget_tokens, calls)]
        except ContextOverflowError:
            if len(transcript) < MIN_SPLIT_CHARS:
                raise
            first, *rest = split_text(transcript, 2)
            second = "".join(rest)
            return self._part(first, request, part, calls) + self._part(second, request, (part[0] + 1, part[1] + 1), calls)

    def _merge(self, parts: list[str], budget: int, room: int, calls: _Calls) -> str:
        """Merge briefs in rounds, as many per prompt as fit ``room`` (at least two)."""
        while len(parts) > 1:
            groups: list[list[str]] = [[]]
            size = 0
            for p in parts:
                n = self._count(p) + 10
                if len(groups[-1]) >= 2 and size + n > room:
                    groups.append([])
                    size = 0
                groups[-1].append(p)
                size += n
            merged = []
            for g in groups:
                if len(g) == 1:
                    merged.append(g[0])
                    continue
                joined = "\n\n".join(f"<part {i}>\n{p}\n</part {i}>" for i, p in enumerate(g, 1))
                merged.append(self._call(prompts.MERGE.format(parts=joined), budget, calls))
            parts = merged
        return parts[0]

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        calls = _Calls(limit=2 * self.max_parts + 4)
        whole = request
        # the model writes in what the user's own words and the memory block leave (folding/anchor.py)
        ours = harness(whole, self._count)  # built once: the model's budget and the anchoring
        skipped = model_left_out(whole, self._count, ours)
        if skipped:  # no spend for text that could not fit: the extractive brief, and why
            fb = self._fallback.summarize(whole)
            return SummaryOutcome(fb.text, "extractive", ok=True, calls=0, extra={"model_skipped": skipped})
        request = replace(request, budget_tokens=model_budget(whole, self._count, ours))
        try:
            cached = self._cached(request, calls)
            if cached is not None:
                text = anchored(cached, whole, self._count, ours)
                return SummaryOutcome(text, "llm", ok=True, calls=calls.n, usages=tuple(calls.usages), extra={"request": "cached_prefix"}, written=cached)
            tried = calls.n  # 1 when the cached prefix was asked and answered no brief (or "too long")
            budget = request.budget_tokens
            room = self._room(budget, request)
            chunks = self._chunks(request.messages, room) or [""]
            if len(chunks) > self.max_parts:
                raise ContextWindowError(f"transcript needs {len(chunks)} parts (> {self.max_parts})")
            parts: list[str] = []
            for i, chunk in enumerate(chunks, 1):
                parts += self._part(chunk, request, (i, len(chunks)), calls)
            text = self._merge(parts, budget, room + self._count(request.prior_summary or ""), calls)
            if len(text.strip()) < MIN_USEFUL_CHARS:
                raise ContextWindowError(f"summarizer returned {len(text.strip())} characters")
            if not looks_like_a_brief(text):
                raise ContextWindowError(f"summarizer returned no brief (none of its sections): {text.strip()[:80]!r}")
        except (ContextWindowError, OSError, ValueError) as exc:
            fb = self._fallback.summarize(whole)
            return SummaryOutcome(fb.text, "extractive", ok=False, calls=calls.n, usages=tuple(calls.usages), error=f"{type(exc).__name__}: {exc}")
        flat: dict[str, object] = {"request": "flat", "cached_prefix_calls": tried} if request.prefix is not None else {}
        return SummaryOutcome(anchored(text, whole, self._count, ours), "llm", ok=True, calls=calls.n, usages=tuple(calls.usages), extra=flat, written=text)
