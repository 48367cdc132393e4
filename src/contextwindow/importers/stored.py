"""The window and gauge of a stored conversation, read from its metadata, so ``sessions show`` and the
TUI gauge an imported session exactly as ``inspect`` and ``replay`` do (importers/window.py decided
the window at import and stored it with its source)."""

from __future__ import annotations

from typing import Any

from ..models import DEFAULT_WINDOW, get_model


def stored_window(metadata: dict[str, Any]) -> tuple[str | None, int, str]:
    """``(model, window, source)`` of a conversation: the imported log's window and its source, else
    the registry's window of the model the metadata names, else the default window (assumed)."""
    imp = metadata.get("imported") if isinstance(metadata, dict) else None
    model = metadata.get("model") if isinstance(metadata, dict) else None
    if isinstance(imp, dict):
        model = model or imp.get("model")
        w = imp.get("window")
        if isinstance(w, dict) and isinstance(w.get("tokens"), int) and w["tokens"] > 0:
            return (model if isinstance(model, str) else None), w["tokens"], str(w.get("source") or "assumed")
    if isinstance(model, str) and model.strip():
        spec = get_model(model, default=True)
        return model, spec.context_window, "registry" if spec.known else "assumed"
    return None, DEFAULT_WINDOW, "assumed"


def last_reported_input(metadata: dict[str, Any]) -> int | None:
    """The last imported call's provider-reported prompt (what the window held at the end), if any."""
    imp = metadata.get("imported") if isinstance(metadata, dict) else None
    calls = imp.get("calls") if isinstance(imp, dict) else None
    if not isinstance(calls, list):
        return None
    for c in reversed(calls):
        n = c.get("reported_input_tokens") if isinstance(c, dict) else None
        if isinstance(n, int):
            return n
    return None
