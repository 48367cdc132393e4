"""The line-selection engine shared by the line-based clippers.

A clipper ranks the lines of a text (``order``: most important first); the engine keeps the
longest prefix of that ranking that fits the budget, renders the kept lines in their original
order and lets the clipper describe each omitted run (``gap``). Cost is measured with the real
counter on the rendered output (a handful of counts of budget-sized text), never on the input.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from .measure import Count, safe_count

Gap = Callable[[int, int], str | None]


@dataclass(frozen=True, slots=True)
class Body:
    """A clipped body before its marker. ``kept_lines``: original lines kept whole."""

    text: str
    kept_lines: int
    notes: tuple[str, ...] = ()
    tokens: int = -1  # counted tokens of ``text`` when known, else -1


def plain_gap(start: int, end: int) -> str:
    n = end - start
    return f"… [{n:,} line{'s' if n != 1 else ''} omitted] …"


def shorten(text: str, max_chars: int) -> str:
    """Head…tail of one over-long string, saying how many characters were cut."""
    if len(text) <= max_chars:
        return text
    keep = max(8, max_chars - 24)
    head = keep * 2 // 3
    tail = keep - head
    return f"{text[:head]} …[{len(text) - head - tail:,} chars]… {text[len(text) - tail :]}"


def token_ratio(count: Count, lines: Sequence[str]) -> float:
    """Tokens per character, from a sample of the lines (for first guesses only)."""
    sample: list[str] = []
    size = 0
    step = max(1, len(lines) // 64)
    for i in range(0, len(lines), step):
        sample.append(lines[i][:2000])
        size += len(sample[-1]) + 1
        if size > 16_000:
            break
    text = "\n".join(sample)
    if not text:
        return 0.3
    return max(0.05, safe_count(count, text) / len(text))


def select_lines(
    lines: Sequence[str],
    order: Sequence[int],
    budget: int,
    count: Count,
    gap: Gap = plain_gap,
    *,
    footer: str = "",
    ratio: float | None = None,
    max_line_chars: int | None = None,
) -> Body:
    """Keep as many lines, in ``order`` of importance, as fit ``budget`` tokens once rendered."""
    n = len(lines)
    ratio = ratio or token_ratio(count, lines)
    max_chars = max(120, int(budget / ratio / 6))
    if max_line_chars is not None:
        max_chars = min(max_chars, max_line_chars)
    display = [shorten(line, max_chars) for line in lines]

    def render(k: int) -> str:
        chosen = sorted(order[:k])
        out: list[str] = []
        prev = 0
        for i in chosen:
            if i > prev:
                g = gap(prev, i)
                if g:
                    out.append(g)
            out.append(display[i])
            prev = i + 1
        if prev < n:
            g = gap(prev, n)
            if g:
                out.append(g)
        if footer:
            out.append(footer)
        return "\n".join(out)

    def fits(k: int) -> bool:
        return safe_count(count, render(k)) <= budget

    # Estimated cost of each prefix of the ranking, corrected by real counts of rendered output:
    # usually 2-4 counts of budget-sized text, never a count of the whole input.
    prefix = list(accumulate(((len(display[i]) + 1) * ratio for i in order), initial=0.0))

    def guess(scale: float) -> int:
        return max(0, bisect_right(prefix, budget / scale) - 1)

    lo, hi = 0, len(order) + 1  # render(lo) fits (or lo == 0), render(hi) does not
    scale = 1.0
    close = False
    for _ in range(6):
        k = min(max(guess(scale), lo + 1), hi - 1)
        if k <= lo:
            break
        used = safe_count(count, render(k))
        if used <= budget:
            lo = k
            if used >= budget * 0.96:
                close = True
                break
        else:
            hi = k
        est = prefix[k] if prefix[k] > 0 else 1.0
        scale = max(0.05, used / est)
    while not close and hi - lo > max(1, lo // 32):
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    kept = sorted(order[:lo])
    whole = sum(1 for i in kept if display[i] is lines[i])
    notes: tuple[str, ...] = ()
    if whole < len(kept):
        notes = (f"{len(kept) - whole} over-long line(s) shortened to head…tail",)
    return Body(render(lo), whole, notes)


def head_tail_order(n: int, tail_weight: float = 1.5) -> list[int]:
    """Indices ranked so that the head and the tail are kept, ~60% head and ~40% tail."""
    return sorted(range(n), key=lambda i: min(float(i), (n - 1 - i) * tail_weight))
