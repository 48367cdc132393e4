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
    """Kind: three or more values of one kind one after another, parted only by commas and a last "and"/"or" — "The tour
    covers Lyon, Porto, Gdansk and Riga", "We test on Firefox, Safari and Edge". Such a clause states what the list is
    of, whatever its verb."""
    found = items(body, vals)
    if len(found) < 3 or len({v.kind for v in found}) != 1:
        return False
    if len(body[: found[0].start].split()) < 2:
        return False  # an order on the list itself ("Integrate A, B and C", "Visit A, B and C"): a task, not a statement
    return all(_BETWEEN.match(body[a.end : b.start]) for a, b in pairwise(found))


# a word that takes an item out of a list or puts one in: "replace U with V", "V takes the place of U", "U leaves and V
# joins", "take U out and put V in", "drop U and add V", "swap U for V", "V in place of U"
_SWAP = re.compile(
    r"\b(?:replac\w*|swap\w*|substitut\w*|in place of|instead of|(?:takes?|took|taking) the place of|out\b|leaves?|left|drop\w*|"
    r"remov\w*|joins?|joined|add\w*|comes? in|goes|went|in\b)",
    re.IGNORECASE,
)


def swapped(ledger: Sequence[Entry], clause: str) -> tuple[int, str, Entry] | None:
    """Kind: one item of a list in force changed — "Porto drops out of the tour and Bergen joins", "Replace Safari with
    Chrome in the browsers we test on", "On the tour Bergen takes the place of Porto". The clause names exactly one item of
    an active entry that lists three or more values, one new value of the same kind, and a word of the list's subject.
    (index of the list's entry, the item that left, the list with that one item changed: its text is the list's
    statement with the new item in the old one's place, so that every item in force is said in one sentence); None for
    anything else."""
    said = set(subject_words(clause))
    if not _SWAP.search(clause):
        return None
    for i in range(len(ledger) - 1, -1, -1):
        o = ledger[i]
        held = items(o.text)
        if not o.active or len(held) < 3 or not set(o.subject.split()) & said:
            continue
        names = {v.text.lower() for v in held}
        found = items(clause)
        # the first word of a sentence is typed as a name only before a verb like "is": an item of the list is one anyway
        first = re.match(r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*", clause.strip())
        if first and first.group(0).lower() in names and not any(v.start == 0 for v in found):
            found = [Value(held[0].kind, first.group(0), 0, first.end()), *found]
        old = [v for v in found if v.text.lower() in names]
        new = [v for v in found if v.text.lower() not in names]
        if len(old) != 1 or len(new) != 1 or new[0].kind != old[0].kind:
            continue
        values = tuple(new[0].text if v.text.lower() == old[0].text.lower() else v.text for v in held)
        at = next(v for v in held if v.text.lower() == old[0].text.lower())
        text = o.text[: at.start] + new[0].text + o.text[at.end :]
        value = o.value[:1] + "|".join(sorted(normalize_value(v) for v in values))
        return i, at.text, Entry(text=text, kind=o.kind, subject=o.subject, value=value, values=values, source=o.source, signature=o.signature, loose=o.loose)
    return None
