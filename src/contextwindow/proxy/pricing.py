"""Each answer's usage priced at the model the client named (left unpriced, never $0, for a
model the registry does not know)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..usage import Usage

_SPECS: dict[str, tuple[Any, Any]] = {}  # model name as a client sends it -> (registry, its spec or None); bounded below


def _spec(model: str) -> Any:
    """The registry's spec of ``model``, looked up once per name and registry (the look-up resolves
    aliases and dated names by pattern: ~30 µs, on every answer before; a user's models file that
    changes makes a new registry, and the names are looked up again)."""
    from ..models import find_model, registry

    reg = registry()
    hit = _SPECS.get(model)
    if hit is not None and hit[0] is reg:
        return hit[1]
    spec = find_model(model)
    if len(_SPECS) >= 256:
        _SPECS.clear()
    _SPECS[model] = (reg, spec)
    return spec


def price(usage: Usage) -> Usage:
    """``usage`` with its cost at the model that made it (left None, i.e. unpriced, when unknown)."""
    if usage.cost_usd is not None or not usage.model:
        return usage
    spec = _spec(usage.model)
    if spec is None:
        return usage
    fresh = max(usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens, 0)
    return replace(usage, cost_usd=spec.cost(fresh, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens))
