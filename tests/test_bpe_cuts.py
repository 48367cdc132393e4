"""tokens/bpe_cuts.py: at a cut (a newline, then a non-space character; "/" only after a letter or
digit) the exact count of a text is the sum of its sides', for both bundled vocabularies; and the
exact counter's joined count (a clip's body + newline + marker) equals the whole count."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.tokens.bpe_cuts import is_cut, last_line_cut
from contextwindow.tokens.exact import ExactCounter, count_tokens

ENCODINGS = ["o200k_base", "cl100k_base"]
# what could join pieces across a newline: newlines, CR, "/", spaces and tabs, Unicode whitespace
# (NBSP, NEL, line separator, file separator), apostrophes (contractions), punctuation, digits,
# letters of both cases, a combining mark, CJK
_ALPHABET = "\n\n\n\r/ /  \t\u00a0\u0085\u2028\x1c's'll'd.,;:})]{[(-_=+*#\"!?<>|\\`~^%$@&aZqé5079\u0301漢"
_FRAGMENTS = ["\n", "\n", "\r\n", "/", "//", " ", "  ", "\t", ")", "};", ".", "'s", "'", "x", "Yz", "12", "1234", "é", "\u0301", "漢", "\u00a0", "\u0085", "\x1c", "-"]
texts = st.text(alphabet=_ALPHABET, max_size=60) | st.lists(st.sampled_from(_FRAGMENTS), max_size=25).map("".join)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=400, deadline=None)
@given(left=texts, first=st.sampled_from(")}/.'x7-/#\"/:é漢\u0301😀ß²"), rest=texts)
def test_a_cut_adds_up(encoding: str, left: str, first: str, rest: str) -> None:
    left, right = left + "\n", first + rest  # the joint a clip's marker makes, and any character after it
    text = left + right
    p = len(left)
    if is_cut(text, p):
        assert count_tokens(encoding, text) == count_tokens(encoding, left) + count_tokens(encoding, right)


class _Recording(ExactCounter):
    """An exact counter that keeps every text it counts in full (the test's own subclass)."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding)
        self.counted: list[str] = []

    def count_text(self, text: str) -> int:
        self.counted.append(text)
        return super().count_text(text)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(body=texts, marker=texts)
def test_joined_count_is_the_whole_count(encoding: str, body: str, marker: str) -> None:
    body = "w" * 200 + "\n" + body  # long enough that its last line is a small part of it
    right = "\n" + marker
    counter = _Recording(encoding)
    counter.count_text_memo(body)  # as the clip counted the body while fitting it
    assert counter.count_joined(body + right, (body, right)) == count_tokens(encoding, body + right)
    p = last_line_cut(body)
    shortcut = p is not None and len(body) - p <= len(body) // 4
    assert (body + right in counter.counted) != shortcut  # the shortcut reads the last line again, not the whole


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_joined_count_checks_the_pieces(encoding: str) -> None:
    """Pieces that do not make the text (a left of the right length but other content) get the whole count."""
    body, other, right = "w" * 200 + "\nok", "(" * 200 + "\nok", "\n[clipped]"
    counter = _Recording(encoding)
    counter.count_text_memo(body)
    assert counter.count_joined(other + right, (body, right)) == count_tokens(encoding, other + right)
    assert counter.count_joined(body + right, (body, right)) == count_tokens(encoding, body + right)
    assert other + right in counter.counted and body + right not in counter.counted  # only the true pieces join


def test_what_is_a_cut() -> None:
    assert is_cut("a\nb", 2) and is_cut("}\n{", 2) and is_cut("x\n'", 2)
    assert is_cut("a\n漢", 2) and is_cut("a\n\u0301", 2) and is_cut(")\n😀", 2)  # any non-space character
    assert is_cut("a\n/b", 2) and is_cut("7\r\n/b", 3) and is_cut("漢\n/", 2)  # "/" after a letter or digit
    assert not is_cut(")\n/b", 2) and not is_cut("\n\n/b", 2) and not is_cut(")\r\n/", 3) and not is_cut("\n/", 1)
    assert not is_cut("a\n b", 2) and not is_cut("a\n\nb", 2) and not is_cut("a\n\u00a0", 2) and not is_cut("a\n\u3000", 2)
    assert not is_cut("ab", 1) and not is_cut("a\n", 2) and not is_cut("\nb", 0)
    assert last_line_cut("one\ntwo") == 4 and last_line_cut("one\n two") is None and last_line_cut("one") is None


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(left=texts, letter=st.sampled_from("aZ7é漢٣²Ⅷ"), newline=st.sampled_from(["\n", "\r\n"]), rest=texts)
def test_a_slash_after_a_letter_or_digit_adds_up(encoding: str, left: str, letter: str, newline: str, rest: str) -> None:
    left, right = left + letter + newline, "/" + rest
    assert is_cut(left + right, len(left))
    assert count_tokens(encoding, left + right) == count_tokens(encoding, left) + count_tokens(encoding, right)


def test_the_rule_matters() -> None:
    """Without it the sum is wrong for o200k: a slash after punctuation and a newline joins them."""
    text = "x)\n/"
    assert count_tokens("o200k_base", text) == 2 != count_tokens("o200k_base", text[:3]) + count_tokens("o200k_base", text[3:])
    text = "x\n\ny"  # and a newline after a newline
    assert count_tokens("cl100k_base", text) == 3 != count_tokens("cl100k_base", text[:2]) + count_tokens("cl100k_base", text[2:])


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_long_texts_are_cut_where_the_count_adds_up(encoding: str) -> None:
    """``count_tokens`` of a text longer than its chunk sums spans cut by ``split_for_bpe``: never at
    a newline before "/" after punctuation (o200k's one piece), so the sum is the whole count; and a
    text whose only cuts are newlines before "/" after a letter (``find /`` output) or before CJK is
    cut there, not hard."""
    paths = "\n".join(f"/srv/{i}/f(x) and y)" for i in range(1_500))  # each newline after ")" and before "/"
    find = "\n".join(f"/usr/share/doc/pkg{i}/changelog{i % 7}" for i in range(1_500))  # no space in it
    cjk = "\n".join(["漢字の文章" * 8] * 400)
    for text in (paths, find, cjk):
        whole = count_tokens(encoding, text)
        for chunk in (200, 333, 1_000, 4_097):
            assert count_tokens(encoding, text, chunk) == whole, (text[:20], chunk)
