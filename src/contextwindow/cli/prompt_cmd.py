"""``ctxw prompt``: show what would be admitted into the system prompt, section by section."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..admission import Admission, admit
from ..tokens import counter_for
from .common import emit_json, handle_errors, json_option

_DIR = click.Path(file_okay=False, dir_okay=True, path_type=Path)


def _counter(model: str | None) -> Any:
    if model is None:
        return None
    return counter_for(model).count_text


def admission_to_json(a: Admission) -> dict[str, Any]:
    """The JSON shape of ``ctxw prompt --json``."""
    return {
        "tokens": a.prompt.tokens,
        "chars": len(a.prompt.text),
        "cache_prefix_chars": a.prompt.cache_prefix_len,
        "sections": [
            {"name": s.name, "phase": s.phase, "sticky": s.sticky, "cacheable": s.cacheable, "tokens": s.tokens, "chars": s.chars}
            for s in a.prompt.sections
        ],
        "skills": [s.name for s in a.skills],
        "skill_files": [str(s.path) for s in a.skills],
        "instruction_files": [str(p) for p in a.instruction_files],
        "scope_file": str(a.scope_file) if a.scope_file else None,
        "tools": [t.name for t in a.tools],
        "omitted": [{"path": str(o.path) if o.path else None, "reason": o.reason} for o in a.omitted],
        "text": a.prompt.text,
    }


def _print_human(a: Admission, show_text: bool) -> None:
    p = a.prompt
    click.echo(f"System prompt: {p.tokens:,} tokens, {len(p.text):,} chars (cacheable prefix: {p.cache_prefix_len:,} chars)")
    if p.sections:
        click.echo(f"\n{'section':<16} {'phase':<11} {'tokens':>7} {'chars':>8}  flags")
        for s in p.sections:
            flags = ", ".join(f for f, on in (("sticky", s.sticky), ("cacheable", s.cacheable), ("per-call", not s.cacheable)) if on)
            click.echo(f"{s.name:<16} {s.phase:<11} {s.tokens:>7,} {s.chars:>8,}  {flags}")
    else:
        click.echo("\n(no sections: nothing found to admit)")
    click.echo(f"\nInstruction files ({len(a.instruction_files)}):")
    for f in a.instructions:
        note = f"  [truncated: {f.shown:,} of {f.chars:,} chars]" if f.truncated else ""
        click.echo(f"  {f.path}{note}")
    click.echo(f"\nSkills ({len(a.skills)}): " + (", ".join(s.name for s in a.skills) or "none"))
    if a.scope_file:
        click.echo(f"\nScope: {a.scope_file}")
    click.echo(f"\nLeft out ({len(a.omitted)}):" + ("" if a.omitted else " nothing"))
    for o in a.omitted:
        click.echo(f"  {o}")
    if show_text:
        click.echo("\n--- system prompt ---")
        click.echo(p.text)


@click.command("prompt")
@click.option("--cwd", "cwd", type=_DIR, default=None, help="Working directory of the agent (default: the current one).")
@click.option("--home", "home", type=_DIR, default=None, help="Home directory for user-wide files (default: ~).")
@click.option("--no-home", is_flag=True, help="Do not read user-wide files from the home directory.")
@click.option("--scope", "scope", type=_DIR, default=None, help="Folder the agent is scoped to (its SCOPE.md is admitted).")
@click.option("--model", default=None, help="Count tokens with this model's tokenizer (default: the estimator).")
@click.option("--per-file-chars", type=click.IntRange(min=0), default=4_000, show_default=True, help="Cap per instruction file.")
@click.option("--total-chars", type=click.IntRange(min=0), default=12_000, show_default=True, help="Cap for all instruction files.")
@click.option("--text", "show_text", is_flag=True, help="Also print the assembled system prompt.")
@json_option
@handle_errors
def prompt(
    cwd: Path | None,
    home: Path | None,
    no_home: bool,
    scope: Path | None,
    model: str | None,
    per_file_chars: int,
    total_chars: int,
    show_text: bool,
    as_json: bool,
) -> None:
    """Show what would be admitted into the system prompt: sections with token counts,
    instruction files, skills, and everything left out with the reason."""
    home_dir: Path | None = None if no_home else (home or Path(os.path.expanduser("~")))
    a = admit(
        cwd or Path.cwd(),
        home_dir,
        scope_dir=scope,
        per_file_chars=per_file_chars,
        total_chars=total_chars,
        count=_counter(model),
    )
    if as_json:
        emit_json(admission_to_json(a))
    else:
        _print_human(a, show_text)


def register(group: click.Group) -> None:
    """Add ``ctxw prompt`` to ``group``."""
    group.add_command(prompt)
