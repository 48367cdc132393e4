"""Lists in the ledger: a clause that lists three or more values of one kind states a fact (``is_list``), and a later
clause that takes one item out and puts another in changes that one item (``swapped``). Pure.

Before this module a list said with a verb the relations do not know ("The tour covers Lyon, Porto, Gdansk and
Riga") made no entry, and a swap ("Porto drops out of the tour and Bergen joins") made none either, or one of its
own that the list's other items did not survive: the list stayed in force with the item that left it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from .clauses import Value, find_values, normalize_value
from .entries import Entry
from .subjects import subject_words

# what may stand between two items of a list: a comma, "and", "or", a slash
_BETWEEN = re.compile(r"^\s*(?:,|,?\s+(?:and|or|&)|/)\s*$", re.IGNORECASE)


def items(text: str, vals: Sequence[Value] | None = None) -> list[Value]:
    """The values of ``text`` with a name of several words as one item ("Polar Post", which ``find_values`` types word by
    word)."""
    out: list[Value] = []
    for v in find_values(text) if vals is None else vals:
        if out and out[-1].kind == v.kind == "name" and text[out[-1].end : v.start] == " ":
            out[-1] = Value("name", text[out[-1].start : v.end], out[-1].start, v.end)
        else:
            out.append(v)
    return out


def is_list(body: str, vals: Sequence[Value]) -> bool:
    """Kind: three or more values of one kind one after another, parted only by commas and a last "and"/"or", as the
    complement of a subject noun and a copula or a verb of what a set holds — "The tour covers Lyon, Porto, Gdansk and
    Riga", "The browsers we test on are Firefox, Safari and Edge". Such a clause states what the list is of. Three names
    after any other verb ("I met Alice, Bob and Carol", "My kids love Paris, Rome and Berlin") state no setting."""
    found = items(body, vals)
    if len(found) < 3 or len({v.kind for v in found}) != 1:
        return False
    lead = body[: found[0].start]
    if len(lead.split()) < 2:
        return False  # an order on the list itself ("Integrate A, B and C", "Visit A, B and C"): a task, not a statement
    verb = _LIST_VERB.search(lead)
    if verb is None or not lead[: verb.start()].strip() or _PERSONAL.match(lead[: verb.start()]):
        return False
    return all(_BETWEEN.match(body[a.end : b.start]) for a, b in pairwise(found))


# the verb a list is the complement of: a copula or a verb of what a set holds ("The tour covers A, B and C", "The
# browsers we test on are A, B and C", "The shortlist: A, B and C"); "I met A, B and C", "My kids love A, B and C" are
# chatter about names, not a setting
_LIST_VERB = re.compile(
    r"\b(?:is|are|was|were|will be|covers?|covered|includes?|included|contains?|consists? of|comprises?|spans?|"
    r"made (?:up )?of)\s*:?\s*$|:\s*$",
    re.IGNORECASE,
)
# a subject that is the speaker or a person of theirs, not a settings noun
_PERSONAL = re.compile(r"^\s*(?:(?:i|we|you|he|she|they|it)\s*$|(?:my|our|his|her|their)\s+(?:kids?|children|friends?|wife|husband|partner|family|parents?|mom|dad|mother|father|son|daughter|team|boss)\b)", re.IGNORECASE)

# words a verb may carry between its subject and itself ("Porto has now dropped out")
_AUX = r"(?:(?:is|are|was|were|has|have|had|will|would|shall|gets?|got|be|been|now|also|then|just)\s+)*"
# a verb of leaving on the item that goes, one of joining on the item that comes in
_OUT = r"(?:drop(?:s|ped|ping)?\s+out|falls?\s+out|fell\s+out|leaves?|left|out|dropped|removed|gone|off)"
_IN = r"(?:joins?|joined|joining|comes?\s+in|came\s+in|in|added|on\s+board)"
_TAKE_OUT = r"(?:drop|remove|take|cut|strike)"
_PUT_IN = r"(?:add|put|bring|include)"
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:do|does|did|is|are|was|were|will|would|should|could|can|has|have|had|who|what|which|why|how|when|where)\b",
    re.IGNORECASE,
)


def _swaps(clause: str, old: str, new: str) -> bool:
    """Whether ``clause`` takes ``old`` out and puts ``new`` in by its structure: a swap verb whose two arguments are the
    two items ("replace U with V", "swap U for V", "substitute V for U", "V instead of / in place of / takes the place of
    U", "U is replaced by V"), or a verb of leaving on U and one of joining on V ("U drops out … and V joins", "U out,
    V in", "drop U and add V"). Two names beside a verb of motion ("I went to the review in U and V") are no swap."""
    u, v = re.escape(old), re.escape(new)
    gap = r"(?:\s+(?:of|from)\s+[^,;.]{0,60}?)?"  # "drops out of the tour"
    link = r"[^.;]{0,80}?(?:\band\b|,|;|\bwhile\b)\s*"
    forms = (
        rf"\b(?:replac\w*|swap\w*|switch\w*|exchang\w*|trad\w*)\s+(?:the\s+)?{u}\s+(?:out\s+)?(?:with|for|by)\s+{v}\b",
        rf"\bsubstitut\w*\s+{v}\s+for\s+{u}\b",
        rf"\b{v}\s+{_AUX}(?:instead of|in place of|(?:takes?|took|taking|take)\s+the place of|replac(?:es|ed|ing))\s+{u}\b",
        rf"\b{u}\s+{_AUX}(?:replaced|swapped(?:\s+out)?|exchanged|traded)\s+(?:with|for|by)\s+{v}\b",
        rf"\b{u}\s+{_AUX}{_OUT}\b{gap}{link}{v}\s+{_AUX}{_IN}\b",
        rf"\b{v}\s+{_AUX}{_IN}\b{gap}{link}{u}\s+{_AUX}{_OUT}\b",
        rf"\b{_TAKE_OUT}\s+{u}(?:\s+out)?\b{gap}{link}{_PUT_IN}\s+{v}\b",
        rf"\b{_PUT_IN}\s+{v}(?:\s+in)?\b{gap}{link}{_TAKE_OUT}\s+{u}\b",
    )
    return any(re.search(f, clause, re.IGNORECASE) for f in forms)


def swapped(ledger: Sequence[Entry], clause: str) -> tuple[int, str, Entry] | None:
    """Kind: one item of a list in force changed — "Porto drops out of the tour and Bergen joins", "Replace Safari with
    Chrome in the browsers we test on", "On the tour Bergen takes the place of Porto". The clause names exactly one item of
    an active entry that lists three or more values, one new value of the same kind, and a word of the list's subject.
    (index of the list's entry, the item that left, the list with that one item changed: its text is the list's
    statement with the new item in the old one's place, so that every item in force is said in one sentence); None for
    anything else."""
    if _QUESTION.search(clause):
        return None  # "Did Porto drop out of the tour and Bergen join?" asks; it changes nothing
    said = set(subject_words(clause))
    in_clause: list[Value] | None = None
    for i in range(len(ledger) - 1, -1, -1):
        o = ledger[i]
        if not o.active or o.kind in ("safety", "constraint") or not set(o.subject.split()) & said:
            continue  # a safety rule or hard constraint changes only by a statement about the rule itself
        held = items(o.text)
        if len(held) < 3:
            continue
        names = {v.text.lower() for v in held}
        if in_clause is None:
            in_clause = items(clause)  # once per clause, not once per entry
        found = in_clause
        # the first word of a sentence is typed as a name only before a verb like "is": an item of the list is one anyway
        first = re.match(r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*", clause.strip())
        if first and first.group(0).lower() in names and not any(v.start == 0 for v in found):
            found = [Value(held[0].kind, first.group(0), 0, first.end()), *found]
        old = [v for v in found if v.text.lower() in names]
        new = [v for v in found if v.text.lower() not in names]
        if len(old) != 1 or len(new) != 1 or new[0].kind != old[0].kind or not _swaps(clause.strip(), old[0].text, new[0].text):
            continue
        values = tuple(new[0].text if v.text.lower() == old[0].text.lower() else v.text for v in held)
        at = next(v for v in held if v.text.lower() == old[0].text.lower())
        text = o.text[: at.start] + new[0].text + o.text[at.end :]
        value = o.value[:1] + "|".join(sorted(normalize_value(v) for v in values))
        return i, at.text, Entry(text=text, kind=o.kind, subject=o.subject, value=value, values=values, source=o.source, signature=o.signature, loose=o.loose)
    return None
