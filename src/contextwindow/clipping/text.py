"""Plain clippers: head+tail by lines, numbered file reads, and head+tail by characters."""

from __future__ import annotations

import itertools
import re

from .measure import Count, count_lines, safe_count
from .select import Body, head_tail_order, plain_gap, select_lines

# "   12→text" (Claude Code Read), "    12\ttext" (cat -n), "12:text" / "12|text" (viewers)
NUMBERED_RE = re.compile(r"^\s*(\d{1,9})(?:→|\t|: |:|\| ?)")


def clip_text(text: str, budget: int, count: Count) -> Body:
    """Head and tail by lines (about 60/40); over-long lines become head…tail themselves."""
    if text.count("\n", 0, 1_000_000) < 3:
        return clip_chars(text, budget, count)
    lines = text.split("\n")
    return select_lines(lines, head_tail_order(len(lines)), budget, count)


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


def clip_numbered(text: str, budget: int, count: Count) -> Body:
    """A file read with line numbers: numbered head and tail, and the gap says which lines to
    read next (offset/limit) so a narrower read can target them."""
    lines = text.split("\n")
    numbers: list[int | None] = []
    for ln in lines:
        m = NUMBERED_RE.match(ln)
        numbers.append(int(m.group(1)) if m else None)

    def gap(start: int, end: int) -> str:
        first = next((numbers[i] for i in range(start, end) if numbers[i] is not None), None)
        last = next((numbers[i] for i in range(end - 1, start - 1, -1) if numbers[i] is not None), None)
        if first is None or last is None:
            return plain_gap(start, end)
        n = last - first + 1
        return f"… [lines {first}–{last} omitted ({n:,} lines): re-read with offset={first} limit={n}] …"

    return select_lines(lines, head_tail_order(len(lines), tail_weight=2.0), budget, count, gap)


def clip_chars(text: str, budget: int, count: Count, *, label: str = "") -> Body:
    """Head and tail by characters, for giant single lines and previews of huge outputs.
    Touches only the two ends of ``text`` (bounded time and memory whatever its size)."""
    total = len(text)
    if total == 0:
        return Body("", 0)
    chars = max(64, budget * 3)
    for _ in range(8):
        head = text[: chars * 3 // 5]
        tail = text[max(len(head), total - chars * 2 // 5) :]
        omitted = total - len(head) - len(tail)
        middle = f"\n… [{omitted:,} chars{label} omitted] …\n" if omitted > 0 else ""
        body = head + middle + tail
        used = safe_count(count, body)
        if used <= budget:
            break
        chars = max(16, int(chars * budget / used * 0.9))
    else:
        body = text[: max(16, budget)] + f"\n… [{total - max(16, budget):,} chars omitted] …"
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
