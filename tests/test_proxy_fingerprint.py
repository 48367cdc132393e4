"""The proxy's message fingerprints: the fast writer (orjson) hashes the same canonical JSON as the
stdlib, so a store written with one is read with the other, message for message."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.proxy import history
from contextwindow.store.base import content_hash

orjson = pytest.importorskip("orjson")


def stdlib_hash(value: Any) -> str:
    return content_hash(json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True))


# what a parsed request holds, floats aside (see the next test); text with any code point but lone surrogates
scalars = st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text(max_size=40)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_fast_writer_hashes_what_the_stdlib_hashes(value: Any) -> None:
    assert history.orjson is not None
    assert history.hash_json(value) == stdlib_hash(value)


def test_where_orjson_refuses_the_stdlib_writes_it() -> None:
    for value in ({"n": 2**70}, {"t": "a\ud800b"}, [{"deep": -(2**64)}]):  # past 64 bits; a lone surrogate
        assert history.hash_json(value) == stdlib_hash(value)


def test_floats_are_hashed_one_way_per_writer_and_stay_distinct() -> None:
    # orjson writes some floats differently from the stdlib (documented): each writer is
    # deterministic, and different numbers never share a fingerprint
    a, b = history.hash_json({"x": 1e-05}), history.hash_json({"x": 2e-05})
    assert a != b and a == history.hash_json({"x": 0.00001})
    assert history.hash_json({"x": 1.5}) == stdlib_hash({"x": 1.5})
