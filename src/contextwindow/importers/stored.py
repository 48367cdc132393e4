"""The window and gauge of a stored conversation, read from its metadata, so ``sessions show`` and the
TUI gauge an imported session exactly as ``inspect`` and ``replay`` do (importers/window.py decided
the window at import and stored it with its source)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import DEFAULT_WINDOW, get_model
from ..usage import Usage


def stored_window(metadata: dict[str, Any]) -> tuple[str | None, int, str]:
    """``(model, window, source)`` of a conversation: the imported log's window and its source, else
    the window ``ctxw proxy`` managed it with (its ``--window``, or the model's), else the registry's
    window of the model the metadata names, else the default window (assumed)."""
    imp = metadata.get("imported") if isinstance(metadata, dict) else None
    model = metadata.get("model") if isinstance(metadata, dict) else None
    if isinstance(imp, dict):
        model = model or imp.get("model")
        w = imp.get("window")
        if isinstance(w, dict) and isinstance(w.get("tokens"), int) and w["tokens"] > 0:
            return (model if isinstance(model, str) else None), w["tokens"], str(w.get("source") or "assumed")
    proxy = metadata.get("proxy") if isinstance(metadata, dict) else None
    if isinstance(proxy, dict) and isinstance(proxy.get("window"), int) and not isinstance(proxy["window"], bool) and proxy["window"] > 0:
        source = proxy.get("window_source")  # written since 2026-11-24; before, the proxy's window without its origin
        return (model if isinstance(model, str) else None), proxy["window"], source if isinstance(source, str) else "ctxw proxy"
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


def reported_input(metadata: dict[str, Any], usages: Sequence[Usage]) -> int | None:
    """What the window held at the last call: an imported log's last reported prompt; for a
    conversation ``ctxw proxy`` manages, the provider-reported prompt of its last main call (the
    proxy compacts in flight, so the record's own count is not what was sent); else None."""
    got = last_reported_input(metadata)
    if got is not None or not (isinstance(metadata, dict) and isinstance(metadata.get("proxy"), dict)):
        return got
    for u in reversed(usages):
        if u.role == "main" and u.input_tokens > 0:
            return u.input_tokens
    return None
