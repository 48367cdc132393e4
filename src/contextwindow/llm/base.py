"""The model protocol: messages in, a :class:`Completion` (text + usage) out, sync and async.

Anything with ``name``, ``window``, ``complete`` and ``acomplete`` is a :class:`ChatModel`: the
HTTP clients (:mod:`.openai_compat`, :mod:`.anthropic`) and :class:`ScriptedModel`, a real
implementation for tests and demos that answers from a script and records what it received::

    model = ScriptedModel(["first answer", RateLimitError("busy"), "third answer"])
    model.complete([user("hi")]).text          # "first answer"
    model.calls[0].messages                    # what the model saw
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

from ..errors import ConfigError
from ..messages import Message, TextPart, messages_to_json
from ..tools import ToolSpec
from ..usage import Usage


@dataclass(frozen=True, slots=True)
class Completion:
    """One model answer. ``text`` is the answer's text parts joined; ``message`` the whole
    assistant message (text, reasoning, tool calls) when the client built one; ``raw`` the
    provider's JSON; ``finish_reason`` as the provider said it (``stop``, ``length``,
    ``end_turn``, ``tool_calls``, ...)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    raw: dict[str, Any] | None = None
    finish_reason: str | None = None
    message: Message | None = None


@runtime_checkable
class ChatModel(Protocol):
    """A chat model. ``window`` is its context window in tokens when known."""

    name: str
    window: int | None

    def complete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion: ...

    async def acomplete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion: ...


# --- ScriptedModel ---------------------------------------------------------------------------

ScriptReply: TypeAlias = str | Completion | BaseException
ReplyFunction: TypeAlias = Callable[[Sequence[Message], str | None], ScriptReply]


class ScriptExhaustedError(ConfigError):
    """A :class:`ScriptedModel` was called more often than its script has answers (a test
    set-up mistake, so it is a ConfigError and not a ProviderError a fallback would swallow)."""


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """What one call to a :class:`ScriptedModel` received."""

    messages: tuple[Message, ...]
    system: str | None
    max_tokens: int
    tools: tuple[ToolSpec, ...] | None

    @property
    def prompt_text(self) -> str:
        """The system prompt and every message's text, for easy assertions."""
        head = [self.system] if self.system else []
        return "\n".join(head + [m.text for m in self.messages])


def rough_tokens(text: str) -> int:
    """About four characters per token: good enough for a fake model's usage numbers."""
    return (len(text) + 3) // 4


class ScriptedModel:
    """A real :class:`ChatModel` that answers from a script.

    ``script`` is either a sequence of replies, used in order, or a function
    ``(messages, system) -> reply``. A reply is a string (the answer text), a full
    :class:`Completion` (returned as is), or an exception instance (raised). Every call is
    recorded in :attr:`calls`, raising ones included. Usage of a string reply is estimated at
    four characters per token over the JSON of the messages received. Thread-safe."""

    def __init__(
        self,
        script: Sequence[ScriptReply] | ReplyFunction,
        *,
        name: str = "scripted",
        window: int | None = None,
    ) -> None:
        if isinstance(script, (str, bytes)):
            raise ConfigError("ScriptedModel takes a list of replies or a function, not a single string")
        self.name = name
        self.window = window
        self._fn: ReplyFunction | None = script if callable(script) else None
        self._replies: tuple[ScriptReply, ...] = () if callable(script) else tuple(script)
        self._lock = threading.Lock()
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int | None:
        """Replies left in a list script (``None`` for a function script)."""
        return None if self._fn is not None else len(self._replies) - len(self.calls)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        call = ScriptedCall(tuple(messages), system, max_tokens, tuple(tools) if tools is not None else None)
        with self._lock:
            index = len(self.calls)
            self.calls.append(call)
        if self._fn is not None:
            reply = self._fn(call.messages, system)
        elif index < len(self._replies):
            reply = self._replies[index]
        else:
            raise ScriptExhaustedError(
                f"ScriptedModel {self.name!r} has {len(self._replies)} scripted replies but was called "
                f"{index + 1} times; add replies or pass a function"
            )
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        if not isinstance(reply, str):
            raise ConfigError(f"ScriptedModel {self.name!r}: a reply must be str, Completion or an exception, got {type(reply).__name__}")
        prompt = (system or "") + json.dumps(messages_to_json(call.messages), ensure_ascii=False)
        usage = Usage(input_tokens=rough_tokens(prompt), output_tokens=rough_tokens(reply), model=self.name)
        message = Message(role="assistant", parts=(TextPart(reply),) if reply else ())
        return Completion(text=reply, usage=usage, raw=None, finish_reason="stop", message=message)

    async def acomplete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        return self.complete(messages, system=system, max_tokens=max_tokens, tools=tools)
