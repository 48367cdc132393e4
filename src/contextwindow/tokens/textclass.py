"""Fast character-class statistics of text, the input of the heuristic estimator.

The text is encoded to UTF-8 and every byte mapped to a one-byte class code with
``bytes.translate`` (C speed, no per-character Python work): lower / upper letter, digit,
space, newline, tab, JSON punctuation, other punctuation, and the lead byte of a 2-, 3- or
4-byte UTF-8 sequence (continuation bytes are deleted, so one code = one character). Counts of
codes and of code pairs (``bytes.count``) then give the features: words (runs of letters),
camelCase joints, digits and digit runs, punctuation, indentation, newlines, multibyte
characters by width (2-byte ≈ Latin-extended/Cyrillic/Greek letters, 3-byte ≈ CJK and
typographic symbols, 4-byte ≈ emoji). Long random-looking runs (base64, hex) are found by
:func:`blob_spans` (``bytes.translate`` then ``bytes.find``, no regular expression) and measured
apart, because tokenizers split them far more finely than words.

Large text is scanned in slices of :data:`SLICE_CHARS`, so memory stays bounded.
"""

from __future__ import annotations

import re
from typing import NamedTuple

SLICE_CHARS = 1 << 20


class TextStats(NamedTuple):
    """Counts of one text (all additive: stats of a concatenation ≈ the sum of the stats)."""

    chars: int = 0
    words: int = 0
    camel: int = 0
    digits: int = 0
    digit_runs: int = 0
    punct: int = 0
    json: int = 0
    indent: int = 0
    newlines: int = 0
    tabs: int = 0
    wide2: int = 0
    wide3: int = 0
    wide4: int = 0
    b64_chars: int = 0
    hex_chars: int = 0

    def __add__(self, other: object) -> TextStats:
        if not isinstance(other, TextStats):
            return NotImplemented
        return TextStats(*(a + b for a, b in zip(self, other, strict=True)))


ZERO = TextStats()
FEATURES: tuple[str, ...] = TextStats._fields


def _build_tables() -> tuple[bytes, bytes, bytes, bytes]:
    code = bytearray(256)
    for i in range(256):
        ch = chr(i)
        if i < 128:
            if "a" <= ch <= "z":
                code[i] = ord("a")
            elif "A" <= ch <= "Z":
                code[i] = ord("A")
            elif "0" <= ch <= "9":
                code[i] = ord("0")
            elif ch == " ":
                code[i] = ord(" ")
            elif ch in "\n\r":
                code[i] = ord("\n")
            elif ch == "\t":
                code[i] = ord("\t")
            elif ch in '{}[]":,':
                code[i] = ord("{")
            else:
                code[i] = ord(".")
        elif i < 0xE0:  # 0xC0..0xDF lead of 2-byte (continuations deleted below)
            code[i] = ord("u")
        elif i < 0xF0:
            code[i] = ord("U")
        else:
            code[i] = ord("E")
    # tables over class codes: letters (incl. 2-byte letters) -> 'a', rest ' ' / digits -> '0', rest ' '
    letters = bytearray(b" " * 256)
    for c in b"aAu":
        letters[c] = ord("a")
    digits = bytearray(b" " * 256)
    digits[ord("0")] = ord("0")
    return bytes(code), bytes(letters), bytes(digits), bytes(range(0x80, 0xC0))


_CODE, _LETTERS, _DIGITS, _CONT = _build_tables()
#: A blob: a maximal run of 32+ bytes of this class (what :func:`blob_spans` finds).
BLOB_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-"
BLOB_MIN = 32
_IN_BLOB = bytes(ord("x") if i in BLOB_BYTES else ord(" ") for i in range(256))
_RUN = b"x" * BLOB_MIN
_HEX = re.compile(rb"[0-9a-fA-F]+")


def blob_spans(raw: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of every maximal run of :data:`BLOB_MIN` or more :data:`BLOB_BYTES` in
    ``raw``, in order: the matches of ``(?<![class])[class]{32,}``, found by mapping each byte to
    in/out of the class (``bytes.translate``) and searching that for 32 in a row (``bytes.find``),
    so a text without such a run costs two C passes instead of a regex attempt at every byte
    (~10x faster on prose and code; tests/test_blob_spans.py checks it against the regex)."""
    marks = raw.translate(_IN_BLOB)
    spans: list[tuple[int, int]] = []
    at = marks.find(_RUN)
    while at >= 0:  # ``at`` starts a run: the search resumes at a byte outside the class
        end = marks.find(b" ", at + BLOB_MIN)
        if end < 0:
            end = len(marks)
        spans.append((at, end))
        at = marks.find(_RUN, end)
    return spans


def stats(text: str) -> TextStats:
    """Character-class counts of ``text`` (any size; scanned in bounded slices)."""
    n = len(text)
    if n <= SLICE_CHARS:
        return _stats_slice(text)
    total = ZERO
    for i in range(0, n, SLICE_CHARS):
        total = total + _stats_slice(text[i : i + SLICE_CHARS])
    return total


def _stats_slice(text: str) -> TextStats:
    if not text:
        return ZERO
    raw = text.encode("utf-8", "surrogatepass")
    b64 = hexc = 0
    if len(raw) >= 32:
        pieces: list[bytes] = []
        last = 0
        for start, end in blob_spans(raw):
            kind = _blob_kind(raw[start:end])
            if kind is None:
                continue
            if kind == "hex":
                hexc += end - start
            else:
                b64 += end - start
            pieces.append(raw[last:start])
            last = end
        if pieces:
            pieces.append(raw[last:])
            raw = b" ".join(pieces)
    c = raw.translate(_CODE, _CONT)
    lw = c.translate(_LETTERS)
    dg = c.translate(_DIGITS)
    return TextStats(
        chars=len(c),
        words=lw.count(b" a") + (lw[:1] == b"a"),
        camel=c.count(b"aA"),
        digits=c.count(b"0"),
        digit_runs=dg.count(b"0 ") + (dg[-1:] == b"0"),  # each run's end (twice as fast to find as its start)
        punct=c.count(b"."),
        json=c.count(b"{"),
        indent=c.count(b"  "),
        newlines=c.count(b"\n"),
        tabs=c.count(b"\t"),
        wide2=c.count(b"u"),
        wide3=c.count(b"U"),
        wide4=c.count(b"E"),
        b64_chars=b64,
        hex_chars=hexc,
    )


def _blob_kind(blob: bytes) -> str | None:
    """'hex', 'b64' or None (a path, identifier or word run that tokenizes like text)."""
    n = len(blob)
    digits = n - len(blob.translate(None, b"0123456789"))
    if _HEX.fullmatch(blob) and digits * 5 >= n:
        return "hex"
    upper = len(blob) - len(blob.translate(None, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    lower = len(blob) - len(blob.translate(None, b"abcdefghijklmnopqrstuvwxyz"))
    if upper * 6 >= n and lower * 6 >= n and digits * 25 >= n:
        return "b64"
    return None
