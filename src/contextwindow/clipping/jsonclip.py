"""JSON: keep the shape (every key at every level), shorten long arrays to their first items
plus "… N more" (naming keys only the dropped items had), long strings to head…tail."""

from __future__ import annotations

import json
from typing import Any

from .jsonshape import ShapeScanError, render_shape, scan_shape, shape_of
from .measure import Count, safe_count
from .select import Body, select_lines

MAX_DEPTH = 64
# (items kept per array, characters kept per string), loosest first.
LEVELS: tuple[tuple[int, int], ...] = (
    (2000, 20000), (500, 8000), (200, 4000), (50, 2000), (20, 600), (10, 240), (5, 120), (3, 80), (2, 48), (1, 32), (1, 12),
)


EXTRA_KEYS = "keys only they have: "


class JSONClipError(ValueError):
    """The text is not JSON the clipper can reduce (the router falls back to text)."""


def key_names(value: Any) -> set[str]:
    """Every key name at every level (down to MAX_DEPTH); iterative, scalars never visited."""
    out: set[str] = set()
    stack: list[tuple[Any, int]] = [(value, 0)]
    containers = (dict, list)
    while stack:
        v, d = stack.pop()
        if d > MAX_DEPTH:
            continue
        if type(v) is dict:
            out.update(v)
            stack.extend((x, d + 1) for x in v.values() if type(x) in containers)
        elif type(v) is list:
            stack.extend((x, d + 1) for x in v if type(x) in containers)
    return out


