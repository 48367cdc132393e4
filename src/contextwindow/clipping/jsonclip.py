"""JSON: keep the shape (every key at every level), shorten long arrays to their first items
plus "… N more" (naming keys only the dropped items had), long strings to head…tail."""

from __future__ import annotations

import json
from typing import Any

from .measure import Count, safe_count
from .select import Body

MAX_DEPTH = 64
# (items kept per array, characters kept per string), loosest first.
LEVELS: tuple[tuple[int, int], ...] = (
    (50, 2000), (20, 600), (10, 240), (5, 120), (3, 80), (2, 48), (1, 32), (1, 12),
)


EXTRA_KEYS = "keys only they have: "


class JSONClipError(ValueError):
    """The text is not JSON the clipper can reduce (the router falls back to text)."""


def _key_names(value: Any, out: set[str], depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            _key_names(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _key_names(v, out, depth + 1)


def key_names(value: Any) -> set[str]:
    """Every key name at every level (down to MAX_DEPTH)."""
    out: set[str] = set()
    _key_names(value, out)
    return out


def _short_str(s: str, limit: int) -> str:
    if len(s) <= limit:
        return s
    head = max(4, limit * 2 // 3)
    tail = max(2, limit - head)
    return f"{s[:head]}…[{len(s) - head - tail:,} chars]…{s[-tail:]}"


def reduce(value: Any, items: int, chars: int, depth: int = 0) -> Any:
    """A smaller value of the same shape (all keys kept; arrays and strings shortened)."""
    if isinstance(value, str):
        return _short_str(value, chars)
    if depth >= MAX_DEPTH and isinstance(value, (dict, list)) and value:
        return f"…[nested deeper than {MAX_DEPTH} levels omitted]"
    if isinstance(value, dict):
        return {k: reduce(v, items, chars, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) <= items + 1:
            return [reduce(v, items, chars, depth + 1) for v in value]
        kept = [reduce(v, items, chars, depth + 1) for v in value[:items]]
        seen = key_names(value[:items])
        extra = sorted(key_names(value[items:]) - seen)
        note = f"… {len(value) - items:,} more items"
        if extra:  # all of them: every key at every level is the point of this clipper
            note += f"; {EXTRA_KEYS}{', '.join(extra)}"
        kept.append(note)
        return kept
    return value


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise JSONClipError("JSON nested too deeply to parse") from exc
    except ValueError as exc:
        raise JSONClipError(f"looked like JSON but did not parse: {exc}") from exc


def clip_json(text: str, budget: int, count: Count) -> Body:
    value = parse_json(text)
    indent = 1 if "\n" in text.strip()[:2000] else None
    seps = (",", ": ") if indent else (", ", ": ")
    last = ""
    for items, chars in LEVELS:
        try:
            out = json.dumps(reduce(value, items, chars), ensure_ascii=False, indent=indent, separators=seps)
        except (RecursionError, ValueError) as exc:
            raise JSONClipError(f"JSON could not be re-rendered: {exc}") from exc
        last = out
        if safe_count(count, out) <= budget:
            return Body(out, -1, (f"JSON kept whole in shape: arrays ≤ {items} items, strings ≤ {chars} chars",))
    # Even the tightest shape is over budget (very many keys): say so; the router cuts by lines.
    raise JSONClipError(f"JSON shape alone is larger than the budget ({safe_count(count, last):,} tokens)")


def tightest_shape(text: str) -> str:
    """The tightest reduction of ``text`` rendered one key per line (for the fallback)."""
    items, chars = LEVELS[-1]
    return json.dumps(reduce(parse_json(text), items, chars), ensure_ascii=False, indent=1)


def kept_key_names(clipped_body: str) -> set[str]:
    """Key names a clipped JSON body still shows: its own keys plus those named in
    "… N more items; keys only they have: …" notes. (For tests and benchmarks.)"""
    value = json.loads(clipped_body)
    names = key_names(value)
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and EXTRA_KEYS in v and v.startswith("… "):
            listed = v.split(EXTRA_KEYS, 1)[1]
            names.update(k.strip() for k in listed.split(" (+")[0].split(", "))
    return names
