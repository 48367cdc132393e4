"""The view compaction works on: keyed messages with their originals and token counts.

A key is the store's message id (or ``fold:<id>`` for a fold summary, ``nudge:<key>`` for a
continuation nudge). Compaction never loses the original: ``original`` is what the store holds,
``message`` is what the model will see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..messages import Message

Count = Callable[[Message], int]


@dataclass(frozen=True, slots=True)
class ViewItem:
    key: str
    message: Message
    tokens: int
    original: Message | None = None
    seq: int | None = None  # the stored message's sequence number in its conversation (None: not a stored row)

    @property
    def source(self) -> Message:
        """The message as the store holds it (what a summarizer should read)."""
        return self.original if self.original is not None else self.message

    def with_message(self, message: Message, count: Count) -> ViewItem:
        return replace(self, message=message, tokens=count(message), original=self.source)


def make_items(keys: Sequence[str], messages: Sequence[Message], count: Count, counts: Sequence[int] | None = None) -> list[ViewItem]:
    if len(keys) != len(messages):
        raise ValueError(f"{len(keys)} keys for {len(messages)} messages")
    if counts is None:
        counts = [count(m) for m in messages]
    return [ViewItem(k, m, n) for k, m, n in zip(keys, messages, counts, strict=True)]


def total(items: Sequence[ViewItem]) -> int:
    return sum(i.tokens for i in items)


def is_synthetic(item: ViewItem) -> bool:
    return ":" in item.key and item.key.split(":", 1)[0] in ("fold", "nudge", "note")


def split_pinned(items: Sequence[ViewItem]) -> tuple[list[ViewItem], list[ViewItem]]:
    """(leading system messages, the rest): the caller's fixed prefix, which no compaction or
    fold touches, and what compaction and folds work on."""
    n = next((i for i, it in enumerate(items) if it.message.role != "system" or is_synthetic(it)), len(items))
    return list(items[:n]), list(items[n:])


def leading_markers(items: Sequence[ViewItem]) -> list[str]:
    """Texts of the synthetic items before the first stored message in ``items``: markers whose
    spans reach back before it (an older step summary, a drop note)."""
    out = []
    for it in items:
        if not is_synthetic(it):
            break
        out.append(it.message.text)
    return out
