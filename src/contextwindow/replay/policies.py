"""Context-management policies a replay compares.

A policy sees, before each model call, the raw history the agent had produced so far (fixed by the
log) and returns the messages it would have sent; its own decisions (what it folded, masked or
truncated) are sticky state it keeps between calls, so a prefix it did not touch stays identical
and a provider cache would stay warm. After the call it is told the reply and the prompt's size.

Built in (see :data:`POLICIES`):

``none``          the raw history.
``claude-code``   Claude Code's auto-compact: when the prompt reaches window − min(max output, 20k)
                  − 13k (its effective window less its autocompact buffer), ONE summary replaces
                  everything (cumulative), the 5 most recently read files are restored.
``wolffish``      at 75% of the window, passes of proportional head+tail truncation down to 50%,
                  then one summary of the oldest turns if truncation was not enough.
``microcompact``  before every call, clear old tool results, keeping the newest 3 (small ones and
                  errors stay).
``masking``       keep the last 10 observations (tool results) verbatim, mask the older ones, error
                  results too (observation masking as in "The Complexity Trap", Lindenbauer et al. 2025).
``default``       this project's Session: clip at append, layered compaction, folds, ledger
                  (:mod:`contextwindow.replay.session_policy`).

Every strategy here keeps tool calls with their results (masking and truncation rewrite a
result's content, never remove it; a summary replaces whole turns).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..compaction import CompactionConfig, CompactionResult, ViewItem, compact, total
from ..compaction.cache import CacheConfig
from ..compaction.mask import MaskConfig, is_masked, mask_candidates, masked_message, tool_names
from ..compaction.view import is_synthetic
from ..errors import CompactionError
from ..folding.base import Summarizer, SummaryRequest, fold_message, fold_pieces, summary_text
from ..folding.restore import restore_pieces
from ..importers.claude_microcompact import AUTOCOMPACT_BUFFER
from ..messages import Message, message_to_dict
from ..tokens.base import TokenCounter
from ..tokens.memo import CounterCount

# Claude Code's auto-compact threshold (services/compact/autoCompact.ts; the constants as shipped in
# the npm package's cli.js are quoted in anthropics/claude-code issue #12004): the effective window
# is the context window less min(the model's max output, 20k) kept for the summary's own answer, and
# the autocompact buffer of 13k comes off that. docs/replay.md cites the sources. The buffer is the
# one the simulated 2.0.x microcompact uses (its output reserve was 32k in 2.0.x: docs/tokens.md).
CLAUDE_CODE_MARGIN = AUTOCOMPACT_BUFFER
CLAUDE_CODE_OUTPUT_RESERVE = 20_000
CLAUDE_CODE_RESTORE_FILES = 5
CLAUDE_CODE_RESTORE_PER_FILE = 5_000
CLAUDE_CODE_RESTORE_TOTAL = 50_000


@dataclass(frozen=True, slots=True)
class ReplayContext:
    """What every policy of one replay shares: the window, the fixed prefix the log does not show
    (system prompt + tools, in tokens), the counter, the summarizer and the model's max output."""

    window: int
    counter: TokenCounter
    summarizer: Summarizer
    overhead: int = 0
    max_output: int = 16_384
    read_weight: float = 0.1  # cache read price / input price of the replayed model
    write_weight: float = 1.25  # price of an uncached token / input price (cache write, or 1.0)
    output_weight: float = 5.0  # output price / input price (a summary is output)
    cache: CacheConfig | None = None  # the default policy's per-call clearing knobs (None: its defaults)
    #: the counter's text count through its memo (the files a fold restores are mostly the ones the
    #: previous fold restored), and ``count.joined(text, pieces)`` for a text made of pieces counted
    #: before (a fold message's body from :func:`fold_pieces`, or its summary: tokens/joined.py)
    count: CounterCount = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "count", CounterCount(self.counter))

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        return self.overhead + self.counter.count_messages(messages)

    def summary_budget(self) -> int:
        return CompactionConfig().summary_budget(self.window)

    def claude_code_threshold(self) -> int:
        """The prompt size (fixed prefix included) at which Claude Code auto-compacts."""
        return self.window - min(self.max_output, CLAUDE_CODE_OUTPUT_RESERVE) - CLAUDE_CODE_MARGIN


@dataclass(slots=True)
class Step:
    """What a policy sends for one call, and what it did to get there (``"compaction"``/``"fold"``)."""

    messages: list[Message]
    events: list[str] = field(default_factory=list)


class Policy(Protocol):
    name: str

    def before_call(self, history: Sequence[Message]) -> Step: ...

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None: ...


