"""Bounds on the summarizer as ``build()`` and ``fold()`` use it: a total deadline, and a brief
that fits its share of the budget.

- **Deadline.** The summarizer runs in a daemon worker thread; when it has not answered after
  ``deadline_s`` seconds (all its calls, retries and back-off together), the extractive brief is
  used and the outcome says so (``ok=False``, ``error``). A hung provider then costs one deadline,
  never an unbounded wait; the abandoned call finishes or fails on its own, its answer unused.
- **Size.** A brief larger than ``request.budget_tokens`` (plus a 10% allowance) is replaced by
  the extractive brief; if even that is too large it is cut to the budget (head kept, a line says
  so) with the user's constraints re-added verbatim — before it is stored, so one oversized brief
  never makes every later build fail.

:func:`call_with_deadline` is the same bound for any other model call made on the way (titles).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from ..errors import ConfigError, ContextWindowError
from ..errors import DeadlineExceededError as DeadlineExceeded
from .base import Summarizer, SummaryOutcome, SummaryRequest, ensure_constraints
from .extractive import CountText, ExtractiveSummarizer

__all__ = ["DEFAULT_DEADLINE_S", "DeadlineExceeded", "GuardedSummarizer", "call_with_deadline", "fit_brief"]

DEFAULT_DEADLINE_S = 30.0
SLACK = 1.10
CUT_NOTE = "[brief cut to fit its share of the context window]"

T = TypeVar("T")


def check_deadline(deadline_s: float | None, what: str = "deadline_s") -> float | None:
    if deadline_s is None:
        return None
    if isinstance(deadline_s, bool) or not isinstance(deadline_s, int | float) or not deadline_s > 0:
        raise ConfigError(f"{what} must be a positive number of seconds or None, got {deadline_s!r}")
    return float(deadline_s)


def call_with_deadline(fn: Callable[[], T], deadline_s: float | None) -> T:
    """``fn()``, or :class:`DeadlineExceeded` once ``deadline_s`` seconds have passed (``fn`` keeps
    running in a daemon thread, named ``<caller's thread name>/contextwindow-deadline``; its result
    is dropped). ``None``: no deadline."""
    if deadline_s is None:
        return fn()
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    # named after its caller, so what runs in it can tell whose work it does
    threading.Thread(target=run, name=f"{threading.current_thread().name}/contextwindow-deadline", daemon=True).start()
    if not done.wait(deadline_s):
        raise DeadlineExceeded(f"no answer within {deadline_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def fit_brief(outcome: SummaryOutcome, request: SummaryRequest, count: CountText, fallback: Summarizer) -> SummaryOutcome:
    """``outcome`` if its text fits ``request.budget_tokens`` (+10%), else the extractive brief,
    else that brief cut to the budget."""
    budget = request.budget_tokens
    size = count(outcome.text)
    if size <= budget * SLACK:
        return outcome
    why = f"brief of {size} tokens exceeds its budget of {budget}"
    if outcome.method != "extractive":
        fb = fallback.summarize(request)
        if count(fb.text) <= budget * SLACK:
            return replace(outcome, text=fb.text, method="extractive", ok=False, error=f"{why}; extractive brief used")
        outcome = replace(outcome, text=fb.text, method="extractive")
    return replace(outcome, text=_cut(outcome.text, request, count), ok=False, error=f"{why}; cut to fit")


def _cut(text: str, request: SummaryRequest, count: CountText) -> str:
    budget = request.budget_tokens
    keep = ensure_constraints("", request.constraints, request.superseded)
    room = max(0, budget - count(keep) - count(CUT_NOTE) - 8)
    lo, hi = 0, len(text)
    while lo < hi:  # the longest head that fits (O(log n) counts)
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo].rsplit("\n", 1)[0] if "\n" in text[:lo] else text[:lo]
    return ensure_constraints(f"{head.rstrip()}\n{CUT_NOTE}", request.constraints, request.superseded)


class GuardedSummarizer:
    """``inner`` under a total deadline, its brief held to its budget (see the module doc)."""

    def __init__(self, inner: Summarizer, count: CountText, *, deadline_s: float | None = DEFAULT_DEADLINE_S) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)
        self.deadline_s = check_deadline(deadline_s)
        self._count = count
        self._fallback = inner if isinstance(inner, ExtractiveSummarizer) else ExtractiveSummarizer(count)

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        if isinstance(self.inner, ExtractiveSummarizer):  # no model call: nothing to wait for
            outcome = self.inner.summarize(request)
        else:
            try:
                outcome = call_with_deadline(lambda: self.inner.summarize(request), self.deadline_s)
            except DeadlineExceeded as exc:
                fb = self._fallback.summarize(request)
                outcome = SummaryOutcome(fb.text, "extractive", ok=False, error=f"summarizer {self.name}: {exc}; extractive brief used")
            except ContextWindowError as exc:
                fb = self._fallback.summarize(request)
                outcome = SummaryOutcome(fb.text, "extractive", ok=False, error=f"{type(exc).__name__}: {exc}")
        return fit_brief(outcome, request, self._count, self._fallback)
