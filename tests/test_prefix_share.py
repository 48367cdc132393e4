"""prefix.share_and_reuse (one walk, the grown-payload case settled by a list comparison) gives
prefix_share and prefix_reuse exactly, and common_prefix agrees with a unit-by-unit walk."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.prefix import common_prefix, prefix_reuse, prefix_share, share_and_reuse

units = st.lists(st.sampled_from(["", "a", "bb", "ccc", '{"role":"user"}', "é" * 3]), max_size=8)


def _walk(prev: list[str], cur: list[str]) -> int:
    same = 0
    for a, b in zip(prev, cur, strict=False):
        if a != b:
            break
        same += len(b)
    return same


@settings(max_examples=300, deadline=None)
@given(units, units, st.booleans())
def test_share_and_reuse_is_the_two_shares(prev: list[str], tail: list[str], grow: bool) -> None:
    cur = [*prev, *tail] if grow else tail  # a payload that only grew, or any other
    assert common_prefix(prev, cur) == _walk(prev, cur)
    assert share_and_reuse(prev, cur) == (prefix_share(prev, cur), prefix_reuse(prev, cur))


def test_a_grown_payload_reuses_all_of_the_previous_one() -> None:
    prev = ["sys", "u1", "a1"]
    assert share_and_reuse(prev, [*prev, "u2"]) == (7 / 9, 1.0)
    assert share_and_reuse(prev, ["sys", "u1", "A1", "u2"]) == (5 / 9, 5 / 7)
    assert share_and_reuse([], []) == (1.0, 1.0)
