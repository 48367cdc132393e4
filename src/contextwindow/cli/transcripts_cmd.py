"""``ctxw import FILE...``: put real agent sessions into the store. (``ctxw inspect`` lives here too.)

Every file is imported on its own: a file that cannot be read or recognised is reported and the rest
go on. Lines the importer could not use are reported with their number and reason. The exit status is
non-zero only when nothing at all could be imported.
"""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from ..errors import ImportFormatError
from ..importers import FORMATS, ImportedSession, load_all, load_raw, normalize_format, parse_input
from ..usage import Usage
from .common import default_store_url, emit_json, handle_errors, json_option, read_input_bytes, store_option


def load_sessions(path: str, fmt: str | None) -> list[ImportedSession]:
    """Every session in ``path``; ``-`` reads the transcript from stdin."""
    if path != "-":
        return load_all(path, fmt)
    data = read_input_bytes("-")
    if not data.strip():
        raise ImportFormatError("stdin is empty: nothing to import")
    return load_raw(parse_input(data, "stdin"), fmt)


def session_metadata(s: ImportedSession) -> dict[str, Any]:
    """What the store keeps about an imported session besides its messages (JSON-safe)."""
    return {
        "imported": {
            "format": s.format,
            "source": s.source,
            "model": s.model,
            "calls": [asdict(c) for c in s.calls],
            "skipped": [{"line": k.line, "reason": k.reason} for k in s.skipped],
            "meta": s.meta,
        }
    }


def store_session(store: Any, s: ImportedSession) -> str:
    """Create a conversation for ``s``: its messages, its checkpoints and the usage of its calls."""
    title = s.title or Path(s.source).name
    conv = str(store.create_conversation(title, session_metadata(s)))
    stored = store.append(conv, s.messages)
    for cp in s.checkpoints:
        upto_seq = stored[cp.upto - 1].seq if cp.upto > 0 else 0
        store.checkpoint(conv, cp.summary, upto_seq, {"trigger": cp.trigger, "pre_tokens": cp.pre_tokens, "imported": True})
    for c in s.calls:
        if c.reported_input_tokens is None and c.output_tokens is None:
            continue
        store.record_usage(
            conv,
            Usage(
                input_tokens=c.reported_input_tokens or 0,
                output_tokens=c.output_tokens or 0,
                cache_read_tokens=c.cache_read_tokens or 0,
                cache_write_tokens=c.cache_write_tokens or 0,
                model=c.model,
                role="main",
                extra={"imported": True, "response_id": c.response_id},
            ),
        )
    return conv


def _progress(items: list[str], quiet: bool) -> Any:
    if quiet or len(items) < 2 or not sys.stderr.isatty():
        return _NoBar(items)
    return click.progressbar(items, label="importing", file=sys.stderr)


