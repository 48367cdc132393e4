"""The terminal UI (``ctxw tui``): curate and account over a store. Needs the ``tui`` extra (textual)."""

from __future__ import annotations

from .app import CurateApp

__all__ = ["CurateApp"]
