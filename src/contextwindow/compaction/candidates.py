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
for any other view, everything is read afresh. Either way the answer is exactly the two
functions' answer (tests/test_growing_build.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..formats.memo import same_prefix
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
    calls: list[tuple[int, float]] = field(default_factory=list)  # (index, number of its last result) of calls whose inputs may go (age aside)
    ride_calls: list[tuple[int, float]] = field(default_factory=list)  # the same for inputs of at least one token (riders)


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
        if not (self.enabled and self._config == (config, min_tokens) and f.items and same_prefix(f.items, rows) and self._extend(f, rows, config, min_tokens)):
            f = self._facts = _Facts()
            self._config = (config, min_tokens)
            self._extend(f, rows, config, min_tokens)
        return self._old(f.result_ok, f.calls, config.keep_last)

    def riders(self, keep_last: int) -> tuple[list[int], list[int]]:
        """For the view the last :meth:`find` was given: ``(mask_candidates(items, c),
        input_candidates(items, c, 1))`` with ``c`` its config with no size floor
        (``min_result_tokens=0``): what ``cache.riders`` picks from, without walking the view."""
        return self._old(self._facts.result_any, self._facts.ride_calls, keep_last)

    def _old(self, ok: list[bool], calls: list[tuple[int, float]], keep_last: int) -> tuple[list[int], list[int]]:
        """The results and calls that are old (all but the newest ``keep_last`` results) among those whose verdict holds."""
        f = self._facts
        old = len(f.results) - keep_last
        masks = [i for i, good in zip(f.results[: max(0, old)], ok, strict=False) if good]
        inputs = [i for i, last in calls if last <= old]
        return masks, inputs

    @property
    def names(self) -> dict[str, str]:
        """``mask.tool_names`` of the view the last :meth:`find` was given (read-only)."""
        return self._facts.names

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
                f.results.append(n)
                for r in m.tool_results:
                    if not fresh and (r.call_id not in ids or r.call_id in f.result_at):
                        return False
                    f.result_at[r.call_id] = len(f.results)
                free = (
                    not is_masked(m)
                    and not any(r.is_error for r in m.tool_results)
                    and not any((r.name or f.names.get(r.call_id)) in config.exclude_tools for r in m.tool_results)
                )
                f.result_any.append(free)
                f.result_ok.append(free and it.tokens >= config.min_result_tokens)
            elif m.role == "assistant" and m.tool_calls:
                ok, rides = input_ok(it, config, min_tokens), input_ok(it, config, 1)
                if ok or rides:
                    pending.append((n, [c.id for c in m.tool_calls], ok, rides))
        for n, cids, ok, rides in pending:
            last = max(f.result_at.get(c, _NEVER) for c in cids)
            if ok:
                f.calls.append((n, last))
            if rides:
                f.ride_calls.append((n, last))
        f.items = rows
        return True
