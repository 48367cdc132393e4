"""Checks a build repeats on a list that only grew since the last build, done for the new tail.

Between two compaction events a Session's view, and so its payload, is the last one plus the
messages added since. Two of the walks every build makes over the whole list answer "is it
valid?" and almost always say yes; for a valid list they need only look at what was added:

- :class:`GrowingValidation` — :func:`contextwindow.turns.validate` under the ``openai`` and
  ``openai_responses`` rules. When the last list it passed is a prefix of the new one (the same
  objects, an identity check in C) and the tail alone passes with no call id the prefix used,
  the whole list passes: a valid list answers every call it makes, so nothing in the tail can
  pair with the prefix, and these rules only look forward from a call (to its result) or at one
  message. The merged rules (``anthropic``, ``gemini``) join a message to the turn before it, so
  they are always checked whole.
- :class:`GrowingPayloadCheck` — :func:`contextwindow.formats.rules.check` of an OpenAI Chat
  payload's ``messages``: likewise, a valid list leaves no call open, and the tail alone (with no
  call id the prefix used) starts from the state a valid list ends in, except that the tail
  may not start with a ``tool`` message (the tail alone flags that, and the whole list is
  checked then).

Anything else (no prefix, a problem anywhere, another rule set) is checked whole, and only a
list that passed whole or by extension is remembered: each answer is exactly the full check's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import turns
from .formats import rules
from .formats.memo import same_prefix
from .messages import Message, ToolCallPart

_FORWARD_RULES = frozenset({"openai", "openai_responses"})


def _call_ids(messages: Sequence[Message]) -> list[str]:
    return [p.id for m in messages for p in m.parts if isinstance(p, ToolCallPart)]


class GrowingValidation:
    """``turns.validate(messages, provider)``, for a list that grows: the tail only (module docstring)."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled  # False: every list checked whole
        self._valid: list[Message] = []  # the last list that passed
        self._ids: set[str] = set()  # its call ids
        self._provider = ""

    def validate(self, messages: Sequence[Message], provider: str) -> list[turns.Problem]:
        msgs = list(messages)
        old = self._valid
        if self.enabled and old and provider == self._provider and provider in _FORWARD_RULES and same_prefix(old, msgs):
            tail = msgs[len(old):]
            ids = _call_ids(tail)
            if not tail or (self._ids.isdisjoint(ids) and not turns.validate(tail, provider)):
                self._valid = msgs
                self._ids.update(ids)
                return []
        problems = turns.validate(msgs, provider)
        self._provider = provider
        self._valid, self._ids = (msgs, set(_call_ids(msgs))) if not problems and provider in _FORWARD_RULES else ([], set())
        return problems


def _chat_call_ids(messages: Sequence[Any]) -> list[Any]:
    return [c.get("id") if isinstance(c, dict) else None for m in messages if isinstance(m, dict) and m.get("role") == "assistant" for c in m.get("tool_calls") or ()]


class GrowingPayloadCheck:
    """``formats.rules.check("openai", payload)`` for Chat payloads whose ``messages`` grow: the
    tail only (module docstring). Compared by value (``==``, identity first, in C): the system
    message dict is made anew by every render."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._valid: list[Any] = []
        self._ids: set[Any] = set()

    def check(self, payload: dict[str, Any]) -> list[rules.Violation]:
        msgs = payload.get("messages") if isinstance(payload, dict) else None
        if not isinstance(msgs, list):
            return rules.check("openai", payload)
        old = self._valid
        k = len(old)
        if self.enabled and old and len(msgs) >= k and msgs[:k] == old:
            tail = msgs[k:]
            # (the tail's own check first: it flags an id that is not a string)
            if not tail or (not rules.check("openai", {"messages": tail}) and self._ids.isdisjoint(_chat_call_ids(tail))):
                self._valid = list(msgs)
                self._ids.update(_chat_call_ids(tail))
                return []
        found = rules.check("openai", payload)
        self._valid, self._ids = (list(msgs), set(_chat_call_ids(msgs))) if not found else ([], set())
        return found