def _short_str(s: str, limit: int) -> str:
    if len(s) <= limit:
        return s
    head = max(4, limit * 2 // 3)
    tail = max(2, limit - head)
    return f"{s[:head]}…[{len(s) - head - tail:,} chars]…{s[-tail:]}"


class KeyCache:
    """Per array, the index of the first item holding each key name (at any depth), computed
    once per clip: the keys only the dropped items have are then those first seen at or past
    the cut, whatever the cut (the levels re-reduce the same value)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Any, dict[str, int]]] = {}
        #: arrays (in document order) that keep one item more than the level says: a budget
        #: between two levels is filled array by array
        self.bonus = 0

    def first_seen(self, items: list[Any], depth: int) -> dict[str, int]:
        hit = self._by_id.get(id(items))
        if hit is not None and hit[0] is items:
            return hit[1]
        first: dict[str, int] = {}
        if depth <= MAX_DEPTH:
            for i, x in enumerate(items):
                if type(x) is dict and all(type(y) not in (dict, list) for y in x.values()):
                    for k in x:  # a flat record: its keys, no recursion
                        if k not in first:
                            first[k] = i
                elif type(x) in (dict, list):
                    for k in key_names(x):
                        if k not in first:
                            first[k] = i
        self._by_id[id(items)] = (items, first)
        return first

    def extra(self, items: list[Any], cut: int, depth: int) -> list[str]:
        return sorted(k for k, i in self.first_seen(items, depth).items() if i >= cut)


def reduce(value: Any, items: int, chars: int, depth: int = 0, keys: KeyCache | None = None) -> Any:
    """A smaller value of the same shape (all keys kept; arrays and strings shortened)."""
    if isinstance(value, str):
        return _short_str(value, chars)
    if depth >= MAX_DEPTH and isinstance(value, (dict, list)) and value:
        return f"…[nested deeper than {MAX_DEPTH} levels omitted]"
    keys = keys if keys is not None else KeyCache()
    if isinstance(value, dict):
        return {k: reduce(v, items, chars, depth + 1, keys) for k, v in value.items()}
    if isinstance(value, list):
        own = items
        if keys.bonus > 0 and len(value) > items + 1:
            keys.bonus -= 1
            own = items + 1
        if len(value) <= own + 1:
            return [reduce(v, items, chars, depth + 1, keys) for v in value]
        kept = [reduce(v, items, chars, depth + 1, keys) for v in value[:own]]
        extra = keys.extra(value, own, depth + 1)
        note = f"… {len(value) - own:,} more items"
        if extra:  # all of them: every key at every level is the point of this clipper
            note += f"; {EXTRA_KEYS}{', '.join(extra)}"
        kept.append(note)
        return kept
    return value


#: Texts up to this many characters are parsed with the json module (fast, but its objects take
#: several times the text's memory); longer ones are read by the streaming shape scanner.
JSON_LOAD_CHARS = 8_000_000


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise JSONClipError("JSON nested too deeply to parse") from exc
    except ValueError as exc:
        raise JSONClipError(f"looked like JSON but did not parse: {exc}") from exc


def _render(value: Any, items: int, chars: int, indent: int | None, keys: KeyCache | None = None) -> str:
    seps = (",", ": ") if indent else (", ", ": ")
    try:
        return json.dumps(reduce(value, items, chars, 0, keys), ensure_ascii=False, indent=indent, separators=seps)
    except (RecursionError, ValueError) as exc:
        raise JSONClipError(f"JSON could not be re-rendered: {exc}") from exc


def clip_json(text: str, budget: int, count: Count) -> Body:
    """Every key at every level with values shortened (valid JSON) when that fits; else the
    shape (every top-level key, array lengths, element fields and types), then values."""
    value: Any = None
    parsed = False
    keys = KeyCache()
    notes: list[str] = []
    if len(text) <= JSON_LOAD_CHARS:
        try:
            value = json.loads(text)
            parsed = True
        except RecursionError:
            notes.append("JSON nested too deeply for the parser; its shape was read by the streaming scanner")
        except ValueError as exc:
            raise JSONClipError(f"looked like JSON but did not parse: {exc}") from exc
    else:
        notes.append(f"JSON of {len(text):,} characters read by the streaming shape scanner")
    if parsed:
        indent = 1 if "\n" in text.strip()[:2000] else None
        ratio = max(0.05, safe_count(count, text[:8000]) / max(1, len(text[:8000])))
        tried: dict[int, tuple[str, int] | None] = {}

        def attempt(i: int) -> tuple[str, int] | None:
            """Level i rendered and counted, or None when it is clearly over (a compact render,
            by the C encoder, already is)."""
            if i not in tried:
                items, chars = LEVELS[i]
                red = reduce(value, items, chars, 0, keys)
                compact = json.dumps(red, ensure_ascii=False)
                if len(compact) * ratio > budget * 1.5 and i < len(LEVELS) - 1:
                    tried[i] = None
                else:
                    out = compact if indent is None else json.dumps(red, ensure_ascii=False, indent=indent)
                    tried[i] = (out, safe_count(count, out))
            return tried[i]

        def fits(i: int) -> bool:
            got = attempt(i)
            return got is not None and got[1] <= budget

        lo, hi = 0, len(LEVELS) - 1  # the loosest level that fits, by bisection (sizes shrink with i)
        if fits(hi):
            while lo < hi:
                mid = (lo + hi) // 2
                if fits(mid):
                    hi = mid
                else:
                    lo = mid + 1
            out, used = tried[hi] or ("", 0)
            items, chars = LEVELS[hi]
            if hi > 0 and used < budget * 0.9:
                out, used, items, chars = _fill(value, LEVELS[hi], LEVELS[hi - 1], out, used, budget, count, indent, keys)
            return Body(out, -1, (f"JSON kept whole in shape: arrays ≤ {items} items, strings ≤ {chars} chars",),
                        used, "kept every key at every level; dropped array items and string middles")
        shape = shape_of(value)
    else:
        try:
            shape, depth = scan_shape(text)
        except ShapeScanError as exc:
            raise JSONClipError(f"looked like JSON but did not parse: {exc}") from exc
        if depth > MAX_DEPTH:
            notes.append(f"JSON nested {depth:,} levels deep")
    head, used, named = render_shape(shape, budget, count)
    n_keys = len(shape.keys or {}) + shape.extra_keys
    detail = (f"kept all {n_keys:,} top-level keys and the shape; dropped the values" if named >= n_keys
              else f"named {named:,} of {n_keys:,} top-level keys (all counted by type); dropped the values")
    room = budget - used
    if room > budget // 5:  # then values: the beginning of the (shortened) value itself
        sample = _render(value, 1, 32, 1, keys) if parsed else text[: room * 4]
        lines = ["[the value begins:]", *sample.split("\n")]
        body = select_lines(lines, list(range(len(lines))), budget, count, lambda a, b: "…" if b > a else None,
                            header=head)
        if body.kept and max(body.kept) >= 1:
            return Body(body.text, -1, tuple(notes), body.tokens, detail.replace("dropped the values", "dropped most values"))
    return Body(head, -1, tuple(notes), used, detail)


def _fill(value: Any, fit: tuple[int, int], over: tuple[int, int], out: str, used: int, budget: int, count: Count,
          indent: int | None, keys: KeyCache) -> tuple[str, int, int, int]:
    """Between a level that fits and the looser one that does not, the loosest that still fits:
    first by interpolating the two, then one more item for as many arrays as fit."""
    lo, hi = 0.0, 1.0
    best = (out, used, *fit)
    for _ in range(5):
        t = (lo + hi) / 2
        items = round(fit[0] + t * (over[0] - fit[0]))
        chars = round(fit[1] + t * (over[1] - fit[1]))
        cand = _render(value, items, chars, indent, keys)
        n = safe_count(count, cand)
        if n <= budget:
            lo = t
            if n > best[1]:
                best = (cand, n, items, chars)
            if n >= budget * 0.95:
                return best
        else:
            hi = t
    _, used, items, chars = best
    blo, bhi = 0, 1
    while True:  # how many arrays can take one more item: grow the bound, then bisect
        grown, grown_tokens = _bonus_render(value, items, chars, indent, keys, bhi, count)
        if grown_tokens > budget or bhi > 1 << 20:
            break
        best = (grown, grown_tokens, items, chars)
        blo, bhi = bhi, bhi * 4
        if grown_tokens >= budget * 0.95:
            return best
    for _ in range(8):
        if bhi - blo <= 1:
            break
        mid = (blo + bhi) // 2
        cand, n_tokens = _bonus_render(value, items, chars, indent, keys, mid, count)
        if n_tokens <= budget:
            blo = mid
            if n_tokens > best[1]:
                best = (cand, n_tokens, items, chars)
        else:
            bhi = mid
    return best


def _bonus_render(value: Any, items: int, chars: int, indent: int | None, keys: KeyCache, bonus: int,
                  count: Count) -> tuple[str, int]:
    keys.bonus = bonus
    try:
        text = _render(value, items, chars, indent, keys)
    finally:
        keys.bonus = 0
    return text, safe_count(count, text)


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
