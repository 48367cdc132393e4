"""The clearing candidates of a view that grows, found for the new items only. Pure bookkeeping.

Every build asks :func:`.cache.clear_for_cache` which old tool results (:func:`.mask.mask_candidates`)
and which old calls' long inputs (:func:`.inputs.input_candidates`) could be cleared. Both walk the
whole view, but what they learn of an item does not change while the view only grows: a result's
verdict depends on the item and the tool names of the calls before it, a call's on the item and
the position of its results. Only "old" moves (everything but the newest ``keep_last`` results).

:class:`GrowingCandidates` keeps, for the last view, the results' positions and verdicts and the
calls' verdicts with the position of their last result; a view that starts with the very items of
the last one (an identity check in C) adds its new items' facts, unless a new item touches an
old one (a call id seen before, a result for a call that is not among the new items): then, and
for any other view, everything is read afresh. A clear (and the view made again after it) gives
back the last view's items with some replaced by their cleared forms: the same keys and the same
call ids, tool names and roles, so only those items' own verdicts can change. A view whose first
items are the last view's, item for item either the same object or one of that same shape
(:func:`shape`), has those items' verdicts read again and then grows as above. Either way the answer
is exactly the two functions' answer (tests/test_growing_build.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..formats.memo import same_prefix
from ..messages import Message
from .inputs import input_ok
from .mask import MaskConfig, is_masked
from .view import ViewItem

_NEVER = float("inf")


@dataclass(slots=True)
class _Facts:
    items: list[ViewItem] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # call id -> tool name (the last call with it)
    result_at: dict[str, int] = field(default_factory=dict)  # call id -> number of the result message holding it
    results: list[int] = field(default_factory=list)  # indices of result messages, in order
    result_ok: list[bool] = field(default_factory=list)  # each one's mask verdict (age aside)
    result_any: list[bool] = field(default_factory=list)  # the same with no size floor (a clear's riders: cache.riders)
    result_of: dict[int, int] = field(default_factory=dict)  # index of a result message -> its number in ``results``
    asks: list[tuple[int, float]] = field(default_factory=list)  # (index, number of its last result) of every assistant message with calls
    ask_of: dict[int, int] = field(default_factory=dict)  # index of such a message -> its number in ``asks``
    ask_ok: list[bool] = field(default_factory=list)  # whether its inputs may go (age aside)
    ask_rides: list[bool] = field(default_factory=list)  # the same for inputs of at least one token (riders)


def shape(m: Message) -> tuple[object, ...]:
    """What of a message the facts of the items around it depend on: its role, whether it holds
    results, and its calls' and results' ids and tool names (a cleared form keeps all of them)."""
    return (m.role, m.is_tool_result, tuple((c.id, c.name) for c in m.tool_calls), tuple((r.call_id, r.name) for r in m.tool_results))


class GrowingCandidates:
    """``(mask_candidates(items, config), input_candidates(items, config, min_tokens))``, for views
    that grow (module docstring). ``enabled=False`` reads every view afresh."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._facts = _Facts()
        self._config: tuple[MaskConfig, int] | None = None

    def find(self, items: Sequence[ViewItem], config: MaskConfig, min_tokens: int) -> tuple[list[int], list[int]]:
        rows = list(items)
        f = self._facts
        usable = self.enabled and self._config == (config, min_tokens) and f.items
        if not (usable and (same_prefix(f.items, rows) or self._patch(f, rows, config, min_tokens)) and self._extend(f, rows, config, min_tokens)):
            f = self._facts = _Facts()
            self._config = (config, min_tokens)
            self._extend(f, rows, config, min_tokens)
        return self._old(f.result_ok, f.ask_ok, config.keep_last)

    def riders(self, keep_last: int) -> tuple[list[int], list[int]]:
        """For the view the last :meth:`find` was given: ``(mask_candidates(items, c),
        input_candidates(items, c, 1))`` with ``c`` its config with no size floor
        (``min_result_tokens=0``): what ``cache.riders`` picks from, without walking the view."""
        return self._old(self._facts.result_any, self._facts.ask_rides, keep_last)

    def _old(self, ok: list[bool], asked: list[bool], keep_last: int) -> tuple[list[int], list[int]]:
        """The results and calls that are old (all but the newest ``keep_last`` results) among those whose verdict holds."""
        f = self._facts
        old = len(f.results) - keep_last
        masks = [i for i, good in zip(f.results[: max(0, old)], ok, strict=False) if good]
        inputs = [i for (i, last), good in zip(f.asks, asked, strict=True) if good and last <= old]
        return masks, inputs

    @property
    def names(self) -> dict[str, str]:
        """``mask.tool_names`` of the view the last :meth:`find` was given (read-only)."""
        return self._facts.names

    @staticmethod
    def _patch(f: _Facts, rows: list[ViewItem], config: MaskConfig, min_tokens: int) -> bool:
        """Read again the verdicts of the items of ``f.items`` that ``rows`` replaced by items of the
        same key and :func:`shape` (a clear's cleared forms; an item of the same key, message object
        and count is the same fact); False (``f`` unchanged) when ``rows`` is shorter or replaced
        one otherwise."""
        old = f.items
        k = len(old)
        if len(rows) < k:
            return False
        # a view made again has new items of the same messages: their facts hold as they are
        changed = [n for n, (a, b) in enumerate(zip(old, rows, strict=False)) if a is not b and (a.message is not b.message or a.tokens != b.tokens or a.key != b.key)]
        if any(old[n].key != rows[n].key or shape(old[n].message) != shape(rows[n].message) for n in changed):
            return False
        for n in changed:
            it = rows[n]
            j = f.result_of.get(n)
            if j is not None:
                f.result_any[j], f.result_ok[j] = GrowingCandidates._result_verdicts(f, it, config)
            j = f.ask_of.get(n)
            if j is not None:
                f.ask_ok[j], f.ask_rides[j] = input_ok(it, config, min_tokens), input_ok(it, config, 1)
        f.items = rows[:k]
        return True

    @staticmethod
    def _result_verdicts(f: _Facts, it: ViewItem, config: MaskConfig) -> tuple[bool, bool]:
        """A result message's mask verdicts, age aside: with no size floor, and with the config's."""
        m = it.message
        free = (
            not is_masked(m)
            and not any(r.is_error for r in m.tool_results)
            and not any((r.name or f.names.get(r.call_id)) in config.exclude_tools for r in m.tool_results)
        )
        return free, free and it.tokens >= config.min_result_tokens

    @staticmethod
    def _extend(f: _Facts, rows: list[ViewItem], config: MaskConfig, min_tokens: int) -> bool:
        """Add the facts of ``rows`` after ``f.items``; False (``f`` unusable) when one touches an
        item before them."""
        start = len(f.items)
        new = rows[start:]
        fresh = not start
        ids: set[str] = set()
        for it in new:
            for c in it.message.tool_calls:
                if not fresh and (c.id in f.names or c.id in f.result_at):
                    return False
                ids.add(c.id)
                f.names[c.id] = c.name
        pending: list[tuple[int, list[str], bool, bool]] = []
        for n, it in enumerate(new, start):
            m = it.message
            if m.role == "tool" and m.is_tool_result:
                f.result_of[n] = len(f.results)
                f.results.append(n)
                for r in m.tool_results:
                    if not fresh and (r.call_id not in ids or r.call_id in f.result_at):
                        return False
                    f.result_at[r.call_id] = len(f.results)
                free, ok = GrowingCandidates._result_verdicts(f, it, config)
                f.result_any.append(free)
                f.result_ok.append(ok)
            elif m.role == "assistant" and m.tool_calls:
                pending.append((n, [c.id for c in m.tool_calls], input_ok(it, config, min_tokens), input_ok(it, config, 1)))
        for n, cids, ok, rides in pending:
            f.ask_of[n] = len(f.asks)
            f.asks.append((n, max(f.result_at.get(c, _NEVER) for c in cids)))
            f.ask_ok.append(ok)
            f.ask_rides.append(rides)
        f.items = rows
        return True
