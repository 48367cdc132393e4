"""Typing slips in function words, read as the word meant (pure).

Kind it reads: a function word (determiner, pronoun, modal, preposition, adverb of the ledger's stop list) typed
with two neighbouring letters swapped. The subject and the markers of a clause are found on function words ("the",
"should", "again", "before"); a swapped pair makes a content word of them ("teh budget" and "the budget" were two
subjects, "X shoudl be V" no rule). Two sentences of this kind (our own, not a benchmark family's):

* "Hte nightly export shoudl finish before 06:00." — "The … should …": a rule about the nightly export.
* "Teh retention window is 30 days, adn the archive keeps 2 years." — "The … and …".

Only swaps of words of four letters or more are read (three-letter slips such as "teh"/"adn" for "the"/"and" are
listed), and a swap that is itself a common word ("form" for "from", "three" for "there") is left as written: it
may be meant.
"""

from __future__ import annotations

import re

from .clauses import find_values
from .subjects import STOP_WORDS

#: swaps that spell a word of their own: never read as a slip
_REAL_WORDS = frozenset({
    "form", "three", "abel", "arise", "bale", "bets", "dose", "lest", "veer", "mots", "pats", "gest", "acme", "silde", "roes",
    "ries", "sied", "slied", "trism", "trams", "naps", "spot", "stop", "tops", "pots", "leaves", "ales", "evil", "live", "vile",
})


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word}


def _slips() -> dict[str, str]:
    out: dict[str, str] = {}
    for w in sorted(STOP_WORDS):
        if not w.isalpha() or (len(w) < 4 and w not in ("the", "and")):
            continue
        for s in _swaps(w):
            if s not in STOP_WORDS and s not in _REAL_WORDS:
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
