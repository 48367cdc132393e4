"""Provider wire formats (request payloads). Transcript importers live in :mod:`contextwindow.importers`.

Payload converters (pure, no I/O) between :class:`~contextwindow.messages.Message` lists and
request bodies, one module per provider format:

=====================  ==========================================  ====================
name                   payload                                     module
=====================  ==========================================  ====================
``openai``             Chat Completions ``messages``               :mod:`.openai_chat`
``openai_responses``   Responses API ``input`` items               :mod:`.openai_responses`
``anthropic``          Messages API ``system`` + ``messages``      :mod:`.anthropic`
``gemini``             generateContent ``contents``                :mod:`.gemini`
=====================  ==========================================  ====================

Each has ``to_payload(messages, *, system=None, tools=None, model=None) -> dict``,
``from_payload(obj) -> list[Message]`` (a full request dict or the bare list),
``system_from_payload(obj) -> str | None`` and ``tools_from_payload(obj) -> list[ToolSpec]``.
``to_payload(from_payload(p))`` gives ``p``'s messages (and system) back unchanged: the
provider's own system prompt comes back from ``from_payload`` as leading ``system`` messages,
so pass ``system=`` only for a prompt that is not already among the messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..errors import ConfigError
from ..messages import Message
from . import anthropic, gemini, openai_chat, openai_responses
from .tooldefs import (
    ToolLike,
    to_anthropic_tools,
    to_gemini_tools,
    to_openai_tools,
    to_responses_tools,
    tools_from_anthropic,
    tools_from_gemini,
    tools_from_openai,
    tools_from_responses,
)

__all__ = [
    "FORMATS",
    "PayloadFormat",
    "get_format",
    "to_anthropic_tools",
    "to_gemini_tools",
    "to_openai_tools",
    "to_responses_tools",
    "tools_from_anthropic",
    "tools_from_gemini",
    "tools_from_openai",
    "tools_from_responses",
]


class PayloadFormat(Protocol):
    """What every converter module provides."""

    FORMAT: str

    def to_payload(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        tools: Sequence[ToolLike] | None = None,
        model: str | None = None,
    ) -> dict[str, Any]: ...

    def from_payload(self, obj: Any) -> list[Message]: ...

    def system_from_payload(self, obj: Any) -> str | None: ...

    def tools_from_payload(self, obj: Any) -> list[Any]: ...


FORMATS: Mapping[str, PayloadFormat] = {
    "openai": openai_chat,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
}


def get_format(name: str) -> PayloadFormat:
    """The converter named ``name``; :class:`ConfigError` listing the known names otherwise."""
    try:
        return FORMATS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown payload format {name!r} (known: {', '.join(FORMATS)})") from None
