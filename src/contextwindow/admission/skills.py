"""Skills: discovered on disk, admitted as an index, read on demand with ``read_skill``.

A skill is a folder holding a ``SKILL.md`` whose front matter has ``name`` and ``description``.
Skills folders are searched in this order, and the first skill found with a given name wins
(closer shadows farther):

1. for cwd, then each parent up to the filesystem root:
   ``.agents/skills/``, ``.claude/skills/``, ``skills/``
2. then ``<home>/.agents/skills/``, ``<home>/.claude/skills/``

Only the index (``- name: description``, one line per skill) enters the system prompt. Bodies
never do: the model calls the ``read_skill`` tool to read one.

A folder without ``SKILL.md`` is simply not a skill. A ``SKILL.md`` that cannot be used
(unreadable, too large, binary, not UTF-8, no or malformed front matter, missing name or
description) is skipped and reported as an :class:`Omission`, once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError
from ..formats import tooldefs
from ..tools import ToolSpec
from ._files import DEFAULT_MAX_FILE_BYTES, Omission, exists, identity, is_dir, list_dir, read_text
from .frontmatter import FrontMatterError, parse
from .sections import Section

PROJECT_SKILL_DIRS: tuple[str, ...] = (".agents/skills", ".claude/skills", "skills")
HOME_SKILL_DIRS: tuple[str, ...] = (".agents/skills", ".claude/skills")
SKILL_FILE = "SKILL.md"
#: Bound on the skill folders looked at in one skills directory.
MAX_SKILLS_PER_DIR = 10_000
#: Longest description kept in the index (longer ones are cut with an ellipsis).
MAX_DESCRIPTION_CHARS = 1024
MAX_NAME_CHARS = 128
_WS = re.compile(r"\s+")

READ_SKILL_TOOL = ToolSpec(
    name="read_skill",
    description=(
        "Read the full instructions of a skill listed in the skills index of the system prompt. "
        "Call it with the skill's name before doing a task the skill covers."
    ),
    parameters={
        "type": "object",
        "properties": {"name": {"type": "string", "description": "The skill's name, exactly as in the index."}},
        "required": ["name"],
    },
)


@dataclass(frozen=True, slots=True)
class Skill:
    """A discovered skill: its index line's fields and where its ``SKILL.md`` lives."""

    name: str
    description: str
    path: Path

    @property
    def index_line(self) -> str:
        return f"- {self.name}: {self.description}"


@dataclass(frozen=True, slots=True)
class SkillDiscovery:
    skills: list[Skill]
    omitted: list[Omission]


def skill_dirs(cwd: Path, home: Path | None) -> list[Path]:
    """The skills directories to search, closest first, each at most once."""
    out: list[Path] = []
    seen: set[Path] = set()
    for d in (cwd, *cwd.parents):
        for rel in PROJECT_SKILL_DIRS:
            p = d / rel
            if p not in seen:
                seen.add(p)
                out.append(p)
    if home is not None:
        for rel in HOME_SKILL_DIRS:
            p = home / rel
            if p not in seen:
                seen.add(p)
                out.append(p)
    return out


def _one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


