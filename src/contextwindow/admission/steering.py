"""Steering: messages a person adds while a turn runs, delivered with the next user message.

:class:`SteeringQueue` collects them (thread-safe). :func:`drain_into` moves them into the
conversation at the next point where a user message may go, keeping user/assistant
alternation. The rules, in order:

1. Nothing queued → the messages come back unchanged.
2. A tool call is still waiting for its result (the last assistant message has calls whose
   results have not all arrived) → nothing is drained; a user message cannot go between a
   call and its result. The queue keeps its items for the next try.
3. The last message is a user message → the steering text is merged into it (a text part
   appended after its existing parts, so tool results stay first).
4. Otherwise (last message is a tool result, an assistant answer, a system message, or the
   list is empty) → one new user message holding the steering text is appended.

Several queued texts are joined by a blank line, in the order they were added. A new steering
message carries ``meta["cw"] == "steering"``; a merged one keeps its meta and gains
``meta["steering"]`` = the number of texts merged (meta is never sent).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import replace

from ..messages import Message, TextPart


class SteeringQueue:
    """A thread-safe FIFO of steering texts."""

    def __init__(self) -> None:
        self._items: deque[str] = deque()
        self._lock = threading.Lock()

    def put(self, text: str) -> None:
        """Queue ``text`` (blank texts are ignored)."""
        if text.strip():
            with self._lock:
                self._items.append(text.strip())

    def drain(self) -> list[str]:
        """Take everything queued, oldest first."""
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def pending_tool_calls(messages: Sequence[Message]) -> list[str]:
    """Ids of the last assistant message's tool calls that have no result after it."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            calls = [c.id for c in messages[i].tool_calls]
            answered = {r.call_id for m in messages[i + 1 :] for r in m.tool_results}
            return [c for c in calls if c not in answered]
    return []


def can_steer(messages: Sequence[Message]) -> bool:
    """True when a user message may be added now (no tool call waits for its result)."""
    return not pending_tool_calls(messages)


def merge_steering(messages: Sequence[Message], texts: Sequence[str]) -> list[Message]:
    """Rules 3-4 of the module docstring applied to ``texts`` (the caller checked rule 2)."""
    texts = [t for t in texts if t.strip()]
    if not texts:
        return list(messages)
    joined = "\n\n".join(texts)
    out = list(messages)
    if out and out[-1].role == "user":
        last = out[-1]
        out[-1] = replace(last, parts=(*last.parts, TextPart(joined)), meta={**last.meta, "steering": len(texts)})
    else:
        out.append(Message(role="user", parts=(TextPart(joined),), meta={"cw": "steering"}))
    return out


def drain_into(messages: Sequence[Message], queue: SteeringQueue) -> list[Message]:
    """Drain ``queue`` into ``messages`` when a user message may go there (see the module rules)."""
    if not len(queue) or not can_steer(messages):
        return list(messages)
    return merge_steering(messages, queue.drain())
