"""Reusing the previous payload's renders: a per-message memo keyed by message object. Pure.

Messages are frozen values, so a message object renders to the same wire dicts (and the same
serialized units) on every build. A :class:`RenderMemo` keeps the renders of the last payload
only (bounded by one payload) and hands them back when the next build holds the same objects, so
a build renders and serializes only what changed since the last one. The dicts it hands back are
shared with the previous payload: a payload is read-only (copy before changing it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class RenderMemo(Generic[K, V]):
    """``get(obj, make)`` = ``make(obj)``, reused when the previous round held the same object."""

    def __init__(self) -> None:
        self._prev: dict[int, tuple[K, V]] = {}
        self._cur: dict[int, tuple[K, V]] = {}

    def get(self, obj: K, make: Callable[[K], V]) -> V:
        key = id(obj)
        hit = self._cur.get(key) or self._prev.get(key)
        if hit is None or hit[0] is not obj:
            hit = (obj, make(obj))
        self._cur[key] = hit
        return hit[1]

    def next_round(self) -> None:
        """The renders of this round become the ones the next round may reuse (older ones go)."""
        self._prev, self._cur = self._cur, {}

    def clear(self) -> None:
        self._prev, self._cur = {}, {}
