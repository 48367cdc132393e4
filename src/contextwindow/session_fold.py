"""A fold's steps around the summarizer, as values: what the summarizer is asked (the request)
and what the checkpoint keeps (the summary message). :class:`Session` does the I/O around them —
reading the view, storing the checkpoint, resetting what it kept of the old view, the events.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .compaction import ViewItem, markers, total
from .compaction.view import is_synthetic, leading_markers, split_pinned
from .folding import constraints as ledger_mod
from .folding.base import CachedPrefix, Summarizer, SummaryOutcome, SummaryRequest, fold_message, summary_text
from .folding.disk import disk_reader
from .folding.restore import restore_section
from .folding.scrubbing import scrub_message
from .messages import Message
from .store.base import StoredMessage
from .tools import ToolSpec

if TYPE_CHECKING:
    from .session_config import SessionConfig


def summary_request(
    items: Sequence[ViewItem], instructions: str | None, ledger: list[ledger_mod.Constraint], budget_tokens: int, prefix: CachedPrefix | None
) -> SummaryRequest:
    """What the summarizer reads for a fold of the view ``items``: the prior summary and the
    originals of the messages after it (the pinned leading system messages stay as they are: the
    brief need not repeat them), the ledger, the brief's budget."""
    _, rest = split_pinned(items)
    prior = rest[0] if rest and rest[0].key.startswith("fold:") else None
    originals = [it.source for it in rest if not it.key.startswith("fold:") and not is_synthetic(it)]
    return SummaryRequest(
        messages=originals,
        prior_summary=summary_text(prior.source) if prior else None,
        instructions=instructions,
        constraints=tuple(ledger_mod.texts(ledger)),
        superseded=tuple(ledger_mod.superseded(ledger)),
        ledger=tuple(ledger),
        budget_tokens=budget_tokens,
        prefix=prefix,
    )


def summary_message(
    request: SummaryRequest,
    outcome: SummaryOutcome,
    items: Sequence[ViewItem],
    covered: Sequence[StoredMessage],
    count_text: Callable[[str], int],
    config: SessionConfig,
    history_budget: int,
    ledger: list[ledger_mod.Constraint],
) -> Message:
    """The checkpoint's summary: the brief, the recently read files restored (within the config's
    caps and a quarter of ``history_budget``) and the ref of the folded span, which reaches back to
    what the prior summary (and notes before the first message) named; values the ledger says were
    superseded are scrubbed."""
    files = restore_section(
        request.messages, count_text, config.restore_files, config.restore_file_tokens,
        min(config.restore_total_tokens, history_budget // 4), read=disk_reader(config.restore_root),
    )
    rest = split_pinned(items)[1]
    earlier = [it.message.text for it in rest[:1] if it.key.startswith("fold:")] + leading_markers([it for it in rest if not it.key.startswith("fold:")])
    span = markers.folded_span(markers.span_start(earlier, covered[0].id), covered[-1].id, len(covered)) if covered else ""
    return scrub_message(fold_message(outcome.text, method=outcome.method, extra_sections=[files, span]), ledger)


def cached_prefix(
    items: Sequence[ViewItem],
    built_keys: Sequence[str],
    last_sent: tuple[list[Message], str] | None,
    last_prompt_estimate: int | None,
    system: str,
    tools: Sequence[ToolSpec],
) -> CachedPrefix | None:
    """The last build's prompt as sent plus the view items stored since, when the view still
    starts with what that build sent (a summary request can ride its cache: folding/cached.py)."""
    if last_sent is None or last_prompt_estimate is None or len(items) < len(built_keys) or any(k != it.key for k, it in zip(built_keys, items, strict=False)):
        return None
    messages, rules = last_sent
    new = items[len(built_keys) :]
    return CachedPrefix(
        (*messages, *(it.message for it in new)), system or None, tuple(tools) or None, rules, last_prompt_estimate + total(new), len(messages),
    )


class Accounted:
    """A summarizer whose every call's usage lands in the spend ledger (in-flight summaries too)."""

    def __init__(self, inner: Summarizer, record: Any, prefix: CachedPrefix | None = None) -> None:
        self.inner = inner
        self.record = record
        self.name = inner.name
        self.prefix = prefix  # the prompt as last sent, given to a request that has none

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        if self.prefix is not None and request.prefix is None:
            request = replace(request, prefix=self.prefix)
        outcome = self.inner.summarize(request)
        self.record(outcome.usages)
        return outcome
