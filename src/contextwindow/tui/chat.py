"""``ctxw chat``: the agent in a terminal UI, with its context window in view.

Top: the status bar (model · gauge of the last real call · cache share of its input · store ·
cwd) and the spend ledger per role. Middle: the conversation; a tool call and its result are
one line each (select it — click or enter — to expand the result); every compaction and fold
gets a card. Bottom: a notice line (errors in one line, queued steering, the nudge to fold at
critical) and the prompt, which also takes the commands of :data:`chat_view.COMMANDS`.

The UI never waits on the network: a turn runs as a Textual worker (``Agent.arun``: the call is
awaited, tools run in a thread), folds and titles too. Typing while a turn runs queues a
steering message (``Session.steer``), delivered at the next safe point. Ctrl+C cancels the turn:
the HTTP request is aborted and nothing of the unfinished call is stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message as TextualMessage
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..agent import Agent, AgentOptions, open_agent
from ..agent.titles import title_for
from ..agent.tools import describe_call
from ..budget import Gauge, gauge
from ..errors import ContextWindowError
from ..events import Event, EventBus
from ..llm.base import Completion
from ..messages import Message, ToolResultPart
from ..store.base import ConversationStore
from ..sync_state import row_counts
from ..usage import Usage
from . import chat_view
from .context_screen import ContextScreen

EXPANDED_LINES = 60


class BusEvent(TextualMessage):
    """A Session event, carried to the UI thread."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class ToolLine(Static, can_focus=True):
    """One line for a tool call and its result; selecting it shows the result."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "expand", "Expand")]

    def __init__(self, call_id: str, summary: str, store: ConversationStore, conversation_id: str) -> None:
        super().__init__(summary, classes="tool", markup=False)
        self.call_id = call_id
        self.summary = summary
        self.store = store
        self.conversation_id = conversation_id
        self.expanded = False

    def result_text(self) -> str:
        for sm in reversed(self.store.list(self.conversation_id)):
            for p in sm.message.parts:
                if isinstance(p, ToolResultPart) and p.call_id == self.call_id:
                    return p.text
        return "(no result stored)"

    def action_expand(self) -> None:
        self.expanded = not self.expanded
        if self.expanded:
            lines = self.result_text().splitlines()
            more = f"\n… {len(lines) - EXPANDED_LINES} more lines" if len(lines) > EXPANDED_LINES else ""
            self.update("▾ " + self.summary[2:] + "\n" + "\n".join(lines[:EXPANDED_LINES]) + more)
        else:
            self.update(self.summary)

    def on_click(self) -> None:
        self.action_expand()


class SessionsScreen(ModalScreen[str | None]):
    """``/sessions``: pick a conversation of the store to switch to."""

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    #sessions-list { width: 80%; height: 70%; border: round $accent; background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, store: ConversationStore, current: str) -> None:
        super().__init__()
        self.store = store
        self.current = current

    def compose(self) -> ComposeResult:
        infos = self.store.list_conversations(limit=200)
        opts = [Option(("● " if i.id == self.current else "  ") + f"{i.title or '(untitled)'} · {row_counts(self.store, i).shown} msgs · {i.id}", id=i.id) for i in infos]
        yield OptionList(*opts, id="sessions-list")

    def on_mount(self) -> None:
        self.query_one("#sessions-list").border_title = "conversations (enter switches, esc closes)"
        self.query_one("#sessions-list").focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)


class ChatApp(App[None]):
    TITLE = "ctxw chat"
    CSS = """
    #status { height: 1; padding: 0 1; background: $boost; }
    #ledger { height: 1; padding: 0 1; color: $text-muted; }
    #log { height: 1fr; padding: 0 1; }
    .user { color: $accent; margin-top: 1; }
    .answer { margin-bottom: 0; }
    .tool { color: $text-muted; }
    .tool:focus { background: $boost; }
    .card { border: round $warning; padding: 0 1; color: $warning; }
    .info { color: $text-muted; }
    .queued { color: $secondary; }
    #notice { height: auto; padding: 0 1; }
    #notice.error { background: $error 30%; }
    #notice.critical { background: $warning 30%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "cancel", "Cancel call", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, agent: Agent, opts: AgentOptions, *, bus: EventBus | None = None, notice: str | None = None) -> None:
        super().__init__()
        self.start_notice = notice  # shown in the notice line on start (e.g. the model's retirement date)
        self.agent = agent
        self.opts = opts
        self.bus = bus or EventBus()
        self.bus.subscribe(self._from_bus)
        self.turn_task: Any = None
        self.last_usage: Usage | None = None
        self._queued: list[tuple[Static, str]] = []

    def _from_bus(self, ev: Event) -> None:
        self.post_message(BusEvent(ev))  # thread-safe: events come from worker threads too

    # --- layout -----------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self.agent.session

    @property
    def store(self) -> ConversationStore:
        return self.agent.session.store

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="ledger")
        yield VerticalScroll(id="log")
        yield Static("", id="notice")
        yield Input(placeholder="ask, or /help", id="prompt")

    def on_mount(self) -> None:
        self.load_history()
        if self.start_notice:
            self.say(self.start_notice)
        self.query_one("#prompt", Input).focus()

    # --- status -----------------------------------------------------------------------------
    def gauge(self) -> Gauge | None:
        u = self.last_usage
        return None if u is None else gauge(u.input_tokens, self.session.window)

    def status(self) -> chat_view.Status:
        u = self.last_usage
        share = u.cache_read_tokens / u.input_tokens if u is not None and u.input_tokens else None
        cwd = chat_view.short_path(str(self.agent.toolbox.root))
        return chat_view.Status(self.session.model or self.opts.model, self.gauge(), share, chat_view.store_kind(self.store.url), cwd)

    def refresh_status(self) -> None:
        self.query_one("#status", Static).update(self.status().markup())
        try:
            by_role = self.store.usage_by_role(self.session.id)
        except ContextWindowError:
            by_role = {}
        self.query_one("#ledger", Static).update(chat_view.ledger(by_role))
        tip = chat_view.nudge(self.gauge())
        notice = self.query_one("#notice", Static)
        if tip and not notice.has_class("error"):
            notice.update(tip)
            notice.set_class(True, "critical")

    def say(self, text: str, *, error: bool = False) -> None:
        notice = self.query_one("#notice", Static)
        notice.update(text)
        notice.set_class(error, "error")
        notice.set_class(False, "critical")

    def add_line(self, text: str, cls: str) -> Static:
        w = Static(text, classes=cls, markup=False)
        log = self.query_one("#log", VerticalScroll)
        log.mount(w)
        log.scroll_end(animate=False)
        return w

    def load_history(self) -> None:
        """Show the stored conversation (on start, resume and switch)."""
        log = self.query_one("#log", VerticalScroll)
        log.remove_children()
        main = [u for u in self.store.list_usage(self.session.id) if u.role == "main"]
        self.last_usage = main[-1] if main else None
        for cp in self.store.list_checkpoints(self.session.id):
            head = next((ln for ln in cp.summary.text.splitlines() if ln.strip()), "")
            self.add_line(f"fold {cp.seq} (up to seq {cp.upto_seq}): {head[:100]}", "card")
        for sm in self.store.list_active(self.session.id):
            self.show_message(sm.message)
        self.refresh_status()

    def show_message(self, m: Message) -> None:
        if m.meta.get("cw"):
            return
        if m.role == "user" and not m.is_tool_result:
            self.add_line("› " + m.text, "user")
        elif m.role == "assistant":
            if m.text.strip():
                self.add_line(m.text, "answer")
            for c in m.tool_calls:
                self.add_tool(c.id, "▸ " + describe_call(c))

    def add_tool(self, call_id: str, summary: str) -> None:
        log = self.query_one("#log", VerticalScroll)
        log.mount(ToolLine(call_id, summary, self.store, self.session.id))
        log.scroll_end(animate=False)

    # --- events from the session (any thread) ----------------------------------------------
    def on_bus_event(self, message: BusEvent) -> None:
        ev = message.event
        if ev.conversation_id not in (None, self.session.id):
            return
        if ev.name == "agent.tool":
            mark = "✓" if ev.data.get("ok") else "✗"
            self.add_tool(str(ev.data.get("call_id")), f"▸ {ev.data.get('call')} {mark} {ev.data.get('chars')} chars")
            return
        text = chat_view.card(ev.name, ev.data)
        if text is not None:
            self.add_line(text, "card")
        if ev.name == "fold.applied":
            self.last_usage = None  # the gauge waits for the first call after the fold
        if ev.name in ("gauge", "fold.applied", "compaction.applied"):
            self.refresh_status()

    # --- input ----------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.turn_task is not None and not self.turn_task.is_finished

    @on(Input.Submitted, "#prompt")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        if not text.strip():
            return
        cmd = chat_view.parse_command(text)
        if cmd is not None:
            self.command(*cmd)
            return
        if self.busy:
            self.session.steer(text)
            self._queued.append((self.add_line(f"⧗ queued: {text}  (delivered at the next safe point)", "queued"), text))
            return
        self.add_line("› " + text, "user")
        self.session.restart_clock()  # the wall limit counts the agent's work on a request, not idle time
        self.turn_task = self.run_worker(self.turn(text), group="turn", exclusive=True, exit_on_error=False)

    def on_step(self, done: Completion) -> None:
        for widget, text in self._queued:  # the build of this call took them in (Session.steer)
            widget.update(f"✓ delivered: {text}")
        self._queued.clear()
        self.last_usage = done.usage
        if done.text.strip():
            self.add_line(done.text, "answer")
        self.refresh_status()

    async def turn(self, text: str) -> None:
        self.say("thinking… (Ctrl+C cancels)")
        first = self.store.get_conversation(self.session.id).title is None
        try:
            result = await self.agent.arun(text, on_step=self.on_step)
        except asyncio.CancelledError:
            self.say("call cancelled; nothing of it was stored")
            raise
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", error=True)
            return
        self.say("" if result.stopped == "answer" else f"stopped: {result.stopped}")
        self.refresh_status()
        if first and result.answer:
            self.run_worker(lambda: self.make_title(text, result.answer), thread=True, group="title")

    def make_title(self, first_user: str, answer: str) -> None:
        title, usage, source = title_for(self.agent.model, first_user, answer)
        if usage is not None:
            self.store.record_usage(self.session.id, usage)
        self.store.set_title(self.session.id, title)
        self.call_from_thread(self.title_done, title, source)

    def title_done(self, title: str, source: str) -> None:
        self.sub_title = title
        self.add_line(f"titled “{title}” ({source})", "info")
        self.refresh_status()

    def action_cancel(self) -> None:
        if not self.busy:
            self.say("nothing to cancel (Ctrl+Q quits)")
            return
        self.agent.cancel()
        self.turn_task.cancel()
        self.say("call cancelled; nothing of it was stored")

    # --- commands -------------------------------------------------------------------------------
    def command(self, name: str, arg: str) -> None:
        if name == "/help":
            self.add_line(chat_view.help_text(), "info")
        elif name == "/compact":
            if self.busy:
                self.say("a turn is running: /compact after it ends (or Ctrl+C)", error=True)
                return
            self.turn_task = self.run_worker(self.compact(arg or None), group="turn", exclusive=True, exit_on_error=False)
        elif name == "/cost":
            from .view import spend_lines

            self.add_line("\n".join(["spend of this conversation:", *spend_lines(self.store.usage_by_role(self.session.id))]), "info")
        elif name == "/set":
            self.set_option(arg)
        elif name == "/model":
            self.switch_model(arg)
        elif name == "/sessions":
            self.push_screen(SessionsScreen(self.store, self.session.id), self.switch_to)
        elif name == "/context":
            self.push_screen(ContextScreen(self.store, self.session.id, self.session.counter), self.switch_to)
        else:
            self.say(f"unknown command {name}; /help lists them", error=True)

    async def compact(self, instructions: str | None) -> None:
        self.say("folding… (the summary is being written)")
        try:
            await self.session.afold(instructions, reason="manual")
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            return
        self.last_usage = None
        self.say("folded: the next call starts from the checkpoint")
        self.refresh_status()

    def set_option(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        if key.lower() == "limit":
            self.set_limit(value)
            return
        if key.lower() not in ("autohandoffpct", "autohandoff"):
            self.say(f"unknown setting {key!r}; known: autoHandoffPct N|off, limit NAME N|off", error=True)
            return
        value = value.strip().rstrip("%").lower()
        if value in ("off", "none", "no"):
            threshold = None
        else:
            try:
                threshold = float(value) / 100
            except ValueError:
                threshold = -1.0
            if not 0 < threshold <= 1:
                self.say(f"autoHandoffPct takes a percentage in 1..100 or off, got {value!r}", error=True)
                return
        cfg = self.session.config
        try:
            self.session.config = replace(cfg, budget=replace(cfg.budget, fold_threshold=threshold))
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            return
        self.say("auto-fold off" if threshold is None else f"auto-fold when the last call used {threshold * 100:g}% of the window")

    def set_limit(self, arg: str) -> None:
        """``/set limit turns|tokens|tool_calls|cost_usd|wall_s N|off`` for this session."""
        names = {"turns": "max_turns", "tokens": "max_tokens", "tool_calls": "max_tool_calls", "cost_usd": "max_cost_usd", "wall_s": "max_wall_s"}
        name, _, value = arg.strip().partition(" ")
        attr = names.get(name.lower())
        value = value.strip().lstrip("$").lower()
        if attr is None or not value:
            self.say(f"/set limit NAME N|off with NAME one of {', '.join(names)}", error=True)
            return
        try:
            new: float | int | None = None if value == "off" else (float(value) if attr in ("max_cost_usd", "max_wall_s") else int(value))
            cfg = self.session.config
            self.session.config = replace(cfg, limits=replace(cfg.limits, **{attr: new}))
        except (ValueError, ContextWindowError) as exc:
            self.say(f"/set limit {name}: {exc}", error=True)
            return
        self.say(f"limit {name}: {'off' if new is None else new}")

    def _reopen(self, **changes: Any) -> bool:
        opts = replace(self.opts, **changes)
        try:
            agent = open_agent(opts, store=self.store, events=self.bus)
        except ContextWindowError as exc:
            self.say(f"{type(exc).__name__}: {exc}", error=True)
            return False
        agent.session.config = self.session.config
        self.agent, self.opts = agent, opts
        return True

    def switch_model(self, name: str) -> None:
        if not name:
            self.say(f"model {self.session.model} · window {self.session.window:,} · provider {self.opts.provider}")
            return
        if self.busy:
            self.say("a turn is running; switch the model after it", error=True)
            return
        name, _, win = name.partition(" ")
        if win.strip() and not win.strip().isdigit():
            self.say(f"/model NAME [WINDOW]: the window is a number of tokens, got {win.strip()!r}", error=True)
            return
        window = int(win) if win.strip() else None  # the registry's window unless given
        if self._reopen(model=name, window=window, max_output=None, resume=self.session.id):
            self.last_usage = None
            self.say(f"model is now {name} (window {self.session.window:,})")
            self.refresh_status()

    def switch_to(self, conversation_id: str | None) -> None:
        if conversation_id is None or conversation_id == self.session.id:
            return
        if self.busy:
            self.say("a turn is running; switch after it", error=True)
            return
        if self._reopen(resume=conversation_id):
            info = self.store.get_conversation(conversation_id)
            self.sub_title = info.title or conversation_id
            self.load_history()
            self.say(f"switched to {info.title or '(untitled)'} ({conversation_id})")
