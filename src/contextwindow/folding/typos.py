"""Typing slips in function words, read as the word meant (pure).

Kind it reads: a function word (determiner, pronoun, modal, preposition, adverb of the ledger's stop list) typed
with two neighbouring letters swapped. The subject and the markers of a clause are found on function words ("the",
"should", "again", "before"); a swapped pair makes a content word of them ("teh budget" and "the budget" were two
subjects, "X shoudl be V" no rule). Two sentences of this kind (our own, not a benchmark family's):

* "Hte nightly export shoudl finish before 06:00." — "The … should …": a rule about the nightly export.
* "Teh retention window is 30 days, adn the archive keeps 2 years." — "The … and …".

Only the two three-letter function words whose swaps spell no word ("the" as "hte"/"teh", "and" as "adn"/"nad") are
read. The quarry round read swaps of every stop word of four letters or more, minus a hand list of swaps that are words
themselves; the review found that list both missed real words ("arises" read as "raises", "arising", "odes", "toady",
"oaky") and held non-words. No word list ships with the package, so the mending is safe by construction instead: a
longer slip ("shoudl", "whcih") is left as written (quarry, tuning data: superseded still in force 95 -> 96/194).
Only the frame is mended: a value keeps every letter as written ("/srv/hte/data").
"""

from __future__ import annotations

import re

from .clauses import find_values
from .subjects import STOP_WORDS

#: the function words whose every two-letter swap spells no English word
_SAFE = ("the", "and")


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word}


def _slips() -> dict[str, str]:
    out: dict[str, str] = {}
    for w in sorted(STOP_WORDS):
        if w not in _SAFE:
            continue
        for s in _swaps(w):
            if s not in STOP_WORDS:
                out.setdefault(s, w)
    return out


SLIPS = _slips()
_WORD = re.compile(r"\b[A-Za-z]{3,}\b")


def mend(text: str) -> str:
    """``text`` with each slipped function word written as meant (its case kept for the first letter)."""

    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        meant = SLIPS.get(w.lower())
        if meant is None:
            return w
        return meant[:1].upper() + meant[1:] if w[:1].isupper() else meant

    # only the frame is mended: a value keeps every letter as written ("/srv/hte/data" is a path, not "/srv/the/data");
    # a capitalised word read as a name may be the slipped first word itself ("Hte nightly export …")
    out, at = [], 0
    for v in find_values(text):
        if v.kind == "name" and " " not in v.text:
            continue
        out += [_WORD.sub(fix, text[at : v.start]), text[v.start : v.end]]
        at = v.end
    return "".join([*out, _WORD.sub(fix, text[at:])])
