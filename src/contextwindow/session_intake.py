"""A Session's door for tool results: clipped when they come in (:mod:`contextwindow.clipping`,
the original offloaded, a marker in its place), with the tool's name looked up from the call
that asked for it. The names are kept as messages are added and read from the store only when a
result answers a call this Session has not seen (a reopened conversation, another writer): an
append costs the new message, not the history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .events import ConversationEvents
from .messages import Message, Part, ToolResultPart
from .sink import ConversationSink
from .store.base import ConversationStore

NAMES_KEPT = 4096  # call id -> tool name entries kept (the newest half stays when it is full)


class Intake:
    """Tool names by call id, and the clipping of a message's tool results (see the module docstring)."""

    def __init__(self, store: ConversationStore, conversation_id: str, sink: ConversationSink, events: ConversationEvents) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.sink = sink
        self.events = events
        self.names: dict[str, str] = {}  # tool call id -> tool name, kept as messages are added
        self._names_loaded = False

    def call_names(self, m: Message) -> dict[str, str]:
        """Tool call id → tool name, kept incrementally; read from the store once (a reopened
        conversation, or calls another writer added) only when a result names an unknown call."""
        unknown = any(isinstance(p, ToolResultPart) and not p.name and p.call_id not in self.names for p in m.parts)
        if unknown and not self._names_loaded:
            self._names_loaded = True
            for sm in self.store.list_active(self.conversation_id)[-64:]:
                self.names.update((c.id, c.name) for c in sm.message.tool_calls)
        return self.names

    def remember_calls(self, m: Message) -> None:
        self.names.update((c.id, c.name) for c in m.tool_calls)
        if len(self.names) > NAMES_KEPT:  # bounded: keep the newest half
            for k in list(self.names)[: NAMES_KEPT // 2]:
                del self.names[k]

    def keeps(self, m: Message, budget: int, count: Callable[[str], int]) -> bool:
        """True when clipping at ``budget`` tokens leaves every tool result of ``m`` as it is. Writes nothing."""
        from .clipping.router import keeps

        names = self.call_names(m)
        return all(
            keeps(p, budget, tool_name=p.name or names.get(p.call_id), count=count)
            for p in m.parts
            if isinstance(p, ToolResultPart)
        )

    def clip(self, m: Message, budget: int, count: Callable[[str], int]) -> Message:
        """``m`` with each tool result clipped to ``budget`` tokens (an event for each one cut)."""
        from .clipping import clip

        parts: list[Part] = []
        names = self.call_names(m)
        for p in m.parts:
            if isinstance(p, ToolResultPart):
                tool = p.name or names.get(p.call_id)
                res = clip(p, budget, tool_name=tool, sink=self.sink, count=count)
                if res.report.ref:
                    self.events.emit("clip.applied", tool=tool, **res.report.to_dict())
                parts.append(res.part or p)
            else:
                parts.append(p)
        return replace(m, parts=tuple(parts))