class StickyView:
    """A fold boundary + summary, per-message replacements, drops and inserted notes over the raw
    history, keyed by raw index (``str(i)``). Rebuilding the view from it is deterministic.

    The history a policy is shown only grows (the log is fixed; each call sees a longer prefix of
    the same messages), so the items of the last view are kept and only the new messages are
    added to them: O(new messages) per call, after checking that the history still starts with the
    very message objects the last view was made of (one identity comparison each, in C). A fold or a compaction result (:meth:`apply`,
    :meth:`fold_all`) starts the view afresh; :meth:`set_message` patches one item in place."""

    def __init__(self, count: Callable[[Message], int]) -> None:
        self.count = count
        self.boundary = 0
        self.summary: Message | None = None
        self.replace: dict[int, Message] = {}
        self.drop: set[int] = set()
        self.insert: dict[str, list[Message]] = {}
        self._items: list[ViewItem] = []  # the last view, covering history[:self._upto]
        self._upto = -1  # -1: no view kept (build from scratch)
        self._seen: list[Message] = []  # history[:self._upto] of the last view
        self._pos: dict[int, int] = {}  # raw index -> its item's position in self._items

    def items(self, history: Sequence[Message]) -> list[ViewItem]:
        n = len(history)
        if self._upto < 0 or n < self._upto or not all(map(operator.is_, history, self._seen)):
            self._items, self._pos, self._upto, self._seen = [], {}, 0, []  # not an extension of the last view: afresh
            if self.summary is not None:
                self._items.append(ViewItem("fold:sticky", self.summary, self.count(self.summary)))
            self._items.extend(self._inserted("^"))
        out = self._items
        for i in range(max(self.boundary, self._upto), n):
            if i in self.drop:
                continue
            src = history[i]
            msg = self.replace.get(i)
            self._pos[i] = len(out)
            if msg is None:
                out.append(ViewItem(str(i), src, self.count(src)))
            else:
                out.append(ViewItem(str(i), msg, self.count(msg), original=src))
            out.extend(self._inserted(str(i)))
        self._seen.extend(history[self._upto : n])
        self._upto = n
        return list(out)

    def set_message(self, i: int, item: ViewItem) -> None:
        """Raw message ``i`` is now shown as ``item`` (a masked result), in this and later views."""
        self.replace[i] = item.message
        at = self._pos.get(i)
        if at is not None and self._upto > i:
            self._items[at] = item

    def _forget(self) -> None:
        self._items, self._pos, self._upto, self._seen = [], {}, -1, []

    def _inserted(self, after: str) -> list[ViewItem]:
        return [ViewItem(f"note:{after}:{n}", m, self.count(m)) for n, m in enumerate(self.insert.get(after, []))]

    def apply(self, result: CompactionResult) -> None:
        """Make a compaction result sticky (a fold moves the boundary; the rest is kept per key)."""
        self._forget()
        if result.fold is not None:
            self.boundary = int(result.fold.upto_key) + 1
            self.summary = result.fold.summary
            self.replace = {k: v for k, v in self.replace.items() if k >= self.boundary}
            self.drop = {k for k in self.drop if k >= self.boundary}
        present: set[int] = set()
        insert: dict[str, list[Message]] = {}
        prev = "^"
        for it in result.items:
            if it.key.startswith("fold:"):
                prev = "^"
                continue
            if is_synthetic(it):
                insert.setdefault(prev, []).append(it.message)
                continue
            i = int(it.key)
            present.add(i)
            if it.original is not None and it.message != it.original:
                self.replace[i] = it.message
            prev = it.key
        self.insert = insert
        last = max(present, default=self.boundary - 1)
        self.drop |= {i for i in range(self.boundary, last + 1) if i not in present}

    def fold_all(self, history: Sequence[Message], summary: Message) -> None:
        self._forget()
        self.boundary = len(history)
        self.summary = summary
        self.replace.clear()
        self.drop.clear()
        self.insert.clear()


class NonePolicy:
    """The raw history, as the log has it."""

    name = "none"

    def __init__(self, ctx: ReplayContext) -> None:
        self.ctx = ctx

    def before_call(self, history: Sequence[Message]) -> Step:
        return Step(list(history))

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None:
        return None


def _originals(items: Sequence[ViewItem]) -> list[Message]:
    return [it.source for it in items if not it.key.startswith("fold:") and not is_synthetic(it)]


