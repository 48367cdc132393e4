"""Where an exact (BPE) count of a text is the sum of the counts of its two sides. Pure.

tiktoken first splits a text with its encoding's pattern (``exact._CL100K_PAT``, ``exact._O200K_PAT``)
and runs BPE inside each piece only, so ``count(a + b) == count(a) + count(b)`` whenever the
pattern's pieces of ``a + b`` are those of ``a`` followed by those of ``b``. That holds at a
position ``p`` where ``text[p - 1]`` is a newline and ``text[p]`` is an ASCII character that is
neither whitespace nor ``/`` (:func:`is_cut`), for both patterns:

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
apostrophes, punctuation, digits, marks).
"""

from __future__ import annotations


def is_cut(text: str, p: int) -> bool:
    """True when ``count(text) == count(text[:p]) + count(text[p:])`` for cl100k and o200k (module docstring)."""
    if not 0 < p < len(text) or text[p - 1] != "\n":
        return False
    c = text[p]
    return c.isascii() and not c.isspace() and c != "/"


def last_line_cut(text: str) -> int | None:
    """The start of ``text``'s last line when it is a cut (:func:`is_cut`), else None."""
    p = text.rfind("\n") + 1
    return p if p and is_cut(text, p) else None
