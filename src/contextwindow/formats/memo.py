"""Reusing the previous payload's renders: a per-message memo keyed by message object. Pure.

Messages are frozen values, so a message object renders to the same wire dicts (and the same
serialized units) on every build. A :class:`RenderMemo` keeps the renders of the last payload
only (bounded by one payload) and hands them back when the next build holds the same objects, so
a build renders and serializes only what changed since the last one. The dicts it hands back are
shared with the previous payload: a payload is read-only (copy before changing it).

:meth:`RenderMemo.map` does a whole round at once: when the new list starts with the very objects
of the last round's list (the common case between two compaction events: the history only grew),
their values are taken by position after an identity check done in C, and only the new tail is
looked up, so a round costs O(new objects) in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def same_prefix(old: Sequence[object], new: Sequence[object]) -> bool:
    """True when ``new`` starts with the very objects of ``old`` (identity, not equality)."""
    k = len(old)
    return len(new) >= k and all(map(is_, old, new))


class RenderMemo(Generic[K, V]):
    """``map(objs, make)`` = ``[make(o) for o in objs]``, reusing the last round's value of each same object."""

    def __init__(self, *, by_position: bool = True) -> None:
        self._by_position = by_position  # False: map() looks every object up (checks the positional path)
        self._seq: tuple[list[K], list[V]] = ([], [])  # the last round made by map(), in order

    def map(self, objs: Sequence[K], make: Callable[[K], V]) -> list[V]:
        """``[make(o) for o in objs]``, reusing the last ``map`` round's value of each same object:
        when ``objs`` starts with that round's very objects, by position (one identity check in C),
        so only the new tail is made; else looked up by object. Holds one round (bounded)."""
        old, vals = self._seq
        objs = list(objs)
        if self._by_position and same_prefix(old, objs):
            out = vals + [make(o) for o in objs[len(old):]]
        else:
            known = {id(o): (o, v) for o, v in zip(old, vals, strict=True)}
            out = []
            for o in objs:
                hit = known.get(id(o))
                out.append(hit[1] if hit is not None and hit[0] is o else make(o))
        self._seq = (objs, out)
        return out

    def clear(self) -> None:
        self._seq = ([], [])
