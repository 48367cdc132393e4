"""Argument checks for the public functions: misuse becomes a typed ConfigError naming the
function, the argument and what came instead (never a TypeError from deep inside). Pure."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .errors import ConfigError

__all__ = ["check_int", "check_path", "check_sequence", "check_str"]


def _shown(value: Any) -> str:
    r = repr(value)
    return f"{type(value).__name__} {r[:60]}{'…' if len(r) > 60 else ''}"


def check_str(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string{' or None' if optional else ''}, got {_shown(value)}")
    return value


def check_path(value: Any, where: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str | os.PathLike):
        raise ConfigError(f"{where} must be a path (str or os.PathLike){' or None' if optional else ''}, got {_shown(value)}")
    return value


def check_int(value: Any, where: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where} must be an integer, got {_shown(value)}")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{where} must be ≥ {minimum}, got {value}")
    return value


def check_sequence(value: Any, where: str) -> Sequence[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ConfigError(f"{where} must be a list (a sequence), got {_shown(value)}")
    return value
