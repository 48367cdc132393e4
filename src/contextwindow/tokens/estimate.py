"""The heuristic estimator: tokens from character-class counts, per provider family.

Instead of one chars-per-token ratio, each class of text has its own rate
(:class:`Rates`): words (a run of letters costs ~0.8 of a token, long words a little more
through the per-character rate), camelCase joints, digits and digit runs (numbers split in
groups of up to three), punctuation and JSON structure, indentation and newlines, 2-/3-/4-byte
characters (Latin-extended/Cyrillic, CJK, emoji) and base64/hex blobs. Prose, code, JSON
and logs differ in exactly these proportions, so their different densities come out of one
linear model evaluated with C-speed byte operations (:mod:`.textclass`).

The base rates were fitted to o200k_base counts of the real transcripts' texts plus a
multilingual/base64/hex sample; a family is that shape times its own ``scale`` (Claude's
tokenizer yields ~25% more tokens than o200k on agent traffic, fitted on the growth of the
provider-reported input tokens of real Claude Code sessions). See docs/tokens.md and
benchmarks/bench_tokens_fit.py, which reproduces the numbers.

One text shape is priced apart, per family: the line-number prefix file readers put before every line
(``"     12→"``, Claude Code's Read tool output, :data:`NUMBERED_LINE`). Claude's tokenizer takes it far
more cheaply than the class rates say (they charge ~4.4 tokens for it); the correction per prefix was
fitted on the FIT Claude Code sessions (benchmarks/bench_tokens_growth.py --fit).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

from ..errors import TokenizeError
from .counting import ANTHROPIC, GEMINI, GENERIC, OPENAI, MessageCounter, Profile
from .joined import FEATURE_MEMO_CHARS, FEATURE_MEMO_MIN_CHARS, Features, joined_features
from .memo import TextMemo
from .textclass import TextStats, stats


@dataclass(frozen=True, slots=True)
class Rates:
    """Tokens per unit of each text class (same order as :class:`TextStats`), times ``scale``."""

    chars: float = 0.064
    words: float = 0.7874
    camel: float = 0.4139
    digits: float = 0.57
    digit_runs: float = 0.4626
    punct: float = 0.4548
    json: float = 0.1846
    indent: float = 0.3432
    newlines: float = 0.6809
    tabs: float = 0.0436
    wide2: float = 0.0759
    wide3: float = 0.6354
    wide4: float = 1.3089
    b64_chars: float = 0.6822
    hex_chars: float = 0.5694
    scale: float = 1.0

    def weights(self) -> tuple[float, ...]:
        """Per-feature weights with ``scale`` applied, aligned with :class:`TextStats`."""
        return tuple(getattr(self, f.name) * self.scale for f in fields(self) if f.name != "scale")

    def tokens(self, s: TextStats) -> float:
        return sum(w * x for w, x in zip(self.weights(), s, strict=True))


O200K_SHAPE = Rates()
#: Per-family scale over the o200k-shaped rates. anthropic: fitted (bench_tokens_fit.py);
#: gemini: no public ground truth here, its 256k SentencePiece vocabulary is close to o200k on
#: English and code, +5% margin; generic (unknown models): Claude's scale, the safer side.
FAMILY_SCALE: dict[str, float] = {"openai": 1.0, "anthropic": 1.25, "gemini": 1.05, "generic": 1.25}
FAMILY_PROFILE: dict[str, Profile] = {"openai": OPENAI, "anthropic": ANTHROPIC, "gemini": GEMINI, "generic": GENERIC}

#: A line-number prefix at the start of a line: spaces, digits and "→" (U+2192), as Claude Code's Read tool
#: numbers the lines of a file it returns.
NUMBERED_LINE = re.compile(r"^ *\d+\u2192", re.MULTILINE)
#: Tokens added per :data:`NUMBERED_LINE` prefix on top of the class rates, per family. anthropic: the
#: median, over the FIT sessions' steps whose new content is mostly Read output, of (reported − estimated
#: growth) / prefixes: −1.60 (13 steps; bench_tokens_growth.py --fit prints them). Other families: no ground
#: truth here (o200k counts the prefix at ~4.3 tokens, close to the rates, and is counted exactly anyway).
NUMBERED_LINE_TOKENS: dict[str, float] = {"anthropic": -1.77}


_NUMBERED_FIRST = re.compile(r" *\d+\u2192")
_NUMBERED_AFTER = re.compile(r"\n *\d+\u2192")


def numbered_lines(text: str) -> int:
    """``len(NUMBERED_LINE.findall(text))``: a prefix at the start, then one after each newline
    (``^`` of a multi-line pattern; a prefix holds no newline, so the matches are the same). The
    leading newline lets the scan jump from newline to newline instead of trying every position."""
    return (1 if _NUMBERED_FIRST.match(text) else 0) + len(_NUMBERED_AFTER.findall(text))


class Estimator(MessageCounter):
    """Fast heuristic counter (pure Python, ~tens of MB/s, bounded memory on any size)."""

    exact = False

    def __init__(
        self, family: str = "generic", *, rates: Rates | None = None, profile: Profile | None = None, numbered_line: float | None = None
    ) -> None:
        if family not in FAMILY_PROFILE:
            raise TokenizeError(f"unknown estimator family {family!r} (known: {', '.join(FAMILY_PROFILE)})")
        super().__init__(profile or FAMILY_PROFILE[family])
        self.family = family
        self.rates = rates or Rates(scale=FAMILY_SCALE[family])
        self._w = self.rates.weights()
        #: tokens added per line-number prefix (:data:`NUMBERED_LINE_TOKENS`; ``numbered_line`` overrides)
        self.numbered_line = NUMBERED_LINE_TOKENS.get(family, 0.0) if numbered_line is None else numbered_line
        self.name = f"estimate:{family}"
        self._features: TextMemo[Features] = TextMemo(self._lock, FEATURE_MEMO_MIN_CHARS, FEATURE_MEMO_CHARS)

    def count_text(self, text: str) -> int:
        if not isinstance(text, str):
            raise TokenizeError(f"can only count str, got {type(text).__name__}")
        if not text:
            return 0
        return self._finish(*self.features(text))

    def features(self, text: str) -> tuple[TextStats, int]:
        """What a count is made of: the text's class counts and its line-number prefixes (0 when
        this family prices none). Remembered for long texts (:mod:`.joined`: a text made of pieces
        is counted from its pieces' features, the same answer)."""
        return self._features.get(text) or self._features.put(text, (stats(text), self._numbered(text)))

    def _numbered(self, text: str) -> int:
        return numbered_lines(text) if self.numbered_line and "\u2192" in text else 0

    def _finish(self, s: TextStats, numbered: int) -> int:
        w = self._w
        est = sum(w[i] * s[i] for i in range(len(w)))
        if numbered:
            est += self.numbered_line * numbered
        return max(1, round(est))

    def count_joined(self, text: str, pieces: Sequence[str]) -> int:
        """``count_text_memo(text)`` where ``text == "".join(pieces)``: added up from the pieces'
        features when every joint lies at a newline (:func:`.joined.additive`), else counted whole.
        The same answer either way; remembered under ``text``."""
        n = self._texts.get(text)
        if n is not None:
            return n
        got = joined_features(text, pieces, self.features)
        if got is None:
            return self.count_text_memo(text)
        n = self._finish(*got)
        self._features.put(text, got)
        self.remember(text, n)
        return n

    def forget_memos(self) -> None:
        super().forget_memos()
        self._features.clear()

    def with_scale(self, factor: float) -> Estimator:
        """A copy whose rates are multiplied by ``factor`` (e.g. a calibration result)."""
        r = self.rates
        rates = Rates(**{f.name: getattr(r, f.name) for f in fields(r) if f.name != "scale"}, scale=r.scale * factor)
        return Estimator(self.family, rates=rates, profile=self.profile, numbered_line=self.numbered_line * factor)
