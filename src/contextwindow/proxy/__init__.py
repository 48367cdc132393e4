"""``ctxw proxy``: context management for an agent that is not ours, by changing one base URL.

A local HTTP proxy that speaks the OpenAI (Chat Completions, Responses) and Anthropic (Messages)
protocols. Each request is identified as a conversation (:mod:`.identity`), run through a
:class:`~contextwindow.session.Session` (:mod:`.conversations`: clip at the door, compaction with
sticky decisions, provider rules), forwarded, and its answer relayed as it arrives with its usage
recorded (:mod:`.relay`, :mod:`.server`). Needs the ``proxy`` extra (aiohttp).
"""

from __future__ import annotations

from .conversations import Conversations, Prepared, Request
from .protocols import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, Protocol

__all__ = ["ANTHROPIC", "OPENAI_CHAT", "OPENAI_RESPONSES", "Conversations", "Prepared", "Protocol", "Request"]
