"""Instruction files (AGENTS.md, AGENT.md, CLAUDE.md and their ``.local.md`` variants).

Collected from the filesystem root down to cwd, then from the home directory (``~`` itself,
``~/.claude`` and ``~/.codex``, where Claude Code and Codex keep user-wide files). Each file is
labelled with its directory. Identical contents are admitted once (SHA-256 of the text).

Caps: each file at most ``per_file_chars`` (default 4,000), all files together at most
``total_chars`` (default 12,000; headings and the notice are not counted). When the total cap
bites, the closest files are served first (cwd, then its parents upwards, then home), because
they are the most specific; the display order stays root → cwd → home.

Nothing is left out silently: the section ends with a notice, in words, naming every file that
was truncated, omitted or unreadable, how many characters, and why.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ._files import DEFAULT_MAX_FILE_BYTES, Omission, exists, read_text
from .sections import Section

INSTRUCTION_NAMES: tuple[str, ...] = (
    "AGENTS.md",
    "AGENTS.local.md",
    "AGENT.md",
    "AGENT.local.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
)
HOME_SUBDIRS: tuple[str, ...] = ("", ".claude", ".codex")
DEFAULT_PER_FILE_CHARS = 4_000
DEFAULT_TOTAL_CHARS = 12_000
#: A file is not cut to fewer characters than this to fit the total cap; it is omitted instead.
MIN_USEFUL_CHARS = 200


@dataclass(frozen=True, slots=True)
class InstructionFile:
    """An admitted instruction file: ``shown`` of its ``chars`` characters went into the prompt."""

    path: Path
    directory: Path
    chars: int
    shown: int

    @property
    def truncated(self) -> bool:
        return self.shown < self.chars


@dataclass(frozen=True, slots=True)
class InstructionsResult:
    section: Section | None
    files: list[InstructionFile]
    omitted: list[Omission]


@dataclass(frozen=True, slots=True)
class _Candidate:
    order: int  # display order (root → cwd → home)
    closeness: int  # allocation order (cwd first)
    path: Path
    text: str


def instruction_dirs(cwd: Path, home: Path | None) -> list[Path]:
    """Directories searched, in display order: root → … → cwd, then home; each once."""
    chain = [*reversed(cwd.parents), cwd]
    out = list(dict.fromkeys(chain))
    if home is not None:
        for sub in HOME_SUBDIRS:
            d = home / sub if sub else home
            if d not in out:
                out.append(d)
    return out


def _fmt(n: int) -> str:
    return f"{n:,}"


def collect_instructions(
    cwd: Path,
    home: Path | None,
    *,
    per_file_chars: int = DEFAULT_PER_FILE_CHARS,
    total_chars: int = DEFAULT_TOTAL_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    priority: int = 0,
) -> InstructionsResult:
    """Find, dedupe, cap and label the instruction files for an agent working in ``cwd``."""
    dirs = instruction_dirs(cwd, home)
    n_project = len(cwd.parents) + 1  # dirs[:n_project] is root → cwd
    notices: list[str] = []
    omitted: list[Omission] = []
    seen: dict[str, Path] = {}
    cands: list[_Candidate] = []
    for di, d in enumerate(dirs):
        for name in INSTRUCTION_NAMES:
            p = d / name
            if not exists(p):
                continue
            res = read_text(p, max_bytes=max_file_bytes)
            if res.text is None:
                omitted.append(Omission(p, f"instruction file not admitted: {res.reason}"))
                notices.append(f"- {p}: not admitted, {res.reason}.")
                continue
            # Line endings and blank edges do not make different instructions: a CRLF or
            # newline-terminated copy is the same content (and no CR goes into the prompt).
            text = res.text.replace("\r\n", "\n").strip("\n").rstrip()
            if not text:
                continue
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if digest in seen:
                omitted.append(Omission(p, f"same content as {seen[digest]}; included once"))
                notices.append(f"- {p}: same content as {seen[digest]}, included once.")
                continue
            seen[digest] = p
            # cwd gets closeness 0, its parent 1, ...; home directories come after all of them
            closeness = (n_project - 1 - di) if di < n_project else di
            cands.append(_Candidate(len(cands), closeness, p, text))

    remaining = max(0, total_chars)
    shown: dict[int, int] = {}
    left_out: dict[int, str] = {}
    for c in sorted(cands, key=lambda c: (c.closeness, c.order)):
        want = min(len(c.text), max(0, per_file_chars))
        give = min(want, remaining)
        if want == 0:
            left_out[c.order] = f"the per-file cap is {_fmt(per_file_chars)} characters"
        elif give == 0 or (give < want and give < MIN_USEFUL_CHARS):
            left_out[c.order] = f"the section cap of {_fmt(total_chars)} characters was reached"
        else:
            shown[c.order] = give
            remaining -= give
            continue
        omitted.append(Omission(c.path, f"omitted: {left_out[c.order]}"))

    blocks: list[str] = []
    files: list[InstructionFile] = []
    for c in cands:
        if c.order in left_out:
            notices.append(f"- {c.path}: omitted entirely ({_fmt(len(c.text))} characters), {left_out[c.order]}.")
            continue
        n = shown[c.order]
        body = c.text
        if n < len(body):
            why = f"per-file cap of {_fmt(per_file_chars)}" if n == per_file_chars else f"section cap of {_fmt(total_chars)}"
            body = body[:n].rstrip() + f"\n[… truncated: {_fmt(n)} of {_fmt(len(c.text))} characters shown ({why})]"
            notices.append(f"- {c.path}: truncated to {_fmt(n)} of {_fmt(len(c.text))} characters ({why}).")
            omitted.append(Omission(c.path, f"truncated to {_fmt(n)} of {_fmt(len(c.text))} characters ({why})"))
        blocks.append(f"## From {c.path.parent} ({c.path.name})\n{body}")
        files.append(InstructionFile(c.path, c.path.parent, len(c.text), n))

    if not blocks and not notices:
        return InstructionsResult(None, [], omitted)
    parts = [
        "# Instruction files\n"
        "Project and user instructions, from the filesystem root down to the working directory, then the "
        "home directory. Where they disagree, the file closer to the working directory is more specific."
    ]
    parts += blocks if blocks else ["No instruction file could be admitted."]
    if notices:
        parts.append("Left out of this section:\n" + "\n".join(notices))
    section = Section("instructions", "\n\n".join(parts), "constraint", priority=priority, sticky=True, cacheable=True)
    return InstructionsResult(section, files, omitted)
