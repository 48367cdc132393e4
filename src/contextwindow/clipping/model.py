"""Values of the clipping stage: reports, results, configuration and the offload sink protocol."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import ConfigError, NotFoundError
from ..messages import ToolResultPart

Kind = Literal["auto", "search", "log", "json", "diff", "html", "read", "source", "text"]
KINDS: tuple[str, ...] = ("auto", "search", "log", "json", "diff", "html", "read", "source", "text")

#: Tool name whose results are never clipped again (they are bounded by ``retrieve`` itself).
RETRIEVE_TOOL_NAME = "retrieve"
#: Extra tokens a clipped output may carry beyond its budget for the marker (tiny budgets only).
MARKER_ALLOWANCE = 160


@dataclass(frozen=True, slots=True)
class ClipReport:
    """What a clip did. ``kind`` is the clipper that ran (``"none"`` when the input was under
    budget and returned unchanged, ``"offload"`` when it went over the hard cap and only a
    preview stayed). Token numbers include the marker; ``estimated`` is True when the input was
    too large to count exactly and ``tokens_before`` was extrapolated from samples."""

    kind: str
    tokens_before: int
    tokens_after: int
    lines_before: int
    lines_after: int
    ref: str | None = None
    dropped_tokens: int = 0
    dropped_lines: int = 0
    clipped: bool = False
    sniffed: str = "text"
    estimated: bool = False
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "sniffed": self.sniffed,
            "clipped": self.clipped,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "lines_before": self.lines_before,
            "lines_after": self.lines_after,
            "dropped_tokens": self.dropped_tokens,
            "dropped_lines": self.dropped_lines,
            "ref": self.ref,
            "estimated": self.estimated,
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class ClipResult:
    """The clipped text, the clipped part (when a :class:`ToolResultPart` went in) and the report."""

    text: str
    report: ClipReport
    part: ToolResultPart | None = None


@dataclass(frozen=True, slots=True)
class ClipConfig:
    """Budgets in tokens: ``per_tool`` maps a tool name to its own budget."""

    default_budget: int = 4000
    per_tool: Mapping[str, int] = field(default_factory=dict)
    hard_cap: int = 40000

    def __post_init__(self) -> None:
        for name, value in (("default_budget", self.default_budget), ("hard_cap", self.hard_cap)):
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"ClipConfig.{name} must be a positive number of tokens, got {value!r}")
        for tool, value in self.per_tool.items():
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"ClipConfig.per_tool[{tool!r}] must be a positive number of tokens, got {value!r}")

    def budget_for(self, tool_name: str | None) -> int:
        if tool_name is not None and tool_name in self.per_tool:
            return self.per_tool[tool_name]
        return self.default_budget


@runtime_checkable
class OffloadSink(Protocol):
    """Where originals go. Every contextwindow store satisfies it (``store.put_offload``)."""

    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str: ...

    def get_offload(self, ref: str) -> Any:
        """Return an object with ``ref``, ``content`` and ``meta``; NotFoundError if unknown."""
        ...


@dataclass(frozen=True, slots=True)
class OffloadRecord:
    ref: str
    content: str
    meta: dict[str, Any]


class MemoryOffload:
    """A process-local :class:`OffloadSink` (tests, throwaway sessions). Refs are content
    addressed (``ofl_`` + 16 hex digits), so offloading the same original twice stores it once."""

    def __init__(self) -> None:
        self._items: dict[str, OffloadRecord] = {}
        self._lock = threading.Lock()

    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str:
        h = hashlib.sha256()
        for start in range(0, len(content), 1 << 20):  # in slices: no second copy of a big original
            h.update(content[start : start + (1 << 20)].encode("utf-8", "surrogatepass"))
        digest = h.hexdigest()
        ref = f"ofl_{digest[:16]}"
        with self._lock:
            self._items.setdefault(ref, OffloadRecord(ref, content, dict(meta or {})))
        return ref

    def get_offload(self, ref: str) -> OffloadRecord:
        with self._lock:
            item = self._items.get(ref) if isinstance(ref, str) else None
        if item is None:
            raise NotFoundError(f"unknown offload ref {ref!r}: nothing was offloaded under it in this process")
        return item

    def __len__(self) -> int:
        return len(self._items)
