"""When a model stops answering: retirement dates the bundled models.dev data lacks.

``data/model_lifecycle.json`` lists, per provider, model ids and the day their provider retires
them (requests fail from then on), with the source of each date; :func:`contextwindow.models.registry`
puts them on the specs (``ModelSpec.retires``), and a user models file may give an entry a
``"retires": "YYYY-MM-DD"`` of its own. :func:`status` says it in words for ``ctxw models show``
("deprecated, retires 2026-11-30"). Pure apart from reading the bundled file; the caller passes
today's date.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from .errors import ConfigError

LIFECYCLE_FILE = Path(__file__).parent / "data" / "model_lifecycle.json"


def parse_date(value: Any, where: str) -> str:
    """``value`` as an ISO date string, or a :class:`ConfigError` naming ``where``."""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: 'retires' must be a date written YYYY-MM-DD, got {value!r}")
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError as exc:
        raise ConfigError(f"{where}: 'retires' must be a date written YYYY-MM-DD, got {value!r}") from exc


def retirements(data: Mapping[str, Any], where: str = "model lifecycle data") -> dict[tuple[str, str], str]:
    """``{(provider, model id): "YYYY-MM-DD"}`` from lifecycle data (the bundled file's shape)."""
    items = data.get("retirements")
    if not isinstance(items, list):
        raise ConfigError(f"{where}: 'retirements' must be a list")
    out: dict[tuple[str, str], str] = {}
    for i, item in enumerate(items):
        at = f"{where} retirements[{i}]"
        if not isinstance(item, Mapping):
            raise ConfigError(f"{at}: must be an object")
        provider, ids = item.get("provider"), item.get("ids")
        if not isinstance(provider, str) or not provider or not isinstance(ids, list) or not all(isinstance(m, str) and m for m in ids):
            raise ConfigError(f"{at}: needs a 'provider' and a list of model 'ids'")
        day = parse_date(item.get("retires"), at)
        for mid in ids:
            out[(provider.lower(), mid.lower())] = day
    return out


def bundled_retirements() -> dict[tuple[str, str], str]:
    """The retirement dates shipped with contextwindow."""
    try:
        data = json.loads(LIFECYCLE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the bundled model lifecycle data {LIFECYCLE_FILE}: {exc}") from exc
    return retirements(data, str(LIFECYCLE_FILE.name))


def status(retires: str | None, today: date) -> str:
    """The model's lifecycle in words: "deprecated, retires YYYY-MM-DD", "retired YYYY-MM-DD …",
    or that no retirement date is known."""
    if retires is None:
        return "active (no retirement date known)"
    if date.fromisoformat(retires) > today:
        return f"deprecated, retires {retires}"
    return f"retired {retires} (requests to it fail)"
