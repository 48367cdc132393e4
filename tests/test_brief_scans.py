"""The extractive brief's scans that skip work give the answers of the plain line-by-line ones:
the first non-blank line of a result (without splitting the whole text) and the open-item lines
of an assistant text (a whole-text search first)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.folding.extractive import _FOLDS_TO_PATTERN, _OPEN_RE, _first_line, _open_lines

# every splitlines boundary, other spaces (\x1f is space but no boundary, NBSP), words of the
# open-item pattern and letters that case-fold onto its letters (long s, dotless i, Kelvin)
ATOMS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", " ", "\t", "\xa0",
         "word", "TODO", "todo:", "Todo", "éTODO", "REMAINING", "Still Need", "STILL NEED", "ÉTÉ", "next step", "NEXT STEP", "nexT ſtep", "remaining", "remaining3", "still need", "- [ ]", "-[ ]",
         "ı", "İ", "\u212a", "x" * 200, "é"]
texts = st.lists(st.sampled_from(ATOMS), max_size=30).map("".join)


def first_line_by_lines(text: str, limit: int) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s[:limit] + ("…" if len(s) > limit else "")
    return ""


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from([5, 120, 160]))
def test_first_line_is_the_first_non_blank_line(text: str, limit: int) -> None:
    assert _first_line(text, limit) == first_line_by_lines(text, limit)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_open_lines_are_the_matching_lines(text: str) -> None:
    assert _open_lines(text) == [ln.strip() for ln in text.splitlines() if _OPEN_RE.search(ln)]


def test_examples() -> None:
    assert _first_line("\n \u2028  \x1f\xa0 first one  \x85second") == "first one"
    assert _first_line(" \n\t ") == ""
    assert _open_lines("done\n  TODO: wire the cache \r\nnothing else\u2028still need tests") == ["TODO: wire the cache", "still need tests"]
    assert _open_lines("all done\nnothing open") == []


def test_the_letters_folded_onto_the_open_item_pattern_are_the_ones_its_fast_path_avoids() -> None:
    letters = "".join(sorted({c.lower() for c in _OPEN_RE.pattern if c.isalpha() and c.isascii()}))
    every = "".join(chr(c) for c in range(128, 0x110000) if not 0xD800 <= c < 0xE000)
    assert set(re.findall(f"[{letters}]", every, re.IGNORECASE)) <= set(_FOLDS_TO_PATTERN)
    assert {c for c in every if len(c.lower()) != 1} <= set(_FOLDS_TO_PATTERN)
