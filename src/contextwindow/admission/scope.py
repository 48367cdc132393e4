"""Folder scope: the body of ``<scope_dir>/SCOPE.md`` for an agent scoped to that folder.

Front matter, if any, is stripped (malformed front matter → the file is skipped with the
reason). The body is capped at ``max_chars`` (default 4,000) and a cut says so in words.
A folder without ``SCOPE.md`` simply has no scope section.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ._files import DEFAULT_MAX_FILE_BYTES, Omission, exists, is_dir, read_text
from .frontmatter import FrontMatterError, parse
from .sections import Section

SCOPE_FILE = "SCOPE.md"
DEFAULT_SCOPE_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class ScopeResult:
    section: Section | None
    path: Path | None  # the SCOPE.md admitted, if any
    omitted: list[Omission]


def scope_section(
    scope_dir: Path,
    *,
    max_chars: int = DEFAULT_SCOPE_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    priority: int = 0,
) -> ScopeResult:
    """The scope section for an agent scoped to ``scope_dir``. Never raises for a bad file."""
    ok, why = is_dir(scope_dir)
    if not ok:
        return ScopeResult(None, None, [Omission(scope_dir, f"scope folder not usable: {why or 'not a directory'}")])
    path = scope_dir / SCOPE_FILE
    if not exists(path):
        return ScopeResult(None, None, [])
    res = read_text(path, max_bytes=max_file_bytes)
    if res.text is None:
        return ScopeResult(None, None, [Omission(path, f"scope file not admitted: {res.reason}")])
    try:
        body = parse(res.text).body.strip("\n")
    except FrontMatterError as exc:
        return ScopeResult(None, None, [Omission(path, f"scope file not admitted: {exc}")])
    if not body.strip():
        return ScopeResult(None, None, [])
    omitted: list[Omission] = []
    if len(body) > max_chars:
        note = f"truncated to {max_chars:,} of {len(body):,} characters (scope cap of {max_chars:,})"
        body = body[:max_chars].rstrip() + f"\n[… {note}; the full file is {path}]"
        omitted.append(Omission(path, note))
    text = f"# Scope: {scope_dir}\nYou work within this folder. Its SCOPE.md says:\n\n{body}"
    return ScopeResult(Section("scope", text, "task", priority=priority, sticky=True, cacheable=True), path, omitted)
