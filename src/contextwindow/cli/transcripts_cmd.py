"""``ctxw import FILE...``: put real agent sessions into the store. (``ctxw inspect`` lives here too.)

Every file is imported on its own: a file that cannot be read or recognised is reported and the rest
go on; a directory is imported recursively (its ``*.jsonl``, ``*.json`` and ``*.traj`` files). What each
importer dropped or repaired is reported by kind (stderr, and ``report`` in ``--json``). A session whose
content was already imported (same content hash) is not stored twice. The exit status is non-zero when
any file failed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from ..cost import call_cost, calls_total
from ..errors import ImportFormatError
from ..importers import FORMATS, ImportedSession, load_all, load_raw, normalize_format, parse_input
from ..importers.report import import_report, report_line
from ..importers.window import session_window
from ..messages import messages_to_json
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


TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".traj")


def content_hash(s: ImportedSession) -> str:
    """A hash of what a session holds (format, messages, calls, checkpoints), not of where it came from."""
    doc = {
        "format": s.format,
        "messages": messages_to_json(s.messages),
        "calls": [asdict(c) for c in s.calls],
        "checkpoints": [[cp.upto, messages_to_json([cp.summary])] for cp in s.checkpoints],
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


def expand_paths(paths: tuple[str, ...] | list[str]) -> list[str]:
    """Files to import: a directory stands for its transcript files, recursively, in name order."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if p != "-" and path.is_dir():
            found = sorted(
                str(f)
                for f in path.rglob("*")
                if f.suffix in TRANSCRIPT_SUFFIXES and f.is_file() and not any(x.startswith(".") for x in f.relative_to(path).parts)
            )
            out.extend(found or [p])  # an empty directory is reported as such
        else:
            out.append(p)
    return out


def session_metadata(s: ImportedSession, digest: str | None = None) -> dict[str, Any]:
    """What the store keeps about an imported session besides its messages (JSON-safe)."""
    win, win_source = session_window(s)
    return {
        "imported": {
            "format": s.format,
            "source": s.source,
            "model": s.model,
            "calls": [asdict(c) for c in s.calls],
            "skipped": [{"line": k.line, "reason": k.reason} for k in s.skipped],
            "report": import_report(s),
            "meta": s.meta,
            "content_hash": digest or content_hash(s),
            "window": {"tokens": win, "source": win_source},
            "cost": calls_total(s.calls).to_dict(),
        }
    }


def imported_hashes(store: Any) -> dict[str, str]:
    """content hash → conversation id of every imported conversation in the store."""
    out: dict[str, str] = {}
    for info in store.list_conversations():
        imp = info.metadata.get("imported") if isinstance(info.metadata, dict) else None
        if isinstance(imp, dict) and isinstance(imp.get("content_hash"), str):
            out.setdefault(imp["content_hash"], info.id)
    return out


def store_session(store: Any, s: ImportedSession, digest: str | None = None, parent_id: str | None = None) -> str:
    """Create a conversation for ``s``: its messages, its checkpoints and the usage of its calls."""
    title = s.title or Path(s.source).name
    conv = str(store.create_conversation(title, session_metadata(s, digest), parent_id=parent_id))
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
                cost_usd=call_cost(c),
                extra={"imported": True, "response_id": c.response_id, "cache_write_1h_tokens": c.cache_write_1h_tokens},
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
    duplicates: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    failed: list[str] = []
    paths = expand_paths(files)
    try:
        known = imported_hashes(store)
        with _progress(paths, as_json) as bar:
            for path in bar:
                try:
                    sessions = load_sessions(path, fmt)
                except ImportFormatError as exc:
                    skipped.append({"source": path, "line": None, "reason": str(exc)})
                    failed.append(path)
                    continue
                ids: dict[str, str] = {}
                for s in sessions:
                    digest = content_hash(s)
                    report = import_report(s)
                    if digest in known:
                        duplicates.append({"id": known[digest], "source": path, "format": s.format, "title": s.title})
                        ids[s.source] = known[digest]
                        continue
                    parent = s.meta.get("parent")
                    parent_id = ids.get(str(parent.get("source"))) if isinstance(parent, dict) else None
                    conv = store_session(store, s, digest, parent_id)
                    known[digest] = ids[s.source] = conv
                    conversations.append(
                        {
                            "id": conv,
                            "messages": len(s.messages),
                            "source": path,
                            "format": s.format,
                            "calls": len(s.calls),
                            "checkpoints": len(s.checkpoints),
                            "title": s.title,
                            "parent_id": parent_id,
                            "report": report,
                        }
                    )
                    skipped.extend({"source": path, "line": k.line, "reason": k.reason} for k in s.skipped)
    finally:
        store.close()
    if as_json:
        emit_json({"conversations": conversations, "already_imported": duplicates, "skipped": skipped, "failed": failed})
    else:
        for c in conversations:
            extra = f", {c['checkpoints']} compaction(s)" if c["checkpoints"] else ""
            sub = f", sub-agent of {c['parent_id']}" if c["parent_id"] else ""
            click.echo(f"{c['source']}: {c['format']} → conversation {c['id']} ({c['messages']} messages, {c['calls']} calls{extra}{sub})")
            if any(c["report"].values()):
                click.echo(f"ctxw: {c['source']}: {report_line(c['report'])}", err=True)
        for d in duplicates:
            click.echo(f"{d['source']}: already imported as conversation {d['id']} (same content); not stored again")
        for k in skipped:
            if str(k["reason"]).startswith("repaired: "):
                continue  # counted by kind above
            where = f"{k['source']}:{k['line']}" if k["line"] is not None else k["source"]
            reason = str(k["reason"]).removeprefix(f"{k['source']}: ")
            click.echo(f"ctxw: skipped {where}: {reason}", err=True)
    if not conversations and not duplicates:
        click.echo("ctxw: error: nothing could be imported", err=True)
        raise SystemExit(1)
    if failed:
        click.echo(f"ctxw: error: {len(failed)} of {len(paths)} file(s) could not be imported", err=True)
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
@click.option("--calls", "show_calls", is_flag=True, help="Also print the per-call table (model, reported vs estimated input, dollars).")
@json_option
@handle_errors
def inspect_cmd(file: str | None, fmt: str | None, model: str | None, window: int | None, top: int, show_calls: bool, as_json: bool) -> None:
    """What a session cost and held: totals first (calls, input, cache, output, dollars, the window and
    its source, peak share, import repairs), then tokens by role, kind and tool; largest results;
    compactions; the gauge (the per-call table with --calls)."""
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
    sessions = load_sessions(file, fmt)
    session = sessions[0]
    children = [s for s in sessions[1:] if isinstance(s.meta.get("parent"), dict)]
    doc = inspect_session(session, model=model, window=window, top=top, children=children)
    if any(doc["import_report"].values()):
        click.echo(f"ctxw: {session.source}: {report_line(doc['import_report'])}", err=True)
    if as_json:
        emit_json(doc)
    else:
        click.echo(render_inspection(doc, show_calls=show_calls))


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    group.add_command(import_cmd)
    group.add_command(inspect_cmd)
