"""Session: the facade an agent uses, and the ONE assembler of what is sent.

Data flow of one call (``build`` is the only code path that produces a payload)::

    store.latest_checkpoint + store.list_active          (I/O)
      → view = [fold summary?] + active messages (+ sticky compaction decisions)
      → compaction.compact(view, budget, ...)            (pure; only when the trigger is crossed)
      → assemble system + tools + view → formats.<provider>.to_payload
    record(response, usage) → store, calibration, gauge, limits, auto-fold at a turn boundary

Compaction decisions are sticky: what was masked, truncated, dropped or inserted is kept in the
store's per-conversation state and re-applied on every build, so between two compaction events
the payload's prefix is byte-identical (provider prompt caches stay warm).

The Session assembles; the steps around it live beside it: session_config.py (SessionConfig,
Build), session_intake.py (tool results clipped at the door), session_sync.py (what ``sync`` keeps
between a client's requests), session_payload.py (the provider's rules, rendering, the degradation
ladder), session_fold.py (a fold's request and summary message), session_calls.py (the call loop
with its reactive retries).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from . import session_calls
from . import sync as resync
from .admission import Admission
from .admission.steering import SteeringQueue, can_steer
from .budget import (
    Budget,
    Decision,
    Gauge,
    LimitHit,
    compute_budget,
    exceeded,
    gauge,
    should_compact,
    should_fold,
)
from .compaction import CompactionResult, ViewItem, compact, total
from .compaction.cache import clear_for_cache
from .compaction.candidates import GrowingCandidates
from .compaction.clearing import ClearHistory
from .compaction.economics import FoldNow, Growth, cost_budget, fold_now, latest_trigger
from .compaction.policy import fold_first
from .compaction.sticky import EMPTY_STATE, StickyViews, sticky_state, sticky_view
from .compaction.view import is_synthetic
from .cost import usage_cost
from .errors import (
    CompactionError,
    ConfigError,
    ContextOverflowError,
    StoreError,
)
from .events import ConversationEvents, Event, EventBus
from .folding import constraints as ledger_mod
from .folding.base import CachedPrefix, Summarizer, SummaryRequest
from .folding.extractive import ExtractiveSummarizer
from .folding.guard import GuardedSummarizer
from .folding.scrubbing import scrub_message
from .fork_refs import short_ref_seqs
from .formats import cache_marks, get_format
from .formats.memo import RenderMemo
from .formats.prepare import unmap_ids
from .incremental import GrowingValidation
from .messages import Message, TextPart, ToolCallPart
from .prefix import payload_units, share_and_reuse
from .session_config import Build, SessionConfig, priced_cache, resolve_limits
from .session_fold import Accounted, cached_prefix, summary_message, summary_request
from .session_intake import Intake
from .session_payload import Renderer, degraded, provider_rules, repair_cost, runtime_message, valid
from .session_sync import FINGERPRINT_KEY, SyncResult, SyncState
from .sink import ConversationSink
from .store.base import Checkpoint, ConversationStore, StoredMessage, TokenCounts
from .tokens import counter_for
from .tokens.base import TokenCounter
from .tokens.calibration import Calibration
from .tokens.fingerprint import counter_key
from .tokens.memo import CounterCount
from .tokens.retention import with_output_count
from .tools import ToolSpec
from .usage import Usage

log = logging.getLogger("contextwindow.session")

STATE_KEY = "compaction"
LEDGER_KEY = "constraints"
CALIBRATION_KEY = "calibration"
IMAGES_KEY = "images"  # image key → offload ref of images already answered about


__all__ = ["FINGERPRINT_KEY", "Build", "Session", "SessionConfig", "SyncResult"]  # (all but Session live in session_config.py and session_sync.py)


class Session:
    def __init__(
        self,
        store: ConversationStore,
        conversation_id: str | None = None,
        *,
        model: str | None = None,
        window: int | None = None,
        max_output: int | None = None,
        system: str | Admission = "",
        tools: Sequence[ToolSpec] = (),
        runtime_block: bool = False,
        format: str = "openai",
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        config: SessionConfig | None = None,
        events: EventBus | None = None,
        title: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self._clock = clock  # seconds, for the wall-time limit (injectable, like the store and the model)
        self.config = config or SessionConfig()
        self.model = model
        self.window, self.max_output = resolve_limits(model, window, max_output)
        self.admission = system if isinstance(system, Admission) else None
        self.system = system.prompt.text if isinstance(system, Admission) else system
        self.tools = list(tools) + (list(system.tools) if isinstance(system, Admission) else [])
        self.runtime_block = runtime_block
        self.format = format
        get_format(format)  # fail early on an unknown format
        self.counter = counter or counter_for(model)
        self.summarizer: Summarizer = summarizer or ExtractiveSummarizer(self.counter.count_text)
        self.id = conversation_id or store.create_conversation(title=title, metadata={"model": model} if model else None)
        # every event carries this conversation's id and is persisted (ctxw sessions events ID)
        self.events = ConversationEvents(events.bus if isinstance(events, ConversationEvents) else events or EventBus(), self.id, self._persist_event)
        if self.admission is not None:
            for ev in self.admission.events():
                self.events.emit(ev.name, **ev.data)
        self.sink = ConversationSink(store, self.id)
        self._short_seqs: frozenset[int] | None = None  # the rows a stub may name by msg-<seq>; None: all (read at the first view)
        self._short_seqs_read = False
        self._counts: dict[str, int] = {}  # message id -> tokens (kept in the store with the rows too)
        self._counts_loaded = False
        self._unsaved_counts: dict[str, int] = {}
        self._intake = Intake(store, self.id, self.sink, self.events)  # tool names by call id; results clipped at the door (session_intake.py)
        self._clip_count = CounterCount(self.counter)  # the clippers' count: the counter's memo, and pieces added up
        self._view_tokens: int | None = None  # the view's tokens at the last build, + what was added since
        self._pinned_head: list[StoredMessage] | None = None
        self._marked_prev: list[Message] = []  # the last build's view messages, before their cache anchors
        cache_marks.check_mode(self.config.cache_marks, "SessionConfig.cache_marks")
        inc = self.config.incremental
        self._sticky_memo: dict[str, Any] = {}  # compacted messages already decoded and counted
        self._sticky_views = StickyViews(enabled=inc)  # the last view, extended when only rows were added
        self._validation = GrowingValidation(enabled=inc)  # the view's structural check, of the new tail only (incremental.py)
        self._renderer = Renderer(incremental=inc)  # the payload, its renders reused; the call ids it renamed (session_payload.py)
        self._candidates = GrowingCandidates(enabled=inc)  # what clearing may take, found for the new items (compaction/candidates.py)
        self._last_reported: int | None = None
        self._appended_since = 0
        self._calibration = self._load_calibration()
        self._last_prompt_estimate: int | None = None
        self._prev_units: list[str] = []
        # the previous build's serialized units, reused for the same message objects
        self._unit_memo: RenderMemo[Any, str] = RenderMemo(by_position=inc)
        self._mask_memo: dict[str, Any] = {}  # cleared results already made (compaction/cache.py)
        self._image_memo: RenderMemo[Message, bool] = RenderMemo(by_position=inc)  # messages holding an image
        self._steering = SteeringQueue()
        self._started = self._clock()
        self.pending_fold: Any = None
        self._rearm: int | None = None  # after a pass, the next one waits for this many tokens
        self._cache_cfg = priced_cache(self.config.cache, model)
        self._growth = Growth()  # history growth per call: when and how deep a pass pays (compaction/economics.py)
        self._fold_now: FoldNow | None = None  # what a fold of the oldest turns would keep (the last build's view)
        self._built_keys: list[str] = []  # the view items of the last build (what the provider has cached)
        self._last_sent: tuple[list[Message], str] | None = None  # the last build's messages and rules (a summary rides its cache; its tokens: _last_prompt_estimate)
        self._turns = 0
        self._tool_calls = 0
        # the assistant's last words before the next user message (folding/answers.py); a conversation this Session
        # created holds none, one it reopens is read once when a user message comes
        self._asked: str | None = None if conversation_id else ""
        self._cost = 0.0
        self._sync = SyncState(store, self.id)  # what sync keeps between a client's requests (session_sync.py)
        self._tokens_used = 0  # input + output of every main call of this Session (the tokens limit)
        self._tools_counted: tuple[list[ToolSpec], int] | None = None  # (self.tools, its tokens)

    # --- setup --------------------------------------------------------------------------
    # --- state kept in the store ----------------------------------------------------------
    def _persist_event(self, ev: Event) -> None:
        self.store.record_event(self.id, ev.name, ev.data, ev.at)

    def _state(self) -> dict[str, Any]:
        """The sticky compaction state, read-only (decoded once per write where the store shares it)."""
        shared = getattr(self.store, "get_state_shared", None)
        st = shared(self.id, STATE_KEY) if shared is not None else self.store.get_state(self.id, STATE_KEY)
        return st if isinstance(st, dict) else dict(EMPTY_STATE)

    def _load_calibration(self) -> Calibration:
        """The correction learned earlier in this conversation (a resumed session keeps it)."""
        saved = self.store.get_state(self.id, CALIBRATION_KEY)
        if isinstance(saved, dict) and saved.get("family") == self.counter.name and isinstance(saved.get("factor"), int | float):
            samples = saved.get("samples")
            return Calibration(family=self.counter.name, factor=float(saved["factor"]), samples=samples if isinstance(samples, int) else 1)
        return Calibration(family=self.counter.name)

    def constraints(self) -> list[ledger_mod.Constraint]:
        return ledger_mod.from_json(self.store.get_state(self.id, LEDGER_KEY))

    def _count(self, m: Message) -> int:
        return self.counter.count_message(m)


    def _count_stored(self, sm: StoredMessage) -> int:
        n = self._counts.get(sm.id)
        if n is None:
            n = self._counts[sm.id] = self._unsaved_counts[sm.id] = self._count(sm.message)
        return n

    def _load_counts(self) -> None:
        """Once per Session: the counts the store keeps for the active messages (a reopened
        conversation reads them instead of recounting); counts made later are written back."""
        if not self._counts_loaded:
            self._counts_loaded = True
            self._counts.update(self.store.active_token_counts(self.id, counter_key(self.counter)))

    def _save_counts(self) -> None:
        if self._unsaved_counts:
            try:
                self.store.put_token_counts(self.id, counter_key(self.counter), self._unsaved_counts)
            except StoreError as exc:  # a cache of derived numbers: never fails a build; tried again next view
                log.debug("token counts not saved (%s); they stay in memory", exc)
                return
            self._unsaved_counts = {}

    # --- adding messages -------------------------------------------------------------------
    def add(self, *messages: Message) -> list[StoredMessage]:
        """Append messages: tool results are clipped at the door, user rules enter the ledger."""
        ready: list[Message] = []
        ledger: list[ledger_mod.Constraint] | None = None  # read from the store only when a user message comes
        ledger_changed = False
        asked = self._asked
        for m in messages:
            m = unmap_ids(m, self._renderer.sent_ids)
            if m.role == "user" and not m.is_tool_result and len(self._steering):
                m = replace(m, parts=(*m.parts, *(TextPart(t) for t in self._steering.drain())))
            if m.is_tool_result and self.config.clip_budget_tokens:  # wherever results are: tool or user role
                m = self._intake.clip(m, self.config.clip_budget_tokens, self._clip_count)
            said = ledger_mod.user_words(m)  # a provisional tail enters once confirmed (sync)
            if said:  # tool results alone say nothing: the ledger is not read for them
                if ledger is None:
                    ledger = self.constraints()
                if asked is None and not m.is_tool_result:  # once per reopened Session: what the store's last messages asked
                    asked = self._asked_in_store()
                new = ledger_mod.update(ledger, said, source=str(len(ledger)), asked=asked or "")
                ledger_changed = ledger_changed or new != ledger
                ledger = new
            # the assistant's question an answer of only a value is about (folding/answers.py), across add() calls
            if asked is not None or m.role == "user" or (m.role == "assistant" and m.text.strip()):
                asked = ledger_mod.asked_after(asked or "", m)
            self._intake.remember_calls(m)
            ready.append(m)
        tokens = [self._count(m) for m in ready]
        stored = self.store.append(self.id, ready, token_counts=TokenCounts(counter_key(self.counter), tuple(tokens)))
        if ledger_changed and ledger is not None:
            self.store.set_state(self.id, LEDGER_KEY, ledger_mod.to_json(ledger))
        for sm, n in zip(stored, tokens, strict=True):
            self._counts[sm.id] = n
            self._appended_since += n
            if self._view_tokens is not None:
                self._view_tokens += n
            self._tool_calls += len(sm.message.tool_calls)
            if sm.message.role == "user" and not sm.message.is_tool_result:
                self._turns += 1
        self._sync.added(stored)
        self._asked = asked
        return stored

    def _asked_in_store(self) -> str:
        """The assistant's last words before a user message added now (read once per Session, then kept in memory)."""
        rows = self.store.list_active(self.id)
        return ledger_mod.asked_before([r.message for r in rows], len(rows))

    def sync(self, history: Sequence[Message], fingerprints: Sequence[str] | None = None) -> SyncResult:
        """Bring the store up to a history the caller holds in full (a client that re-sends its
        whole conversation on every call, e.g. through the proxy). The leading messages the store
        already holds are recognised by fingerprint (by default the content hash of the message as
        given, before any clipping; pass ``fingerprints`` to hash a normalized form) and skipped;
        the rest go through :meth:`add`, so a tool result is clipped once, and later builds
        re-send the same stored text.

        The history's last message, when on the user side, is stored as a provisional *tail*, and a
        reply stored with meta ``provisional: reply`` is provisional too: the next history confirms,
        trims or supersedes them (:mod:`contextwindow.sync`), so a client that appends a changing
        block to every call stays one conversation. A history that does not extend the confirmed
        rows (rewound or rewritten) appends nothing and says where it diverged."""
        plan = self._sync.plan(history, fingerprints, ledger_mod.user_words)
        if plan.match.diverged_at is not None:
            return self._sync.finish(plan, [])
        if plan.decided:
            self._view_tokens = None
        if plan.said:  # confirmed: their rules enter the ledger now (tool results alone say nothing)
            ledger = old = self.constraints()
            for j in plan.match.tails:  # each read with the assistant's question before it in the history
                if said := ledger_mod.user_words(plan.history[j]):
                    ledger = ledger_mod.update(ledger, said, source=str(len(ledger)), asked=ledger_mod.asked_before(plan.history, j))
            if ledger != old:
                self.store.set_state(self.id, LEDGER_KEY, ledger_mod.to_json(ledger))
        return self._sync.finish(plan, self.add(*plan.new) if plan.new else [])

    def _active(self) -> list[StoredMessage]:
        """The active messages as the view uses them: provisional rows a later history superseded
        are left out, trimmed ones cut to what the client kept (:mod:`contextwindow.sync`)."""
        return self._sync.visible(self.store.list_active(self.id), self._count, self._counts)

    def known_prefix(self, fingerprints: Sequence[str], history: Sequence[Message]) -> tuple[int, bool]:
        """How many leading messages of a history the store holds (confirmed, or provisional rows
        it confirms or trims), and whether :meth:`sync` would line it up without a divergence.
        Writes nothing: the same matching as :meth:`sync` (:func:`contextwindow.sync.match`)."""
        return self._sync.known_prefix(fingerprints, history)

    def stores_as_given(self, m: Message, count: Callable[[str], int] | None = None) -> bool:
        """True when :meth:`add` would store ``m`` unchanged: no call id to map back, no steering
        to join, no tool result the clip budget would cut (``count``: a count that gives the same
        answer against the budget, e.g. a bound the proxy takes from bytes). Writes nothing."""
        if unmap_ids(m, self._renderer.sent_ids) is not m or (m.role == "user" and not m.is_tool_result and len(self._steering)):
            return False
        budget = self.config.clip_budget_tokens
        return not (m.is_tool_result and budget) or self._intake.keeps(m, budget, count or self._clip_count)

    def run_retrieve(self, call: ToolCallPart) -> Message:
        """Execute a model's ``retrieve`` call (clip markers and compaction markers alike) and
        return the tool message to add. Its output is bounded and never re-clipped."""
        from .clipping import run_retrieve_call

        part = run_retrieve_call(self.sink, call.id, call.arguments, budget_tokens=self.config.clip_budget_tokens or 4_000)
        return Message("tool", (part,))

    def subagent(self, **kwargs: Any) -> Session:
        """A child Session with its own conversation, budget and compaction, sharing the store.
        What it returns to this session is an ordinary tool result, clipped like any other."""
        opts: dict[str, Any] = {
            "model": self.model, "window": self.window, "max_output": self.max_output, "format": self.format,
            "summarizer": self.summarizer, "counter": self.counter, "config": self.config, "events": self.events,
        }
        opts.update(kwargs)
        child_id = self.store.create_conversation(title=kwargs.pop("title", None), metadata={"subagent_of": self.id}, parent_id=self.id)
        opts.pop("title", None)
        return Session(self.store, child_id, **opts)

    def steer(self, text: str) -> None:
        """Queue a steering message while a turn runs. It joins the next user message, or goes in
        on its own at the next build where no tool call waits for its result (never between a
        call and its result)."""
        self._steering.put(text)

    def _drain_steering(self) -> None:
        if not len(self._steering):
            return
        if not can_steer([sm.message for sm in self.store.list_active(self.id)[-64:]]):
            return
        texts = self._steering.drain()
        self.add(Message("user", tuple(TextPart(t) for t in texts), meta={"steering": True}))

    def _runtime_message(self, messages: Sequence[Message]) -> Message | None:
        """The per-call runtime block, placed after everything cacheable (the end of the view)."""
        return runtime_message(messages) if self.runtime_block and self.admission is not None else None

    # --- limits ---------------------------------------------------------------------------------
    def _limit_hits(self) -> list[LimitHit]:
        return exceeded(
            self.config.limits, turns=self._turns, tokens=self._tokens_used, tool_calls=self._tool_calls,
            cost_usd=self._cost, wall_s=self._clock() - self._started,
        )

    def restart_clock(self) -> None:
        """Start the wall-time limit again. An interactive front end calls it when the person sends a
        request, so the time a chat sits idle between requests does not count against it."""
        self._started = self._clock()

    def check_limits(self) -> None:
        """Raise LimitExceeded when a session limit is already passed: every build checks it, so
        a call over a limit is refused before it is made (and paid), not after."""
        hits = self._limit_hits()
        if hits:
            self.events.emit("limit.exceeded", limit=hits[0].limit, value=hits[0].value, maximum=hits[0].maximum)
            raise hits[0].error()

    # --- the view ----------------------------------------------------------------------------
    def view(self) -> list[ViewItem]:
        """[fold summary?] + active messages with the sticky compaction decisions applied."""
        cp = self.store.latest_checkpoint(self.id)
        self._load_counts()
        # extended from the last view when it only grew (compaction/sticky.py); rows cut by sync are not
        active = self._active()
        transient = self._sync.cuts()
        make = self._sticky_views.view if not transient and not self._sync.client_fps else sticky_view
        if make is sticky_view:  # (its last view may not be extended after rows were cut)
            self._sticky_views.clear()
        items = make(cp.id if cp else None, cp.summary if cp else None, active, self._state(), self._count, self._count_stored, self._sticky_memo)
        if cp is not None:  # pinned means pinned: leading system messages a fold covered stay first
            items = [ViewItem(sm.id, sm.message, self._count_stored(sm), seq=sm.seq) for sm in self._pinned() if sm.seq <= cp.upto_seq] + items
        if not self._short_seqs_read:  # in a fork, rows whose number names another message in a source get msg-<id> (fork_refs.py)
            self._short_seqs, self._short_seqs_read = short_ref_seqs(self.store, self.id), True
        if self._short_seqs is not None:
            short = self._short_seqs
            items = [replace(it, seq=None) if it.seq is not None and it.seq not in short else it for it in items]
        self._save_counts()
        if transient:  # a compaction's replacement of a trimmed row is cut the same way
            items = resync.cut_items(items, transient, self._count)
        return self._elide_answered_images(items)

    def _scrub_stale(self, items: list[ViewItem]) -> list[ViewItem]:
        """``items`` with every value a later user message superseded replaced by ``[updated
        later: …]`` (user and assistant text, fold summaries; the store keeps the originals).
        Applied at compaction events only, and kept as a sticky decision: between two compaction
        events the prefix stays byte-identical (invariant 4), so a prompt cache is never broken
        just for a restated value — the later message that restated it is in the view anyway."""
        ledger = self.constraints()
        if not any(not e.active and e.updated_to for e in ledger):
            return items
        out = []
        for it in items:
            m = scrub_message(it.message, ledger)
            out.append(it if m is it.message else it.with_message(m, self._count))
        return out

    def _elide_answered_images(self, items: list[ViewItem]) -> list[ViewItem]:
        """Images the model already answered about become a marker with a retrieve ref (once; the
        ref map is kept in the store so the marker is the same bytes on every later call)."""
        from .clipping.images import elide_answered_images, has_image

        images = any(self._image_memo.map([it.message for it in items], has_image))
        if not images:
            return items
        seen = dict(self.store.get_state(self.id, IMAGES_KEY) or {})
        messages, new = elide_answered_images([it.message for it in items], seen, self.sink)
        if new:
            self.store.set_state(self.id, IMAGES_KEY, seen)
        out = [it if m is it.message else it.with_message(m, self._count) for it, m in zip(items, messages, strict=True)]
        if new:
            self.events.emit("images.elided", images=new, tokens_before=total(items), tokens_after=total(out))
        return out

    def _pinned(self) -> list[StoredMessage]:
        """The conversation's leading system messages (read once per Session)."""
        if self._pinned_head is None:
            head: list[StoredMessage] = []
            for sm in self.store.list(self.id):
                if sm.message.role != "system":
                    break
                head.append(sm)
            self._pinned_head = head
        return self._pinned_head

    def check(self) -> Decision:
        """The compaction decision the next :meth:`build` would start from, without building:
        O(1) after the first call (the view's tokens at the last build plus what was added since;
        the first call, or one after a fold, reads the view once)."""
        if self._view_tokens is None:
            self._view_tokens = total(self.view())
        last = None if self._last_reported is None else self._last_reported + self._appended_since
        budget = self.budget() if self._cache_cfg is None else self._cost_budget(self.budget(), self._fold_now)[0]
        return should_compact(self._calibration.apply(self._view_tokens), last, budget)

    def _cost_budget(self, budget: Budget, fold: FoldNow | None) -> tuple[Budget, bool]:
        """The budget with the cost-aware trigger and target (compaction/economics.py), and whether
        the pass due is a fold of the oldest turns; ``fold``: what such a fold would keep now (the
        last build's reading when :meth:`check` asks)."""
        assert self._cache_cfg is not None
        out, th = cost_budget(budget, self._growth, self._cache_cfg, self.config.compaction.summary_budget(budget.history_budget), fold)
        return out, th.fold_first

    def _apply(self, result: CompactionResult) -> None:
        """Persist a compaction result: a fold becomes a checkpoint row, the rest sticky state."""
        active = self.store.list_active(self.id)
        floor = -1
        if result.fold is not None:
            floor = next(sm.seq for sm in active if sm.id == result.fold.upto_key)
            meta = {"method": result.fold.method, "ok": result.fold.ok, "in_flight": True}
            self.store.checkpoint(self.id, scrub_message(result.fold.summary, self.constraints()), floor, meta)
            self._sticky_memo.clear()
        self.store.set_state(self.id, STATE_KEY, sticky_state(result.items, [(sm.id, sm.seq) for sm in active], floor))

    # --- building a call ---------------------------------------------------------------------
    def budget(self) -> Budget:
        return compute_budget(self.window, self.max_output, self._system_tokens(), self._tool_tokens(), 0, self.config.budget)

    def _tool_tokens(self) -> int:
        """Tokens of the tool definitions, counted again only when ``self.tools`` is another list
        (a proxied agent sends the same definitions, often thousands of tokens, on every call)."""
        if not self.tools:
            return 0
        memo = self._tools_counted
        if memo is None or memo[0] is not self.tools:
            memo = self._tools_counted = (self.tools, self.counter.count_tools(self.tools))
        return memo[1]

    def _system_tokens(self) -> int:
        return self.counter.count_text(self.system) if self.system else 0

    def build(
        self,
        format: str | None = None,
        *,
        force: bool = False,
        instructions: str | None = None,
        decorate: Callable[[list[Message]], list[Message]] | None = None,
    ) -> Build:
        """The payload for the next call, compacted first when the trigger is crossed (or ``force``).
        ``decorate`` touches the final messages of this call only, right before they are rendered
        (e.g. the cache breakpoints a proxied client placed on this request); it must not change
        what they say."""
        get_format(format or self.format)  # fail early on an unknown format
        self.check_limits()
        self._drain_steering()
        rules = provider_rules(format or self.format)
        items = self.view()
        budget = self.budget()
        folds_first = False  # the cost-aware pass due is a fold of the oldest turns
        if self._cache_cfg is not None:
            self._growth.before(total(items))
            self._fold_now = fold_now(items)
            budget, folds_first = self._cost_budget(budget, self._fold_now)
        if not force and self._cache_cfg is not None:
            items = self._clear_for_cache(items, budget)
        hist = total(items)
        # what the provider repair will add (synthetic results for unanswered calls, a user turn first) counts too
        problems: list[Any] | None = self._validation.validate([it.message for it in items], rules)
        extra = repair_cost([it.message for it in items], rules, self._count) if problems else 0
        last = None if self._last_reported is None else self._last_reported + self._appended_since
        decision = should_compact(self._calibration.apply(hist) + extra, last, budget)
        log.debug(
            "compaction decision: %s; messages=%d tools=%d forced=%s",
            decision.describe(), len(items), len(self.tools), force,
        )
        result: CompactionResult | None = None
        over = decision.over
        if over and not force and self._rearm is not None and decision.effective < self._rearm and decision.effective <= budget.history_budget:
            # hysteresis: the last pass could not get below the trigger; passes one call apart would
            # each break the prompt cache for little, so wait for real growth (the budget still binds)
            log.debug("compaction held: the last pass left %d tokens; re-arms at %d", decision.effective, self._rearm)
            over = False
        if over or force:
            # the pure policy counts with the estimator; scale the goal when the provider counted higher
            scale = (hist + extra) / decision.effective if decision.effective > hist + extra > 0 else 1.0
            self.events.emit("compaction.started", tokens=hist, effective=decision.effective, forced=force, reason=decision.reason)
            started = time.perf_counter()
            try:
                result = compact(
                    items,
                    budget=max(0, int(budget.history_budget * scale) - extra),
                    target=max(0, int(budget.target_tokens * scale) - extra),
                    count=self._count,
                    config=fold_first(self.config.compaction) if folds_first and not force else self.config.compaction,
                    summarizer=Accounted(self._guarded(), self._record_summarizer_usage, self._cached_prefix(items)),
                    constraints=ledger_mod.texts(self.constraints()),
                    superseded=ledger_mod.superseded(self.constraints()),
                    instructions=instructions,
                    force=force,
                )
            except CompactionError as exc:  # no strategy fits: the degradation ladder below answers for this call
                log.debug("compaction could not fit (%s); the degradation ladder takes over", exc)
                result = CompactionResult(items, hist, hist, budget.target_tokens, budget.history_budget, [])
            result = replace(result, duration_s=time.perf_counter() - started)
            scrubbed = self._scrub_stale(result.items)
            if scrubbed != result.items:  # a compaction event: restated values leave the view now
                after = total(scrubbed)
                step = {"method": "stale_values", "tokens_before": result.tokens_after, "tokens_after": after, "messages": sum(a is not b for a, b in zip(scrubbed, result.items, strict=True))}
                result = replace(result, items=scrubbed, tokens_after=after, steps=[*result.steps, step])
            if result.changed:
                self._apply(result)
                self._last_reported = None
                self._appended_since = 0
                items = self.view()
                hist = total(items)
                problems = None  # the view changed: validate it again
                self.events.emit("compaction.applied", **result.report())
            else:
                self.events.emit("compaction.noop", reason="no strategy could lower the count", **result.report())
            gap = max(1, (budget.trigger_tokens - budget.target_tokens) // 2)
            self._rearm = self._calibration.apply(hist) + extra + gap
        self._growth.after(hist, compacted=result is not None and result.changed)
        messages = [it.message for it in items]
        runtime = self._runtime_message(messages)
        if runtime is not None:
            messages.append(runtime)
        view_messages = messages
        messages = valid(messages, rules, self.events.emit, self.id, None if runtime is not None else problems)
        sent = 0
        if result is not None:  # the view's counts (kept with the rows) unless the repair changed the list
            sent = hist if messages is view_messages else sum(self._count(m) for m in messages if m is not runtime)
        shown = hist  # the history tokens this call sends
        if sent > budget.history_budget:
            messages = degraded(items, runtime, rules, budget.history_budget, count=self._count, scrub=self._scrub_stale,
                                ledger=self.constraints, emit=self.events.emit, conversation_id=self.id)
            sent = shown = sum(self._count(m) for m in messages if m is not runtime)
        if sent > budget.history_budget:
            raise CompactionError(
                f"the {rules} payload of conversation {self.id} needs {sent} history tokens after compaction and provider repair; "
                f"the history budget is {budget.history_budget}. "
                "To recover with this same Session: fold it at a turn boundary (Session.fold()), or raise the window; nothing stored is lost.",
                tokens=sent,
                budget=budget.history_budget,
            )
        if decorate is not None:
            messages = decorate(messages)
        anchors: list[int] = []
        if self.config.cache_marks != "off":  # where the provider's cache should end (formats/cache_marks.py)
            n_view = len(messages) - (runtime is not None and bool(messages) and messages[-1] is runtime)
            head = _sticky_head(items) if messages is view_messages else 0
            keep = self._cache_cfg.keep_last if self._cache_cfg is not None else 3
            anchors = cache_marks.session_anchors(messages, self._marked_prev, n_view, head, keep)
            self._marked_prev = messages[:n_view]
        payload, id_map = self._renderer.payload(format or self.format, messages, system=self.system, tools=self.tools, model=self.model, emit=self.events.emit, conversation_id=self.id)
        units = payload_units(payload, self._unit_memo)  # before the breakpoints: what the cache matches on
        at = self._renderer.sent_positions
        if at is not None and self.config.cache_marks != "off":
            payload = cache_marks.place(payload, self.config.cache_marks, model=self.model, anchors=[at[i] for i in anchors if at[i][0] >= 0])
        share, reuse = share_and_reuse(self._prev_units, units)
        self._prev_units = units
        prompt = shown + budget.system + budget.tools
        self._view_tokens = hist
        self._built_keys = [it.key for it in items]
        self._last_sent = (messages, rules)
        self._last_prompt_estimate = prompt
        g = gauge(max(prompt, last or 0) if result is None else prompt, self.window)
        self.events.emit("build", tokens=prompt, calibration=round(self._calibration.factor, 4), messages=len(messages), prefix_share=share, prefix_reuse=reuse, gauge=g.severity, percent=round(g.percent, 1))
        return Build(payload, messages, self.system, prompt, budget, decision, result, share, g, reuse, id_map, tuple(anchors))

    def _clear_for_cache(self, items: list[ViewItem], budget: Budget) -> list[ViewItem]:
        """The per-call step of compaction/cache.py: clear old tool results when the reads it saves
        outweigh the cache write it causes (whatever the trigger says)."""
        assert self._cache_cfg is not None
        built = self._built_keys
        keys = [it.key for it in items]
        k = len(built)
        if keys[:k] != built:  # (the common case, a view that only grew, is settled in C)
            k = next((i for i, (a, b) in enumerate(zip(built, keys, strict=False)) if a != b), min(k, len(keys)))
        history = None
        if self._cache_cfg.clear_rule != "horizon":  # the rules that wait read the calls, the cleared, the window's press (clearing.py)
            g, hist, trigger = self._growth.per_call, total(items), budget.trigger_tokens
            latest = latest_trigger(self.budget().trigger_tokens, budget.history_budget, self._cache_cfg.max_trigger)
            pressed = trigger >= latest and self._calibration.apply(hist + round(g)) >= trigger  # as the pass decision counts
            history = ClearHistory(self._growth.calls + 1, self._growth.cleared, pressed)
        got = clear_for_cache(items, self._count, total(items[k:]), self._cache_cfg, memo=self._mask_memo, candidates=self._candidates, history=history)
        if got is None:
            return items
        cleared, step = got
        self._growth.cleared += int(step["saved"])  # type: ignore[call-overload]
        result = CompactionResult(cleared, total(items), total(cleared), budget.target_tokens, budget.history_budget, [step])
        self._apply(result)
        self._last_reported = None
        self._appended_since = 0
        self.events.emit("compaction.applied", **result.report())
        return self.view()

    # --- after a call ------------------------------------------------------------------------
    def record(self, response: Message | Any, usage: Usage | None = None, *, auto_fold: bool = True) -> StoredMessage | None:
        """Store the model's reply and its usage; update calibration, gauge, limits; fold when due
        (``auto_fold=False`` leaves that to the caller, e.g. to fold in the background)."""
        msg = response if isinstance(response, Message) else getattr(response, "message", None)
        if msg is None and hasattr(response, "text"):
            msg = Message("assistant", (TextPart(str(response.text)),))
        usage = usage or getattr(response, "usage", None)
        if msg is not None and usage is not None:
            msg = with_output_count(msg, usage.output_tokens)  # the reply's re-send cost (tokens/retention.py)
        stored = self.add(msg)[0] if msg is not None else None
        if usage is not None:
            usage = replace(usage, model=usage.model or self.model)
            if usage.cost_usd is None:  # the clients leave it empty: price it so the `$` limit binds
                usage = replace(usage, cost_usd=usage_cost(usage))
            self.store.record_usage(self.id, usage)
            self._last_reported = usage.input_tokens
            self._appended_since = self._count_stored(stored) if stored else 0
            if self._last_prompt_estimate and usage.input_tokens:
                self._calibration = self._calibration.switched(usage.model).observe(self._last_prompt_estimate, usage.input_tokens)
                self.store.set_state(self.id, CALIBRATION_KEY, {"family": self._calibration.family, "factor": self._calibration.factor, "samples": self._calibration.samples})
            self._cost += usage.cost_usd or 0.0
            self._tokens_used += usage.input_tokens + usage.output_tokens
            g = gauge(usage.input_tokens, self.window)
            self.events.emit("gauge", used=g.used, window=g.window, percent=round(g.percent, 1), severity=g.severity)
        for hit in self._limit_hits():  # the next build refuses; the answer paid for is kept
            self.events.emit("limit.reached", limit=hit.limit, value=hit.value, maximum=hit.maximum)
        if auto_fold and self.fold_due():
            self.fold(reason="auto")
        return stored

    def call(self, model: Any, *, max_tokens: int | None = None) -> Any:
        """build → model.complete → record, compacting harder and retrying on a provider overflow."""
        return session_calls.call(self, model, max_tokens)

    def forget_provider_count(self, overflows: int) -> None:
        """No sticky failure: after the reactive retries are spent (or a forced pass could not
        build), the provider's count of a failed request is forgotten, so the next build decides
        from the estimate instead of failing before it calls anyone."""
        if overflows and self._last_reported is not None:
            self._last_reported, self._appended_since, self._rearm = None, 0, None
            self.events.emit("compaction.reactive_exhausted", overflows=overflows)

    def note_overflow(self, exc: ContextOverflowError, attempt: int) -> None:
        """A provider said "too long": its own count (when the error gives one) becomes the last
        reported input, so the forced pass aims by the provider's numbers, not our estimate."""
        info = getattr(exc, "info", None)
        requested = getattr(info, "requested", None)
        if isinstance(requested, int) and requested > 0:
            self._last_reported, self._appended_since = requested, 0
        self.events.emit("compaction.reactive", attempt=attempt + 1, error=str(exc)[:300], provider_count=requested)

    async def abuild(self, format: str | None = None, *, force: bool = False, instructions: str | None = None) -> Build:
        """:meth:`build` in a worker thread: an in-flight summary (a model call) never blocks the loop."""
        import asyncio

        return await asyncio.to_thread(self.build, format, force=force, instructions=instructions)

    async def arecord(self, response: Message | Any, usage: Usage | None = None) -> StoredMessage | None:
        """:meth:`record` without waiting on a fold: a due fold runs in the background."""
        stored = self.record(response, usage, auto_fold=False)
        if self.fold_due():
            self.fold_in_background(reason="auto")
        return stored

    async def acall(self, model: Any, *, max_tokens: int | None = None) -> Any:
        """The async :meth:`call`: build off the loop, ``model.acomplete``, record, fold in the background."""
        return await session_calls.acall(self, model, max_tokens)

    # --- folds -------------------------------------------------------------------------------
    def at_turn_boundary(self) -> bool:
        active = self._active()
        if not active:
            return False
        last = active[-1].message
        return last.role == "assistant" and not last.tool_calls

    def fold_due(self) -> bool:
        """True when the last REAL call's input crossed the fold threshold (never on an estimate
        alone), the turn is over and no steering message waits."""
        if self._last_reported is None or len(self._steering) or (self.pending_fold is not None and not self.pending_fold.done()):
            return False
        return should_fold(0, self._last_reported, self.budget()).over and self.at_turn_boundary()

    def fold_request(self, instructions: str | None = None) -> tuple[SummaryRequest, int]:
        """What the summarizer will read, and the last message seq the fold will cover."""
        items = self.view()
        active = self.store.list_active(self.id)
        if not self.at_turn_boundary():
            raise ConfigError("a fold happens at a turn boundary: the last message must be an assistant reply with no pending tool calls")
        budget_tokens = self.config.compaction.summary_budget(self.budget().history_budget)
        return summary_request(items, instructions, self.constraints(), budget_tokens, self._cached_prefix(items)), active[-1].seq

    def fold(self, instructions: str | None = None, *, reason: str = "manual") -> Checkpoint:
        """Fold the current view into a cumulative checkpoint (``/compact [instructions]``)."""
        request, upto = self.fold_request(instructions)
        self.events.emit("fold.started", reason=reason, messages=len(request.messages))
        outcome = self._guarded().summarize(request)
        cp = self._store_fold(request, upto, outcome, reason)
        if cp is None:  # another writer folded further meanwhile: its fold stands
            latest = self.store.latest_checkpoint(self.id)
            assert latest is not None
            return latest
        return cp

    async def afold(self, instructions: str | None = None, *, reason: str = "manual") -> Checkpoint | None:
        """Fold with the summarizer running in a worker thread, so the event loop keeps going.

        The fold covers the messages present now; messages added meanwhile stay after it. If
        another fold moved the boundary past this one first, this one is discarded
        (``fold.discarded``) and None returned."""
        request, upto = self.fold_request(instructions)
        return await self._afold(request, upto, reason)

    async def _afold(self, request: SummaryRequest, upto: int, reason: str) -> Checkpoint | None:
        import asyncio

        self.events.emit("fold.started", reason=reason, messages=len(request.messages))
        outcome = await asyncio.to_thread(self._guarded().summarize, request)
        return self._store_fold(request, upto, outcome, reason)

    def fold_in_background(self, instructions: str | None = None, *, reason: str = "background") -> Any:
        """Start a fold of the current view as an asyncio task (call from a running loop) and
        return it. The next ``build`` uses the fold once it is stored; until then the budget
        check still protects every call."""
        import asyncio

        request, upto = self.fold_request(instructions)
        self.pending_fold = asyncio.get_running_loop().create_task(self._afold(request, upto, reason))
        return self.pending_fold

    def _cached_prefix(self, items: Sequence[ViewItem]) -> CachedPrefix | None:
        """The last build's prompt and what was stored since, when the view still starts with it (session_fold.py)."""
        return cached_prefix(items, self._built_keys, self._last_sent, self._last_prompt_estimate, self.system, self.tools)

    def _guarded(self) -> GuardedSummarizer:
        """The summarizer as build()/fold() use it: under the total deadline, its brief held to its budget."""
        return GuardedSummarizer(self.summarizer, self.counter.count_text, deadline_s=self.config.model_call_deadline_s)

    def _record_summarizer_usage(self, usages: Sequence[Usage]) -> None:
        for u in usages:
            self.store.record_usage(self.id, replace(u, role="summarizer"))

    def _store_fold(self, request: SummaryRequest, upto: int, outcome: Any, reason: str) -> Checkpoint | None:
        self._record_summarizer_usage(outcome.usages)  # paid for, stored or not
        latest = self.store.latest_checkpoint(self.id)
        if latest is not None and latest.upto_seq >= upto:
            self.events.emit("fold.discarded", reason=reason, upto_seq=upto, boundary=latest.upto_seq)
            return None
        items = self.view()
        before = total(items)
        covered = [sm for sm in self.store.list_active(self.id) if sm.seq <= upto]
        summary = summary_message(request, outcome, items, covered, self._clip_count, self.config, self.budget().history_budget, self.constraints())
        cp = self.store.checkpoint(self.id, summary, upto, {"method": outcome.method, "ok": outcome.ok, "reason": reason})
        self.store.set_state(self.id, STATE_KEY, dict(EMPTY_STATE))
        self._sticky_memo.clear()
        self._view_tokens = None
        self._last_reported = None
        self._appended_since = 0
        self._rearm = None
        after = total(self.view())
        skipped = outcome.extra.get("model_skipped")
        if skipped:  # the model summarizer asked no model (folding/anchor.py): said, not only seen as method="extractive"
            self.events.emit("summarizer.model_skipped", reason=str(skipped), upto_seq=upto)
        self.events.emit(
            "fold.applied", reason=reason, method=outcome.method, ok=outcome.ok, error=outcome.error,
            tokens_before=before, tokens_after=after, summarizer_calls=outcome.calls, upto_seq=upto,
            **({"model_skipped": str(skipped)} if skipped else {}),
        )
        return cp

    # --- accounting --------------------------------------------------------------------------
    def gauge(self) -> Gauge:
        used = self._last_reported + self._appended_since if self._last_reported is not None else total(self.view()) + self.budget().system
        return gauge(used, self.window)

    def spend(self) -> dict[str, dict[str, Any]]:
        return self.store.usage_by_role(self.id)



def _sticky_head(items: Sequence[ViewItem]) -> int:
    """How many leading view items stay put until the next fold: the caller's system messages,
    then a fold's summary and the markers before the first stored message."""
    n = 0
    while n < len(items) and (items[n].message.role == "system" or is_synthetic(items[n])):
        n += 1
    return n


