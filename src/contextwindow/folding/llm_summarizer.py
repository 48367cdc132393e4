"""A summarizer backed by a chat model: structured brief, chunked input, extractive fallback.

The transcript is rendered flat into ONE user message. Input larger than the summarizer's window
is split on message boundaries, summarized in parts and merged. Any failure (provider error after
the client's retries, empty or garbage output) falls back to the extractive brief, reported as
``ok=False``. Constraints from the ledger are appended verbatim if the model dropped any.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ContextWindowError
from ..messages import Message, TextPart
from ..usage import Usage
from . import prompts
from .base import SummaryOutcome, SummaryRequest, ensure_constraints
from .extractive import ExtractiveSummarizer
from .transcript import render_flat

CountText = Callable[[str], int]
MIN_USEFUL_CHARS = 40


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

    def _call(self, prompt: str, budget: int, usages: list[Usage]) -> str:
        done = self.model.complete([Message("user", (TextPart(prompt),))], system=prompts.SYSTEM, max_tokens=budget)
        usage = getattr(done, "usage", None)
        if usage is not None:
            usages.append(usage)
        return str(getattr(done, "text", "") or "")

    def _chunks(self, messages: Sequence[Message], room: int) -> list[list[Message]]:
        chunks: list[list[Message]] = [[]]
        size = 0
        for m in messages:
            n = self._count(render_flat([m]))
            if chunks[-1] and size + n > room:
                chunks.append([])
                size = 0
            chunks[-1].append(m)
            size += n
        return chunks

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        usages: list[Usage] = []
        calls = 0
        try:
            budget = request.budget_tokens
            room = max(1_000, int(self.window * 0.8) - budget - 1_500 - self._count(request.prior_summary or ""))
            chunks = self._chunks(request.messages, room)
            if len(chunks) > self.max_parts:
                raise ContextWindowError(f"transcript needs {len(chunks)} parts (> {self.max_parts})")
            parts: list[str] = []
            for i, chunk in enumerate(chunks, 1):
                prompt = prompts.brief_prompt(
                    render_flat(chunk), budget=budget, prior=request.prior_summary if i == 1 else None,
                    instructions=request.instructions, part=(i, len(chunks)),
                )
                calls += 1
                parts.append(self._call(prompt, budget, usages))
            text = parts[0]
            if len(parts) > 1:
                calls += 1
                joined = "\n\n".join(f"<part {i}>\n{p}\n</part {i}>" for i, p in enumerate(parts, 1))
                text = self._call(prompts.MERGE.format(parts=joined), budget, usages)
            if len(text.strip()) < MIN_USEFUL_CHARS:
                raise ContextWindowError(f"summarizer returned {len(text.strip())} characters")
        except (ContextWindowError, OSError, ValueError) as exc:
            fb = self._fallback.summarize(request)
            return SummaryOutcome(fb.text, "extractive", ok=False, calls=calls, usages=tuple(usages), error=f"{type(exc).__name__}: {exc}")
        return SummaryOutcome(ensure_constraints(text, request.constraints, request.superseded), "llm", ok=True, calls=calls, usages=tuple(usages))
