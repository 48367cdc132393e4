"""The estimator's base64/hex runs found without a regex attempt at every byte
(``tokens.textclass.blob_spans``): the same spans as the pattern it replaced, and so the same counts."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from contextwindow.tokens.textclass import BLOB_BYTES, BLOB_MIN, blob_spans, stats

# the pattern the estimator used before (a run of the class, not preceded by one of it)
REFERENCE = re.compile(rb"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/=_\-]{32,}")


def reference_spans(raw: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in REFERENCE.finditer(raw)]


def test_the_class_is_the_patterns() -> None:
    inside = {b for b in range(256) if REFERENCE.fullmatch(bytes([b]) * BLOB_MIN)}
    assert inside == set(BLOB_BYTES)


# runs of class bytes around the threshold, separated by other bytes (ASCII, multibyte UTF-8, NUL)
_class_run = st.integers(0, 70).flatmap(lambda n: st.text(alphabet=BLOB_BYTES.decode(), min_size=n, max_size=n))
_gap = st.text(alphabet=" \n\t.,:;()[]{}\"'é→漢\x00😀", min_size=0, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_gap, _class_run), max_size=12), _gap)
def test_spans_equal_the_regex(pieces: list[tuple[str, str]], last: str) -> None:
    text = "".join(g + r for g, r in pieces) + last
    raw = text.encode("utf-8", "surrogatepass")
    assert blob_spans(raw) == reference_spans(raw)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_spans_equal_the_regex_on_any_bytes(raw: bytes) -> None:
    assert blob_spans(raw) == reference_spans(raw)


def test_edges() -> None:
    run = b"a" * BLOB_MIN
    assert blob_spans(run) == [(0, BLOB_MIN)]
    assert blob_spans(run[:-1]) == []
    assert blob_spans(b" " + run + b"/" * 3 + b" " + run) == [(1, BLOB_MIN + 4), (BLOB_MIN + 5, 2 * BLOB_MIN + 5)]
    assert blob_spans(b"") == []


def test_counts_of_real_kinds_of_text() -> None:
    """Hex digests, base64, paths and prose: the stats see the runs the pattern saw."""
    import base64
    import hashlib

    digest = hashlib.sha256(b"x").hexdigest()
    b64 = base64.b64encode(bytes(range(200))).decode()
    text = f"commit {digest}\nimage: {b64}\npath /usr/lib/python3.11/site-packages/contextwindow/tokens/textclass.py\nplain words here"
    s = stats(text)
    assert s.hex_chars == len(digest)
    assert s.b64_chars == len(b64)
    assert [raw for raw in (text.encode()[a:b] for a, b in blob_spans(text.encode()))] == [
        m.group() for m in REFERENCE.finditer(text.encode())
    ]


_word = st.text(alphabet="ab09Z_é7", min_size=0, max_size=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_word, st.sampled_from([" ", "\n", ".", "→", "  "])), max_size=30))
def test_digit_runs_are_counted_by_their_ends(words: list[tuple[str, str]]) -> None:
    """``digit_runs`` counts maximal runs of ASCII digits (texts here hold no blob: words < 32)."""
    text = "".join(w + sep for w, sep in words).rstrip(" ") + (words[-1][0] if words else "")
    assume(not blob_spans(text.encode()))  # the last word repeated can make a 32-character run (a blob, not digits)
    assert stats(text).digit_runs == len(re.findall(rb"[0-9]+", text.encode()))
