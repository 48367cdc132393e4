"""``retrieve``: read a slice of an offloaded original back, bounded by a token budget.

Its output starts with ``[contextwindow retrieve `` and comes from the tool named ``retrieve``;
:func:`~contextwindow.clipping.clip` leaves such output alone, so a retrieve is never clipped
into a loop. Refs are checked for shape before any lookup; the sink reads only its own table.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..errors import InputError, NotFoundError
from .marker import RETRIEVE_HEADER
from .measure import Count, count_lines, default_count, safe_count
from .model import OffloadSink
from .safegrep import compile_grep

REF_RE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_\-]{0,127}\Z")
DEFAULT_LIMIT = 200
_MATCH_WINDOW = 240


def check_ref(ref: object) -> str:
    """``ref`` if it has the shape of an offload ref (letters, digits, ``_``, ``-``), else NotFoundError."""
    if not isinstance(ref, str) or not REF_RE.match(ref):
        shown = ref if not isinstance(ref, str) else ref[:80]
        raise NotFoundError(
            f"unknown offload ref {shown!r}: refs are short ids such as ofl_0123456789abcdef, as printed "
            "in a clip marker; nothing was read"
        )
    return ref


def _line_spans(text: str, start_line: int = 0) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of each line from ``start_line`` on, without copying ``text``."""
    pos = 0
    n = 0
    size = len(text)
    while n < start_line:
        j = text.find("\n", pos)
        if j < 0:
            return
        pos = j + 1
        n += 1
    while pos < size or (pos == size and n == 0 and size == 0):
        j = text.find("\n", pos)
        end = size if j < 0 else j
        yield n, pos, end
        if j < 0:
            return
        pos = j + 1
        n += 1


def _cut(text: str, start: int, end: int, max_chars: int, focus: tuple[int, int] | None = None) -> str:
    """``text[start:end]``, or a window of it around ``focus`` when the line is too long."""
    if end - start <= max_chars:
        return text[start:end]
    if focus is None:
        return f"{text[start:start + max_chars]} …[+{end - start - max_chars:,} chars of this line]"
    a = max(start, focus[0] - _MATCH_WINDOW)
    b = min(end, max(focus[1], a) + _MATCH_WINDOW)
    pre = f"…[{a - start:,} chars]… " if a > start else ""
    post = f" …[{end - b:,} chars]…" if b < end else ""
    return f"{pre}{text[a:b]}{post}"