class ClaudeCodePolicy:
    """Auto-compact at window − min(max output, 20k) − 13k: one cumulative summary replaces
    everything, recent reads restored."""

    name = "claude-code"

    def __init__(self, ctx: ReplayContext) -> None:
        self.ctx = ctx
        self.view = StickyView(ctx.counter.count_message)

    def before_call(self, history: Sequence[Message]) -> Step:
        items = self.view.items(history)
        messages = [it.message for it in items]
        if self.ctx.prompt_tokens(messages) < self.ctx.claude_code_threshold():
            return Step(messages)
        originals = _originals(items)
        prior = summary_text(self.view.summary) if self.view.summary is not None else None
        outcome = self.ctx.summarizer.summarize(
            SummaryRequest(messages=originals, prior_summary=prior, budget_tokens=self.ctx.summary_budget())
        )
        files = restore_pieces(
            originals,
            self.ctx.count,
            CLAUDE_CODE_RESTORE_FILES,
            CLAUDE_CODE_RESTORE_PER_FILE,
            min(CLAUDE_CODE_RESTORE_TOTAL, self.ctx.window // 5),
        )
        folded = fold_message(outcome.text, method=outcome.method, extra_sections=["".join(files)])
        pieces = fold_pieces(outcome.text, [files])
        self.ctx.count.joined(folded.text, pieces)
        self.ctx.count.joined(summary_text(folded), pieces[2:])  # the next fold's prior summary
        self.view.fold_all(history, folded)
        return Step([it.message for it in self.view.items(history)], ["fold"])

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None:
        return None


class WolffishPolicy:
    """75% → 50% of the window: head+tail truncation passes first, then one summary if still over."""

    name = "wolffish"
    trigger = 0.75
    target = 0.50
    config = CompactionConfig(strategies=("truncate", "summarize"))

    def __init__(self, ctx: ReplayContext) -> None:
        self.ctx = ctx
        self.view = StickyView(ctx.counter.count_message)

    def before_call(self, history: Sequence[Message]) -> Step:
        items = self.view.items(history)
        fixed = self.ctx.overhead
        if total(items) + fixed < self.ctx.window * self.trigger:
            return Step([it.message for it in items])
        try:
            result = compact(
                items,
                budget=max(1, self.ctx.window - fixed),
                target=max(1, int(self.ctx.window * self.target) - fixed),
                count=self.ctx.counter.count_message,
                config=self.config,
                summarizer=self.ctx.summarizer,
            )
        except CompactionError:
            return Step([it.message for it in items])  # it goes over the window: counted, not hidden
        if not result.changed:
            return Step([it.message for it in items])
        self.view.apply(result)
        events = ["compaction"] + (["fold"] if result.fold is not None else [])
        return Step([it.message for it in self.view.items(history)], events)

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None:
        return None


class MaskingPolicy:
    """Before every call, mask every tool result but the newest ``keep_last`` (sticky)."""

    name = "masking"

    def __init__(self, ctx: ReplayContext, config: MaskConfig | None = None) -> None:
        self.ctx = ctx
        self.config = config or MaskConfig(keep_last=10, min_result_tokens=0, exclude_tools=frozenset())
        self.view = StickyView(ctx.counter.count_message)
        self._kept: dict[str, tuple[str | None, ...]] = {}  # results masking would not shrink (by key), with their tool names

    def candidates(self, items: Sequence[ViewItem]) -> list[int]:
        """Every tool result but the newest ``keep_last``, errors included (an observation is an
        observation), unless already masked."""
        results = [i for i, it in enumerate(items) if it.message.role == "tool" and it.message.is_tool_result]
        old = results[: max(0, len(results) - self.config.keep_last)]
        return [i for i in old if not is_masked(items[i].message)]

    def before_call(self, history: Sequence[Message]) -> Step:
        items = self.view.items(history)
        names = tool_names(items)
        changed = False
        for i in self.candidates(items):
            key = items[i].key
            tools = tuple(names.get(r.call_id) for r in items[i].message.tool_results)
            if self._kept.get(key) == tools:
                continue  # masking it saved nothing before, with the same tool names: it still would not
            new = items[i].with_message(masked_message(items[i], names, self.ctx.counter.count_message), self.ctx.counter.count_message)
            if new.tokens < items[i].tokens:
                items[i] = new
                self.view.set_message(int(new.key), new)
                changed = True
            else:
                self._kept[key] = tools
        return Step([it.message for it in items], ["compaction"] if changed else [])

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None:
        return None


class MicrocompactPolicy(MaskingPolicy):
    """A microcompact in the simple reading: clear old tool results (of any tool) every turn, keep the
    newest 3. Not Claude Code 2.0.x's own rule, which clears only built-in tools' results, only above the
    warning threshold and only when that saves >= 20k (importers/claude_microcompact.py simulates that one
    on imported logs); kept as the plain per-turn baseline."""

    name = "microcompact"

    def __init__(self, ctx: ReplayContext) -> None:
        super().__init__(ctx, MaskConfig(keep_last=3, min_result_tokens=100, exclude_tools=frozenset()))

    def candidates(self, items: Sequence[ViewItem]) -> list[int]:
        """Old results over 100 tokens; error results stay (the compaction mask's rules)."""
        return mask_candidates(items, self.config)


PolicyFactory = Callable[[ReplayContext], Policy]


def _default(ctx: ReplayContext) -> Policy:
    from .session_policy import SessionPolicy

    return SessionPolicy(ctx)


POLICIES: dict[str, PolicyFactory] = {
    "none": NonePolicy,
    "claude-code": ClaudeCodePolicy,
    "wolffish": WolffishPolicy,
    "microcompact": MicrocompactPolicy,
    "masking": MaskingPolicy,
    "default": _default,
}


def serialize(m: Message) -> str:
    """A message as the unit the cache model compares (its provider-visible content)."""
    import json

    d = message_to_dict(m)
    d.pop("meta", None)
    return json.dumps(d, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
