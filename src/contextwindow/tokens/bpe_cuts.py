"""Where an exact (BPE) count of a text is the sum of the counts of its two sides. Pure.

tiktoken first splits a text with its encoding's pattern (``exact._CL100K_PAT``, ``exact._O200K_PAT``)
and runs BPE inside each piece only, so ``count(a + b) == count(a) + count(b)`` whenever the
pattern's pieces of ``a + b`` are those of ``a`` followed by those of ``b``. That holds at a
position ``p`` where ``text[p - 1]`` is a newline and ``text[p]`` is a character that is not
whitespace, for both patterns (:func:`is_cut`), except ``/``, which o200k's punctuation branch takes
after punctuation and newlines (``")\\n/"`` is one piece): ``/`` is a cut only when the character
before the newline (or before ``"\\r\\n"``) is a letter or a digit (``\\p{L}``/``\\p{N}``), whose
branches never reach a newline:

* no piece holds a newline followed by such a character: the letter branches may open with one
  character that is not a newline; the digit branch holds digits; the punctuation branch ends with
  newlines (o200k: newlines and ``/``); the whitespace branches hold whitespace; cl100k's contraction
  branch opens with an apostrophe. So a piece ends at ``p``;
* the pieces before ``p`` do not depend on what follows: the patterns look ahead only in
  ``\\s+(?!\\S)``, which never ends a piece at ``p`` (a whitespace run ending with the newline is taken
  whole, up to its last newline, by the branch before it), and cl100k's ``\\s++$`` gives a run ending
  at ``p`` the same piece as ``\\s*[\\r\\n]`` does in the longer text; nothing looks behind, so the
  pieces after ``p`` are those ``b`` alone gives.

``tests/test_bpe_cuts.py`` checks the sums against whole counts with both vocabularies on texts made
of the characters that could break the rule (newlines, ``\\r``, ``/``, spaces, Unicode whitespace,
apostrophes, punctuation, digits, marks, CJK, emoji). Python's ``str.isspace`` is true for every
``\\s`` character (Unicode White_Space), so what it calls non-space opens no whitespace piece.
"""

from __future__ import annotations

import unicodedata


def is_cut(text: str, p: int) -> bool:
    """True when ``count(text) == count(text[:p]) + count(text[p:])`` for cl100k and o200k (module docstring)."""
    if not 0 < p < len(text) or text[p - 1] != "\n":
        return False
    c = text[p]
    if c != "/":
        return not c.isspace()
    q = p - 3 if p >= 3 and text[p - 2] == "\r" else p - 2  # the character before "\n" or "\r\n"
    return q >= 0 and unicodedata.category(text[q])[0] in "LN"


def last_line_cut(text: str) -> int | None:
    """The start of ``text``'s last line when it is a cut (:func:`is_cut`), else None."""
    p = text.rfind("\n") + 1
    return p if p and is_cut(text, p) else None
