"""How admission counts tokens when the caller does not say (private)."""

from __future__ import annotations

from collections.abc import Callable

from ..tokens import counter_for

Count = Callable[[str], int]


def resolve_count(count: Count | None) -> Count:
    """``count`` itself, else the default counter of :mod:`contextwindow.tokens` (``counter_for(None)``)."""
    if count is not None:
        return count
    counter: Count = counter_for(None).count_text
    return counter
