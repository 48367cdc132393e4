"""A memo of the clause reader's pure answers for the span of ONE ledger update.

Reading a user message (``reading.detect`` and the supersession that follows) types the values of
the same clause several times: each reading of a clause, its compound parts and the entries made
of it call :func:`.clauses.find_values` on the same text again. Inside :func:`reading_scope` those
answers are kept by text and given back as fresh lists; outside it nothing is kept (the memo lives
only as long as the scope, so no answer outlives the update that made it and nothing is shared
between messages, sessions or replays).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar

_T = TypeVar("_T")
_SCOPE: ContextVar[dict[Any, tuple[Any, ...]] | None] = ContextVar("contextwindow_reading_scope", default=None)


@contextmanager
def reading_scope() -> Iterator[None]:
    """Within it, :func:`kept_in_scope` functions answer each text once."""
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def kept_in_scope(fn: Callable[[str], list[_T]]) -> Callable[[str], list[_T]]:
    """``fn`` (a pure function of one text returning a list of frozen values), remembered per text
    inside a :func:`reading_scope`; each call gets its own list."""

    @wraps(fn)
    def wrapper(text: str) -> list[_T]:
        memo = _SCOPE.get()
        if memo is None:
            return fn(text)
        key = (fn, text)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = tuple(fn(text))
        return list(hit)

    return wrapper
