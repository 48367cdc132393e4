"""The constraint ledger: rules a user stated that bind the rest of the session.

Detected when a user message enters the conversation, kept in the store, and carried verbatim into
every later summary and fold, whatever the summarizer writes (invariant 6). When a later statement
is about the same thing (same words once numbers, dates and polarity are set aside: a new cap, a
moved deadline, a reversed never/always), the newest replaces the older one, so a stale rule is
never carried forward. Pure functions over plain values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_TRIGGER = re.compile(
    r"\b(never|always|must(?:n't| not)?|do not|don't|dont|only|at most|at least|no more than|not more than|"
    r"up to|no later than|deadline|due (?:by|on)|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|end of)|"
    r"budget|cap(?:ped)? at|limit(?:ed)? to|maximum|minimum|prefer(?:ably)?|i(?:'d| would) rather|please use|"
    r"make sure|ensure|avoid|under no circumstances|forbidden|not allowed|required?|should(?:n't| not)?|keep .{1,40} under)\b",
    re.IGNORECASE,
)
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_NUM = re.compile(r"[$€£]?\d[\d,._:/-]*\s*(?:%|k|m|gb|mb|kb|ms|s|h|tokens?|usd|dollars?|hours?|minutes?|days?)?\b", re.IGNORECASE)
_POLARITY = {
    "never", "always", "must", "mustn't", "not", "do", "don't", "dont", "only", "should", "shouldn't",
    "please", "make", "sure", "ensure", "avoid", "at", "most", "least", "no", "more", "than", "up", "to",
    "the", "a", "an", "and", "or", "of", "be", "is", "are", "you", "your", "we", "our", "it", "in", "on",
    "for", "by", "with", "all", "any", "ever", "instead", "now", "actually", "from", "later", "i", "would",
    "rather", "prefer", "preferably", "use", "using",
}
_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tomorrow", "tonight", "eod"}
MAX_CONSTRAINT_CHARS = 500


@dataclass(frozen=True, slots=True)
class Constraint:
    text: str
    key: str
    source: str = ""  # message key where it was stated
    active: bool = True  # False once a later statement about the same thing superseded it


def detect(text: str) -> list[str]:
    """Sentences of ``text`` that state a rule, cap, deadline or preference, verbatim."""
    out: list[str] = []
    for raw in _SENT.split(text):
        s = raw.strip().lstrip("-*• ").strip()
        if 8 <= len(s) <= MAX_CONSTRAINT_CHARS and _TRIGGER.search(s) and not s.endswith("?"):
            out.append(s)
    return out


def subject_key(sentence: str) -> str:
    """What a constraint is about: its words without numbers, dates and polarity."""
    s = _NUM.sub(" ", sentence.lower())
    words = [w for w in re.findall(r"[a-z][a-z'_-]+", s) if w not in _POLARITY and w not in _WEEKDAYS]
    return " ".join(words[:12])


def same_subject(a: str, b: str) -> bool:
    """Two keys name the same thing: one's words contain the other's (two words or more), or
    they share most of their words."""
    wa, wb = set(a.split()), set(b.split())
    if not wa or not wb:
        return False
    if wa == wb:
        return True
    if min(len(wa), len(wb)) >= 2 and (wa <= wb or wb <= wa):
        return True
    return len(wa & wb) / len(wa | wb) >= 0.6


def update(ledger: Sequence[Constraint], text: str, source: str = "") -> list[Constraint]:
    """The ledger after a user message with ``text``: new rules added, superseded ones replaced."""
    out = list(ledger)
    for sentence in detect(text):
        key = subject_key(sentence)
        if not key:
            continue
        out = [c for c in out if c.text != sentence]
        out = [Constraint(c.text, c.key, c.source, False) if c.active and same_subject(c.key, key) else c for c in out]
        out.append(Constraint(sentence, key, source))
    return out


def texts(ledger: Iterable[Constraint]) -> list[str]:
    """The rules in force, oldest first."""
    return [c.text for c in ledger if c.active]


def superseded(ledger: Iterable[Constraint]) -> list[str]:
    """Statements a later one replaced: never carried forward."""
    live = set(texts(ledger))
    return [c.text for c in ledger if not c.active and c.text not in live]


def scrub(text: str, stale: Iterable[str]) -> str:
    """Remove superseded statements quoted anywhere in ``text`` (a summary, a goal)."""
    for s in stale:
        if s and s in text:
            text = text.replace(s, "[superseded rule removed; see Constraints & preferences]")
    return text


def to_json(ledger: Iterable[Constraint]) -> list[dict[str, object]]:
    return [{"text": c.text, "key": c.key, "source": c.source, "active": c.active} for c in ledger]


def from_json(items: object) -> list[Constraint]:
    if not isinstance(items, list):
        return []
    return [
        Constraint(str(d.get("text", "")), str(d.get("key", "")), str(d.get("source", "")), bool(d.get("active", True)))
        for d in items
        if isinstance(d, dict) and d.get("text")
    ]
