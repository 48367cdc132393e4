"""Image token cost by each provider's published formula, from width × height.

- Anthropic: scale to fit a 1568 px long edge and about 1.19 megapixels (1092²), then w·h/750 (at most ≈ 1,590).
- OpenAI (gpt-4o family, ``detail`` high/auto): fit inside 2048×2048, then scale so the short
  side is at most 768, count 512-px tiles: 85 + 170·tiles. ``detail="low"``: 85.
- Gemini (2.x): 258 when both sides ≤ 384 px, else 258 per 768×768 tile.

When the size is unknown a flat per-provider fallback is used (documented constants).
"""

from __future__ import annotations

import math
from typing import Literal

ImageFlavor = Literal["anthropic", "openai", "gemini"]

#: Tokens charged for an image whose size we do not know (a typical ~1000×1000 screenshot).
FALLBACK: dict[str, int] = {"anthropic": 1600, "openai": 765, "gemini": 258}

ANTHROPIC_MAX_EDGE = 1568
ANTHROPIC_MAX_PIXELS = 1_192_464  # 1092 × 1092: the largest square Anthropic sends unresized (≈ 1,590 tokens)


def anthropic_image_tokens(width: int, height: int) -> int:
    w, h = float(width), float(height)
    scale = min(1.0, ANTHROPIC_MAX_EDGE / max(w, h), math.sqrt(ANTHROPIC_MAX_PIXELS / (w * h)))
    return max(1, math.ceil((w * scale) * (h * scale) / 750))


def openai_image_tokens(width: int, height: int, detail: str | None = None) -> int:
    if detail == "low":
        return 85
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return 85 + 170 * tiles


def gemini_image_tokens(width: int, height: int) -> int:
    if width <= 384 and height <= 384:
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


def image_tokens(flavor: str, width: int | None, height: int | None, detail: str | None = None) -> int:
    """Tokens of one image for ``flavor`` (anthropic, openai, gemini; anything else is
    costed like Anthropic, the most expensive of the three for common sizes)."""
    if not width or not height or width <= 0 or height <= 0:
        if flavor == "openai" and detail == "low":
            return 85
        return FALLBACK.get(flavor, FALLBACK["anthropic"])
    if flavor == "openai":
        return openai_image_tokens(width, height, detail)
    if flavor == "gemini":
        return gemini_image_tokens(width, height)
    return anthropic_image_tokens(width, height)
