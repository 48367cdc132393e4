"""``ctxw sessions list|show|export|fork``: stored conversations, over any store URL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import click

from ..cost import CostTotal, role_totals, usage_total
from ..curation import Segment, build_from_selection, segments
from ..errors import ConfigError
from ..importers.stored import reported_input, stored_window
from ..importers.window import window_text
from ..messages import Message, message_to_dict
from ..store import ConversationInfo, ConversationStore, open_store
from ..sync_state import RowCounts, row_counts
from .common import default_store_url, emit_json, handle_errors, json_option, open_existing_store, store_option


@contextmanager
def _store(url: str | None) -> Iterator[ConversationStore]:
    # an explicit --store must exist (a typo would otherwise create an empty one); the default store
    # is created on first use, so a fresh machine simply has no conversations yet
    store = open_existing_store(url) if url else open_store(default_store_url())
    try:
        yield store
    finally:
        store.close()


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M")


MAX_SELECTED = 100_000  # turn/fold numbers one selection may name (a bigger range is a typo, not a wish)
MAX_LIMIT = 2**63 - 1  # SQLite's largest INTEGER


def parse_numbers(text: str | None, what: str) -> list[int]:
    """``"1,3,5-7"`` → ``[1, 3, 5, 6, 7]``; anything else is a ConfigError naming ``what``."""
    out: list[int] = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        lo, sep, hi = item.partition("-")
        try:
            a, b = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ConfigError(f"--{what}: {item!r} is not a number or a range like 3-5") from None
        if b < a:
            raise ConfigError(f"--{what}: range {item!r} runs backwards")
        if len(out) + (b - a + 1) > MAX_SELECTED:
            raise ConfigError(f"--{what}: {item!r} selects more than {MAX_SELECTED:,} numbers; name the turns you mean")
        out.extend(range(a, b + 1))
    return out


@dataclass
class _Account:
    """What ``sessions list`` and ``show`` both say of a conversation: its window and where that comes
    from, the last reported prompt against it, its dollars per role, the rows a later history superseded."""

    model: str | None
    window: int
    source: str
    used: int | None
    dollars: dict[str, CostTotal]
    total: CostTotal
    rows: RowCounts

    @classmethod
    def of(cls, store: ConversationStore, info: ConversationInfo) -> _Account:
        usages = store.list_usage(info.id)
        model, window, source = stored_window(info.metadata)
        return cls(model, window, source, reported_input(info.metadata, usages), role_totals(usages), usage_total(usages),
                   row_counts(store, info))

    def gauge(self) -> dict[str, Any] | None:
        return None if self.used is None else {"used": self.used, "window": self.window, "percent": round(100 * self.used / self.window, 1)}

    @property
    def calls(self) -> int:
        return self.total.priced_calls + self.total.unpriced_calls + self.total.no_usage_calls

    def to_dict(self) -> dict[str, Any]:
        return {"window": self.window, "window_source": self.source, "gauge": self.gauge(), "calls": self.calls, **self.total.to_dict()}

    def columns(self) -> str:
        """``  43,861 / 200,000 ( 21.9%)  $0.5196`` — fixed widths, so a list of them lines up."""
        g = f"{self.used:>9,} / {self.window:,} ({100 * self.used / self.window:5.1f}%)" if self.used is not None else f"{'-':>9} / {self.window:,}"
        return f"{g:<30} {self.total.text() if self.calls else 'no calls':<12}"


def _segment_json(seg: Segment) -> dict[str, Any]:
    return {
        "index": seg.index,
        "kind": seg.kind,
        "fold": None if seg.fold is None else {"seq": seg.fold.seq, "upto_seq": seg.fold.upto_seq, "summary": seg.fold.summary.text},
        "start_seq": seg.start_seq,
        "end_seq": seg.end_seq,
        "turns": [
            {
                "index": t.index,
                "preamble": t.preamble,
                "first_seq": t.first_seq,
                "last_seq": t.last_seq,
                "messages": len(t.messages),
                "tool_calls": sum(len(s.message.tool_calls) for s in t.messages),
                "headline": t.headline,
            }
            for t in seg.turns
        ],
    }


def _openai(messages: list[Message]) -> list[dict[str, Any]]:
    from ..formats.openai_chat import to_payload

    payload: list[dict[str, Any]] = to_payload(messages)["messages"]
    return payload


def register(group: click.Group) -> None:
    """Add ``ctxw sessions`` to ``group``."""

    @group.group("sessions")
    def sessions() -> None:
        """List, show, export and fork stored conversations."""

    @sessions.command("list")
    @store_option
    @json_option
    @click.option("--limit", type=click.IntRange(min=0, max=MAX_LIMIT), default=None, help="Show at most N, newest first.")
    @handle_errors
    def list_cmd(store_url: str | None, as_json: bool, limit: int | None) -> None:
        """List conversations, newest first, with their titles."""
        with _store(store_url) as store:
            infos = store.list_conversations(limit)
            rows = [_Account.of(store, i) for i in infos]
        if as_json:
            emit_json([{"id": i.id, "title": i.title, "parent_id": i.parent_id, "messages": a.rows.shown, "superseded": a.rows.superseded,
                        "created_at": i.created_at, "metadata": i.metadata, **a.to_dict()} for i, a in zip(infos, rows, strict=True)])
            return
        if not infos:
            click.echo("no conversations in this store")
            return
        for i, a in zip(infos, rows, strict=True):
            fork = f"  (fork of {i.parent_id})" if i.parent_id else ""
            click.echo(f"{i.id}  {_when(i.created_at)}  {a.rows.shown:>6} msgs  {a.columns()}  {i.title or '(untitled)'}{fork}")

    @sessions.command("show")
    @click.argument("conversation_id")
    @store_option
    @json_option
    @handle_errors
    def show_cmd(conversation_id: str, store_url: str | None, as_json: bool) -> None:
        """Show a conversation as segments (folds) and numbered turns, for `fork --turns/--folds`."""
        with _store(store_url) as store:
            info = store.get_conversation(conversation_id)
            segs = segments(store, conversation_id)
            usage = store.usage_by_role(conversation_id)
            acc = _Account.of(store, info)
        dollars, rows, used, window = acc.dollars, acc.rows, acc.used, acc.window
        if as_json:
            emit_json({"id": info.id, "title": info.title, "parent_id": info.parent_id, "metadata": info.metadata,
                       "created_at": info.created_at, "messages": rows.shown, "superseded": rows.superseded,
                       "segments": [_segment_json(s) for s in segs], "usage_by_role": usage,
                       "cost_by_role": {r: t.to_dict() for r, t in dollars.items()},
                       **acc.to_dict()})
            return
        folds = sum(1 for s in segs if s.kind == "archived")
        click.echo(f"{info.id}  {info.title or '(untitled)'}")
        click.echo(f"  {rows.shown} messages" + (f" (and {rows.superseded} a later history superseded, kept in the store)" if rows.superseded else "")
                   + f", {folds} folds, created {_when(info.created_at)}"
                   + (f", fork of {info.parent_id}" if info.parent_id else ""))
        for seg in segs:
            if seg.kind == "archived":
                assert seg.fold is not None
                head = f"fold {seg.fold.seq} (archived, seqs {seg.start_seq}-{seg.end_seq})"
                click.echo(f"\n{head}: {seg.fold.summary.text.strip().splitlines()[0][:80] if seg.fold.summary.text.strip() else ''}")
            else:
                after = f", after fold {seg.fold.seq}'s summary" if seg.fold else ""
                click.echo(f"\nloaded (seqs {seg.start_seq}-{seg.end_seq}{after})")
            for t in seg.turns:
                calls = sum(len(s.message.tool_calls) for s in t.messages)
                tag = " [preamble]" if t.preamble else ""
                click.echo(f"  turn {t.index:>3}{tag}  seqs {t.first_seq}-{t.last_seq}  "
                           f"{len(t.messages)} msgs, {calls} tool calls  {t.headline}")
        gauge_text = f", at the end {used:,} = {100 * used / window:.1f}% of it" if used is not None else ""
        click.echo(f"\nmodel {acc.model or '(not recorded)'}, {window_text(window, acc.source)}{gauge_text}")
        for role, tot in sorted(usage.items()):
            money = dollars.get(role)
            click.echo(f"usage[{role}]: {tot['calls']} calls, {tot['input_tokens']} in / {tot['output_tokens']} out tokens, "
                       + (money.text() if money else "unpriced"))

    @sessions.command("events")
    @click.argument("conversation_id")
    @store_option
    @json_option
    @click.option("--limit", type=click.IntRange(min=1), default=None, help="Show at most N events (oldest first).")
    @handle_errors
    def events_cmd(conversation_id: str, store_url: str | None, as_json: bool, limit: int | None) -> None:
        """The decision log of a conversation: every compaction, fold, clip, gauge and agent step."""
        from ..events import describe

        with _store(store_url) as store:
            events = store.list_events(conversation_id, limit=limit)
        if as_json:
            emit_json([{"conversation_id": e.conversation_id, "at": e.at, "name": e.name, "data": e.data} for e in events])
            return
        if not events:
            click.echo(f"{conversation_id}: no events recorded")
        for e in events:
            click.echo(f"{datetime.fromtimestamp(e.at, tz=UTC).strftime('%H:%M:%S')}  {e.name:<20} {describe(e.name, e.data)}")

    @sessions.command("export")
    @click.argument("conversation_id")
    @store_option
    @click.option("--format", "fmt", type=click.Choice(["json", "jsonl", "openai"]), default="json", show_default=True,
                  help="json: the whole record with folds; jsonl: one message per line; openai: Chat Completions messages.")
    @click.option("--view", is_flag=True, help="Only what the model sees now: the latest fold's summary, then the active messages.")
    @handle_errors
    def export_cmd(conversation_id: str, store_url: str | None, fmt: str, view: bool) -> None:
        """Export a conversation to stdout."""
        with _store(store_url) as store:
            info = store.get_conversation(conversation_id)
            folds = store.list_checkpoints(conversation_id)
            if view:
                stored = store.list_active(conversation_id)
                msgs = ([folds[-1].summary] if folds else []) + [s.message for s in stored]
            else:
                stored = store.list(conversation_id)
                msgs = [s.message for s in stored]
        if fmt == "openai":
            emit_json(_openai(msgs))
        elif fmt == "jsonl":
            for msg in msgs:
                click.echo(json.dumps(message_to_dict(msg), ensure_ascii=False))
        else:
            emit_json({
                "id": info.id, "title": info.title, "parent_id": info.parent_id, "metadata": info.metadata,
                "created_at": info.created_at, "view": view,
                "messages": [message_to_dict(x) for x in msgs],
                "seqs": [s.seq for s in stored],
                "folds": [{"seq": k.seq, "upto_seq": k.upto_seq, "created_at": k.created_at, "meta": k.meta,
                           "summary": message_to_dict(k.summary)} for k in folds],
            })

    @sessions.command("fork")
    @click.argument("conversation_id")
    @store_option
    @json_option
    @click.option("--turns", default="", metavar="LIST", help="Turn numbers from `sessions show`, e.g. 1,3,5-7.")
    @click.option("--folds", default="", metavar="LIST", help="Fold numbers whose summary to include, e.g. 2.")
    @click.option("--title", default=None, help="Title of the new conversation.")
    @handle_errors
    def fork_cmd(conversation_id: str, store_url: str | None, as_json: bool, turns: str, folds: str, title: str | None) -> None:
        """Build a new conversation from selected turns and folds (the source is left untouched)."""
        turn_ids, fold_ids = parse_numbers(turns, "turns"), parse_numbers(folds, "folds")
        if not turn_ids and not fold_ids:
            raise ConfigError("select something: --turns and/or --folds (see `ctxw sessions show ID`)")
        with _store(store_url) as store:
            new = build_from_selection(store, conversation_id, turn_ids, fold_ids, title)
            info = store.get_conversation(new)
        if as_json:
            emit_json({"id": new, "title": info.title, "parent_id": info.parent_id, "messages": info.message_count,
                       "turns": turn_ids, "folds": fold_ids})
        else:
            click.echo(new)
