"""How admission counts tokens when the caller does not say (private)."""

from __future__ import annotations

from collections.abc import Callable

Count = Callable[[str], int]


def resolve_count(count: Count | None) -> Count:
    """``count`` itself, else the default counter of :mod:`contextwindow.tokens`."""
    if count is not None:
        return count
    try:
        from ..tokens import counter_for  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # TEMPORARY: until contextwindow.tokens is committed
        return _approx
    counter: Count = counter_for(None).count_text
    return counter


def _approx(text: str) -> int:
    return (len(text) + 3) // 4
