"""A ledger entry: one thing the user said that binds or informs the session (see ``ledger.py``)."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("safety", "constraint", "goal", "preference", "fact")
#: the order entries are given up in when even the condensed ledger does not fit (first goes first)
DROP_ORDER = ("fact", "preference", "goal", "constraint", "safety")
MAX_CLAUSE_CHARS = 400
#: a clause longer than this (a run-on paste, a line of layout) is read in windows of at most MAX_CLAUSE_CHARS
#: (clauses.read_windows), so the reading of a message stays linear in its length (splitting tries each "and"/";" of a
#: clause: quadratic in it) ...
MAX_READ_CHARS = 4 * MAX_CLAUSE_CHARS
#: ... its first this many windows: the rest is not read, and is counted (ledger.unread_chars) and said in the brief
MAX_READ_WINDOWS = 16


@dataclass(frozen=True, slots=True)
class Entry:
    text: str  # the clause as the user wrote it
    kind: str
    subject: str  # normalised words, space-separated
    value: str  # normalised values + polarity: what a later statement is compared on
    values: tuple[str, ...] = ()  # the values as written (what a superseded entry must never show again)
    source: str = ""  # where it was stated (message key)
    active: bool = True
    updated_to: str = ""  # for a superseded entry: the newer value as written
    signature: str = ""  # the kinds (and units) of its values: what a loosely worded update must match
    replaces: tuple[str, ...] = ()  # old values the statement names as replaced ("V, not U"): not its own
    correction: bool = False  # it says it corrects something ("Sorry, I meant V", "Typo: …", ", I had it wrong")
    resolved: bool = False  # its subject was found in the ledger, not in its own words ("Sorry, I meant V.")
    context: str = ""  # for a clause with no subject of its own: the clause before it, where its subject is named
    loose: bool = False  # a fact read by no relation: a value in a clause whose other words are its subject

    @property
    def key(self) -> str:
        return self.subject