class _NoBar:
    def __init__(self, items: list[str]) -> None:
        self.items = items

    def __enter__(self) -> list[str]:
        return self.items

    def __exit__(self, *exc: object) -> None:
        return None


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=True, allow_dash=True, path_type=str), metavar="FILE|-...")
@store_option
@click.option(
    "--format",
    "fmt",
    default=None,
    metavar="FORMAT",
    help=f"Force the transcript format instead of detecting it ({', '.join(FORMATS)}).",
)
@json_option
@handle_errors
def import_cmd(files: tuple[str, ...], store_url: str | None, fmt: str | None, as_json: bool) -> None:
    """Import agent session logs (Claude Code, Codex, SWE-agent, OpenHands, provider payloads) into the store."""
    if fmt is not None:
        fmt = normalize_format(fmt)  # a bad --format is misuse: one error before anything is read
    from ..store import open_store

    store = open_store(store_url or default_store_url())
    conversations: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    try:
        with _progress(list(files), as_json) as bar:
            for path in bar:
                try:
                    sessions = load_sessions(path, fmt)
                except ImportFormatError as exc:
                    skipped.append({"source": path, "line": None, "reason": str(exc)})
                    continue
                for s in sessions:
                    conv = store_session(store, s)
                    conversations.append(
                        {
                            "id": conv,
                            "messages": len(s.messages),
                            "source": path,
                            "format": s.format,
                            "calls": len(s.calls),
                            "checkpoints": len(s.checkpoints),
                            "title": s.title,
                        }
                    )
                    skipped.extend({"source": path, "line": k.line, "reason": k.reason} for k in s.skipped)
    finally:
        store.close()
    if as_json:
        emit_json({"conversations": conversations, "skipped": skipped})
    else:
        for c in conversations:
            extra = f", {c['checkpoints']} compaction(s)" if c["checkpoints"] else ""
            click.echo(f"{c['source']}: {c['format']} → conversation {c['id']} ({c['messages']} messages, {c['calls']} calls{extra})")
        for k in skipped:
            where = f"{k['source']}:{k['line']}" if k["line"] is not None else k["source"]
            reason = str(k["reason"]).removeprefix(f"{k['source']}: ")
            click.echo(f"ctxw: skipped {where}: {reason}", err=True)
    if not conversations:
        click.echo("ctxw: error: nothing could be imported", err=True)
        raise SystemExit(1)


# --- ctxw inspect -------------------------------------------------------------------------


def newest_session(home: Path | None = None) -> Path | None:
    """The most recently modified Claude Code (~/.claude/projects/*/*.jsonl) or Codex
    (~/.codex/sessions/**/rollout-*.jsonl) session under ``home`` (default: $HOME), or None."""
    base = home or Path.home()
    found: list[Path] = [*base.glob(".claude/projects/*/*.jsonl"), *base.glob(".codex/sessions/**/rollout-*.jsonl")]
    best: tuple[float, str] | None = None
    for p in found:
        try:
            if not p.is_file():
                continue
            key = (p.stat().st_mtime, str(p))
        except OSError:
            continue
        if best is None or key > best:
            best = key
    return Path(best[1]) if best else None


@click.command("inspect")
@click.argument("file", required=False, type=click.Path(dir_okay=True, path_type=str))
@click.option("--format", "fmt", default=None, metavar="FORMAT", help=f"Force the transcript format ({', '.join(FORMATS)}).")
@click.option("--model", default=None, metavar="M", help="Model for the tokenizer and window (default: the model the log names).")
@click.option("--window", type=click.IntRange(min=1), default=None, metavar="N", help="Context window for the gauge (default: the model's).")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True, help="How many of the largest tool results to list.")
@json_option
@handle_errors
def inspect_cmd(file: str | None, fmt: str | None, model: str | None, window: int | None, top: int, as_json: bool) -> None:
    """What a session's window held: tokens by role, part kind and tool; largest results; per-call
    reported vs estimated input; compactions; the gauge at the end."""
    from ..errors import InputError
    from ..replay.inspect import inspect_session, render_inspection

    if fmt is not None:
        fmt = normalize_format(fmt)
    if file is None:
        found = newest_session()
        if found is None:
            raise InputError(
                f"no FILE given and no Claude Code (~/.claude/projects/*/*.jsonl) or Codex "
                f"(~/.codex/sessions/**/rollout-*.jsonl) session found under {Path.home()}"
            )
        click.echo(f"ctxw: inspecting {found} (the newest local session)", err=True)
        file = str(found)
    p = Path(file)
    if file != "-" and p.is_dir():
        raise InputError(f"{file} is a directory, not a session file")
    if file != "-" and not p.exists():
        raise InputError(f"{file}: no such file")
    session = load_sessions(file, fmt)[0]
    doc = inspect_session(session, model=model, window=window, top=top)
    if as_json:
        emit_json(doc)
    else:
        click.echo(render_inspection(doc))


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    group.add_command(import_cmd)
    group.add_command(inspect_cmd)
