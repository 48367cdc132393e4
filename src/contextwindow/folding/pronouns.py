"""Updates said through a pronoun: "The search indexer changed hands; Dmitri has it now."

The clause that states the new value names its subject only as "it" / "they" / "them"; the thing
meant is the noun phrase of the clause right before it (same message). ``resolve`` writes that
noun phrase in place of the pronoun so the ledger can read the clause like any other
("Dmitri has the search indexer now"). Pure string functions; the ledger decides whether the
resolved reading is used (only when the clause as written states nothing, see ``ledger.detect``).
"""

from __future__ import annotations

import re

# the first noun phrase a determiner opens, up to a verb, a preposition or the clause's end
NP = re.compile(
    r"\b(?:the|our|my|their|this)\s+(?P<np>(?:[A-Za-z0-9][\w-]*\s+){0,4}?[A-Za-z0-9][\w-]*?)"
    r"(?=\s+(?:is|was|are|were|has|have|had|got|gets|will|would|can|could|should|must|may|just|now|also|"
    r"[a-z]+ed|to|at|on|in|for|from|with|by|of|and|but|over|off|out|up|back|forward|down|"
    # a time said after it ("Infra touched the bundle cap last night", "I checked on the torch pin again")
    r"last|this|next|yesterday|today|tonight|tomorrow|again|already|recently|earlier|once more)\b"
    r"|\s+[a-z]+s\s+(?:to|at|on|in|for|from|with|by|the|our|my|a|an)\b"  # "belongs to", "runs on": a verb
    r"|\s*[,;:.!]|\s*$)",
    re.IGNORECASE,
)
# a pronoun that stands for a thing, as subject ("it's V now", "they run V") or object ("V has it now")
_PRONOUN = re.compile(r"\b(?P<p>it|they|them|that one|this one)(?P<c>'s|'re|\s+is|\s+are)?\b", re.IGNORECASE)  # "That one is V's now"
# where a clause may be split to find the pronoun's antecedent: "…; it is V now", "…, and V has it now"
SPLIT = re.compile(r";\s+|,\s+(?:and|so)\s+")


def antecedent(clause: str) -> str | None:
    """The noun phrase a following "it" most likely means: the first determiner-led phrase."""
    m = NP.search(clause)
    if m is None:
        return None
    np = m.group(0).strip()
    return np if re.search(r"[a-z]{3,}|\b[A-Z]{2,5}\b", m.group("np")) else None  # a word, or an abbreviation ("the OMS")


# a clause with no subject at all, only its value: "60 characters is OK now", "$500 is fine from now on"
_ELLIPTIC = re.compile(r"^(?P<v>[^,;]{1,40}?)\s+(?:is|are)\s+(?:now\s+)?(?:ok|okay|fine|allowed|acceptable|permitted|good|alright|the (?:new )?(?:limit|cap|max(?:imum)?|bar))\b", re.IGNORECASE)


# no subject, only who to turn to: "(…, so) talk to Tomas now" → "Tomas owns <np> now"
_CONTACT = re.compile(r"^(?:please\s+)?(?:talk to|ask|ping|contact|reach out to|go to|call|email)\s+(?P<n>[A-Z][a-z]+)\b(?P<rest>[^,;]*?)\s*(?P<e>[.!]?)$")


def has_pronoun(clause: str) -> bool:
    return _PRONOUN.search(clause) is not None


def needs_antecedent(clause: str) -> bool:
    """A thing-pronoun, or no subject but the value itself ("60 characters is OK now")."""
    return has_pronoun(clause) or _ELLIPTIC.match(clause.strip()) is not None or _CONTACT.match(clause.strip()) is not None


def resolve(clause: str, np: str) -> str:
    """``clause`` with its first thing-pronoun replaced by ``np`` ("it's" → "<np> is"); a clause
    that is only its value ("60 characters is OK now") becomes "<np> is <value> now"."""
    m = _ELLIPTIC.match(clause.strip())
    if m and not has_pronoun(clause):
        return f"{np[:1].upper() + np[1:]} is {m.group('v')} now."
    c = _CONTACT.match(clause.strip())
    if c and not has_pronoun(clause):
        return f"{c.group('n')} owns {np[:1].lower() + np[1:]}{c.group('rest')}{c.group('e') or '.'}"

    def sub(m: re.Match[str]) -> str:
        copula = (m.group("c") or "").strip().lower()
        verb = {"'s": " is", "is": " is", "'re": " are", "are": " are"}.get(copula, "")
        lead = np[:1].upper() + np[1:] if m.start() == 0 else np[:1].lower() + np[1:]
        return lead + verb

    return _PRONOUN.sub(sub, clause, count=1)
