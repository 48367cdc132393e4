"""``CurateApp``: a thin Textual UI over the store for the curate and account stages.

Left, the conversations of the store; middle, the selected conversation's record as folds and
turns (``curation.segments``); right, the highlighted turn or fold in full and the account panel
(spend per role, checkpoints, the gauge). Space selects turns and folds, ``f`` forks the selection
into a new conversation through ``curation.build_from_selection`` — whose errors (a fold selected
with one of its own turns, ...) are shown as they are, never pre-empted here.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Footer, Header, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ..budget import Gauge
from ..curation import CuratedTurn, Segment, build_from_selection, segments
from ..errors import ContextWindowError
from ..folding.transcript import render_flat
from ..store.base import Checkpoint, ConversationInfo, ConversationStore
from ..sync_state import row_counts
from ..tokens import counter_for
from . import view
from .record_option import record_option, record_prompt


class CurateApp(App[None]):
    """Browse a store's conversations, inspect and select turns/folds, fork a selection."""

    TITLE = "ctxw tui"
    CSS = """
    #panels { height: 1fr; }
    #conversations { width: 26%; height: 100%; border: round $primary-darken-2; }
    #record { width: 40%; height: 100%; border: round $primary-darken-2; }
    #right { width: 34%; }
    #detail { height: 1fr; border: round $primary-darken-2; }
    #account { height: auto; max-height: 50%; border: round $primary-darken-2; padding: 0 1; }
    #status { height: auto; padding: 0 1; }
    #status.error { background: $error 30%; color: $text; }
    OptionList:focus, TextArea:focus { border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_selection", "Select turn/fold"),
        Binding("f", "fork", "Fork selection"),
        Binding("r", "reload", "Reload"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, store: ConversationStore) -> None:
        super().__init__()
        self.store = store
        self.conversation_id: str | None = None
        self.selected_turns: set[int] = set()
        self.selected_folds: set[int] = set()
        self._segments: list[Segment] = []
        self._turns: dict[int, CuratedTurn] = {}
        self._folds: dict[int, tuple[Checkpoint, Segment]] = {}
        self._labels: dict[str, str] = {}

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="panels"):
            yield OptionList(id="conversations")
            yield OptionList(id="record")
            with Vertical(id="right"):
                yield TextArea(id="detail", read_only=True, soft_wrap=True, show_cursor=False)
                yield Static(id="account")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#conversations").border_title = "Conversations"
        self.query_one("#record").border_title = "Record: folds and turns"
        self.query_one("#detail").border_title = "Detail"
        self.query_one("#account").border_title = "Account"
        self.sub_title = self.store.url
        self.reload_conversations()
        self.query_one("#conversations").focus()

    # --- conversations --------------------------------------------------------------------

    def reload_conversations(self, select: str | None = None) -> None:
        """Refill the conversation list; highlight ``select`` (else keep the current one)."""
        try:
            infos = self.store.list_conversations()
            shown = [row_counts(self.store, i).shown for i in infos]
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            return
        box = self.query_one("#conversations", OptionList)
        box.clear_options()
        box.add_options([Option(Content(view.conversation_label(i, n)), id=i.id) for i, n in zip(infos, shown, strict=True)])
        if not infos:
            self.say("this store holds no conversations yet")
            return
        target = select or self.conversation_id or infos[0].id
        box.highlighted = box.get_option_index(target) if any(i.id == target for i in infos) else 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        option_id = event.option.id
        if option_id is None:
            return
        if event.option_list.id == "conversations":
            if option_id != self.conversation_id:
                self.show_conversation(option_id)
        elif event.option_list.id == "record":
            self.show_item(option_id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "conversations":
            self.query_one("#record").focus()
        elif event.option_list.id == "record":
            self.action_toggle_selection()

    def show_conversation(self, conversation_id: str) -> None:
        """Load one conversation's record into the middle panel and its account into the right."""
        try:
            info = self.store.get_conversation(conversation_id)
            segs = segments(self.store, conversation_id)
            by_role = self.store.usage_by_role(conversation_id)
            n_checkpoints = len(self.store.list_checkpoints(conversation_id))
            model, _ = view.window_of(info)
            counter = counter_for(model)
            rows = view.record_rows(segs, counter)
            g = view.account_gauge(segs, info, counter, self.store.list_usage(conversation_id))
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            return
        self.conversation_id = conversation_id
        self.selected_turns.clear()
        self.selected_folds.clear()
        self._segments = segs
        self._turns = {t.index: t for s in segs for t in s.turns}
        self._folds = {s.fold.seq: (s.fold, s) for s in segs if s.kind == "archived" and s.fold is not None}
        self._labels = {r.key: r.text for r in rows}
        record = self.query_one("#record", OptionList)
        record.clear_options()
        record.add_options([self._option(r) for r in rows])
        self.query_one("#detail", TextArea).load_text("")
        self._show_account(info, model, n_checkpoints, by_role, g)
        self.say("")
        first = next((i for i, r in enumerate(rows) if r.kind != "header"), None)
        if first is not None:
            record.highlighted = first

    def _option(self, row: view.Row) -> Option:
        return record_option(row, self._labels, self.selected_turns, self.selected_folds)

    def _prompt(self, key: str) -> Content:
        return record_prompt(key, self._labels, self.selected_turns, self.selected_folds)

    # --- detail and account ---------------------------------------------------------------

    def show_item(self, key: str) -> None:
        kind, _, n = key.partition(":")
        if kind == "turn" and int(n) in self._turns:
            turn = self._turns[int(n)]
            head = f"turn {turn.index} · seq {turn.first_seq}–{turn.last_seq} · {len(turn.messages)} messages\n\n"
            text = head + render_flat([s.message for s in turn.messages])
        elif kind == "fold" and int(n) in self._folds:
            fold, seg = self._folds[int(n)]
            turns = f"turns {seg.turns[0].index}–{seg.turns[-1].index}" if seg.turns else "no turns"
            head = f"fold {fold.seq} · stands for seq {seg.start_seq}–{seg.end_seq} ({turns})\n\n"
            text = head + render_flat([fold.summary])
        else:
            return
        detail = self.query_one("#detail", TextArea)
        detail.load_text(text)
        detail.scroll_home(animate=False)
        detail.refresh()

    def _show_account(
        self, info: ConversationInfo, model: str | None, n_checkpoints: int, by_role: dict[str, dict[str, object]], g: Gauge
    ) -> None:
        lines = [
            f"{info.title or info.id}",
            f"model {model or '(not recorded)'} · window {g.window:,} ({view.window_source(info)})",
            f"checkpoints {n_checkpoints}",
            "spend by role:",
            *view.spend_lines(by_role),
        ]
        style = view.SEVERITY_STYLE[g.severity]
        gauge_line = Content.assemble("gauge ", (view.gauge_bar(g), style), "\n", (g.describe(), style))
        self.query_one("#account", Static).update(Content("\n".join(lines) + "\n") + gauge_line)

    def say(self, message: str, error: bool = False) -> None:
        """Show one line in the status bar (red for errors)."""
        status = self.query_one("#status", Static)
        status.update(Content(message))
        status.set_class(error, "error")

    # --- actions --------------------------------------------------------------------------

    def action_toggle_selection(self) -> None:
        """Select or unselect the highlighted turn or fold of the record."""
        record = self.query_one("#record", OptionList)
        option = record.highlighted_option
        if option is None or option.id is None or option.disabled:
            self.say("nothing to select here: move to a turn or fold of the record")
            return
        kind, _, n = option.id.partition(":")
        chosen = self.selected_turns if kind == "turn" else self.selected_folds
        chosen.symmetric_difference_update({int(n)})
        record.replace_option_prompt(option.id, self._prompt(option.id))
        self.say(self.selection_summary())

    def selection_summary(self) -> str:
        turns = ", ".join(map(str, sorted(self.selected_turns))) or "none"
        folds = ", ".join(map(str, sorted(self.selected_folds))) or "none"
        return f"selected turns: {turns} · folds: {folds} — press f to fork"

    def action_reload(self) -> None:
        """Read the store again: new conversations, and the shown one as it is now (a conversation
        ``ctxw proxy`` or an agent is still writing grows between two reloads). The selection is
        cleared (turn numbers may move when a later request superseded a row)."""
        current = self.conversation_id
        self.reload_conversations()
        if current is not None:
            self.show_conversation(current)
            self.say(f"reloaded {current} from {self.store.url}")

    def action_fork(self) -> None:
        """Fork the selection into a new conversation (the library checks the selection)."""
        if self.conversation_id is None:
            self.say("no conversation selected", error=True)
            return
        if not self.selected_turns and not self.selected_folds:
            self.say("nothing selected: press space on turns or folds first", error=True)
            return
        try:
            new_id = build_from_selection(
                self.store, self.conversation_id, sorted(self.selected_turns), sorted(self.selected_folds)
            )
            title = self.store.get_conversation(new_id).title or new_id
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            self.bell()
            return
        self.reload_conversations(select=new_id)
        self.show_conversation(new_id)
        self.say(f"forked into new conversation {title!r} ({new_id})")
