"""WHEN a cache-aware clear comes, and from where: the arithmetic of compaction/cache.py's step. Pure.

A clear from candidate ``j`` on takes ``cleared_j`` tokens (the sum of its candidates' gains) out of
every later call, at the price of rewriting ``rewritten_j`` tokens (what stays after its first
cleared item, less what is new since the last call and is written anyway) at ``write - read``
instead of ``read`` (``K_j = (write - read) * rewritten_j``).

The rule (``CacheConfig.clear_rule = "horizon"``, the default and the only one built in): clear as
soon as the reads saved over a fixed ``horizon`` of calls beat the rewrite, ``read * cleared_j *
horizon > K_j``; of the starts that do, the one with the largest net return. ``at_least`` (the
fewest tokens one clear takes) holds.

``CacheConfig.clear_rule`` may also be a :class:`ClearRule`, a function that answers the same
question from the same numbers plus a :class:`ClearHistory` the Session keeps. Two such rules
derived from the cost model, ``eoq`` and ``balance``, were tried against ``horizon`` (better on FIT,
worse held out: docs/replay.md); they live with the fit script, ``benchmarks/clear_rules.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from .view import ViewItem


@dataclass(frozen=True, slots=True)
class ClearHistory:
    """What a rule besides ``horizon`` may read beside the view, kept by the caller: the calls made
    so far, the tokens earlier clears took, and whether the window's trigger presses (the trigger
    in force is the latest one and one more call's growth reaches it)."""

    calls: int
    cleared: int = 0
    pressed: bool = False


Start = tuple[float, int, int]  # (net return, start j, tokens cleared)


class ClearRule(Protocol):
    """A rule of when and from where to clear: ``items`` the view, ``cands`` the candidates'
    indices (oldest first), ``gains``/``rewrites`` per candidate (module docstring), ``tail`` the
    rewritten tokens after the newest candidate, ``keep_last`` the newest results no clear takes;
    the start to clear from, or None."""

    def __call__(
        self, items: Sequence[ViewItem], cands: Sequence[int], gains: Sequence[int], rewrites: Sequence[int], tail: int,
        history: ClearHistory, *, read: float, rewrite: float, at_least: int, keep_last: int,
    ) -> Start | None: ...


def suffix_sums(values: Sequence[int]) -> list[int]:
    """``out[j] = sum(values[j:])``."""
    return list(accumulate(reversed(values)))[::-1]


def horizon_start(gains: Sequence[int], rewrites: Sequence[int], *, read: float, rewrite: float, horizon: float, at_least: int) -> Start | None:
    """The ``horizon`` rule (module docstring): the start whose ``read * cleared * horizon - rewrite
    * rewritten`` is largest and positive (the latest on a tie), among those clearing at least
    ``at_least`` tokens; None when none is."""
    best: Start | None = None
    cleared = 0
    for j in range(len(gains) - 1, -1, -1):
        cleared += gains[j]
        if cleared < at_least:
            continue
        net = read * cleared * horizon - rewrite * rewrites[j]
        if net > 0 and (best is None or net > best[0]):
            best = (net, j, cleared)
    return best
