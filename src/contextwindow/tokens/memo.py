"""A memo keyed by text, bounded by the characters it keeps alive (oldest forgotten first), and the
one way to count a text through a counter's memos (:class:`CounterCount`).

The counters' answers for a text never change, so remembering them is safe; what has to be bounded is
memory: a memo keeps its key strings alive. Texts shorter than ``min_chars`` are not kept (they cost
about as much to count as to look up), nor texts over a quarter of the bound (one would evict the rest).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class TextMemo(Generic[V]):
    """text -> value for texts of ``min_chars`` to ``max_chars // 4`` characters, at most ``max_chars``
    characters of keys in all; writes under ``lock`` (shared with the owner's other memos)."""

    def __init__(self, lock: threading.Lock, min_chars: int, max_chars: int) -> None:
        self._lock = lock
        self.min_chars = min_chars
        self.max_chars = max_chars
        self._memo: OrderedDict[str, V] = OrderedDict()
        self._chars = 0

    def get(self, text: str) -> V | None:
        return self._memo.get(text) if len(text) >= self.min_chars else None

    def put(self, text: str, value: V) -> V:
        """Keep ``value`` for ``text`` (when its length qualifies); returns ``value``."""
        if self.min_chars <= len(text) <= self.max_chars // 4:
            with self._lock:
                if text not in self._memo:
                    self._memo[text] = value
                    self._chars += len(text)
                    while self._chars > self.max_chars:
                        old, _ = self._memo.popitem(last=False)
                        self._chars -= len(old)
        return value

    def clear(self) -> None:
        with self._lock:
            self._memo.clear()
            self._chars = 0

    @property
    def chars(self) -> int:
        """Characters of the texts kept."""
        return self._chars

    def __len__(self) -> int:
        return len(self._memo)

    def __iter__(self) -> Iterator[str]:
        """The texts kept, oldest first."""
        return iter(self._memo)


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
