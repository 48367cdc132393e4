"""Typed events and subscribers (the account stage's live feed).

Every lossy step emits an event with tokens before/after; the Session publishes them on an
:class:`EventBus`. Subscribers are plain callables; one that raises never breaks the Session
(the error is kept in ``bus.errors``).

Every event a Session emits carries its conversation id (a Session talks through
:class:`ConversationEvents`, a view of the bus bound to its id) and is persisted in the store
(``store.list_events(id)``, ``ctxw sessions events ID``), so the decision log outlives the process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """``name`` is dotted (``compaction.applied``); ``data`` holds JSON-able details."""

    name: str
    data: dict[str, Any] = field(default_factory=dict)
    conversation_id: str | None = None
    at: float = field(default_factory=time.time)


Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subs: list[tuple[str, Subscriber]] = []
        self.errors: list[tuple[Event, BaseException]] = []

    def subscribe(self, fn: Subscriber, prefix: str = "") -> Callable[[], None]:
        """Call ``fn`` for every event whose name starts with ``prefix``; returns an unsubscribe."""
        entry = (prefix, fn)
        self._subs.append(entry)
        return lambda: self._subs.remove(entry) if entry in self._subs else None

    def emit(self, name: str, /, conversation_id: str | None = None, **data: Any) -> Event:
        ev = Event(name, data, conversation_id)
        for prefix, fn in list(self._subs):
            if ev.name.startswith(prefix):
                try:
                    fn(ev)
                except Exception as exc:  # a subscriber must never break the session
                    self.errors.append((ev, exc))
        return ev


class ConversationEvents:
    """The bus as one conversation sees it: what it emits carries its id and is also written to
    ``persist`` (e.g. the store's ``record_event``); subscribing goes to the shared bus."""

    def __init__(self, bus: EventBus, conversation_id: str, persist: Callable[[Event], None] | None = None) -> None:
        self.bus = bus
        self.conversation_id = conversation_id
        self._persist = persist

    @property
    def errors(self) -> list[tuple[Event, BaseException]]:
        return self.bus.errors

    def subscribe(self, fn: Subscriber, prefix: str = "") -> Callable[[], None]:
        return self.bus.subscribe(fn, prefix)

    def emit(self, name: str, /, **data: Any) -> Event:
        data.pop("conversation_id", None)
        ev = self.bus.emit(name, conversation_id=self.conversation_id, **data)
        if self._persist is not None:
            try:
                self._persist(ev)
            except Exception as exc:  # a full disk must not break the session; the error is kept
                self.bus.errors.append((ev, exc))
        return ev


class Recorder:
    """A subscriber that keeps every event (handy in tests and the CLI)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, ev: Event) -> None:
        self.events.append(ev)

    def named(self, name: str) -> list[Event]:
        return [e for e in self.events if e.name == name]


def _k(n: Any) -> str:
    if not isinstance(n, int | float):
        return "?"
    return f"{n / 1000:.1f}k" if abs(n) >= 10_000 else f"{int(n):,}"


def _saved(n: int | None) -> str:
    if not n:
        return ""
    return f", saved {_k(n)}" if n > 0 else f", {_k(-n)} more (the summary is longer than what it replaced)"


def describe(name: str, data: dict[str, Any]) -> str:
    """One line for an event, as the decision log and the TUI's cards show it."""
    d = data
    if name == "compaction.started":
        why = d.get("reason") or ("forced" if d.get("forced") else "trigger crossed")
        return f"compaction started: {why} ({_k(d.get('effective') or d.get('tokens'))} tokens)"
    if name in ("compaction.applied", "compaction.noop"):
        steps = d.get("steps") or []
        parts = [f"{s.get('method')} {_k(s.get('tokens_before'))}→{_k(s.get('tokens_after'))}" for s in steps if isinstance(s, dict)]
        before, after = d.get("tokens_before"), d.get("tokens_after")
        saved = before - after if isinstance(before, int) and isinstance(after, int) else None
        head = "compaction applied" if name == "compaction.applied" else "compaction found nothing to cut"
        dur = d.get("duration_s")
        tail = f" in {dur:.2f} s" if isinstance(dur, int | float) else ""
        return f"{head}: {_k(before)} → {_k(after)} tokens" + _saved(saved) + tail + (f" ({'; '.join(parts)})" if parts else "")
    if name == "compaction.reactive":
        return f"provider said the context is too long (attempt {d.get('attempt')}): compacting harder"
    if name == "fold.started":
        return f"fold started ({d.get('reason', 'manual')}): summarizing {d.get('messages')} messages"
    if name == "fold.applied":
        before, after = d.get("tokens_before"), d.get("tokens_after")
        saved = before - after if isinstance(before, int) and isinstance(after, int) else None
        ok = "" if d.get("ok", True) else f" (fallback: {d.get('error')})"
        ok += " (no model call: too little room for its text)" if d.get("model_skipped") else ""
        return f"fold applied ({d.get('reason')}, {d.get('method')}): {_k(before)} → {_k(after)} tokens" + _saved(saved) + ok
    if name == "summarizer.model_skipped":
        return f"no model call for the fold: {d.get('reason')}"
    if name == "fold.discarded":
        return f"fold discarded: another fold already covers up to seq {d.get('boundary')}"
    if name == "clip.applied":
        return f"clipped {d.get('tool') or 'a tool result'}: {_k(d.get('tokens_before'))} → {_k(d.get('tokens_after'))} tokens (ref {d.get('ref')})"
    if name == "gauge":
        return f"gauge {d.get('percent')}% of {_k(d.get('window'))} ({d.get('severity')})"
    if name == "build":
        return f"call built: {_k(d.get('tokens'))} tokens, {d.get('messages')} messages, prefix reuse {d.get('prefix_reuse')}"
    if name == "agent.tool":
        return f"{'✓' if d.get('ok') else '✗'} {d.get('call')} ({d.get('chars')} chars, {d.get('seconds')} s)"
    if name == "agent.step":
        return f"model call {d.get('step')}: {d.get('tool_calls')} tool calls ({d.get('finish_reason')})"
    if name == "limit.exceeded":
        return f"limit reached: {d.get('limit')} {d.get('value')} of {d.get('maximum')}"
    shown = ", ".join(f"{k}={v}" for k, v in list(d.items())[:6])
    return f"{name}: {shown}" if shown else name
