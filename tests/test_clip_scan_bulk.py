"""The line clipper's scan takes whole chunks at once where the line-by-line loops would take every
line anyway (head and tail lines, over-long lines, the ranking keys): the same scan, line for line.
The references below are the loops it replaced."""

from __future__ import annotations

import random
from collections import deque

import pytest

from contextwindow.clipping import text as T
from contextwindow.clipping.outline import IMPORT
from contextwindow.clipping.source import MAX_LINE_CHARS, _capped, line_chunks, long_line


def _reference_capped(lines: list[str], max_line: int) -> list[str]:
    out = list(lines)
    for i, ln in enumerate(out):
        if len(ln) > max_line:
            out[i] = long_line(ln, 0, len(ln), max_line)
    return out


def _reference_head_tail(text: str, cap: int) -> tuple[list[str], list[tuple[int, str]], int]:
    head: list[str] = []
    tail: deque[tuple[int, str]] = deque()
    head_chars = tail_chars = 0
    for first, lines in line_chunks(text):
        for ln in lines:
            if head_chars >= cap:
                break
            head.append(ln)
            head_chars += len(ln) + 1
        take = lines[-2000:]
        base = first + len(lines) - len(take)
        for q, ln in enumerate(take):
            tail.append((base + q, ln))
            tail_chars += len(ln) + 1
        while tail_chars > cap and len(tail) > 1:
            tail_chars -= len(tail.popleft()[1]) + 1
    return head, list(tail), tail_chars


def _texts() -> list[str]:
    rng = random.Random(1313)
    words = ["def f(x):", "import os", "    return x", "class A:", "", "x = 1", "  # note", "   12→code", "7\tline"]
    out = []
    for _ in range(30):
        n = rng.randint(1, 300)
        out.append("\n".join(rng.choice(words) if rng.random() < 0.8 else "y" * rng.randint(0, 20_000) for _ in range(n)))
    # past one chunk (line_chunks cuts ~1M characters at a time), with lines over the per-line cap
    out.append("\n".join(f"{i:6}→" + ("z" * (30_000 if i % 97 == 0 else 60)) for i in range(40_000)))
    return out


def _first_line_over_a_chunk() -> str:
    """A first line longer than line_chunks' chunk, so a head cap over its capped length is reached in chunk 2."""
    return "q" * 1_100_000 + "\n" + "\n".join(f"{i:6}→" + "z" * (60 + i % 50) for i in range(5_000))


@pytest.mark.parametrize("cap", [64, 5_000, 200_000])
def test_head_and_tail_are_the_loops(cap: int) -> None:
    for text in [*_texts(), _first_line_over_a_chunk()]:
        sc = T._Scan(text, cap, numbered=False)
        head, tail, tail_chars = _reference_head_tail(text, cap)
        assert sc.head == head
        assert list(sc.tail) == tail
        assert sc.tail_chars == tail_chars


def test_capped_is_the_loop() -> None:
    for text in [*_texts(), _first_line_over_a_chunk()]:
        lines = text.split("\n")
        assert _capped(list(lines), MAX_LINE_CHARS) == _reference_capped(lines, MAX_LINE_CHARS)
        assert _capped(list(lines), 50) == _reference_capped(lines, 50)


def _reference_key(lines: T._Lines, tw: float, e: int) -> tuple[float, ...]:
    sc, n, i = lines.sc, lines.n, lines.index[e]
    hit = sc.outline.get(i) if lines.source else None
    if hit is not None:
        return (0.0, float(hit[0] == IMPORT), float(sc.indent[i]), float(i))
    return (1.0, min(float(i), (n - 1 - i) * tw))


@pytest.mark.parametrize("numbered", [False, True])
def test_ranking_is_the_keys_order(numbered: bool) -> None:
    for text in _texts()[:-1]:
        lines = T._Lines(text, 200_000, numbered)
        tw = 2.0 if numbered else 1.5
        assert lines.order == sorted(range(len(lines.index)), key=lambda e, lines=lines: _reference_key(lines, tw, e))


@pytest.mark.parametrize("before_last", [99, 100, 101])
def test_head_stops_where_the_loop_stops(before_last: int) -> None:
    """The line after the head reached its cap is not taken; one before it is."""
    cap = 100
    lines = ["a" * 9] * (before_last // 10) + ["b" * (before_last % 10 - 1)] * (before_last % 10 > 0) + ["last line"]
    text = "\n".join(lines)
    sc = T._Scan(text, cap, numbered=False)
    assert sc.head == _reference_head_tail(text, cap)[0]
    assert ("last line" in sc.head) == (sum(len(x) + 1 for x in lines[:-1]) < cap)
