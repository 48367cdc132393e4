"""Input decoding and bounded-cost measuring (tokens, lines) for the clippers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

Count = Callable[[str], int]

#: Texts longer than this (in characters) are not counted in full: tokens are extrapolated
#: from three samples. Counting 200 MB exactly would cost seconds; the clip must not.
EXACT_COUNT_LIMIT = 1_000_000
_SAMPLE = 65_536
#: The sniffers look at no more than this many characters of the start of a text.
SNIFF_CHARS = 16_384


def default_count() -> Count:
    """The library's default counter (``tokens.counter_for(None)``)."""
    from ..tokens import counter_for

    return counter_for(None).count_text


def estimate_tokens(text: str) -> int:
    """A rough count (≈4 characters a token), used only when the counter refuses a text."""
    return (len(text) + 3) // 4


def safe_count(count: Count, text: str) -> int:
    """``count(text)``, falling back to :func:`estimate_tokens` if the counter refuses the text."""
    try:
        return int(count(text))
    except Exception:  # a counter that chokes on odd input must not break a clip
        return estimate_tokens(text)


def safe_count_joined(count: Count, text: str, pieces: Sequence[str]) -> int:
    """:func:`safe_count` of ``text``, told that ``text == "".join(pieces)``: a count that knows how
    to add pieces up (its ``joined``: ``tokens.memo.CounterCount``) counts the text from pieces it
    counted before (the estimator, when every joint is at a newline); any other reads it whole.
    The same answer either way."""
    joined = getattr(count, "joined", None)
    if joined is None:
        return safe_count(count, text)
    try:
        return int(joined(text, pieces))
    except Exception:  # as safe_count: a counter that chokes must not break a clip
        return safe_count(count, text)


def measure_tokens(count: Count, text: str) -> tuple[int, bool]:
    """Tokens of ``text`` and whether the number is an estimate (texts past EXACT_COUNT_LIMIT)."""
    n = len(text)
    if n <= EXACT_COUNT_LIMIT:
        return safe_count(count, text), False
    mid = n // 2
    samples = (text[:_SAMPLE], text[mid - _SAMPLE // 2 : mid + _SAMPLE // 2], text[-_SAMPLE:])
    sampled = sum(safe_count(count, s) for s in samples)
    chars = sum(len(s) for s in samples)
    return max(1, round(sampled * n / max(1, chars))), True


def count_lines(text: str) -> int:
    """Lines as a reader sees them: a final line without a newline still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    notes: tuple[str, ...] = ()
    binary: bool = False


def decode(data: bytes | str) -> Decoded:
    """Text for the clippers. Bytes are decoded as UTF-8 with replacement (said in the notes);
    NUL bytes in the first KBs mark the content as binary."""
    notes: list[str] = []
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = raw.decode("utf-8", errors="replace")
            notes.append(f"input was not valid UTF-8 (first bad byte at offset {exc.start}); decoded with U+FFFD replacement")
    else:
        text = data
    head = text[:SNIFF_CHARS]
    binary = "\x00" in head
    if binary:
        notes.append("binary content (NUL bytes); shown as a printable preview")
    return Decoded(text, tuple(notes), binary)


_CONTROL = {c: "." for c in range(32) if c not in (9, 10)}
_CONTROL[0x7F] = "."


def printable(text: str) -> str:
    """Control characters (NUL, escapes...) replaced by '.' so a preview of binary is readable."""
    return text.translate(_CONTROL)
