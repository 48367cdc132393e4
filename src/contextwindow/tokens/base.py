"""The counting protocol every part of contextwindow uses."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from ..messages import Message
from ..tools import ToolSpec


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens. ``exact`` is True only for a real tokenizer of the model's family."""

    name: str
    exact: bool

    def count_text(self, text: str) -> int: ...

    def count_message(self, message: Message) -> int:
        """Tokens of one message as a provider bills it (content + per-message overhead)."""
        ...

    def count_messages(self, messages: Iterable[Message]) -> int: ...

    def count_tools(self, tools: Sequence[ToolSpec]) -> int: ...