def load_skill(skill_file: Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Skill | Omission:
    """Read one ``SKILL.md``: a :class:`Skill`, or an :class:`Omission` saying why not."""
    res = read_text(skill_file, max_bytes=max_bytes)
    if res.text is None:
        return Omission(skill_file, f"skill skipped: {res.reason}")
    try:
        fm = parse(res.text)
    except FrontMatterError as exc:
        return Omission(skill_file, f"skill skipped: {exc}")
    if not fm.present:
        return Omission(skill_file, "skill skipped: no front matter (the file must start with a '---' line)")
    name = fm.fields.get("name")
    desc = fm.fields.get("description")
    if not isinstance(name, str) or not _one_line(name):
        return Omission(skill_file, "skill skipped: front matter has no 'name'")
    if not isinstance(desc, str) or not _one_line(desc):
        return Omission(skill_file, "skill skipped: front matter has no 'description'")
    name = _one_line(name)
    if len(name) > MAX_NAME_CHARS:
        return Omission(skill_file, f"skill skipped: name longer than {MAX_NAME_CHARS} characters")
    desc = _one_line(desc)
    if len(desc) > MAX_DESCRIPTION_CHARS:
        desc = desc[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return Skill(name, desc, skill_file)


def discover_skills(
    cwd: Path, home: Path | None, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES, max_per_dir: int = MAX_SKILLS_PER_DIR
) -> SkillDiscovery:
    """Find every usable skill (closer shadows farther) and what was skipped. Never raises for bad files."""
    found: dict[str, Skill] = {}
    omitted: list[Omission] = []
    seen: set[tuple[int, int]] = set()  # a folder or file reached twice through symlinks counts once
    for sdir in skill_dirs(cwd, home):
        ident = identity(sdir)
        if ident is not None:
            if ident in seen:
                continue
            seen.add(ident)
        names, problem = list_dir(sdir, max_entries=max_per_dir)
        if problem:
            omitted.append(Omission(sdir, f"skills folder {problem}"))
        for entry in names:
            folder = sdir / entry
            ok, why = is_dir(folder)
            if not ok:
                if why:
                    omitted.append(Omission(folder, f"skill folder skipped: {why}"))
                continue
            skill_file = folder / SKILL_FILE
            if not exists(skill_file):
                continue
            ident = identity(skill_file)
            if ident is not None:
                if ident in seen:
                    continue
                seen.add(ident)
            got = load_skill(skill_file, max_bytes=max_bytes)
            if isinstance(got, Omission):
                omitted.append(got)
            elif got.name in found:
                omitted.append(Omission(skill_file, f"skill {got.name!r} shadowed by {found[got.name].path}"))
            else:
                found[got.name] = got
    return SkillDiscovery(sorted(found.values(), key=lambda s: s.name), omitted)


def skills_index_section(skills: Sequence[Skill], *, priority: int = 0) -> Section | None:
    """The index section (one line per skill, sorted by name); ``None`` when there are no skills."""
    if not skills:
        return None
    lines = [
        "# Skills",
        f"Skills hold instructions for specific tasks. Only this index is shown; call the {READ_SKILL_TOOL.name} "
        "tool with a skill's name to read its instructions before doing a task it covers.",
        "",
        *(s.index_line for s in sorted(skills, key=lambda s: s.name)),
    ]
    return Section("skills", "\n".join(lines), "tools", priority=priority, sticky=True, cacheable=True)


def read_skill(skills: Sequence[Skill], name: str, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """The body of skill ``name`` (front matter stripped), or an error text the model can act on."""
    by_name = {s.name: s for s in skills}
    known = ", ".join(sorted(by_name)) or "(none)"
    skill = by_name.get(name.strip() if isinstance(name, str) else "")
    if skill is None:
        return f"Error: no skill named {name!r}. Known skills: {known}."
    res = read_text(skill.path, max_bytes=max_bytes)
    if res.text is None:
        return f"Error: skill {skill.name!r} cannot be read from {skill.path}: {res.reason}."
    try:
        body = parse(res.text).body
    except FrontMatterError as exc:
        return f"Error: skill {skill.name!r} at {skill.path} has malformed front matter: {exc}."
    return body.strip() + "\n" if body.strip() else f"(skill {skill.name!r} has no instructions beyond its description)\n"


ToolFormat = Literal["openai", "openai_responses", "anthropic", "gemini"]
_RENDERERS = {
    "openai": tooldefs.to_openai_tools,
    "openai_responses": tooldefs.to_responses_tools,
    "anthropic": tooldefs.to_anthropic_tools,
    "gemini": tooldefs.to_gemini_tools,
}
TOOL_FORMATS: tuple[str, ...] = tuple(_RENDERERS)


def read_skill_tool(fmt: ToolFormat) -> dict[str, Any]:
    """The ``read_skill`` tool definition as one entry of a provider's tool list.

    OpenAI chat: ``{"type": "function", "function": {...}}``; Responses: flat function tool;
    Anthropic: ``{name, description, input_schema}``; Gemini: ``{"functionDeclarations": [...]}``.
    """
    render = _RENDERERS.get(fmt)
    if render is None:
        raise ConfigError(f"unknown tool format {fmt!r} (expected one of {', '.join(TOOL_FORMATS)})")
    return render([READ_SKILL_TOOL])[0]
