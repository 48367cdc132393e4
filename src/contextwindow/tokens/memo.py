"""Memos bounded by the size of what they keep alive (oldest forgotten first): :class:`SizedMemo`
for any hashable key, :class:`TextMemo` keyed by text; and the one way to count a text through a
counter's memos (:class:`CounterCount`).

The answers kept are of pure functions (a counter's count of a text never changes), so remembering
them is safe; what has to be bounded is memory: a memo keeps its keys alive. An item over a quarter
of the bound is not kept (it would evict the rest), nor a text shorter than ``min_chars`` (it costs
about as much to count as to look up).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SizedMemo(Generic[K, V]):
    """key -> value, at most ``max_size`` of the keys' sizes (as the caller measures them: e.g. their
    characters) in all, oldest forgotten first; writes under ``lock`` (shared with the owner's other
    memos; None: one of its own)."""

    def __init__(self, lock: threading.Lock | None, max_size: int) -> None:
        self._lock = lock if lock is not None else threading.Lock()
        self.max_size = max_size
        self._memo: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._size = 0

    def get(self, key: K) -> V | None:
        hit = self._memo.get(key)
        return None if hit is None else hit[0]

    def put(self, key: K, value: V, size: int) -> V:
        """Keep ``value`` for ``key`` (of ``size``) unless it is over a quarter of the bound; returns ``value``."""
        if size <= self.max_size // 4:
            with self._lock:
                if key not in self._memo:
                    self._memo[key] = (value, size)
                    self._size += size
                    while self._size > self.max_size:
                        _, (_, gone) = self._memo.popitem(last=False)
                        self._size -= gone
        return value

    def clear(self) -> None:
        with self._lock:
            self._memo.clear()
            self._size = 0

    @property
    def size(self) -> int:
        """The sizes of the keys kept, in all."""
        return self._size

    def __len__(self) -> int:
        return len(self._memo)

    def __iter__(self) -> Iterator[K]:
        """The keys kept, oldest first."""
        return iter(self._memo)


class TextMemo(SizedMemo[str, V]):
    """text -> value for texts of ``min_chars`` to ``max_chars // 4`` characters, at most ``max_chars``
    characters of keys in all; writes under ``lock`` (shared with the owner's other memos)."""

    def __init__(self, lock: threading.Lock, min_chars: int, max_chars: int) -> None:
        super().__init__(lock, max_chars)
        self.min_chars = min_chars
        self.max_chars = max_chars

    def get(self, text: str) -> V | None:
        if len(text) < self.min_chars:
            return None
        hit = self._memo.get(text)
        return None if hit is None else hit[0]

    def put(self, text: str, value: V) -> V:  # type: ignore[override]  # a text's size is its length
        """Keep ``value`` for ``text`` (when its length qualifies); returns ``value``."""
        if len(text) >= self.min_chars:
            super().put(text, value, len(text))
        return value

    @property
    def chars(self) -> int:
        """Characters of the texts kept."""
        return self._size


class CounterCount:
    """A token counter's text count as the clippers' count (``clipping.measure.Count``): through
    the counter's text memo where it keeps one, and with ``joined(text, pieces)`` (its
    ``count_joined``), so a clip's final text (the body counted while it was fitted, a newline,
    the marker) is not read whole again. The same answers as the counter's ``count_text``."""

    __slots__ = ("_count", "_joined")

    def __init__(self, counter: Any) -> None:
        self._count: Callable[[str], int] = getattr(counter, "count_text_memo", None) or counter.count_text
        self._joined: Callable[[str, Sequence[str]], int] | None = getattr(counter, "count_joined", None)

    def __call__(self, text: str) -> int:
        return self._count(text)

    def joined(self, text: str, pieces: Sequence[str]) -> int:
        return self._joined(text, pieces) if self._joined is not None else self._count(text)
