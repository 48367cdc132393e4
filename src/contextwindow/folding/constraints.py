"""The constraint ledger as the rest of the library uses it: a thin layer over ``ledger.py``.

Detected when a user message enters the conversation, kept in the store, and carried into every
later summary and fold whatever the summarizer writes (invariant 6). ``ledger.py`` holds the
mechanism (clauses, subjects, typed values, supersession, condensation); this module keeps the
names the Session, the replay engine and the summarizers call, and the JSON the store keeps.
Pure functions over plain values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..messages import Message, TextPart
from ..tokens.memo import SizedMemo
from . import ledger as _ledger
from .ledger import Entry, same_subject
from .scoped import reading_scope

Constraint = Entry
MAX_CONSTRAINT_CHARS = _ledger.MAX_CLAUSE_CHARS

__all__ = [
    "Constraint", "detect", "from_json", "same_subject", "scrub", "subject_key", "superseded", "texts", "to_json", "update",
    "user_words",
]

#: Characters of user texts (and the assistant's words they answer) whose updates :data:`UPDATES` keeps.
UPDATE_MEMO_CHARS = 16_000_000
#: The ledger's updates already made, by (ledger, text, source, asked): :func:`update` is a pure
#: function of these, and the same update is asked for again when one conversation is read twice
#: (a replay reads the user's rules once for its measure and once in each policy's Session; a
#: reopened proxy conversation). Bounded by what it keeps alive: the texts, and each entry's copies of the ledger (:func:`_held`).
UPDATES: SizedMemo[tuple[tuple[Entry, ...], str, str, str], tuple[Entry, ...]] = SizedMemo(None, UPDATE_MEMO_CHARS)


def detect(text: str) -> list[str]:
    """Clauses of ``text`` that state a rule, preference or fact, verbatim."""
    return [e.text for e in _ledger.detect(text)]


def subject_key(sentence: str) -> str:
    """What a statement is about (its normalised subject), or "" when it states nothing."""
    e = _ledger.parse(sentence)
    return e.subject if e else ""


def user_words(m: Message) -> str | None:
    """What of ``m`` the ledger reads: the user's own words, the text beside tool results included
    (the tool output is not theirs). None for other roles, harness blocks (``meta["cw"]``), a
    harness's demonstrations (``meta["is_demo"]``), an environment's observation sent as a user
    message (``meta["observation"]``, importers/swe_agent.py) and a provisional tail a later request
    has not confirmed yet (sync.py). The one rule for the Session, ``ctxw compact`` and the replay's count."""
    from ..sync import KIND_KEY, TAIL  # sync imports compaction, which imports this package

    if m.role != "user" or m.meta.get("cw") or m.meta.get("is_demo") or m.meta.get("observation") or m.meta.get(KIND_KEY) == TAIL:
        return None
    return m.text if not m.is_tool_result else "\n".join(p.text for p in m.parts if isinstance(p, TextPart))


def asked_after(asked: str, m: Message) -> str:
    """What an answer of only a value is about after ``m`` (folding/answers.py): the assistant's last words, kept across
    its tool calls and results in assistant/tool messages, none once a user message came."""
    return m.text if m.role == "assistant" and m.text.strip() else asked if m.role != "user" else ""


def asked_before(messages: Sequence[Message], at: int) -> str:
    """:func:`asked_after` over ``messages[:at]``, read back from ``at`` (it stops at the first user message)."""
    for m in reversed(messages[:at]):
        if m.role == "user":
            return ""
        if m.role == "assistant" and m.text.strip():
            return m.text
    return ""


def update(ledger: Sequence[Constraint], text: str, source: str = "", asked: str = "") -> list[Constraint]:
    """The ledger after a user message with ``text``: new entries added, superseded ones retired
    (each clause's values typed once for the whole update: folding/scoped.py). ``asked``: the assistant's message
    before it, whose question an answer of only a value is about (folding/answers.py). Made once per
    distinct (ledger, text, source, asked): :data:`UPDATES`."""
    key = (tuple(ledger), text, source, asked)
    hit = UPDATES.get(key)
    if hit is not None:
        return list(hit)
    with reading_scope():
        out = _ledger.update(ledger, text, source, asked)
    UPDATES.put(key, tuple(out), len(text) + len(asked) + _held(ledger) + _held(out))
    return out


#: what one entry holds beyond its text and context (its object, its other fields), in the memo's units
ENTRY_OVERHEAD = 512


def _held(entries: Sequence[Constraint]) -> int:
    """What a memo entry's copy of ``entries`` holds, in characters and :data:`ENTRY_OVERHEAD` per entry (a ledger
    read back from JSON is a fresh copy for every update, so each memo entry counts its own)."""
    return sum(2 * len(e.text) + len(e.context) + ENTRY_OVERHEAD for e in entries)


def texts(ledger: Iterable[Constraint]) -> list[str]:
    """The entries in force, oldest first (verbatim; an opening request read as the goal labelled "Goal:")."""
    return [_ledger.stated(c) for c in ledger if c.active]


def superseded(ledger: Iterable[Constraint]) -> list[str]:
    """Statements a later one replaced with another value: never carried forward."""
    items = list(ledger)
    live = set(texts(items))
    return [c.text for c in _ledger.stale(items) if c.text not in live]


def scrub(text: str, stale: Iterable[str]) -> str:
    """Remove superseded statements quoted anywhere in ``text`` (a summary, a goal)."""
    for s in stale:
        if s and s in text:
            text = text.replace(s, "[superseded rule removed; see the memory section]")
    return text


def to_json(ledger: Iterable[Constraint]) -> list[dict[str, object]]:
    return [
        {"text": c.text, "key": c.subject, "kind": c.kind, "value": c.value, "values": list(c.values), "source": c.source,
         "active": c.active, "updated_to": c.updated_to, "signature": c.signature,
         # what a later correction or update is read against (folding/corrections.py): kept only when set
         **({"replaces": list(c.replaces)} if c.replaces else {}), **({"correction": True} if c.correction else {}),
         **({"resolved": True} if c.resolved else {}), **({"context": c.context} if c.context else {}),
         **({"loose": True} if c.loose else {})}
        for c in ledger
    ]


def from_json(items: object) -> list[Constraint]:
    """The stored ledger (entries stored before kinds existed are re-read from their text)."""
    if not isinstance(items, list):
        return []
    out: list[Constraint] = []
    for d in items:
        if not isinstance(d, dict) or not d.get("text"):
            continue
        text, source, active = str(d["text"]), str(d.get("source", "")), bool(d.get("active", True))
        if "kind" in d:
            values = d.get("values")
            out.append(Entry(
                text, str(d["kind"]), str(d.get("key", "")), str(d.get("value", "+")),
                tuple(str(v) for v in values) if isinstance(values, list) else (), source, active, str(d.get("updated_to", "")),
                str(d.get("signature", "")), tuple(str(v) for v in replaces) if isinstance(replaces := d.get("replaces"), list) else (),
                bool(d.get("correction", False)), bool(d.get("resolved", False)), str(d.get("context", "")), bool(d.get("loose", False)),
            ))
            continue
        parsed = _ledger.parse(text, source)
        base = parsed or Entry(text, "constraint", str(d.get("key", "")), "+", (), source)
        out.append(Entry(base.text, base.kind, base.subject, base.value, base.values, source, active, signature=base.signature))
    return out
