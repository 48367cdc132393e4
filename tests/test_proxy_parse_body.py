"""The proxy parses request bodies with orjson where that gives exactly what the stdlib gives
(proxy/history.py: parse_body); everything else goes to the stdlib, errors included."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from contextwindow.proxy.history import parse_body


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return rng.randint(-(2**70), 2**70) if rng.random() < 0.3 else rng.randint(-1000, 10**6)
    if kind == 1:
        return rng.choice([0.1, -0.0, 1e-05, 1.5e300, 123456.789, rng.random()])
    if kind == 2:
        return "".join(rng.choice(["a", "ü", "😀", "\n", "\"", "\\", "7", "\u2028", "\ud800"]) for _ in range(rng.randint(0, 12)))
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return "9" * rng.randint(15, 25)  # long digit runs inside a string
    if kind in (5, 6):
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{rng.randint(0, 5)}": _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def test_parse_body_gives_what_the_stdlib_gives() -> None:
    rng = random.Random(15)
    for _ in range(400):
        value = {"model": "m", "messages": [_value(rng) for _ in range(3)]}
        for raw in (json.dumps(value).encode(), json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"),
                    json.dumps(value, indent=1).encode()):
            try:
                want = json.loads(raw)
            except ValueError:
                with pytest.raises(ValueError):
                    parse_body(raw)
                continue
            assert _same(parse_body(raw), want), raw[:200]


@pytest.mark.parametrize("raw", [b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b'{"a": 1', b"", b'{"a": "\x01"}'])
def test_what_is_not_json_is_the_stdlib_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        parse_body(raw)
