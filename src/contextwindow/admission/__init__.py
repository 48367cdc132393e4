"""Admission: what earns a seat in the system prompt.

:func:`admit` gathers, for an agent working in ``cwd``:

- the caller's own sections (``base_sections``: role, rules, tool notes…);
- instruction files (AGENTS.md, AGENT.md, CLAUDE.md, ``*.local.md``) root → cwd → home,
  deduped, labelled, capped per file and in total (:mod:`.instructions`);
- the skills index, one line per skill, plus the ``read_skill`` tool (:mod:`.skills`);
- the ``SCOPE.md`` of the folder the agent is scoped to (:mod:`.scope`);

and assembles them deterministically (:mod:`.sections`). A bad file never raises: it is left
out and listed once in :attr:`Admission.omitted` with the reason. Per-call parts (the runtime
block of :mod:`.runtime`) are added with :meth:`Admission.assemble`, after the cacheable prefix.
Steering messages are in :mod:`.steering`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..events import Event
from ..tools import ToolSpec
from ._count import Count, resolve_count
from ._files import DEFAULT_MAX_FILE_BYTES, Omission
from .instructions import (
    DEFAULT_PER_FILE_CHARS,
    DEFAULT_TOTAL_CHARS,
    InstructionFile,
    collect_instructions,
)
from .runtime import runtime_section, wants_batching
from .scope import DEFAULT_SCOPE_CHARS, scope_section
from .sections import PHASES, AssembledPrompt, Phase, Section, SectionReport, assemble_system
from .skills import READ_SKILL_TOOL, Skill, discover_skills, read_skill, read_skill_tool, skills_index_section
from .steering import SteeringQueue, can_steer, drain_into, merge_steering

__all__ = [
    "PHASES",
    "READ_SKILL_TOOL",
    "Admission",
    "AssembledPrompt",
    "InstructionFile",
    "Omission",
    "Phase",
    "Section",
    "SectionReport",
    "Skill",
    "SteeringQueue",
    "admit",
    "assemble_system",
    "can_steer",
    "collect_instructions",
    "discover_skills",
    "drain_into",
    "merge_steering",
    "read_skill",
    "read_skill_tool",
    "runtime_section",
    "scope_section",
    "skills_index_section",
    "wants_batching",
]


@dataclass(frozen=True, slots=True)
class Admission:
    """The admitted system prompt and everything needed to explain it."""

    prompt: AssembledPrompt
    skills: list[Skill]
    instruction_files: list[Path]
    omitted: list[Omission]
    tools: list[ToolSpec]
    sections: list[Section] = field(default_factory=list)
    instructions: list[InstructionFile] = field(default_factory=list)
    scope_file: Path | None = None

    def events(self) -> list[Event]:
        """One ``admission.omitted`` event per thing left out (path, reason), for an EventBus."""
        return [Event("admission.omitted", {"path": str(o.path) if o.path else None, "reason": o.reason}) for o in self.omitted]

    def read_skill(self, name: str) -> str:
        """Run the ``read_skill`` tool: the skill's body, or an error text listing known names."""
        return read_skill(self.skills, name)

    def assemble(self, per_call: Iterable[Section] = (), count: Count | None = None) -> AssembledPrompt:
        """The system prompt with per-call sections (e.g. the runtime block) added.

        The cacheable prefix is the same bytes as :attr:`prompt`'s as long as ``per_call`` holds
        only non-cacheable sections.
        """
        return assemble_system([*self.sections, *per_call], count=count)


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def admit(
    cwd: str | os.PathLike[str],
    home: str | os.PathLike[str] | None,
    *,
    scope_dir: str | os.PathLike[str] | None = None,
    base_sections: Sequence[Section] = (),
    per_file_chars: int = DEFAULT_PER_FILE_CHARS,
    total_chars: int = DEFAULT_TOTAL_CHARS,
    scope_chars: int = DEFAULT_SCOPE_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    skills: bool = True,
    count: Count | None = None,
) -> Admission:
    """Admit the system prompt for an agent in ``cwd`` (``home=None``: skip user-wide files).

    Paths are made absolute, ``~`` expanded and symlinks resolved. Caps are in characters;
    ``max_file_bytes`` bounds every read. Bad files are left out and listed in ``omitted``.
    """
    from ..argcheck import check_int, check_path

    check_path(cwd, "admit(cwd)")
    check_path(home, "admit(home)", optional=True)
    check_path(scope_dir, "admit(scope_dir)", optional=True)
    for label, value in (("per_file_chars", per_file_chars), ("total_chars", total_chars), ("scope_chars", scope_chars)):
        check_int(value, f"admit({label})")
        if value < 0:
            raise ConfigError(f"admit: {label} must be zero or more, got {value}")
    if check_int(max_file_bytes, "admit(max_file_bytes)") < 1:
        raise ConfigError(f"admit: max_file_bytes must be at least 1, got {max_file_bytes}")
    root = _real(cwd)
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise ConfigError(f"admit: working directory {os.fspath(cwd)!r} {what}")
    home_dir = _real(home) if home is not None else None
    counter = resolve_count(count)

    sections: list[Section] = list(base_sections)
    omitted: list[Omission] = []

    ins = collect_instructions(
        root, home_dir, per_file_chars=per_file_chars, total_chars=total_chars, max_file_bytes=max_file_bytes
    )
    omitted += ins.omitted
    if ins.section is not None:
        sections.append(ins.section)

    found: list[Skill] = []
    tools: list[ToolSpec] = []
    if skills:
        disc = discover_skills(root, home_dir, max_bytes=max_file_bytes)
        omitted += disc.omitted
        found = disc.skills
        index = skills_index_section(found)
        if index is not None:
            sections.append(index)
            tools.append(READ_SKILL_TOOL)

    scope_path: Path | None = None
    if scope_dir is not None:
        sc = scope_section(_real(scope_dir), max_chars=scope_chars, max_file_bytes=max_file_bytes)
        omitted += sc.omitted
        scope_path = sc.path
        if sc.section is not None:
            sections.append(sc.section)

    prompt = assemble_system(sections, count=counter)
    return Admission(
        prompt=prompt,
        skills=found,
        instruction_files=[f.path for f in ins.files],
        omitted=list(dict.fromkeys(omitted)),
        tools=tools,
        sections=sections,
        instructions=ins.files,
        scope_file=scope_path,
    )
