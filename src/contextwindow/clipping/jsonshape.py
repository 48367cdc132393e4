"""The shape of a JSON value: every key, array lengths, element field names and types.

:func:`shape_of` reads a parsed value; :func:`scan_shape` reads JSON text in one streaming pass
(a regex tokenizer and an explicit stack: no recursion, so 100,000 levels of nesting are fine,
and memory is bounded by the shape, not by the text). :func:`render_shape` writes a shape as
one line per top-level key — ``key: array[4,321] of {id: int, name: str, tags?: [str]}`` — and
condenses it (keys grouped by shape, names counted) when even that is over the budget.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .measure import Count, safe_count

#: Deeper than this the shape records only that something is nested there.
SHAPE_DEPTH = 12
#: Keys recorded per object shape (the rest are counted).
MAX_KEYS = 5000


@dataclass(slots=True)
class Shape:
    """Union of the values seen at one place: scalar type names, an object shape, an array shape."""

    types: set[str] = field(default_factory=set)
    keys: dict[str, Shape] | None = None  # object: key -> shape
    key_seen: dict[str, int] = field(default_factory=dict)
    objects: int = 0  # how many objects were merged here
    extra_keys: int = 0  # keys past MAX_KEYS
    elem: Shape | None = None  # array: merged element shape
    min_len: int = -1
    max_len: int = 0
    deeper: int = 0  # depth below SHAPE_DEPTH not recorded
    sample: str | None = None

    def see_scalar(self, kind: str, raw: str) -> None:
        self.types.add(kind)
        if self.sample is None:
            self.sample = raw[:40] + ("…" if len(raw) > 40 else "")

    def obj(self) -> None:
        self.types.add("object")
        self.objects += 1
        if self.keys is None:
            self.keys = {}

    def child(self, key: str) -> Shape:
        assert self.keys is not None
        sub = self.keys.get(key)
        if sub is None:
            if len(self.keys) >= MAX_KEYS:
                self.extra_keys += 1
                sub = Shape()  # counted, not kept
            else:
                sub = self.keys[key] = Shape()
        self.key_seen[key] = self.key_seen.get(key, 0) + 1 if key in self.keys else 0
        return sub

    def arr(self) -> Shape:
        self.types.add("array")
        if self.elem is None:
            self.elem = Shape()
        return self.elem

    def arr_len(self, n: int) -> None:
        self.min_len = n if self.min_len < 0 else min(self.min_len, n)
        self.max_len = max(self.max_len, n)


def _scalar_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    return "str"


def shape_of(value: Any) -> Shape:
    """The shape of a parsed JSON value (iterative: any depth Python could parse)."""
    root = Shape()
    stack: list[tuple[Any, Shape, int]] = [(value, root, 0)]
    while stack:
        v, sh, depth = stack.pop()
        if isinstance(v, dict):
            sh.obj()
            if depth >= SHAPE_DEPTH:
                sh.deeper += 1
                continue
            for k, x in v.items():
                stack.append((x, sh.child(str(k)), depth + 1))
        elif isinstance(v, list):
            el = sh.arr()
            sh.arr_len(len(v))
            if depth >= SHAPE_DEPTH:
                sh.deeper += 1
                continue
            for x in v[:200]:  # element shapes from the first 200 items; keys of all below
                stack.append((x, el, depth + 1))
            for x in v[200:]:
                if isinstance(x, dict):
                    el.obj()
                    for k in x:
                        el.child(str(k))
                else:
                    el.types.add("array" if isinstance(x, list) else _scalar_kind(x))
        else:
            raw = v if isinstance(v, str) else json.dumps(v)
            sh.see_scalar(_scalar_kind(v), raw)
    return root


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')


class ShapeScanError(ValueError):
    pass


def scan_shape(text: str) -> tuple[Shape, int]:
    """(shape, greatest depth) of JSON ``text`` in one pass, without building the value.
    Below SHAPE_DEPTH only brackets are counted (a value nested 100,000 deep costs nothing)."""
    root = Shape()
    # frames: [container shape, is object, shape of the current value slot, items so far]
    stack: list[list[Any]] = []
    expect_key = False
    skip = 0  # depth inside a value below SHAPE_DEPTH
    max_depth = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        c = tok[0]
        if skip:
            if c in "[{":
                skip += 1
                max_depth = max(max_depth, len(stack) + skip)
            elif c in "]}":
                skip -= 1
            continue
        if c == ",":
            expect_key = bool(stack) and stack[-1][1]
            continue
        if c == ":":
            continue
        if c in "]}":
            if not stack:
                raise ShapeScanError(f"a closing {c!r} with nothing open, at character {m.start():,}")
            top = stack.pop()
            if not top[1]:
                top[0].arr_len(top[3])
            expect_key = False
            continue
        if expect_key:  # a key of the object on top
            top = stack[-1]
            key = _decode_str(tok) if c == '"' else tok
            top[2] = top[0].child(key)
            expect_key = False
            continue
        if not stack:
            target = root
        else:
            top = stack[-1]
            if not top[1]:
                top[3] += 1
            target = top[2] if top[2] is not None else Shape()
        if c == "{" or c == "[":
            if len(stack) >= SHAPE_DEPTH:
                target.types.add("object" if c == "{" else "array")
                target.deeper += 1
                skip = 1
                max_depth = max(max_depth, len(stack) + 1)
                continue
            if c == "{":
                target.obj()
                stack.append([target, True, None, 0])
                expect_key = True
            else:
                stack.append([target, False, target.arr(), 0])
            max_depth = max(max_depth, len(stack))
            continue
        kind = "str" if c == '"' else ("null" if tok == "null" else "bool" if tok in ("true", "false")
                                       else "float" if any(x in tok for x in ".eE") else "int")
        target.see_scalar(kind, _decode_str(tok) if c == '"' else tok)
    if stack or skip:
        raise ShapeScanError(f"{len(stack) + skip:,} brackets left open at the end")
    return root, max_depth


def _decode_str(tok: str) -> str:
    if "\\" not in tok:
        return tok[1:-1]
    try:
        return str(json.loads(tok))
    except ValueError:
        return tok[1:-1]


# --- rendering --------------------------------------------------------------------------


def describe(sh: Shape, depth: int = 0, limit: int = 2, lengths: bool = True) -> str:
    """A compact type expression: ``{id: int, name: str, tags?: [str]}``, ``[4,321 × {…}]``."""
    parts: list[str] = []
    for t in sorted(sh.types - {"object", "array"}):
        parts.append(t)
    if "object" in sh.types and sh.keys is not None:
        if depth >= limit or not sh.keys:
            parts.append(f"{{{len(sh.keys) + sh.extra_keys} keys}}" if sh.keys else "{}")
        else:
            fields = []
            for k, sub in sh.keys.items():
                opt = "?" if sh.objects > 1 and sh.key_seen.get(k, 0) + 1 < sh.objects else ""
                fields.append(f"{_key(k)}{opt}: {describe(sub, depth + 1, limit, lengths)}")
            more = f", +{sh.extra_keys:,} keys" if sh.extra_keys else ""
            parts.append("{" + ", ".join(fields) + more + "}")
    if "array" in sh.types and sh.elem is not None:
        n = _len(sh) if lengths else "N"
        inner = describe(sh.elem, depth + 1, limit, lengths) if sh.elem.types else "empty"
        parts.append(f"[{n} × {inner}]" if inner != "empty" else "[]")
    if sh.deeper:
        parts.append("…nested deeper")
    return " | ".join(parts) or "?"


def _len(sh: Shape) -> str:
    if sh.min_len == sh.max_len or sh.min_len < 0:
        return f"{sh.max_len:,}"
    return f"{sh.min_len:,}–{sh.max_len:,}"


def _key(k: str) -> str:
    return k if re.fullmatch(r"[\w.$@-]{1,60}", k) else json.dumps(k[:60], ensure_ascii=False)


def shape_lines(sh: Shape, limit: int = 2, samples: bool = False) -> list[str]:
    """One line per top-level key (or the array's element shape)."""
    if "object" in sh.types and sh.keys is not None:
        out = [f"[json object with {len(sh.keys) + sh.extra_keys:,} top-level keys; shape below: key: type,"
               " [N × T] is an array of N items of type T, k? a key only some items have]"]
        for k, sub in sh.keys.items():
            line = f"{_key(k)}: {describe(sub, 0, limit)}"
            if samples and sub.sample is not None and not (sub.types & {"object", "array"}):
                line += f" = {sub.sample}"
            out.append(line)
        if sh.extra_keys:
            out.append(f"… and {sh.extra_keys:,} more keys")
        return out
    return [f"[json value; shape: {describe(sh, 0, limit)}]"]


def render_shape(sh: Shape, budget: int, count: Count) -> tuple[str, int, int]:
    """The most detailed shape rendering that fits: (text, tokens, keys named)."""
    n_keys = len(sh.keys or {}) + sh.extra_keys
    for limit, samples in ((4, True), (3, True), (3, False), (2, False), (1, False), (0, False)):
        text = "\n".join(shape_lines(sh, limit, samples))
        used = safe_count(count, text)
        if used <= budget:
            return text, used, n_keys
    # even one line per key at the flattest is too long: keys grouped by their shape
    groups: dict[str, list[str]] = {}
    for k, sub in (sh.keys or {}).items():
        groups.setdefault(describe(sub, 0, 1, lengths=False), []).append(k)
    lines = [f"[json object with {n_keys:,} top-level keys, grouped by the type of their value]"]
    for desc, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(names):,} keys of type {desc}: " + ", ".join(_key(k) for k in names))
    text = "\n".join(lines)
    used = safe_count(count, text)
    if used <= budget:
        return text, used, n_keys
    # names cut to what fits, each group still counted
    per = max(1, (budget * 3) // max(1, len(groups)) // 12)
    while True:
        lines = lines[:1]
        named = 0
        for desc, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            shown = names[:per]
            named += len(shown)
            more = f" (+{len(names) - len(shown):,} more)" if len(names) > len(shown) else ""
            lines.append(f"{len(names):,} keys of type {desc}: " + ", ".join(_key(k) for k in shown) + more)
        text = "\n".join(lines)
        used = safe_count(count, text)
        if used <= budget or per == 0:
            return text, used, named
        per = per // 2 if per > 1 else 0
