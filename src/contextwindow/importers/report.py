"""What an import dropped or repaired, counted by kind (for stderr and ``--json`` of import/inspect/replay).

Every :class:`~.model.Skipped` entry is one item: entries whose reason starts with ``repaired:`` were
repaired (the data is kept, changed), the others were dropped (left out). An importer may also count
whole records it left out on purpose in ``meta["dropped"]`` (``{kind: n}``), e.g. abandoned branches.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .model import ImportedSession, Skipped

REPAIRED = "repaired: "
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def skip_kind(s: Skipped) -> str:
    """The kind of one entry: its ``kind`` or the reason's head (before ``:``/``(``, quotes removed)."""
    if s.kind:
        return s.kind
    text = s.reason.removeprefix(REPAIRED)
    text = _QUOTED.sub("", text)
    head = re.split(r"[:(;]", text, maxsplit=1)[0]
    return " ".join(head.split()) or "other"


def import_report(s: ImportedSession) -> dict[str, dict[str, int]]:
    """``{"dropped": {kind: n}, "repaired": {kind: n}}`` for one imported session."""
    dropped: Counter[str] = Counter()
    repaired: Counter[str] = Counter()
    for k in s.skipped:
        (repaired if k.reason.startswith(REPAIRED) else dropped)[skip_kind(k)] += 1
    extra = s.meta.get("dropped")
    if isinstance(extra, dict):
        for kind, n in extra.items():
            if isinstance(n, int) and n > 0:
                dropped[str(kind)] += n
    return {"dropped": dict(sorted(dropped.items())), "repaired": dict(sorted(repaired.items()))}


def report_line(report: dict[str, dict[str, int]]) -> str:
    """One human line: ``dropped 3 (2 comment line, 1 not valid JSON); repaired 1 (…)`` or ``nothing dropped or repaired``."""
    out: list[str] = []
    for what in ("dropped", "repaired"):
        counts = report.get(what) or {}
        total = sum(counts.values())
        if total:
            detail = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(f"{what} {total} ({detail})")
    return "; ".join(out) if out else "nothing dropped or repaired"


def merged(reports: list[dict[str, dict[str, int]]]) -> dict[str, Any]:
    """Several sessions' reports summed."""
    total: dict[str, Counter[str]] = {"dropped": Counter(), "repaired": Counter()}
    for r in reports:
        for what in total:
            total[what].update(r.get(what) or {})
    return {k: dict(sorted(v.items())) for k, v in total.items()}
