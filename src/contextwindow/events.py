"""Typed events and subscribers (the account stage's live feed).

Every lossy step emits an event with tokens before/after; the Session publishes them on an
:class:`EventBus`. Subscribers are plain callables; one that raises never breaks the Session
(the error is kept in ``bus.errors``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """``name`` is dotted (``compaction.applied``); ``data`` holds JSON-able details."""

    name: str
    data: dict[str, Any] = field(default_factory=dict)


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

    def emit(self, name: str, **data: Any) -> Event:
        ev = Event(name, data)
        for prefix, fn in list(self._subs):
            if ev.name.startswith(prefix):
                try:
                    fn(ev)
                except Exception as exc:  # a subscriber must never break the session
                    self.errors.append((ev, exc))
        return ev


class Recorder:
    """A subscriber that keeps every event (handy in tests and the CLI)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, ev: Event) -> None:
        self.events.append(ev)

    def named(self, name: str) -> list[Event]:
        return [e for e in self.events if e.name == name]
