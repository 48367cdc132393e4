"""Plain clippers: head+tail by lines, numbered file reads, and head+tail by characters."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections import deque

from .measure import Count, count_lines, safe_count
from .outline import DEF, IMPORT, indent_of, outline
from .select import Body, Scans, head_tail_order, plain_gap, scanned, select_lines
from .source import line_chunks

# "   12→text" (Claude Code Read), "    12\ttext" (cat -n), "12:text" / "12|text" (viewers)
NUMBERED_RE = re.compile(r"^\s*(\d{1,9})(?:→|\t|: |:|\| ?)")


def clip_text(text: str, budget: int, count: Count, *, scans: Scans | None = None) -> Body:
    """Head and tail by lines (about 60/40); source code keeps its outline first (imports,
    class/def/function signatures with their line numbers). Over-long lines become head…tail."""
    if text.count("\n", 0, 1_000_000) < 3:
        return clip_chars(text, budget, count)
    return _clip_lines(text, budget, count, numbered=False, scans=scans)


def is_numbered(lines: list[str]) -> bool:
    """True when most of the first lines carry increasing line numbers."""
    sample = [ln for ln in lines[:60] if ln.strip()]
    if len(sample) < 3:
        return False
    nums = [m.group(1) for m in (NUMBERED_RE.match(ln) for ln in sample) if m]
    if len(nums) < 0.8 * len(sample):
        return False
    values = [int(x) for x in nums]
    increasing = sum(1 for a, b in itertools.pairwise(values) if b > a)
    return increasing >= 0.8 * (len(values) - 1)


def clip_numbered(text: str, budget: int, count: Count, *, scans: Scans | None = None) -> Body:
    """A file read with line numbers: the outline of source code first, then numbered head and
    tail; the gap says which lines to read next (offset/limit) so a narrower read can target them."""
    return _clip_lines(text, budget, count, numbered=True, scans=scans)


#: A text with at least this many outline lines is read as source code.
MIN_OUTLINE = 2


class _Scan:
    """Head, tail and outline lines of a text, in one streaming pass with bounded memory."""

    def __init__(self, text: str, cap_chars: int, numbered: bool) -> None:
        self.head: list[str] = []
        self.tail: deque[tuple[int, str]] = deque()
        self.tail_chars = 0
        self.outline: dict[int, tuple[int, str]] = {}  # position -> (DEF | IMPORT, line)
        self.indent: dict[int, int] = {}  # position -> indentation of the code (numbers stripped)
        self.outline_chars = 0
        self.outline_dropped = 0
        self.numbers: dict[int, int] = {}
        self.total = 0
        head_chars = 0
        for first, lines in line_chunks(text):
            code = [NUMBERED_RE.sub("", ln, count=1) for ln in lines] if numbered else lines
            for k, kind in sorted(outline(code).items()):
                if self.outline_chars < cap_chars:
                    self.outline[first + k] = (kind, lines[k])
                    self.indent[first + k] = indent_of(code[k])
                    self.outline_chars += len(lines[k]) + 1
                else:
                    self.outline_dropped += 1
            if head_chars < cap_chars:
                chars = sum(map(len, lines)) + len(lines)
                if head_chars + chars - len(lines[-1]) - 1 < cap_chars:  # every line goes in (the loop's answer)
                    self.head.extend(lines)
                    head_chars += chars
                else:
                    for ln in lines:
                        if head_chars >= cap_chars:
                            break
                        self.head.append(ln)
                        head_chars += len(ln) + 1
            take = lines[-2000:]
            base = first + len(lines) - len(take)
            self.tail.extend(zip(range(base, base + len(take)), take, strict=True))
            self.tail_chars += sum(map(len, take)) + len(take)
            while self.tail_chars > cap_chars and len(self.tail) > 1:
                self.tail_chars -= len(self.tail.popleft()[1]) + 1
            self.total = first + len(lines)


def _clip_lines(text: str, budget: int, count: Count, *, numbered: bool, scans: Scans | None = None) -> Body:
    cap = max(200_000, budget * 48)
    lines = scanned(scans, ("lines", cap, numbered), lambda: _Lines(text, cap, numbered))
    body = select_lines(lines.shown, lines.order, budget, count, lines.gap, index=lines.index, total=lines.n)
    if not lines.source:
        return Body(body.text, body.kept_lines, body.notes, body.tokens, kept=body.kept)
    kept = set(body.kept)
    d_total = len(lines.defs) + lines.sc.outline_dropped
    d_kept = sum(1 for i in lines.defs if i in kept)
    detail = (f"kept {d_kept:,} of {d_total:,} definition lines (the outline first); … marks omitted lines,"
              " re-read with offset/limit")
    return Body(body.text, body.kept_lines, (*body.notes, "source outline kept first"), body.tokens, detail, body.kept)


class _Lines:
    """What the line clipper makes of a text before any budget applies: the scan, the lines it may
    keep ranked, their gaps. The same for every budget of one text (a clip re-run at another budget
    reuses it, see :func:`.select.scanned`); read-only once made."""

    def __init__(self, text: str, cap: int, numbered: bool) -> None:
        sc = self.sc = _Scan(text, cap, numbered)
        n = self.n = sc.total
        lines: dict[int, str] = dict(enumerate(sc.head))
        lines.update(sc.tail)
        source = self.source = len(sc.outline) >= MIN_OUTLINE
        if source:
            lines.update((i, ln) for i, (_, ln) in sc.outline.items())
        index = self.index = sorted(lines)
        tw = 2.0 if numbered else 1.5

        def key(i: int) -> tuple[float, ...]:
            hit = sc.outline.get(i) if source else None
            if hit is not None:
                # definitions before imports, outer before inner, then in file order
                return (0.0, float(hit[0] == IMPORT), float(sc.indent[i]), float(i))
            return (1.0, min(float(i), (n - 1 - i) * tw))

        keys = [key(i) for i in index] if source else [(1.0, min(float(i), (n - 1 - i) * tw)) for i in index]
        self.order = sorted(range(len(index)), key=keys.__getitem__)
        defs = self.defs = sorted(i for i, (k, _) in sc.outline.items() if k == DEF) if source else []

        def defs_in(start: int, end: int) -> int:
            return bisect_left(defs, end) - bisect_left(defs, start)

        numbers: dict[int, int] = {}
        if numbered:
            for i in index:
                m = NUMBERED_RE.match(lines[i])
                if m:
                    numbers[i] = int(m.group(1))

        def gap(start: int, end: int) -> str:
            if source:  # the kept lines carry their numbers: a short gap keeps room for the outline
                d = defs_in(start, end)
                return f"… [{d:,} more definition{'s' if d != 1 else ''}]" if d else "…"
            if numbered:
                a = next((numbers[i] for i in range(start - 1, max(-1, start - 4), -1) if i in numbers), None)
                b = next((numbers[i] for i in range(end, min(n, end + 3)) if i in numbers), None)
                if a is not None and b is not None and b > a + 1:
                    k = b - a - 1
                    return f"… [lines {a + 1}–{b - 1} omitted ({k:,} lines): re-read with offset={a + 1} limit={k}] …"
            return plain_gap(start, end)

        self.gap = gap
        shown = [lines[i] for i in index]
        if source and not numbered:  # line numbers for the outline's signatures
            shown = [f"{i + 1}: {ln}" for i, ln in zip(index, shown, strict=True)]
        self.shown = shown


def clip_chars(text: str, budget: int, count: Count, *, label: str = "") -> Body:
    """Head and tail by characters, for giant single lines and previews of huge outputs.
    Touches only the two ends of ``text`` (bounded time and memory whatever its size). When even
    one character per end costs more than ``budget`` (a tiny budget, characters of many tokens
    each), what is left is the note alone, saying how many characters it stands for."""
    total = len(text)
    if total == 0:
        return Body("", 0)

    def render(chars: int) -> tuple[str, int, str, str]:
        head = text[: chars * 3 // 5]
        tail_len = chars * 2 // 5
        tail = text[max(len(head), total - tail_len) :] if tail_len else ""
        omitted = total - len(head) - len(tail)
        middle = f"\n… [{omitted:,} chars{label} omitted] …\n" if omitted > 0 else ""
        return head + middle + tail, omitted, head, tail

    chars = max(64, budget * 3)
    body, omitted, head, tail = render(chars)
    used = safe_count(count, body)
    for _ in range(8):
        if used <= budget:
            break
        chars = min(max(0, int(chars * budget / used * 0.9)), total - 1)
        body, omitted, head, tail = render(chars)
        used = safe_count(count, body)
    if used > budget:  # characters of many tokens each: the largest cut that fits, by bisection
        lo, hi = 0, max(0, min(chars, total - 1))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if safe_count(count, render(mid)[0]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        body, omitted, head, tail = render(lo)
    kept = count_lines(head) - 1 + count_lines(tail) - 1 if omitted > 0 else count_lines(text)
    return Body(body, max(0, kept))


def clip_preview(text: str, budget: int, count: Count) -> Body:
    """A short preview of an output of any size: head+tail lines from the two ends only."""
    edge = max(256, budget * 8)
    if len(text) <= 2 * edge:
        return clip_text(text, budget, count)
    head_part = text[:edge]
    tail_part = text[-edge:]
    if "\n" not in head_part and "\n" not in tail_part:
        return clip_chars(text, budget, count)
    head_lines = head_part.split("\n")[:-1] or [head_part]
    tail_lines = tail_part.split("\n")[1:] or [tail_part]
    omitted_chars = len(text) - sum(len(x) + 1 for x in head_lines) - sum(len(x) + 1 for x in tail_lines)
    omitted_lines = text.count("\n", len(head_part), len(text) - len(tail_part))
    mid = len(head_lines)
    lines = [*head_lines, f"… [~{max(0, omitted_chars):,} chars, ~{omitted_lines:,} lines omitted] …", *tail_lines]
    order = [mid] + [i for i in head_tail_order(len(lines)) if i != mid]
    body = select_lines(lines, order, budget, count)
    return Body(merge_gap_notes(body.text), max(0, body.kept_lines - 1), body.notes)


_GAP = re.compile(r"^… \[(?:~?[\d,]+ chars, )?(~?)([\d,]+) lines? omitted\] …$")


def merge_gap_notes(text: str) -> str:
    """Adjacent gap notes (the preview's own and the ones line selection adds around it) become one."""
    out: list[str] = []
    run: list[tuple[bool, int]] = []

    def flush() -> None:
        if run:
            approx = any(a for a, _ in run) or len(run) > 1
            n = sum(k for _, k in run)
            out.append(f"… [{'~' if approx else ''}{n:,} line{'s' if n != 1 else ''} omitted] …")
            run.clear()

    for line in text.split("\n"):
        m = _GAP.match(line)
        if m:
            run.append((bool(m.group(1)), int(m.group(2).replace(",", ""))))
            continue
        flush()
        out.append(line)
    flush()
    return "\n".join(out)
