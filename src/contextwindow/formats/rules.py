"""Provider rules: the last step of every build. Pure.

:func:`enforce` takes a finished request body for one format, repairs what can be repaired
without losing meaning, checks every rule, and returns the body — or raises
:class:`~contextwindow.errors.InvalidPayloadError` naming the message and the rule. A payload
the provider would reject never leaves.

The rules are the providers' documented request constraints (one module each):

- :mod:`.rules_openai` — Chat Completions and Responses;
- :mod:`.rules_anthropic` — Messages;
- :mod:`.rules_gemini` — generateContent.

Repairs (each reported as a :class:`Fix`): blank text blocks left out where the provider rejects
them, messages left empty merged away, images gathered after ALL the results of a parallel call,
tool results moved first in their turn (Anthropic), a user turn put first where one is required.
Message-level preparation (call ids, media types) is in :mod:`.prepare`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, InvalidPayloadError

__all__ = ["RULES", "Fix", "Violation", "check", "enforce"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: where (``index`` of the message/item, -1 for the payload) and which."""

    index: int
    rule: str
    detail: str

    def __str__(self) -> str:
        where = "payload" if self.index < 0 else f"message {self.index}"
        return f"{where}: {self.rule}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Fix:
    """One repair made to a payload."""

    index: int
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.rule}: {self.detail}"


# rule codes, shared by the four formats
RULES: dict[str, str] = {
    "empty_payload": "the message list is empty",
    "bad_role": "a role the provider does not take, or roles out of the order it demands",
    "first_not_user": "the first message must be the user's",
    "not_alternating": "user and assistant messages must alternate",
    "empty_content": "a message with no content",
    "blank_text": "an empty or whitespace-only text block",
    "bad_id": "a call id that is empty, too long, has characters the provider rejects, or is used twice",
    "unanswered_call": "a tool call with no result where the provider needs it",
    "orphan_result": "a tool result with no call where the provider needs it",
    "duplicate_result": "two results for one call",
    "results_not_first": "tool results after other content of their turn",
    "misplaced_content": "content the provider does not take in this role (images in tool messages, ...)",
    "media_type": "an image without a media type the provider accepts",
    "bad_shape": "a field with the wrong type",
}


def blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def alternating(items: list[Any], roles: tuple[str, str], noun: str, add: Callable[[Violation], None]) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Walk a list whose roles must alternate, the first being ``roles[0]``'s (Anthropic, Gemini).

    Yields ``(index, item, role)`` for each item with one of ``roles``; reports through ``add``
    an unknown role (the item is skipped), a first item that is not ``roles[0]``'s and two items
    of one role in a row.
    """
    prev = None
    for i, item in enumerate(items):
        role = item.get("role") if isinstance(item, dict) else None
        if role not in roles:
            add(Violation(i, "bad_role", f"role {role!r}"))
            continue
        if i == 0 and role != roles[0]:
            add(Violation(i, "first_not_user", f"the first {noun} is the {roles[1]}'s"))
        if role == prev:
            add(Violation(i, "not_alternating", f"two {role} {noun}s in a row"))
        prev = role
        yield i, item, role


def check(fmt: str, payload: Any) -> list[Violation]:
    """Every rule ``payload`` breaks for ``fmt`` (empty: the provider takes it)."""
    return _module(fmt).check(fmt, payload)


def enforce(fmt: str, payload: dict[str, Any]) -> tuple[dict[str, Any], list[Fix]]:
    """``payload`` repaired where it can be, checked against ``fmt``'s rules.

    Returns the (possibly new) payload and the repairs made; the input is not modified. Raises
    InvalidPayloadError (``index`` and ``rule`` set) for what cannot be repaired."""
    mod = _module(fmt)
    if not mod.check(fmt, payload):  # the common case: nothing to repair, no copy of the whole payload
        return payload, []
    fixed, fixes = mod.repair(fmt, _copy(payload))
    left = mod.check(fmt, fixed)
    if left:
        first = left[0]
        more = f" (and {len(left) - 1} more: {'; '.join(str(v) for v in left[1:4])})" if len(left) > 1 else ""
        raise InvalidPayloadError(
            f"the {fmt} payload breaks the provider's rules and cannot be repaired: {first}{more}",
            index=first.index,
            rule=first.rule,
        )
    return fixed, fixes


def _copy(payload: dict[str, Any]) -> dict[str, Any]:
    """A copy the repairs may change: the top level and each message/item (one level deep — the
    repairs replace content lists, never edit them in place). Linear and cheap, unlike deepcopy."""
    out = dict(payload)
    for key in ("messages", "contents", "input"):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [dict(m) if isinstance(m, dict) else m for m in items]
    return out


def _module(fmt: str) -> Any:
    from . import rules_anthropic, rules_gemini, rules_openai

    mods = {"openai": rules_openai, "openai_responses": rules_openai, "anthropic": rules_anthropic, "gemini": rules_gemini}
    if not isinstance(fmt, str) or fmt not in mods:
        raise ConfigError(f"unknown payload format {fmt!r} (known: {', '.join(mods)})")
    return mods[fmt]
