"""Two rules of WHEN to clear, tried against ``horizon`` and not adopted (docs/replay.md: better on FIT,
worse held out). They plug into the library as ``CacheConfig(clear_rule=eoq)`` / ``balance``
(compaction/clearing.py ``ClearRule``); ``fit_cache_policy.py --stage 4`` and ``bench_replay.py --cost
--clear-rule eoq`` run them.

- ``eoq``: the economic order quantity the pass trigger uses (compaction/economics.py), applied to
  clearing. Candidates accrue at ``a`` tokens a call; clearing them every ``L`` calls costs, per
  call, the reads of what waits (``read * a * L / 2``) and one rewrite of the tail every clear
  rewrites (``R0``: what follows the newest candidate, i.e. the newest results and the calls they
  answer), spread over ``L`` calls; what the candidates are interleaved with is rewritten once a
  cycle whatever ``L`` is. The sum is least when the uncleared candidates reach
  ``sqrt(2 * (write - read) * R0 * a / read)``: clear from ``j`` once ``cleared_j`` does, ``a``
  measured as every token cleared so far plus the candidates now, over the calls made. The clear
  must also pay back over as many calls again as the session has made (the assumption of the pass
  trigger: ``read * cleared_j * calls >= K_j``); of the starts that qualify, the one with the
  largest net return over those calls. Under pressure (the trigger in force is the latest one,
  the window's, and one more call's growth reaches it) waiting is no option, a pass would come
  instead: the best start clears whatever the two tests say.
- ``balance``: the part-period balance (the "ski rental" form of the same trade): clear from ``j``
  once what waiting has cost, the reads of each candidate on the calls since it became one
  (``read * sum(gain_i * age_i)``), reaches the tail's rewrite ``(write - read) * R0``; the same
  pay-back test, choice of start and pressure.

None has a knob of its own; ``at_least`` (the fewest tokens one clear takes) holds for both.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from contextwindow.compaction.clearing import ClearHistory, Start, suffix_sums
from contextwindow.compaction.view import ViewItem


def eoq_threshold(tail: float, accrual: float, *, read: float, rewrite: float) -> float:
    """The uncleared tokens at which a clear costs least per call: ``sqrt(2 * rewrite * tail *
    accrual / read)`` (``inf`` when reads are free)."""
    if read <= 0:
        return math.inf
    return math.sqrt(2.0 * rewrite * max(0.0, tail) * max(0.0, accrual) / read)


def eoq_start(
    gains: Sequence[int], rewrites: Sequence[int], tail: int, history: ClearHistory, *, read: float, rewrite: float, at_least: int
) -> Start | None:
    """The ``eoq`` rule (module docstring); ``tail``: the rewritten tokens after the newest candidate."""
    calls = max(1, history.calls)
    threshold = eoq_threshold(tail, (history.cleared + sum(gains)) / calls, read=read, rewrite=rewrite)
    return _best(gains, rewrites, calls, history.pressed, read=read, rewrite=rewrite, at_least=at_least, ready=lambda j, cleared: cleared >= threshold)


def balance_start(
    gains: Sequence[int], rewrites: Sequence[int], ages: Sequence[int], tail: int, history: ClearHistory, *, read: float, rewrite: float, at_least: int
) -> Start | None:
    """The ``balance`` rule (module docstring); ``ages[j]``: the calls made since candidate ``j``
    became one (:func:`candidate_ages`)."""
    waited = suffix_sums([g * a for g, a in zip(gains, ages, strict=True)])
    return _best(
        gains, rewrites, max(1, history.calls), history.pressed, read=read, rewrite=rewrite, at_least=at_least,
        ready=lambda j, cleared: read * waited[j] >= rewrite * tail,
    )


def _best(
    gains: Sequence[int], rewrites: Sequence[int], calls: int, pressed: bool, *, read: float, rewrite: float, at_least: int, ready: Callable[[int, int], bool]
) -> Start | None:
    """The start with the largest net return over ``calls`` more calls among those ``ready`` (or all, ``pressed``) that pay back."""
    best: Start | None = None
    cleared = 0
    for j in range(len(gains) - 1, -1, -1):
        cleared += gains[j]
        if cleared < at_least or not (pressed or ready(j, cleared)):
            continue
        net = read * cleared * calls - rewrite * rewrites[j]
        if (net >= 0 or pressed) and (best is None or net > best[0]):
            best = (net, j, cleared)
    return best


def candidate_ages(items: Sequence[ViewItem], cands: Sequence[int], keep_last: int) -> list[int]:
    """For each candidate index, the calls made (assistant messages) since it became a candidate:
    a result becomes one when ``keep_last`` newer results follow it, a call's long inputs when the
    newest of its results does (compaction/mask.py, inputs.py)."""
    results: list[int] = []
    number: dict[str, int] = {}  # call id -> number of the result message holding it
    asst: list[int] = []
    for n, it in enumerate(items):
        m = it.message
        if m.role == "assistant":
            asst.append(n)
        elif m.role == "tool" and m.is_tool_result:
            for part in m.tool_results:
                number[part.call_id] = len(results)
            results.append(n)
    ages = []
    for i in cands:
        m = items[i].message
        if m.role == "tool":
            r = bisect_left(results, i)
        else:
            r = max((number.get(c.id, len(results)) for c in m.tool_calls), default=len(results))
        k = r + keep_last
        ages.append(len(asst) - bisect_right(asst, results[k]) if k < len(results) else 0)
    return ages


def eoq(
    items: Sequence[ViewItem], cands: Sequence[int], gains: Sequence[int], rewrites: Sequence[int], tail: int,
    history: ClearHistory, *, read: float, rewrite: float, at_least: int, keep_last: int,
) -> Start | None:
    """The ``eoq`` rule as a ``ClearRule``."""
    return eoq_start(gains, rewrites, tail, history, read=read, rewrite=rewrite, at_least=at_least)


def balance(
    items: Sequence[ViewItem], cands: Sequence[int], gains: Sequence[int], rewrites: Sequence[int], tail: int,
    history: ClearHistory, *, read: float, rewrite: float, at_least: int, keep_last: int,
) -> Start | None:
    """The ``balance`` rule as a ``ClearRule`` (the candidates' ages read from the view)."""
    return balance_start(gains, rewrites, candidate_ages(items, cands, keep_last), tail, history, read=read, rewrite=rewrite, at_least=at_least)


RULES: dict[str, Callable[..., Start | None] | str] = {"horizon": "horizon", "eoq": eoq, "balance": balance}
