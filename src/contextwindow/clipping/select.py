"""The line-selection engine shared by the line-based clippers.

A clipper ranks the lines of a text (``order``: most important first); the engine keeps the
longest prefix of that ranking that fits the budget, renders the kept lines in their original
order and lets the clipper describe each omitted run (``gap``). Cost is measured with the real
counter on the rendered output (a handful of counts of budget-sized text), never on the input.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, TypeVar

from .measure import Count, safe_count

Gap = Callable[[int, int], str | None]
#: A clipper's scans of ONE text, by what was scanned (kind and the caps that shaped it): made by
#: :func:`scanned`, kept by the router for the duration of one clip, whose re-runs at other budgets
#: find them (a scan of the whole text costs more than selecting lines from it).
Scans = dict[Hashable, Any]
_T = TypeVar("_T")


def scanned(scans: Scans | None, key: Hashable, make: Callable[[], _T]) -> _T:
    """``make()``, or what it gave for ``key`` earlier in this clip (``scans`` None: always made).
    What ``make`` returns must depend only on the text and ``key`` and is never changed after."""
    if scans is None:
        return make()
    hit = scans.get(key)
    if hit is None:
        hit = scans[key] = make()
    return hit


@dataclass(frozen=True, slots=True)
class Body:
    """A clipped body before its marker. ``kept_lines``: original lines kept whole."""

    text: str
    kept_lines: int
    notes: tuple[str, ...] = ()
    tokens: int = -1  # counted tokens of ``text`` when known, else -1
    #: what kind of things were dropped, for the marker ("412 matches in 30 files, 3 warning lines")
    detail: str = ""
    #: positions (in the clipped text's own numbering) of the lines kept, when a selection made it
    kept: tuple[int, ...] = ()


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


def fit_prefix(costs: Sequence[float], render: Callable[[int], str], budget: int, count: Count) -> tuple[int, str, int]:
    """The largest ``k`` such that ``render(k)`` fits ``budget`` tokens (``render`` grows with k).

    ``costs`` are estimated tokens of each item in rank order; real counts of rendered output
    correct the estimate (usually 2-4 counts of budget-sized text, never one of the whole
    input). Stops early once a fitting render uses ≥ 97% of the budget. Returns (k, text, tokens).
    """
    prefix = list(accumulate(costs, initial=0.0))
    total_items = len(costs)

    def guess(scale: float) -> int:
        return max(0, bisect_right(prefix, budget / scale) - 1)

    best: tuple[int, str, int] | None = None
    lo, hi = 0, total_items + 1  # render(lo) fits (or lo == 0), render(hi) does not
    scale = 1.0
    for _ in range(6):
        k = min(max(guess(scale), lo + 1), hi - 1)
        if k <= lo:
            break
        text = render(k)
        used = safe_count(count, text)
        if used <= budget:
            lo = k
            best = (k, text, used)
            if used >= budget * 0.97:
                return best
        else:
            hi = k
        est = prefix[k] if prefix[k] > 0 else 1.0
        scale = max(0.05, used / est)
    while hi - lo > max(1, lo // 64):
        mid = (lo + hi) // 2
        text = render(mid)
        used = safe_count(count, text)
        if used <= budget:
            lo = mid
            best = (mid, text, used)
        else:
            hi = mid
    if best is None or best[0] != lo:
        text = render(lo)
        best = (lo, text, safe_count(count, text))
    return best


def select_lines(
    lines: Sequence[str],
    order: Sequence[int],
    budget: int,
    count: Count,
    gap: Gap = plain_gap,
    *,
    footer: str | Callable[[set[int]], str] = "",
    header: str = "",
    ratio: float | None = None,
    max_line_chars: int | None = None,
    index: Sequence[int] | None = None,
    total: int | None = None,
) -> Body:
    """Keep as many lines, in ``order`` of importance, as fit ``budget`` tokens once rendered.

    ``lines`` may be a sparse selection of a longer text: ``index[i]`` is line i's position in
    it and ``total`` its number of lines; ``gap(start, end)`` then names positions of the text.
    ``footer`` may be a function of the kept entries (to count what was dropped)."""
    ratio = ratio or token_ratio(count, lines)
    max_chars = max(120, int(budget / ratio / 6))
    if max_line_chars is not None:
        max_chars = min(max_chars, max_line_chars)
    body = _select(lines, order, budget, count, gap, footer, header, ratio, max_chars, index, total)
    # Long lines were cut to a sixth of the budget each; when that leaves the budget underused
    # (few, long lines), let them be longer.
    while (max_line_chars is None and body.tokens < budget * 0.9 and body.notes
           and max_chars < budget / ratio):
        max_chars *= 3
        wider = _select(lines, order, budget, count, gap, footer, header, ratio, max_chars, index, total)
        if wider.tokens <= body.tokens:
            break
        body = wider
    return body


def _select(
    lines: Sequence[str],
    order: Sequence[int],
    budget: int,
    count: Count,
    gap: Gap,
    footer: str | Callable[[set[int]], str],
    header: str,
    ratio: float,
    max_chars: int,
    index: Sequence[int] | None,
    total: int | None,
) -> Body:
    n = len(lines)
    pos: Sequence[int] = index if index is not None else range(n)
    size = total if total is not None else n
    display = [shorten(line, max_chars) for line in lines]

    def render(k: int) -> str:
        chosen = sorted(order[:k])
        out: list[str] = [header] if header else []
        prev = 0
        for i in chosen:
            at = pos[i]
            if at > prev:
                g = gap(prev, at)
                if g:
                    out.append(g)
            out.append(display[i])
            prev = at + 1
        if prev < size:
            g = gap(prev, size)
            if g:
                out.append(g)
        foot = footer(set(chosen)) if callable(footer) else footer
        if foot:
            out.append(foot)
        return "\n".join(out)

    k, text, used = fit_prefix([(len(display[i]) + 1) * ratio for i in order], render, budget, count)
    kept = order[:k]
    whole = sum(1 for i in kept if display[i] is lines[i])
    notes: tuple[str, ...] = ()
    if whole < len(kept):
        notes = (f"{len(kept) - whole} over-long line(s) shortened to head…tail",)
    return Body(text, whole, notes, used, kept=tuple(sorted(pos[i] for i in kept)))


def head_tail_order(n: int, tail_weight: float = 1.5) -> list[int]:
    """Indices ranked so that the head and the tail are kept, ~60% head and ~40% tail."""
    return sorted(range(n), key=lambda i: min(float(i), (n - 1 - i) * tail_weight))
