"""Prompt sections and their deterministic assembly into the system prompt.

A :class:`Section` has a phase (``constraint`` → ``tools`` → ``task`` → ``memory``), a priority
within its phase (higher first), a name (the last tie-breaker) and two flags:

- ``sticky``: never compressed, always sent (the budget waterfall may shrink the others);
- ``cacheable``: the same from call to call. Every cacheable section goes before every
  per-call (non-cacheable) one, so the cacheable prefix stays byte-identical while only
  per-call sections change, and provider prompt caches stay warm (invariant 4).

Order never depends on the order sections were handed in: the same set of sections gives
the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from ..errors import ConfigError
from ._count import Count, resolve_count

Phase = Literal["constraint", "tools", "task", "memory"]
PHASES: tuple[Phase, ...] = get_args(Phase)
SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class Section:
    """One named piece of the system prompt."""

    name: str
    text: str
    phase: Phase
    priority: int = 0
    sticky: bool = False
    cacheable: bool = True

    def __post_init__(self) -> None:
        if self.phase not in PHASES:
            raise ConfigError(f"section {self.name!r}: unknown phase {self.phase!r} (expected one of {', '.join(PHASES)})")
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"a section needs a non-empty name, got {self.name!r}")
        if not isinstance(self.text, str):
            raise ConfigError(f"section {self.name!r}: text must be a string, got {type(self.text).__name__}")


@dataclass(frozen=True, slots=True)
class SectionReport:
    """What one section contributed: its size in tokens and characters."""

    name: str
    phase: Phase
    sticky: bool
    tokens: int
    chars: int
    cacheable: bool = True


@dataclass(frozen=True, slots=True)
class AssembledPrompt:
    """The system prompt, its sections in order, and where its cacheable prefix ends.

    ``text[:cache_prefix_len]`` is the part made of cacheable sections only.
    """

    text: str
    sections: list[SectionReport]
    cache_prefix_len: int
    tokens: int

    @property
    def cache_prefix(self) -> str:
        return self.text[: self.cache_prefix_len]


def sort_key(section: Section) -> tuple[bool, int, int, str]:
    """Cacheable first, then phase, then priority (higher first), then name."""
    return (not section.cacheable, PHASES.index(section.phase), -section.priority, section.name)


def ordered(sections: Iterable[Section]) -> list[Section]:
    """Sections in assembly order, empty ones dropped; duplicate names are a :class:`ConfigError`."""
    seen: set[str] = set()
    out: list[Section] = []
    for s in sections:
        if s.name in seen:
            raise ConfigError(f"two prompt sections are named {s.name!r}; section names must be unique")
        seen.add(s.name)
        if s.text.strip():
            out.append(s)
    return sorted(out, key=sort_key)


def assemble_system(sections: Iterable[Section], count: Count | None = None) -> AssembledPrompt:
    """Join ``sections`` into one system prompt (sections separated by a blank line).

    Each section's text has trailing whitespace removed; empty sections are omitted.
    """
    counter = resolve_count(count)
    parts: list[str] = []
    reports: list[SectionReport] = []
    prefix_len = 0
    for s in ordered(sections):
        text = s.text.rstrip()
        parts.append(text)
        reports.append(SectionReport(s.name, s.phase, s.sticky, counter(text), len(text), s.cacheable))
        if s.cacheable:
            prefix_len = len(SEPARATOR.join(parts))
    full = SEPARATOR.join(parts)
    return AssembledPrompt(full, reports, prefix_len, counter(full) if full else 0)
