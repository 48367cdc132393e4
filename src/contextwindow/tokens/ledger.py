"""Incremental accounting: a conversation's running token total, O(size of the change).

:class:`RunningCount` keeps the count of every message by position and the running sum.
Appending counts only the new message; truncating or replacing a suffix subtracts the
removed counts; the total is never recomputed from scratch. Budget checks are O(1).

The total is ``base + per_request framing + Σ count_message``. It does not subtract the
reasoning of earlier turns that some providers drop (``count_messages`` does): the running
total errs on the safe (higher) side.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ConfigError
from ..messages import Message
from .base import TokenCounter


class RunningCount:
    """A running per-conversation token total.

    ``base`` is a constant added to the total (e.g. the system prompt and tool definitions,
    counted once by the caller)."""

    __slots__ = ("_counts", "_sum", "base", "counter", "framing")

    def __init__(self, counter: TokenCounter, messages: Iterable[Message] = (), *, base: int = 0) -> None:
        if base < 0:
            raise ConfigError(f"base must be >= 0, got {base}")
        self.counter = counter
        self.base = base
        profile = getattr(counter, "profile", None)
        self.framing = int(getattr(profile, "per_request", 0))
        self._counts: list[int] = []
        self._sum = 0
        self.extend(messages)

    def append(self, message: Message) -> int:
        """Count ``message``, add it, and return its own count."""
        n = self.counter.count_message(message)
        self._counts.append(n)
        self._sum += n
        return n

    def extend(self, messages: Iterable[Message]) -> int:
        """Append every message; return the tokens added."""
        before = self._sum
        for m in messages:
            self.append(m)
        return self._sum - before

    def truncate(self, n: int) -> int:
        """Keep the first ``n`` messages; return the tokens removed."""
        if n < 0:
            raise ConfigError(f"cannot truncate to {n} messages")
        if n >= len(self._counts):
            return 0
        removed = sum(self._counts[n:])
        del self._counts[n:]
        self._sum -= removed
        return removed

    def replace_from(self, index: int, messages: Iterable[Message]) -> int:
        """Replace the suffix starting at ``index`` with ``messages``; return the new total."""
        self.truncate(index)
        self.extend(messages)
        return self.total

    @property
    def total(self) -> int:
        """base + per-request framing + the sum of every message's count."""
        return self.base + self.framing + self._sum

    @property
    def counts(self) -> tuple[int, ...]:
        """Per-message counts by position (a copy: O(n))."""
        return tuple(self._counts)

    def count_at(self, index: int) -> int:
        return self._counts[index]

    def __len__(self) -> int:
        return len(self._counts)

    def headroom(self, budget: int) -> int:
        """Tokens left before ``budget`` (negative when over). O(1)."""
        return budget - self.total

    def fits(self, budget: int, extra: int = 0) -> bool:
        """True if the total plus ``extra`` tokens stays within ``budget``. O(1)."""
        return self.total + extra <= budget

    def append_checked(self, message: Message, budget: int) -> bool:
        """Append ``message`` and say whether the total still fits ``budget`` (one call per
        append for the proactive trigger)."""
        self.append(message)
        return self.total <= budget

    def __repr__(self) -> str:
        return f"<RunningCount messages={len(self._counts)} total={self.total} counter={getattr(self.counter, 'name', '?')}>"
