"""Bounded regular expressions for patterns a model writes (``retrieve(grep=...)``).

A backtracking matcher takes time exponential in the input for patterns such as ``(a+)+$``; the
pattern comes from the model, the text from a tool, so neither can be trusted to be tame. Two
bounds, both ending in a clear :class:`~contextwindow.errors.InputError` the model can read and
act on:

1. **Statically**, a quantifier applied to something that itself holds a quantifier (``(a+)+``,
   ``(a*b?)*``, ``(?:x+y)+``) — the shape behind catastrophic backtracking — is refused before
   any matching, with the advice to drop the inner quantifier.
2. **At run time**, matching runs in the ``regex`` engine (a dependency of tiktoken) with a total
   time budget across the whole search (``TIME_BUDGET_S``); a pattern that still backtracks
   (overlapping alternatives under a quantifier, back-references) stops there.
"""

from __future__ import annotations

import time
from typing import Any

import regex

from ..errors import InputError

try:  # Python 3.11+
    import re._parser as _sre_parse  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - older Pythons
    import sre_parse as _sre_parse  # type: ignore[no-redef,unused-ignore]

__all__ = ["TIME_BUDGET_S", "Grep", "compile_grep"]

TIME_BUDGET_S = 2.0
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _nested_repeat(items: Any, inside: bool) -> bool:
    for op, av in items:
        name = str(op)
        if name in _REPEATS:
            _lo, hi, body = av
            unbounded = hi is _sre_parse.MAXREPEAT or hi > 16  # a small fixed count multiplies, it does not explode
            if unbounded and inside:
                return True
            if _nested_repeat(body, inside or unbounded):
                return True
        elif name == "SUBPATTERN":
            if _nested_repeat(av[-1], inside):
                return True
        elif name == "BRANCH":
            if any(_nested_repeat(b, inside) for b in av[1]):
                return True
        elif name in ("ASSERT", "ASSERT_NOT") and _nested_repeat(av[1], inside):
            return True
    return False


class Grep:
    """A compiled model-written pattern whose searches share one time budget."""

    def __init__(self, source: str, compiled: Any, budget_s: float) -> None:
        self.source = source
        self._re = compiled
        self._deadline = time.monotonic() + budget_s
        self._budget_s = budget_s

    def search(self, text: str, pos: int) -> Any:
        left = self._deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            return self._re.search(text, pos, timeout=left)
        except TimeoutError:
            raise InputError(
                f"retrieve grep {self.source!r} did not finish within its {self._budget_s:g} s budget over "
                f"{len(text):,} characters (the pattern backtracks); use a simpler pattern: plain words, "
                "no quantified groups or overlapping alternatives"
            ) from None


def compile_grep(pattern: str, *, budget_s: float = TIME_BUDGET_S) -> Grep:
    """``pattern`` compiled for a bounded search; InputError for an invalid or nested-quantifier pattern."""
    try:
        parsed = _sre_parse.parse(pattern, 0)
        compiled = regex.compile(pattern, regex.MULTILINE | regex.VERSION0)
    except Exception as exc:  # re.error / regex.error: both mean "not a valid pattern"
        raise InputError(f"retrieve grep {pattern!r} is not a valid regular expression: {exc}") from exc
    if _nested_repeat(list(parsed), False):
        raise InputError(
            f"retrieve grep {pattern!r} nests a quantifier inside another (as in '(a+)+'), which can take "
            "exponential time; drop the inner quantifier (e.g. '(a+)+' -> 'a+')"
        )
    return Grep(pattern, compiled, budget_s)
