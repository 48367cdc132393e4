"""The proxy's conversations: one store conversation per identified client conversation, each
held by a :class:`~contextwindow.session.Session`, and the rewrite of one request through it.

``prepare`` (blocking; the server runs it in a worker thread under the conversation's lock):

1. the client's history → messages (:mod:`contextwindow.formats`), cache breakpoints set aside
   and fingerprints taken (:mod:`.breakpoints`);
2. identity (:mod:`.identity`) → the Session; ``Session.sync`` appends only what the store does
   not hold yet (tool results clipped at the door, once). A history that no longer extends the
   stored one (the client rewound, or compacted on its own) continues in a new store conversation
   whose parent is the old one: nothing stored is rewritten;
3. ``Session.build`` — the one assembler — compacts when the trigger is crossed (sticky decisions:
   the prefix stays byte-identical between compaction events) and renders the history;
4. the client's body with its history keys replaced. When that equals what the client sent, the
   client's raw bytes go upstream untouched.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..budget import Limits
from ..errors import ConfigError, ContextWindowError, UnknownModelError
from ..formats import get_format
from ..formats.prepare import unmap_ids
from ..messages import Message, TextPart
from ..session import Session, SessionConfig
from ..store.base import ConversationStore, group_commits_of
from ..sync import KIND_KEY, REPLY
from ..usage import Usage
from . import bound, breakpoints, resend
from .history import LazyHistory, exact_body, hash_json, json_key, long_number, normalize
from .identity import HEAD_LOOKUP, Identity, identify
from .pricing import price
from .reply import reply_message
from .request import Answer, LockMoved, Parsed, Prepared, Quick, Request, check_history

__all__ = ["Answer", "Conversations", "LockMoved", "Parsed", "Prepared", "Quick", "Request", "check_history", "price"]

log = logging.getLogger("contextwindow.proxy")

META_KEY = "proxy"
TOOL_SETS = 32  # distinct tool definition lists kept converted (agents send theirs on every request)
SENT_BYTES = 64 * 1024 * 1024  # request bodies kept in all, for the next request to extend (proxy/resend.py)
DEFAULT_RESERVE = 4_096  # output reserve when the request names no max_tokens (capped by the model's maximum)


class Conversations:
    """Identity key → Session, bounded (least recently used dropped from memory, never from the store)."""

    def __init__(
        self,
        store: ConversationStore,
        *,
        window: int | None = None,
        clip_budget: int | None = 4_000,
        max_live: int = 512,
        config: SessionConfig | None = None,
    ) -> None:
        self.store = store
        self.window = window
        # a relay, not an agent: the client's own loop decides when to stop, and a live Session here
        # outlives the default 30-minute / 1M-token session limits, so none apply unless configured
        # and the client's own cache breakpoints are relayed as they came: the proxy adds none of its own
        self.config = replace(config or SessionConfig(limits=Limits()), clip_budget_tokens=clip_budget, cache_marks="off")
        self.max_live = max_live
        self._live: OrderedDict[str, Session] = OrderedDict()
        self._index: dict[str, str] | None = None  # key → newest conversation id
        # conversation id → the key of the lock its requests take (proxy/locks.py): the identity key
        # of the request that created it (held while it did), a fork's parent's. A conversation with
        # no entry (found in the store, or its entry forgotten) takes its own id. An entry is set
        # once, when the conversation is created, and forgotten only while no request or record
        # holds, waits for or is about to take its key (``lock_in_use``), so every request of a
        # conversation running at one time takes one lock; at most ``max_live`` entries are kept
        # beyond those in use (:meth:`_forget_lock_keys`)
        self._lock_of: dict[str, str] = {}
        self._sweep_at = max_live  # entries at which the idle ones are forgotten
        self.lock_in_use: Callable[[str], bool] = _unused  # the server's lock table says (ProxyServer binds it)
        self._guard = threading.Lock()  # the maps below; never held across store I/O (see _indexed)
        self._creating = threading.Lock()  # one conversation created, or the index read from the store, at a time
        self._default_out: dict[str, int] = {}  # conversation id → output reserve when a request names none
        self._pristine: set[str] = set()  # conversations whose last build was the client's own history
        self._reported: set[str] = set()  # conversations whose Session has a provider-reported prompt size
        self._tools: OrderedDict[tuple[str, bytes], list[Any]] = OrderedDict()  # a request's tools (JSON) → ToolSpecs
        self._sent: OrderedDict[str, resend.Sent] = OrderedDict()  # identity key → its last request (proxy/resend.py)
        self._sent_bytes = 0
        self.reread = [0, 0]  # requests whose history extended the previous one by its bytes (proxy/resend.py), and the others
        self._losses = 0  # the store's lost group commits seen (store/sqlite.py): live state is dropped on a new one
        self._commits = group_commits_of(store)

    def warm(self) -> None:
        """Load what the first request would otherwise wait for (the model registry, the index)."""
        from .. import clipping  # noqa: F401  (the clippers and their patterns: ~60 ms of imports the first tool result paid)
        from ..formats import rules
        from ..models import registry
        from ..tokens import counter_for

        registry()
        counter_for("gpt-4o-mini").count_text("warm")
        rules.check("openai", {"messages": []})  # the rule modules, imported on first use
        self._indexed()

    # --- finding conversations ----------------------------------------------------------------
    # ``_guard`` is held for look-ups and updates of the maps only, never across store I/O: the
    # event loop takes it for every request (lock_key, quick, parse), so a worker thread reading or
    # writing the store under it would stall every other conversation's requests meanwhile. A
    # conversation is created under ``_creating`` instead (in a worker thread; the loop takes it only
    # to read the index again after a lost group commit): its identity is looked up again there, so
    # two requests of one identity never create two conversations.
    def _indexed(self) -> dict[str, str]:
        """Identity key → newest conversation id, read from the store first if it is not loaded
        (that read outside ``_guard``, and under ``_creating``: no conversation is then in the store
        but not yet in the maps, which would give it its own id as its lock key for a while)."""
        index = self._index
        if index is not None:
            return index
        with self._creating:
            loaded = None if self._index is not None else _index_of(self.store.list_conversations())
            with self._guard:
                if self._index is None:
                    self._index = loaded
                assert self._index is not None
                return self._index

    def _mark(self, flags: set[str], conversation_id: str) -> None:
        """Set a conversation's flag while its Session is live (one evicted meanwhile keeps none)."""
        with self._guard:
            if conversation_id in self._live:
                flags.add(conversation_id)

    def held(self) -> dict[str, int]:
        """What is held in memory: live Sessions, conversations' lock keys, and the per-conversation
        entries kept beside the live Sessions (output reserves, the no-build flags), which leave
        with their Session (a diagnostic)."""
        with self._guard:
            return {"live": len(self._live), "lock_keys": len(self._lock_of),
                    "per_live": max(len(self._default_out), len(self._pristine), len(self._reported))}

    def _forget_lock_keys(self) -> None:
        """Forget the lock keys no request or record uses (under ``_guard``): those conversations
        then lock under their own ids. Done when the entries pass ``_sweep_at``; the next time
        at twice what is left (at least ``max_live``), so the work is constant per creation."""
        in_use = self.lock_in_use
        for cid, key in list(self._lock_of.items()):
            if not in_use(key) and not in_use(cid):
                del self._lock_of[cid]
        self._sweep_at = max(self.max_live, 2 * len(self._lock_of))

    def lock_key(self, key: str) -> str:
        """The key of the lock a request of identity ``key`` takes: its conversation's, where the
        identity names one, else the identity itself (the conversation the request may create
        takes that key as its lock's). One conversation, one lock, whichever identity a request
        comes under (a first request's head and the alias its later requests use; an identity
        whose conversation was created while the request waited)."""
        index = self._indexed()
        with self._guard:
            return self._lock_for(key, (self._index if self._index is not None else index).get(key))

    def _lock_for(self, key: str, cid: str | None) -> str:
        """The lock key of identity ``key`` whose conversation is ``cid`` (None: not made yet); under ``_guard``."""
        return key if cid is None else self._lock_of.get(cid, cid)

    def _find(self, ident: Identity, lock: str | None) -> tuple[str | None, Session | None]:
        """The identity's conversation (None: none yet) and its live Session; under ``_guard``. A
        conversation that is not ``lock``'s raises :class:`LockMoved`."""
        index = self._index or {}
        cid = index.get(ident.key)
        if lock is not None and self._lock_for(ident.key, cid) != lock:
            raise LockMoved(f"conversation of {ident.key[:24]} moved to another lock while the request waited")
        live = self._live.get(cid) if cid is not None else None
        if live is not None:
            self._live.move_to_end(live.id)
        return cid, live

    def _session(self, ident: Identity, req: Request, history: Sequence[Message], *, new: bool = False, parent: str | None = None,
                 lock: str | None = None) -> Session:
        cid: str | None = None
        if not new:
            while True:
                self._indexed()
                with self._guard:
                    if self._index is None:  # dropped after a lost group commit meanwhile: read again
                        continue
                    cid, live = self._find(ident, lock)
                    if live is not None:
                        return live
                    break
        model = req.model
        window, known_model = self.window, True
        if model:
            try:
                from ..models import get_model

                spec = get_model(model)
                window = window or spec.context_window
            except (UnknownModelError, ConfigError):
                known_model = False
        if cid is None:
            cid = self._create(ident, req, history, new=new, parent=parent, lock=lock, window=window)
        s = Session(  # reads the conversation's state from the store: outside the guard
            self.store, cid, model=model if known_model else None, window=window, format=req.protocol.name, config=self.config
        )
        s.model = model  # priced and recorded under the name the client used
        with self._guard:
            live = self._live.get(cid)
            if live is not None:  # made meanwhile by a caller that holds no lock (the server's requests hold one)
                self._live.move_to_end(cid)
                return live
            self._default_out[cid] = min(s.max_output, DEFAULT_RESERVE)
            self._live[cid] = s
            while len(self._live) > self.max_live:
                gone, _ = self._live.popitem(last=False)
                # what is kept beside a live Session leaves with it (it is learned again if the conversation comes back)
                self._default_out.pop(gone, None)
                self._pristine.discard(gone)
                self._reported.discard(gone)
        return s

    def _create(self, ident: Identity, req: Request, history: Sequence[Message], *, new: bool, parent: str | None,
                lock: str | None, window: int | None) -> str:
        """A new store conversation for ``ident`` (a fork of ``parent`` when ``new``), made known
        to the index and given its lock key; one at a time (``_creating``). A conversation of the
        identity made meanwhile is returned instead (or raises :class:`LockMoved`, as in :meth:`_find`)."""
        with self._creating:
            if not new:
                if self._index is None:  # dropped after a lost group commit meanwhile: this identity may be stored
                    loaded = _index_of(self.store.list_conversations())  # (under _creating: _indexed would wait on it)
                    with self._guard:
                        if self._index is None:
                            self._index = loaded
                with self._guard:
                    cid, _ = self._find(ident, lock)
                if cid is not None:
                    return cid
            own: dict[str, Any] = {"key": ident.key, "source": ident.source, "protocol": req.protocol.name}
            if ident.aliases:
                own["aliases"] = list(ident.aliases)
            if window:
                own["window"] = window
                own["window_source"] = "proxy --window" if self.window else "registry"
            meta: dict[str, Any] = {META_KEY: own}
            if req.model:
                meta["model"] = req.model
            cid = self.store.create_conversation(title=_title(history), metadata=meta, parent_id=parent)
            with self._guard:
                # a fork keeps its parent's lock (the request forking it holds that one)
                self._lock_of[cid] = self._lock_of.get(parent, parent) if parent is not None else lock or ident.key
                if len(self._lock_of) > self._sweep_at:
                    self._forget_lock_keys()
                if self._index is not None:  # else read again from the store, this one included
                    self._index[ident.key] = cid
                    for a in ident.aliases:
                        self._index.setdefault(a, cid)
            return cid

    def _after_losses(self) -> None:
        """A group commit the store lost (it counts them) took writes the live Sessions think are
        stored: drop them and the index, so the conversations reload from the store as it is
        (the clients' next histories bring the lost messages back)."""
        losses = self._commits.losses if self._commits is not None else 0
        if losses != self._losses:
            with self._guard:
                log.error("the store lost a group of writes; %d live conversations reload from it", len(self._live))
                self._losses = losses
                self._live.clear()
                self._index = None
                self._pristine.clear()
                self._reported.clear()

    # --- one request -------------------------------------------------------------------------
    def parse(self, req: Request) -> Parsed:
        """The request's history, fingerprinted and identified. Where the conversation's previous
        request is a byte-for-byte prefix of this one's history (:mod:`.resend`), its messages'
        fingerprints, long-integer scan and rules check are taken from it, not made again."""
        check_history(req)
        fmt = req.protocol.name
        if fmt in ("openai", "anthropic") and resend.orjson is not None:
            got = self._parse_resent(req)
            if got is not None:
                return got
        if not req.exact and long_number(req.raw):
            req = replace(req, body=exact_body(req.raw), exact=True)
        history, fps, marks = normalize(req.body, fmt)
        return Parsed(req, history, fps, marks, identify(req.headers, req.body, history, fps, fmt))

    def _parse_resent(self, req: Request) -> Parsed | None:
        fmt = req.protocol.name
        stripped, found = breakpoints.strip_payload(req.body, fmt)
        items = stripped["messages"]
        system = stripped.get("system") if fmt == "anthropic" else None
        lead = [] if system is None else [hash_json({"system": system})]
        history = LazyHistory(fmt, items, system)
        # up to the first message that is the user's once converted, as identity.py reads it (an
        # Anthropic user turn of tool results alone is a tool message, not the user's)
        n = next((i + 1 for i in range(min(len(items), HEAD_LOOKUP - len(lead))) if history[len(lead) + i].role == "user"), None)
        if n is None:
            return None
        fps = lead + [hash_json(d) for d in items[:n]]
        ident = identify(req.headers, req.body, history, fps, fmt)
        with self._guard:
            prev = self._sent.get(ident.key)
        wire = req.body["messages"]
        sp = resend.splice(prev, req.raw) if prev is not None else None
        if sp is not None and not resend.confirm(sp, wire):
            sp = None
        reused, ends = 0, None
        if sp is not None:  # the previous body with messages spliced in
            reused = sp.prev.count
            # the spliced-in bytes are all that is new (no digit run crosses the "}", "," and "]" around them)
            clean = sp.prev.clean and not long_number(sp.new)
            if sp.prev.ends is not None:
                ends = resend.message_ends(req.raw, wire, sp.prev.start, sp.prev.ends)
        elif prev is not None and prev.ends is not None:  # the previous body's first messages, then others
            reused, at = resend.prefix(prev, req.raw)
            # a system prompt that came or went after the messages moves every fingerprint by one: none taken over
            reused = min(reused, len(wire)) if prev.lead == len(lead) else 0
            # a digit run crossing the shared prefix's end has 19 digits from 19 bytes before it on
            clean = reused > 0 and prev.clean and not long_number(req.raw[max(0, at - 19) :])
            ends = resend.message_ends(req.raw, wire, prev.start, prev.ends[:reused]) if reused else resend.message_ends(req.raw, wire)
        else:
            clean = False
            if prev is None:  # a conversation's first request: whether it writes its history as orjson does
                ends = resend.message_ends(req.raw, wire)
        if not req.exact and not clean:
            if long_number(req.raw):
                return None  # read again by the stdlib, whole
            clean = True
        if reused:
            old = sp.prev if sp is not None else prev
            assert old is not None
            known = len(lead) + reused
            if known > len(fps):
                fps.extend(old.fingerprints[len(fps) : known])
        fps.extend(hash_json(d) for d in items[len(fps) - len(lead) :])
        anchor = sp.at if sp is not None else ends[1][-1] if ends is not None and ends[1] else None
        sent = resend.Sent(req.raw, len(items), tuple(fps), clean, anchor,
                           start=ends[0] if ends is not None else 0, ends=ends[1] if ends is not None else None, lead=len(lead))
        self.reread[0 if reused else 1] += 1
        self._remember(ident.key, sent)
        marks = breakpoints.marks_by_fingerprint(history, fps, found, fmt)
        # only a splice leaves everything but the new messages as it was (the tools, the rules' state)
        return Parsed(req, history, fps, marks, ident, sent, reused, sp.prev if sp is not None else None)

    def _remember(self, key: str, sent: resend.Sent) -> None:
        with self._guard:
            old = self._sent.pop(key, None)
            self._sent_bytes += len(sent.raw) - (len(old.raw) if old is not None else 0)
            self._sent[key] = sent
            while self._sent and (len(self._sent) > self.max_live or self._sent_bytes > SENT_BYTES):
                _, gone = self._sent.popitem(last=False)
                self._sent_bytes -= len(gone.raw)

    def quick(self, parsed: Parsed, lock: str | None = None) -> Quick | None:
        """The request goes upstream as sent, with no build, decided without writing anything; or
        None (then :meth:`prepare`). It holds when the conversation's Session is live and its last
        build was the client's own history (nothing clipped or compacted, no repair), the history
        extends what is stored, every new message would be stored as given (no tool result over
        the clip budget), the provider's last reported prompt plus everything appended since, new
        messages counted, stays under 90% of the compaction trigger, and the client's body passes
        the provider rules. :meth:`commit` then stores the new messages (the server runs it once
        the request is on its way upstream). The Session is not told about such a request's
        usage (its calibration learns from builds only); the store is. ``lock``: the key of the
        lock the caller holds; None (then :meth:`prepare`) when the conversation is not its."""
        self._after_losses()
        with self._guard:
            cid = (self._index or {}).get(parsed.identity.key)
            session = self._live.get(cid) if cid is not None and (lock is None or self._lock_for(parsed.identity.key, cid) == lock) else None
            if session is not None:
                self._live.move_to_end(session.id)
        if session is None or session.id not in self._pristine or session.id not in self._reported:
            return None
        known, extends = session.known_prefix(parsed.fingerprints, parsed.history)
        if not extends:
            return None
        self._configure(session, parsed)
        new = parsed.history[known:]
        # a byte-level BPE counter is not run on what the request adds: its bytes bound its tokens
        # (proxy/bound.py), and the exact count is the commit's, after the forward
        counter, budget = session.counter, self.config.clip_budget_tokens
        count = bound.capped(counter, budget)
        if not all(session.stores_as_given(m, count) for m in new):
            return None
        most = [bound.message_bound(counter, m) for m in new]
        pending = sum(n for n in most if n is not None)
        if None in most or not self._under(session, pending):  # no bound, or not under the trigger by it: the exact count decides
            pending = sum(counter.count_message(m) for m in new)
        if not self._fits(session, parsed, pending):
            return None
        return Quick(parsed, session, known)

    def stored_already(self, parsed: Parsed, lock: str | None = None) -> Prepared | None:
        """A history the identity's conversation already holds all of, followed by more (a prefix
        of it: the lean front's hand-over of request N reaching the worker after request N+1 was
        stored, e.g. after a timed-out post): nothing to store, and not a rewind (which
        :meth:`prepare` continues in a new conversation, and is right to for a client that sends
        it, as the aiohttp front only ever sees one). None otherwise. Only for histories that went
        upstream as sent already (the worker's store)."""
        self._after_losses()
        with self._guard:
            cid = (self._index or {}).get(parsed.identity.key)
        if cid is None:
            return None
        session = self._session(parsed.identity, parsed.request, parsed.history, lock=lock)
        known, extends = session.known_prefix(parsed.fingerprints, parsed.history)
        if extends or known != len(parsed.history):
            return None
        return Prepared(data=parsed.request.raw, changed=False, conversation_id=session.id, identity=parsed.identity, known=known,
                        tokens=session.gauge().used, fast=True, late=True)

    def front_room(self, conversation_id: str) -> tuple[int, float, bool] | None:
        """What the lean front (proxy/fastpath.py) may send of a conversation's next request as
        sent: ``(tokens, per, whole)``, ``per`` the tokens per byte that bound the Session's counter
        (:func:`bound.per_byte`). Once the provider reported a prompt (``whole`` False): the tokens
        the next request may add and stay under 90% of the trigger (as :meth:`_under`). Before that
        (its first answer is still being recorded; ``whole`` True): the tokens the whole request's
        bytes times ``per`` must stay under 90% of the trigger. The worker's counter counts no more
        than bytes; what the provider adds that the body does not hold (a hidden tool-use system
        prompt, server tools) is covered by the trigger's 10% margin only: past it, the compaction
        comes one request late, and the worker counts that request ``misjudged`` (never a bad
        request). None when the next request must be decided on the Session (not live, last build
        not the client's own, or a counter with no such bound)."""
        with self._guard:
            session = self._live.get(conversation_id)
        if session is None or conversation_id not in self._pristine:
            return None
        per = bound.per_byte(session.counter)
        if per is None:
            return None
        b = session.budget()
        if conversation_id not in self._reported:
            return max(-1, math.ceil(0.9 * b.trigger_tokens) - 1), per, True
        return max(-1, math.ceil(0.9 * b.trigger_tokens - session.gauge().used + b.tools) - 1), per, False

    def commit(self, q: Quick) -> Prepared:
        """Store what :meth:`quick` found new (one transaction); the request went upstream as sent."""
        parsed, session = q.parsed, q.session
        res = session.sync(parsed.history, parsed.fingerprints)
        if res.diverged_at is not None or any(sm.message.parts != m.parts for sm, m in zip(res.added, parsed.history[res.known :], strict=False)):
            # quick() saw otherwise under the same lock: only a store another writer changed gets here
            log.warning("conversation %s: the store changed under a request forwarded as sent; the next one is built", session.id)
            self._pristine.discard(session.id)
        return Prepared(data=parsed.request.raw, changed=False, conversation_id=session.id, identity=parsed.identity, known=res.known,
                        added=len(res.added), tokens=session.gauge().used, fast=True)

    def _configure(self, session: Session, parsed: Parsed) -> None:
        """The request's own output reserve and tools, for the budget."""
        req = parsed.request
        reserve = req.protocol.reserve(req.body) or self._default_out.get(session.id, DEFAULT_RESERVE)
        session.max_output = min(reserve, max(1, session.window // 2))
        prev = parsed.prev
        if prev is not None and prev.tools is not None:  # everything but the new messages is the previous body's bytes
            specs = prev.tools
        else:
            specs = self._tool_specs(req)
        if parsed.sent is not None:
            parsed.sent.tools = specs
        session.tools = specs

    def _tool_specs(self, req: Request) -> list[Any]:
        """The request's tools as ToolSpecs; the same definitions give the same list (shared by
        conversations, a few kept), so the Session counts them once, not on every request."""
        raw = req.body.get("tools")
        if not raw:
            return get_format(req.protocol.name).tools_from_payload(req.body)
        key = (req.protocol.name, json_key(raw))
        with self._guard:
            specs = self._tools.get(key)
            if specs is not None:
                self._tools.move_to_end(key)
                return specs
        specs = get_format(req.protocol.name).tools_from_payload(req.body)
        with self._guard:
            self._tools[key] = specs
            while len(self._tools) > TOOL_SETS:
                self._tools.popitem(last=False)
        return specs

    def _fits(self, session: Session, parsed: Parsed, pending: int = 0) -> bool:
        """``pending`` more tokens keep the conversation under 90% of the trigger, and the body
        passes the provider rules as sent."""
        return self._under(session, pending) and self._valid(parsed)

    @staticmethod
    def _under(session: Session, pending: int) -> bool:
        """``pending`` more tokens keep the conversation under 90% of the trigger."""
        b = session.budget()
        return session.gauge().used + pending - b.tools < 0.9 * b.trigger_tokens

    @staticmethod
    def _valid(parsed: Parsed) -> bool:
        """The body passes the provider rules. A Chat history that extends a previous request's
        valid one by its bytes is checked for its new messages only (the tail alone, and no call
        id the previous list used: what :class:`~contextwindow.incremental.GrowingPayloadCheck`
        does for builds); the answer is the whole check's."""
        from ..formats.rules import check

        req, sent = parsed.request, parsed.sent
        if req.protocol.name != "openai" or sent is None:
            return not check(req.protocol.name, req.body)
        msgs = req.body["messages"]
        known = parsed.prev.call_ids if parsed.prev is not None else None
        if known is not None:
            tail = msgs[parsed.reused :]
            ids = resend.call_ids(tail)
            if tail and not check("openai", {"messages": tail}) and known.isdisjoint(ids):
                sent.call_ids = known | frozenset(ids)
                return True
        if check("openai", req.body):
            return False
        sent.call_ids = frozenset(resend.call_ids(msgs))
        return True

    def prepare(self, parsed: Parsed, *, force: bool = False, lock: str | None = None) -> Prepared:
        """What goes upstream for ``parsed`` (blocking; may compact: the server runs it in a worker
        thread). ``lock``: the key of the lock the caller holds (:meth:`lock_key`); a conversation
        that is no longer that lock's raises :class:`LockMoved` before anything is written."""
        req, history, fps, marks, ident = parsed.request, parsed.history, parsed.fingerprints, parsed.marks, parsed.identity
        self._after_losses()
        session = self._session(ident, req, history, lock=lock)
        restarted = False
        res = session.sync(history, fps)
        if res.diverged_at is not None:
            log.info("conversation %s: the client's history diverges at message %d; continuing in a new conversation", session.id, res.diverged_at)
            session = self._session(ident, req, history, new=True, parent=session.id)
            res = session.sync(history, fps)
            restarted = True
        self._configure(session, parsed)
        if not force and not restarted and self._quiet(session, parsed, res):
            return Prepared(data=req.raw, changed=False, conversation_id=session.id, identity=ident, known=res.known,
                            added=len(res.added), tokens=session.gauge().used, fast=True)
        built = session.build(req.protocol.name, force=force, decorate=lambda ms: breakpoints.apply(ms, marks, req.protocol.name))
        body = dict(req.body)
        for k in req.protocol.history_keys:
            if k in built.payload:
                body[k] = built.payload[k]
            else:
                body.pop(k, None)
        same = all(body.get(k) == req.body.get(k) for k in req.protocol.history_keys) and not force
        data = req.raw if same else json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        clipped = sum(1 for sm in res.added for p in sm.message.tool_results if "ofl_" in p.text)
        compacted = built.compaction is not None and built.compaction.changed
        if same and not compacted:
            self._mark(self._pristine, session.id)
        else:
            self._pristine.discard(session.id)
        return Prepared(
            data=data, changed=not same, conversation_id=session.id, identity=ident, known=res.known, added=len(res.added),
            clipped=clipped, compacted=compacted, tokens=built.tokens, restarted=restarted,
            id_map=dict(built.id_map),
        )

    def _quiet(self, session: Session, parsed: Parsed, res: Any) -> bool:
        """:meth:`quick`'s test, after the sync (a Session that was not live: its messages are stored now)."""
        if session.id not in self._pristine or session.id not in self._reported:
            return False
        for sm, m in zip(res.added, parsed.history[res.known :], strict=True):
            if sm.message.parts != m.parts:  # clipped at the door
                self._pristine.discard(session.id)
                return False
        return self._fits(session, parsed)

    def record(
        self, conversation_id: str, usage: Usage | None, *, fast: bool = False, answer: Answer | None = None,
        id_map: Mapping[str, str] | None = None,
    ) -> None:
        """One answer: the model's reply (read from ``answer``) into the store as a provisional row
        (the client's next history confirms or supersedes it, :mod:`contextwindow.sync`), and its
        usage, priced, into the conversation's ledger; after a build also into its Session
        (calibration against that build's estimate, gauge)."""
        with self._guard:
            s = self._live.get(conversation_id)
        reply = self._reply(conversation_id, answer, id_map)
        if usage is not None:
            usage = price(usage)
        if s is None:  # the Session left memory meanwhile: the rows go in as they are
            if reply is not None:
                self.store.append(conversation_id, [reply])
            if usage is not None:
                self.store.record_usage(conversation_id, usage)
            return
        if fast or usage is None:
            if reply is not None:
                s.add(reply)
            if usage is not None:
                self.store.record_usage(conversation_id, usage)
            return
        self._mark(self._reported, conversation_id)
        try:
            s.record(reply, usage, auto_fold=False)
        except ContextWindowError as exc:  # a session limit: the proxy reports, the client's agent decides
            log.warning("conversation %s: %s", conversation_id, exc)

    @staticmethod
    def _reply(conversation_id: str, answer: Answer | None, id_map: Mapping[str, str] | None) -> Message | None:
        if answer is None:
            return None
        msg, why = reply_message(answer.protocol, answer.data, streaming=answer.streaming)
        if msg is None:
            log.info("conversation %s: the reply is not stored (%s); it enters when the client sends it back", conversation_id, why)
            return None
        if id_map:
            msg = unmap_ids(msg, dict(id_map))
        return replace(msg, meta={**msg.meta, KIND_KEY: REPLY})


def _unused(key: str) -> bool:
    return False


def _index_of(infos: Iterable[Any]) -> dict[str, str]:
    """The proxy's index from the store's conversations (newest first: the first seen wins). Pure."""
    index: dict[str, str] = {}
    aliases: list[tuple[str, str]] = []
    for info in infos:
        meta = info.metadata.get(META_KEY) if isinstance(info.metadata, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("key"), str):
            index.setdefault(meta["key"], info.id)
            aliases.extend((a, info.id) for a in meta.get("aliases") or () if isinstance(a, str))
    for a, cid in aliases:  # a conversation's own key wins over another's alias
        index.setdefault(a, cid)
    return index


def _title(history: Sequence[Message]) -> str:
    n, msg = next(((n, m) for n, m in enumerate(history) if m.role == "user" and not m.is_tool_result), (0, None))
    first = msg.text if msg is not None else ""
    if msg is not None and n == len(history) - 1 and len(msg.parts) > 1:  # its later parts may be a per-call block
        first = msg.parts[0].text if isinstance(msg.parts[0], TextPart) else first
    line = " ".join(first.split())[:70]
    return f"proxy: {line}" if line else "proxy conversation"
