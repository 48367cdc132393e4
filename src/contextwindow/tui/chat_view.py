"""What ``ctxw chat`` shows, as plain strings: the status bar, the spend ledger, one-line tool
calls, cards for compactions and folds, the commands. Pure formatting over library values."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..budget import Gauge
from ..events import describe

SEVERITY_COLOUR = {"ok": "green", "warn": "yellow", "critical": "red"}
GAUGE_CELLS = 10

COMMANDS: dict[str, str] = {
    "/compact [instructions]": "fold the conversation now into a checkpoint (alias /handoff)",
    "/context": "the curation viewer: folds and turns; space selects, b builds a new conversation from them",
    "/set autoHandoffPct N|off": "fold automatically when the last call used N% of the window (off: never)",
    "/set limit NAME N|off": "session limits: turns, tokens, tool_calls, cost_usd, wall_s (defaults 200, 1M, 200, $2, 30 min)",
    "/sessions": "switch to another conversation of the store",
    "/model [NAME [WINDOW]]": "show or switch the model (WINDOW for one the registry does not know)",
    "/cost": "spend of this conversation per role",
    "/help": "this list",
}
ALIASES = {"/handoff": "/compact", ":handoff": "/compact", ":set": "/set"}


def parse_command(text: str) -> tuple[str, str] | None:
    """``"/compact keep the API"`` → ``("/compact", "keep the API")``; plain text → None."""
    t = text.strip()
    if not t.startswith(("/", ":")) or t.startswith("//"):
        return None
    head, _, rest = t.partition(" ")
    head = ALIASES.get(head.lower(), head.lower())
    return head, rest.strip()


def k(n: int | float) -> str:
    """18_400 → ``18k``; 1_234 → ``1.2k``; 160 → ``160``."""
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1_000:
        return f"{n / 1000:.1f}k"
    return f"{int(n)}"


def short_path(path: str, home: str | None = None) -> str:
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home):]
    return path


def store_kind(url: str) -> str:
    return "postgres" if url.startswith("postgres") else url.split(":", 1)[0] or "store"


@dataclass(frozen=True, slots=True)
class Status:
    model: str
    gauge: Gauge | None  # from the last real call (None before the first)
    cache_share: float | None  # cached share of the last call's input
    store: str
    cwd: str

    def markup(self) -> str:
        parts = [f"[b]{self.model}[/b]"]
        if self.gauge is None:
            parts.append("░" * GAUGE_CELLS + " – no call since start or fold")
        else:
            g = self.gauge
            full = min(GAUGE_CELLS, round(g.percent / 100 * GAUGE_CELLS))
            colour = SEVERITY_COLOUR[g.severity]
            parts.append(f"[{colour}]{'▓' * full}{'░' * (GAUGE_CELLS - full)} {g.percent:.0f}%[/{colour}] {k(g.used)}/{k(g.window)}")
        if self.cache_share is not None:
            parts.append(f"{self.cache_share * 100:.0f}% cached")
        parts += [self.store, self.cwd]
        return " · ".join(parts)

    def plain(self) -> str:
        import re

        return re.sub(r"\[/?[a-z ]+\]", "", self.markup())


def ledger(by_role: Mapping[str, Mapping[str, Any]]) -> str:
    """``Σ main 64k $0.41 · summarizer 1.2k · title 160`` (main first, dollars where priced)."""
    order = sorted(by_role, key=lambda r: (r != "main", r))
    parts = []
    for role in order:
        t = by_role[role]
        tokens = int(t.get("input_tokens", 0)) + int(t.get("output_tokens", 0))
        cost = t.get("cost_usd")
        dollars = f" ${cost:.2f}" if isinstance(cost, int | float) and cost > 0 else ""
        parts.append(f"{role} {k(tokens)}{dollars}")
    return "Σ " + (" · ".join(parts) if parts else "nothing spent yet")


def card(name: str, data: Mapping[str, Any]) -> str | None:
    """The text of a card for a compaction or fold event (None for other events)."""
    if name.startswith(("compaction.", "fold.")) or name in ("images.elided", "limit.exceeded", "limit.reached"):
        return describe(name, dict(data))
    return None


def nudge(g: Gauge | None) -> str | None:
    if g is not None and g.severity == "critical":
        return f"context at {g.percent:.0f}% of the window — fold now: /compact"
    return None


def help_text() -> str:
    return "\n".join(f"{c:<28} {d}" for c, d in COMMANDS.items()) + "\nTyping while a turn runs queues a steering message; Ctrl+C cancels the call."