def retrieve(
    sink: OffloadSink,
    ref: str,
    offset: int = 0,
    limit: int | None = None,
    grep: str | None = None,
    budget_tokens: int = 4000,
    *,
    count: Count | None = None,
    column: int = 0,
) -> str:
    """Lines ``offset`` (0-based) onwards of the original under ``ref`` — at most ``limit`` lines,
    only those matching the regex ``grep`` when given — and never more than ``budget_tokens``.
    The output names the lines it returned and how to ask for the next ones. A line too long
    for one window is cut and the footer continues it at a ``column`` (a character position in
    the line at ``offset``), so following the footers reads the whole original, no gap, no overlap."""
    check_ref(ref)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InputError(f"retrieve offset must be a line number ≥ 0, got {offset!r}")
    if not isinstance(column, int) or isinstance(column, bool) or column < 0:
        raise InputError(f"retrieve column must be a character position ≥ 0, got {column!r}")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise InputError(f"retrieve limit must be a number of lines ≥ 1, got {limit!r}")
    if not isinstance(budget_tokens, int) or budget_tokens < 1:
        raise InputError(f"retrieve budget_tokens must be ≥ 1, got {budget_tokens!r}")
    pattern = None
    if grep is not None and grep != "":
        pattern = compile_grep(grep)  # bounded: nested quantifiers refused, a total time budget
    counter = count or default_count()
    record = sink.get_offload(ref)
    meta: dict[str, Any] = dict(getattr(record, "meta", None) or {})
    if meta.get("cw") == "image":
        w, h = meta.get("width") or "?", meta.get("height") or "?"
        if meta.get("pixels") and w == "?":
            w, h = meta["pixels"]
        return (
            f"{RETRIEVE_HEADER}ref={ref}: an image ({w}x{h} {meta.get('media_type') or 'image'}); "
            "it is re-attached as an image part by retrieve_content(), not as text]"
        )
    content: str = record.content
    total = count_lines(content)
    # What the header and footer can cost (the largest forms, with this ref), kept out of the room.
    frame = (
        f"{RETRIEVE_HEADER}ref={ref}: lines {total:,}–{total:,} of {total:,}, line {total:,} from character {10**9:,}]\n"
        f'[more (budget reached): retrieve(ref="{ref}", offset={total}, column={10**9}, limit={10**9})]'
    )
    if pattern is not None:
        frame += f"{grep!r} {json.dumps(grep, ensure_ascii=False)}"
    room = max(16, budget_tokens - max(90, safe_count(counter, frame) + 4))
    max_chars = max(200, room * 2)
    want = limit or DEFAULT_LIMIT
    shown: list[str] = []
    used = 0
    first = last = None
    stopped_by_budget = False

    if pattern is None:
        cont: int | None = None  # column where the last shown line was cut
        for n, a, b in _line_spans(content, offset):
            if len(shown) >= want:
                break
            start = a
            if n == offset and column:
                if column > b - a:
                    raise InputError(f"retrieve column {column} is past the end of line {n + 1} ({b - a:,} characters)")
                start = a + column
            prefix = f"{n + 1:>6}\t"
            take = min(b - start, max_chars)
            line = prefix + content[start : start + take]
            cost = safe_count(counter, line) + 1
            if used + cost > room:
                if shown:
                    stopped_by_budget = True
                    break
                take = min(take, max(40, room * 2) - len(prefix))
                while take > 40 and safe_count(counter, prefix + content[start : start + take]) + 1 > room:
                    take = take * 3 // 4
                stopped_by_budget = True
            if start + take < b:
                cont = start + take - a
                line = f"{prefix}{content[start : start + take]} …[+{b - start - take:,} chars of this line]"
            else:
                line = prefix + content[start : start + take]
            shown.append(line)
            used += cost
            first = n if first is None else first
            last = n
            if cont is not None:
                break
        nxt = (last + 1) if last is not None else offset
        header = (
            f"{RETRIEVE_HEADER}ref={ref}: lines {first + 1}–{last + 1} of {total:,}"
            + (f", line {offset + 1} from character {column:,}" if column and first == offset else "")
            + "]"
            if first is not None and last is not None
            else f"{RETRIEVE_HEADER}ref={ref}: no lines at offset {offset} (the original has {total:,} lines)]"
        )
        reason = " (budget reached)" if stopped_by_budget else ""
        if cont is not None and last is not None:
            footer = f'[more (line cut): retrieve(ref="{ref}", offset={last}, column={cont}, limit={want})]'
        elif nxt < total:
            footer = f'[more{reason}: retrieve(ref="{ref}", offset={nxt}, limit={want})]'
        else:
            footer = "[end of the original]"
        return "\n".join([header, *shown, footer])

    matches = 0
    nxt_line: int | None = None
    if offset >= max(total, 1):
        return f"{RETRIEVE_HEADER}ref={ref}: no lines at offset {offset} (the original has {total:,} lines)]"
    start = next(a for _, a, _ in _line_spans(content, offset)) if offset else 0
    line_no = offset
    last_end = start
    pos = start
    while pos <= len(content):
        m = pattern.search(content, pos)  # InputError past the time budget
        if m is None:
            break
        line_no += content.count("\n", last_end, m.start())
        a = content.rfind("\n", 0, m.start()) + 1
        b = content.find("\n", m.start())
        b = len(content) if b < 0 else b
        matches += 1
        if nxt_line is None:
            if len(shown) >= want:
                nxt_line = line_no
            else:
                line = f"{line_no + 1}:{_cut(content, a, b, max_chars, (m.start(), m.end()))}"
                cost = safe_count(counter, line) + 1
                if used + cost > room and shown:
                    nxt_line = line_no
                    stopped_by_budget = True
                else:
                    shown.append(line)
                    used += cost
        last_end = m.start()
        pos = b + 1
    if matches == 0:
        return f"{RETRIEVE_HEADER}ref={ref}: no line from {offset + 1} on matches {grep!r} ({total:,} lines searched)]"
    header = f"{RETRIEVE_HEADER}ref={ref}: {len(shown)} of {matches:,} lines matching {grep!r} from line {offset + 1}]"
    if nxt_line is None:
        footer = "[end of the matches]"
    else:
        reason = " (budget reached)" if stopped_by_budget else ""
        footer = f'[more{reason}: retrieve(ref="{ref}", offset={nxt_line}, limit={want}, grep={json.dumps(grep, ensure_ascii=False)})]'
    return "\n".join([header, *shown, footer])
