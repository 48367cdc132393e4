"""Two shortcuts of default's per-call and per-message work (issue 13, replay speed) that must give
the answers of the long way: the horizon rule's size bound (compaction/clearing.py
``horizon_may_clear``), which lets a call skip making every candidate's cleared form when no clear
could pay, and the assistant's closing question read from its last line (folding/answers.py
``question``) instead of splitting the whole message."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.compaction.clearing import horizon_may_clear, horizon_start, suffix_sums
from contextwindow.folding.answers import question
from contextwindow.folding.clauses import sentences

READ, REWRITE, HORIZON = 0.1, 1.15, 12.0


def _net_inputs(sizes: list[int], shrink: list[float], others: list[int], new_tail: int) -> tuple[list[int], list[int], list[int]]:
    """(gains, rewrites, after-at-candidate) of a view whose candidates (of ``sizes`` tokens, each
    clearing to ``1 - shrink`` of itself) sit before ``others[i]`` tokens of other items each, as
    cache.clear_for_cache computes them."""
    gains = [int(s * f) for s, f in zip(sizes, shrink, strict=True)]
    tokens = [t for pair in zip(sizes, others, strict=True) for t in pair]
    after = list(accumulate(reversed(tokens), initial=0))[::-1]
    at = [after[2 * i] for i in range(len(sizes))]
    rewrites = [max(0, a - c - new_tail) for a, c in zip(at, suffix_sums(gains), strict=True)]
    return gains, rewrites, at


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 20_000), st.floats(0, 1), st.integers(0, 60_000)), min_size=1, max_size=12),
    st.integers(0, 30_000),
    st.sampled_from([0, 500, 2_000, 10_000]),
    st.sampled_from([(READ, REWRITE, HORIZON), (0.1, 0.9, 3.0), (1.0, 0.0, 1.0), (0.0, 1.15, 12.0), (0.25, 2.0, 40.0)]),
)
def test_the_size_bound_never_refuses_a_clear_the_horizon_rule_makes(
    cands: list[tuple[int, float, int]], new_tail: int, at_least: int, weights: tuple[float, float, float]
) -> None:
    read, rewrite, horizon = weights
    sizes, shrink, others = (list(x) for x in zip(*cands, strict=True))
    gains, rewrites, at = _net_inputs(sizes, shrink, others, new_tail)
    made = horizon_start(gains, rewrites, read=read, rewrite=rewrite, horizon=horizon, at_least=at_least)
    may = horizon_may_clear(sizes, at, new_tail, read=read, rewrite=rewrite, horizon=horizon, at_least=at_least)
    if made is not None:
        assert may
    if shrink and all(f == 1.0 for f in shrink):  # every candidate clears to nothing: the bound is the rule itself
        assert may == (made is not None)


def test_the_size_bound_refuses_what_cannot_pay_and_allows_what_might() -> None:
    # 1,000 tokens cleared from 50,000 rewritten: 0.1 * 1,000 * 12 = 1,200 < 1.15 * 49,000
    assert not horizon_may_clear([1_000], [50_000], 0, read=READ, rewrite=REWRITE, horizon=HORIZON, at_least=500)
    # the newest part of that rewrite was new since the last call (written anyway): it pays
    assert horizon_may_clear([1_000], [50_000], 49_500, read=READ, rewrite=REWRITE, horizon=HORIZON, at_least=500)
    # clear_at_least binds on the bound too
    assert not horizon_may_clear([400], [400], 0, read=READ, rewrite=REWRITE, horizon=HORIZON, at_least=500)
    assert horizon_may_clear([600], [600], 0, read=READ, rewrite=REWRITE, horizon=HORIZON, at_least=500)


def _question_whole(asked: str) -> str:
    said = sentences(asked.strip())
    last = said[-1].strip() if said else ""
    return last if last.endswith("?") else ""


_LINES = st.sampled_from([
    "", "   ", "Done. Which is the cache port?", "- Is the batch size still 500?", "> quoted line.", "1. first item",
    'Dana wrote: "The port is 80." Is that right?', 'per the runbook, "The failover drill runs every 90 days", ok?',
    "e.g. this one. the staging db lives on rack 2. also keep retries at 6?", "What's our staging host?", "   -  ", "> ",
    "All tests pass.", "Should the review window stay at 2 days?", "v1.2. and then?", "Thanks!",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LINES, st.text(alphabet=st.sampled_from(list("ab .?!-\"':>1\t")), max_size=30)), max_size=8),
       st.sampled_from(["\n", "\r\n"]))
def test_the_question_read_from_the_last_line_is_the_whole_message_s_last_sentence(lines: list[str], newline: str) -> None:
    asked = newline.join(lines)
    assert question(asked) == _question_whole(asked)


def test_the_question_is_the_last_line_s_even_after_blank_and_bullet_only_lines() -> None:
    asked = "I looked at the config.\n\nWhich is the cache port?\n\n   \n> \n"
    assert question(asked) == _question_whole(asked) == "Which is the cache port?"
    assert question("Which is the cache port?\nI will check.") == ""
