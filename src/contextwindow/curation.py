"""Curate a conversation's record: view it as segments and turns, build a fork from a selection.

The record is cut into *segments* by its folds: each fold archives the messages after the
previous fold up to its ``upto_seq`` (an *archived* segment, shown with that fold's summary),
and what follows the latest fold is the *loaded* segment (what the model sees, after the latest
summary). Inside a segment, messages group into *turns*: a user message with every assistant
reply and tool result after it (messages before a segment's first user message form a
*preamble* turn). Turns are numbered 1, 2, 3 ... over the whole record; folds by their ordinal.

:func:`build_from_selection` makes a new conversation from selected turns and folds, in their
original order: a fold contributes only its summary, and a fold cannot be selected together with
one of its own turns. The source conversation is never modified (the store only adds rows).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from . import sync as resync
from .errors import ConfigError, ContextWindowError, SelectionError
from .messages import Message, user
from .store.base import Checkpoint, ConversationStore, Selection, StoredMessage, check_selection
from .sync_state import load_decisions
from .turns import group_turns, validate
from .usage import Usage

__all__ = [
    "CuratedTurn",
    "Segment",
    "auto_title",
    "build_from_selection",
    "first_line_title",
    "segments",
]

TITLE_MAX = 60
_SURROGATE = re.compile("[\ud800-\udfff]")
TITLE_SYSTEM = (
    "You name conversations. Reply with a title only: at most 8 words, no quotes, no final period, "
    "in the language of the conversation."
)


@dataclass(frozen=True, slots=True)
class CuratedTurn:
    """One turn of the record. ``index`` is 1-based over the whole record."""

    index: int
    messages: tuple[StoredMessage, ...]
    preamble: bool = False

    @property
    def first_seq(self) -> int:
        return self.messages[0].seq

    @property
    def last_seq(self) -> int:
        return self.messages[-1].seq

    @property
    def headline(self) -> str:
        """The first line of the turn's first text (its user message, usually), trimmed."""
        for s in self.messages:
            if s.message.text.strip():
                return first_line_title(s.message.text)
        return ""


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of the record between folds.

    ``kind == "archived"``: folded away by ``fold`` (its summary stands for these turns).
    ``kind == "loaded"``: what follows the latest fold; ``fold`` is that latest fold (its
    summary is loaded ahead of these turns) or None when the conversation was never folded.
    """

    index: int
    kind: Literal["archived", "loaded"]
    fold: Checkpoint | None
    start_seq: int
    end_seq: int
    turns: tuple[CuratedTurn, ...]


def segments(store: ConversationStore, conversation_id: str) -> list[Segment]:
    """The record as archived segments (one per fold) then the loaded segment, grouped into turns."""
    record = store.list(conversation_id)
    folds = store.list_checkpoints(conversation_id)
    out: list[Segment] = []
    counter = 0
    start = 1
    bounds: list[tuple[Literal["archived", "loaded"], Checkpoint | None, int]] = [("archived", k, k.upto_seq) for k in folds]
    bounds.append(("loaded", folds[-1] if folds else None, len(record)))
    cuts = load_decisions(store, conversation_id)
    for i, (kind, fold, end) in enumerate(bounds, start=1):
        # rows a client's later history superseded (a per-call block, a reply it re-sent in its own form) are not turns
        part = resync.visible(record[start - 1 : end], cuts)
        turns = []
        for t in group_turns([s.message for s in part]):
            counter += 1
            turns.append(CuratedTurn(counter, tuple(part[t.start : t.end]), t.preamble))
        out.append(Segment(i, kind, fold, start, end, tuple(turns)))
        start = end + 1
    return out


def _ints(values: Iterable[Any], what: str) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{what} must be integers, got {v!r}")
        out.append(v)
    return out


def build_from_selection(
    store: ConversationStore,
    conversation_id: str,
    turns: Iterable[int] = (),
    folds: Iterable[int] = (),
    title: str | None = None,
) -> str:
    """Create a new conversation from the selected turns (``CuratedTurn.index``) and folds
    (``Checkpoint.seq``) of ``conversation_id``, in their original order; return its id.

    A fold contributes only its summary message. Raises :class:`SelectionError` for an unknown
    turn or fold, for a fold selected together with one of its own turns, or if the result would
    hold a tool call without its result (possible only where a fold was placed inside a turn).
    """
    turn_ids, fold_ids = _ints(turns, "turns"), _ints(folds, "folds")
    segs = segments(store, conversation_id)
    by_turn = {t.index: (seg, t) for seg in segs for t in seg.turns}
    all_folds = [s.fold for s in segs if s.kind == "archived" and s.fold is not None]
    owner = {s.fold.seq: s for s in segs if s.kind == "archived" and s.fold is not None}
    for n in turn_ids:
        if n not in by_turn:
            raise SelectionError(f"turn {n} is not in conversation {conversation_id!r} (it has turns 1..{len(by_turn)})")
    for k in fold_ids:
        if k not in owner:
            raise SelectionError(f"fold {k} is not in conversation {conversation_id!r} (it has folds 1..{len(owner)})")
        clash = sorted(t.index for t in owner[k].turns if t.index in set(turn_ids))
        if clash:
            raise SelectionError(
                f"fold {k} and its own turn(s) {', '.join(map(str, clash))} cannot both be selected: "
                "the fold's summary already stands for them"
            )
    seqs = tuple(s.seq for n in sorted(set(turn_ids)) for s in by_turn[n][1].messages)
    selection = Selection(seqs=seqs, checkpoints=tuple(sorted(set(fold_ids))))
    last = segs[-1].end_seq
    plan = check_selection(selection, all_folds, last)
    by_seq = {s.seq: s.message for seg in segs for t in seg.turns for s in t.messages}
    summary = {f.seq: f.summary for f in all_folds}
    planned = [by_seq[n] if kind == "message" else summary[n] for kind, n in plan]
    broken = [p for p in validate(planned, "openai") if p.code in ("unanswered_call", "orphan_result")]
    if broken:
        raise SelectionError(
            "the selection would break a tool call from its result (a fold was placed inside a turn; "
            f"select the neighbouring turn too): {broken[0]}"
        )
    if title is None:
        src = store.get_conversation(conversation_id)
        title = f"fork of {src.title or src.id}"[: TITLE_MAX + 10]
    return store.fork(conversation_id, selection, title=title)


# --- titles ----------------------------------------------------------------------------------


def first_line_title(text: str, limit: int = TITLE_MAX) -> str:
    """The first non-blank line of ``text``, whitespace collapsed, cut at a word to ``limit`` chars.
    Control characters are dropped and lone surrogates become U+FFFD (a title must be storable)."""
    text = "".join(c for c in text if c in "\n\r\t" or unicodedata.category(c) != "Cc")
    text = _SURROGATE.sub("\ufffd", text)
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


class _TitleModel(Protocol):
    def complete(self, messages: Sequence[Message], *, system: str | None = ..., max_tokens: int = ...) -> Any: ...


def _first_exchange(record: Sequence[StoredMessage]) -> tuple[str, str] | None:
    question = None
    for s in record:
        m = s.message
        if question is None:
            if m.role == "user" and not m.is_tool_result and m.text.strip():
                question = m.text
        elif m.role == "assistant" and m.text.strip():
            return question, m.text
    return None


def auto_title(
    store: ConversationStore,
    conversation_id: str,
    model: _TitleModel | None = None,
    *,
    force: bool = False,
    deadline_s: float | None = 20.0,
) -> str | None:
    """Give the conversation a short title once its first exchange is there, and return it.

    Keeps an existing title unless ``force``. With ``model`` (anything with
    ``complete(messages, system=..., max_tokens=...)`` returning an object with ``.text``) the
    model names it and its usage is recorded with role ``title``; if the model fails or says
    nothing usable, and without a model, the title is the first line of the first user message.
    Returns None (and sets nothing) while there is no user message with an answer yet. The
    model call has a total deadline (``deadline_s``, retries included); past it the first-line
    title is used.
    """
    from .folding.guard import call_with_deadline, check_deadline

    deadline_s = check_deadline(deadline_s)
    info = store.get_conversation(conversation_id)
    if info.title and not force:
        return info.title
    exchange = _first_exchange(store.list(conversation_id))
    if exchange is None:
        return None
    question, answer = exchange
    title = ""
    if model is not None:
        prompt = f"User: {question[:2000]}\n\nAssistant: {answer[:2000]}\n\nTitle for this conversation:"
        try:
            result = call_with_deadline(lambda: model.complete([user(prompt)], system=TITLE_SYSTEM, max_tokens=32), deadline_s)
        except ContextWindowError:
            result = None
        if result is not None:
            usage = getattr(result, "usage", None)
            if isinstance(usage, Usage):
                store.record_usage(conversation_id, replace(usage, role="title"))
            raw = str(getattr(result, "text", "") or "")
            title = first_line_title(raw.strip().removeprefix("Title:").strip().strip("\"'`*# ").rstrip("."))
    if not title:
        title = first_line_title(question)
    store.set_title(conversation_id, title)
    return title
