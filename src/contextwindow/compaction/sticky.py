"""Sticky compaction decisions: what a compaction changed, kept as small state and re-applied to
every later view, so the payload's prefix stays byte-identical between compaction events. Pure.

State (JSON): ``replace`` message id → the compacted message; ``drop`` message ids left out of the
view (whole steps only); ``insert`` message id (or ``^`` for the head) → synthetic messages that
follow it (notes, step summaries, continuation nudges).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..formats.memo import same_prefix
from ..messages import Message, message_from_dict, message_to_dict
from ..store.base import StoredMessage
from .view import Count, ViewItem, is_synthetic

EMPTY_STATE: Mapping[str, Any] = {"replace": {}, "drop": [], "insert": {}}


def sticky_view(
    fold_id: str | None,
    fold_summary: Message | None,
    active: Sequence[StoredMessage],
    state: Mapping[str, Any],
    count: Count,
    count_stored: Callable[[StoredMessage], int],
    memo: dict[str, tuple[Any, Message, int]] | None = None,
    *,
    head: bool = True,
) -> list[ViewItem]:
    """[fold summary?] + active messages with ``state`` applied. ``memo`` (kept by the caller
    between views) maps a key to (its state entry, the message made from it, its count): an entry
    equal to the last view's is not decoded and counted again, so a view costs O(changes), and
    equal state gives the same message objects (caches keyed by object stay warm). ``head=False``
    leaves out what comes before the first active message (the fold summary, notes at ``^``): the
    items of ``active`` as they continue a view of the rows before them."""
    repl, drop, ins = state.get("replace", {}), set(state.get("drop", [])), state.get("insert", {})
    items: list[ViewItem] = []
    if head and fold_id is not None and fold_summary is not None:
        items.append(ViewItem(f"fold:{fold_id}", fold_summary, count(fold_summary)))

    def made(key: str, d: Any) -> tuple[Message, int]:
        hit = memo.get(key) if memo is not None else None
        if hit is not None and hit[0] == d:
            return hit[1], hit[2]
        msg = message_from_dict(d)
        n = count(msg)
        if memo is not None:
            memo[key] = (d, msg, n)
        return msg, n

    def inserted(after: str) -> None:
        for n, d in enumerate(ins.get(after, [])):
            key = f"note:{after}:{n}"
            msg, k = made(key, d)
            items.append(ViewItem(key, msg, k))

    if head:
        inserted("^")
    for sm in active:
        if sm.id in drop:
            continue
        if sm.id in repl:
            msg, k = made(sm.id, repl[sm.id])
            items.append(ViewItem(sm.id, msg, k, original=sm.message, seq=sm.seq))
        else:
            items.append(ViewItem(sm.id, sm.message, count_stored(sm), seq=sm.seq))
        if sm.id in ins:
            inserted(sm.id)
    return items


def sticky_state(items: Sequence[ViewItem], active: Sequence[tuple[str, int]], floor: int = -1) -> dict[str, Any]:
    """The state that reproduces ``items`` from the active messages (id, seq) after ``floor``."""
    st: dict[str, Any] = {"replace": {}, "drop": [], "insert": {}}
    present: set[str] = set()
    prev = "^"
    for it in items:
        if it.key.startswith("fold:"):
            prev = "^"
            continue
        if is_synthetic(it):
            st["insert"].setdefault(prev, []).append(message_to_dict(it.message))
            continue
        present.add(it.key)
        if it.original is not None and it.message != it.original:
            st["replace"][it.key] = message_to_dict(it.message)
        prev = it.key
    st["drop"] = [mid for mid, seq in active if seq > floor and mid not in present]
    return st


class StickyViews:
    """The last :func:`sticky_view` made, extended when the next one only adds rows at the end:
    same fold, equal state, and the active rows start with the very rows of the last view (an
    identity check in C). Then the view is the last items + the new rows' items, exactly what
    :func:`sticky_view` would make of them all, at O(new rows); anything else is made afresh."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled  # False: every view made afresh (checks the extended one)
        self._last: tuple[str | None, Any, list[StoredMessage], list[ViewItem]] | None = None

    def view(
        self,
        fold_id: str | None,
        fold_summary: Message | None,
        active: Sequence[StoredMessage],
        state: Mapping[str, Any],
        count: Count,
        count_stored: Callable[[StoredMessage], int],
        memo: dict[str, tuple[Any, Message, int]] | None = None,
    ) -> list[ViewItem]:
        rows = list(active)
        last = self._last
        if self.enabled and last is not None and last[0] == fold_id and same_prefix(last[2], rows) and last[1] == state:
            items = last[3] + sticky_view(fold_id, fold_summary, rows[len(last[2]):], state, count, count_stored, memo, head=False)
        else:
            items = sticky_view(fold_id, fold_summary, rows, state, count, count_stored, memo)
        self._last = (fold_id, state, rows, items)
        return list(items)

    def clear(self) -> None:
        self._last = None
