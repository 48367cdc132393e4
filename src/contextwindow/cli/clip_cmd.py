"""``ctxw clip`` and ``ctxw retrieve``: clip one tool output as an agent would, read an original back."""

from __future__ import annotations

from typing import Any

import click

from ..clipping import KINDS, clip, retrieve
from ..errors import NotFoundError
from ..tokens import counter_for
from .common import (
    default_store_url,
    emit_json,
    handle_errors,
    json_option,
    open_existing_store,
    read_input_bytes,
    store_option,
)


class _LazyStore:
    """Opens the store only when an original must be offloaded (an unclipped output touches nothing)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._store: Any = None

    def _open(self) -> Any:
        if self._store is None:
            from ..store import open_store

            self._store = open_store(self.url)
        return self._store

    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str:
        return str(self._open().put_offload(content, meta))

    def get_offload(self, ref: str) -> Any:
        return self._open().get_offload(ref)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


@click.command("clip")
@click.argument("file", required=False, default="-", metavar="[FILE|-]")
@click.option("--budget-tokens", type=click.IntRange(min=1), default=4000, show_default=True, help="Token budget of the clipped output.")
@click.option("--hard-cap-tokens", type=click.IntRange(min=1), default=40000, show_default=True,
              help="A retrieve output up to this size is never re-clipped (big outputs are clipped by structure at any size).")
@click.option("--kind", type=click.Choice(KINDS), default="auto", show_default=True, help="Clipper to use (auto sniffs the content).")
@click.option("--tool-name", default=None, help="Name of the tool that produced the output (a hint only).")
@click.option("--model", default=None, metavar="M",
              help="Count the budget in this model's tokens (exact o200k/cl100k for OpenAI models, the calibrated estimator otherwise).")
@store_option
@json_option
@handle_errors
def clip_command(
    file: str, budget_tokens: int, hard_cap_tokens: int, kind: str, tool_name: str | None, model: str | None,
    store_url: str | None, as_json: bool,
) -> None:
    """Clip one tool output (FILE or stdin) as an agent's tool result would be clipped.

    The original goes to the store's offload table; the marker names the ref to pass to
    `ctxw retrieve`.
    """
    if budget_tokens > hard_cap_tokens:  # the cap would be silently ignored: an output under the budget is never clipped
        raise click.UsageError(
            f"--budget-tokens {budget_tokens} is above --hard-cap-tokens {hard_cap_tokens}; raise --hard-cap-tokens too"
        )
    data = read_input_bytes(file)
    sink = _LazyStore(store_url or default_store_url())
    try:
        result = clip(data, budget_tokens, kind=kind, tool_name=tool_name, sink=sink, hard_cap_tokens=hard_cap_tokens,
                      count=counter_for(model).count_text)
    finally:
        sink.close()
    r = result.report
    if as_json:
        emit_json({"text": result.text, "model": model, **r.to_dict()})
        return
    click.echo(result.text)
    summary = f"ctxw: {r.kind}: {r.tokens_before:,} → {r.tokens_after:,} tokens" + (f", original at {r.ref}" if r.ref else "")
    for note in r.notes:
        summary += f"\nctxw: note: {note}"
    click.echo(summary, err=True)


@click.command("retrieve")
@click.argument("ref")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True, help="First line, 0-based.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Most lines to print (default 200).")
@click.option("--grep", "pattern", default=None, metavar="PAT", help="Only lines matching this regular expression.")
@click.option("--column", type=click.IntRange(min=0), default=0, show_default=True, help="Character position in the first line (continues a cut long line).")
@click.option("--budget-tokens", type=click.IntRange(min=1), default=4000, show_default=True, help="Token bound of the output.")
@click.option("--conversation", "conversation_id", default=None, metavar="ID",
              help="The conversation a msg-<seq>/msg-<id>/span-… ref of a compaction marker belongs to (needed for those refs).")
@store_option
@json_option
@handle_errors
def retrieve_command(
    ref: str, offset: int, limit: int | None, pattern: str | None, column: int, budget_tokens: int, conversation_id: str | None,
    store_url: str | None, as_json: bool,
) -> None:
    """Print a slice of the original under REF: an offloaded output (ofl_…, as printed in a clip
    marker) or, with --conversation ID, a stored message a compaction marker names (msg-…, span-…)."""
    from ..clipping.retrieve import check_ref
    from ..compaction.markers import MESSAGE_REF_PREFIX, SPAN_REF_PREFIX
    from ..errors import ConfigError
    from ..sink import ConversationSink

    check_ref(ref)  # a forged ref is refused before any store is opened
    by_message = ref.startswith((MESSAGE_REF_PREFIX, SPAN_REF_PREFIX))
    if by_message and conversation_id is None:
        raise ConfigError(
            f"ref {ref!r} names a stored message of one conversation (a compaction marker's ref): "
            "pass --conversation ID (ctxw sessions list shows the ids); nothing was read"
        )
    url = store_url or default_store_url()
    try:
        store = open_existing_store(url)
    except NotFoundError as exc:
        raise NotFoundError(f"unknown offload ref {ref!r}: {exc}; nothing was read") from None
    try:
        if conversation_id is not None:
            store.get_conversation(conversation_id)  # an unknown conversation is said as such
        sink = ConversationSink(store, conversation_id) if conversation_id is not None else store
        text = retrieve(sink, ref, offset=offset, limit=limit, grep=pattern, budget_tokens=budget_tokens, column=column)
    except NotFoundError as exc:
        raise NotFoundError(f"{exc} in store {url}") from None
    finally:
        store.close()
    if as_json:
        emit_json({"ref": ref, "conversation": conversation_id, "offset": offset, "limit": limit, "grep": pattern, "column": column, "text": text})
    else:
        click.echo(text)


def register(group: click.Group) -> None:
    """Add ``clip`` and ``retrieve`` to ``group``."""
    group.add_command(clip_command)
    group.add_command(retrieve_command)
