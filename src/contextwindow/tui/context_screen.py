"""``/context`` in ``ctxw chat``: the curation viewer over the conversation's record.

Rows are the curate TUI's own (``view.record_rows``: archived folds with their summary's first
line, the turns each folded, the loaded segment). Space selects; a fold and its own turns are
mutually exclusive at selection time (selecting one unselects the other, and says so); ``b``
builds a new conversation from the selection (``curation.build_from_selection``) and returns its
id to the chat, which switches to it. Escape closes.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..curation import build_from_selection, segments
from ..errors import ContextWindowError
from ..store.base import ConversationStore
from ..tokens.base import TokenCounter
from . import view
from .record_option import record_option, record_prompt


class ContextScreen(ModalScreen[str | None]):
    """Dismissed with the id of the conversation built from the selection (None: closed)."""

    DEFAULT_CSS = """
    ContextScreen { align: center middle; }
    #context-box { width: 90%; height: 85%; border: round $accent; background: $surface; }
    #context-rows { height: 1fr; }
    #context-say { height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "select", "Select"),
        Binding("b", "build", "Build new conversation"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, store: ConversationStore, conversation_id: str, counter: TokenCounter) -> None:
        super().__init__()
        self.store = store
        self.conversation_id = conversation_id
        self.counter = counter
        self.turns: set[int] = set()
        self.folds: set[int] = set()
        segs = segments(store, conversation_id)
        self.rows = view.record_rows(segs, counter)
        self.labels = {r.key: r.text for r in self.rows}
        self.fold_turns = {s.fold.seq: {t.index for t in s.turns} for s in segs if s.kind == "archived" and s.fold is not None}

    def compose(self) -> ComposeResult:
        with Vertical(id="context-box"):
            yield OptionList(*[self._option(r) for r in self.rows], id="context-rows")
            yield Static("space selects turns and folds · b builds a new conversation from them · esc closes", id="context-say")

    def on_mount(self) -> None:
        box = self.query_one("#context-box")
        box.border_title = f"context of {self.conversation_id}: archived folds, loaded turns"
        rows = self.query_one("#context-rows", OptionList)
        rows.focus()
        first = next((i for i, r in enumerate(self.rows) if r.kind != "header"), None)
        if first is not None:
            rows.highlighted = first

    def _option(self, row: view.Row) -> Option:
        return record_option(row, self.labels, self.turns, self.folds)

    def _prompt(self, key: str) -> Content:
        return record_prompt(key, self.labels, self.turns, self.folds)

    def say(self, text: str) -> None:
        self.query_one("#context-say", Static).update(Content(text))

    def _refresh(self) -> None:
        rows = self.query_one("#context-rows", OptionList)
        for r in self.rows:
            if r.kind != "header":
                rows.replace_option_prompt(r.key, self._prompt(r.key))

    def action_select(self) -> None:
        option = self.query_one("#context-rows", OptionList).highlighted_option
        if option is None or option.id is None or option.disabled:
            return
        kind, _, raw = option.id.partition(":")
        n = int(raw)
        note = ""
        if kind == "turn":
            if n in self.turns:
                self.turns.discard(n)
            else:
                self.turns.add(n)
                owners = [f for f, ts in self.fold_turns.items() if n in ts and f in self.folds]
                self.folds.difference_update(owners)
                note = f" (fold {owners[0]} unselected: a fold and its own turns exclude each other)" if owners else ""
        elif n in self.folds:
            self.folds.discard(n)
        else:
            self.folds.add(n)
            own = self.fold_turns.get(n, set()) & self.turns
            self.turns.difference_update(own)
            note = f" ({len(own)} of its own turns unselected: a fold and its own turns exclude each other)" if own else ""
        self._refresh()
        self.say(f"selected turns {sorted(self.turns) or '-'} · folds {sorted(self.folds) or '-'} — b builds{note}")

    def action_build(self) -> None:
        if not self.turns and not self.folds:
            self.say("nothing selected: press space on turns or folds first")
            return
        try:
            new_id = build_from_selection(self.store, self.conversation_id, sorted(self.turns), sorted(self.folds))
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}")
            return
        self.dismiss(new_id)

    def action_close(self) -> None:
        self.dismiss(None)
