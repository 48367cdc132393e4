"""Counting a text made of pieces from the pieces' features, with the same answer.

The estimator's count of a text is a function of its class counts (:mod:`.textclass`) and of its
line-number prefixes. Those add up over a concatenation ``a + b`` whenever the joint lies at a
newline (``a`` ends with ``"\\n"`` or ``b`` starts with one):

- every class count is a count of single codes (letters, digits, punctuation, ...), additive;
- the counted pairs are word starts (a non-letter then a letter, or a letter at the start),
  digit-run starts (alike), camelCase joints (a lower then an upper letter) and two spaces: at
  such a joint the newline is on one side, so a pair across it is a word or run start exactly
  when the right piece starts with a letter or digit (what the piece alone counts at its start),
  and no camelCase joint or two-space pair spans it;
- a base64/hex run is made of letters, digits and ``+/=_-``: a newline ends it, so no run spans
  the joint, and the look-behind before a run at the right piece's start sees a newline or
  nothing, the same;
- a line-number prefix (``^ *\\d+→``, multi-line) starts at a text's start or after ``"\\n"``:
  at such a joint the right piece's first line starts a line in both, and no prefix spans a newline.

A text longer than :data:`.textclass.SLICE_CHARS` is scanned in slices at fixed offsets, which
do not fall at the pieces' joints: it is counted whole. So is a text whose pieces do not join to it.
A fold message (header, brief, restored files) is counted this way from the brief and the files,
which were counted before; the same text was read whole once more before (and again as the
next fold's prior summary).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from .textclass import SLICE_CHARS, TextStats

Features = tuple[TextStats, int]

#: texts at least this long have their features kept
FEATURE_MEMO_MIN_CHARS = 256
#: the feature memo holds at most this many characters in all (it keeps the strings alive)
FEATURE_MEMO_CHARS = 8_000_000


def additive(left: str, right: str) -> bool:
    """Whether the features of ``left + right`` are the sum of each one's (module docstring)."""
    return left.endswith("\n") or right.startswith("\n")


def joined_features(text: str, pieces: Sequence[str], features: Callable[[str], Features]) -> Features | None:
    """The features of ``text`` added up from ``pieces``' own, or None when they cannot be: the
    pieces do not join to ``text``, a joint is not at a newline, or ``text`` is scanned in slices."""
    parts = [p for p in pieces if p]
    if not parts or len(text) > SLICE_CHARS or "".join(parts) != text:
        return None
    if not all(additive(a, b) for a, b in pairwise(parts)):
        return None
    total, numbered = features(parts[0])
    for p in parts[1:]:
        s, n = features(p)
        total, numbered = total + s, numbered + n
    return total, numbered
