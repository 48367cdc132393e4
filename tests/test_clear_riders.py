"""A clear also takes the small old results and inputs after its first cleared item (compaction/cache.py
``riders``): their rewrite is paid by the clear anyway. The size floor decides where a clear starts,
not what it takes."""

from __future__ import annotations

import json
import random

from contextwindow.compaction.cache import CacheConfig, clear_for_cache, riders
from contextwindow.compaction.inputs import is_cleared
from contextwindow.compaction.mask import is_masked
from contextwindow.compaction.view import ViewItem
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, user
from test_cache_clear import _session, call, cleared, count, result, view

CFG = CacheConfig(clear_at_least=300, horizon_calls=40)


def test_a_clear_takes_the_small_old_results_after_its_start_and_counts_what_they_save() -> None:
    items = view([100, 20, 20, 20, 20, 20])  # results at 2, 4, ..., 12; the newest 3 are 8, 10, 12
    assert items[4].tokens < CFG.min_result_tokens and items[6].tokens < CFG.min_result_tokens  # no candidates
    got = clear_for_cache(items, count, 0, CFG)
    assert got is not None
    out, step = got
    assert cleared(out) == [2, 4, 6]
    assert step["saved"] == sum(items[i].tokens - out[i].tokens for i in (2, 4, 6)) and step["tokens_after"] == sum(it.tokens for it in out)
    assert all(out[i].tokens < items[i].tokens for i in (4, 6))
    # without riding along, the same clear takes the candidate alone
    alone = clear_for_cache(items, count, 0, CacheConfig(clear_at_least=300, horizon_calls=40, ride_along=False))
    assert alone is not None and cleared(alone[0]) == [2]
    assert step["saved"] > alone[1]["saved"]  # type: ignore[operator]


def test_riders_are_after_the_first_cleared_item_and_never_errors_or_the_newest_results() -> None:
    items = view([20, 100, 20, 20, 20, 20, 20], errors=(3,))  # message 8 is an error; 10, 12, 14 the newest
    got = clear_for_cache(items, count, 0, CFG)
    assert got is not None
    assert cleared(got[0]) == [4, 6]  # not 2 (before the start: it would lengthen the rewrite), not the error
    assert riders(items, 4, {4}, CFG) == [6]
    assert riders(items, len(items) - 1, set(), CFG) == []


def _write(i: int, chars: int) -> Message:
    text = ("x" * 9 + " ") * (chars // 10)
    return Message("assistant", (ToolCallPart(f"w{i}", "Write", json.dumps({"file_path": f"/src/f{i}.py", "content": text})),))


def _done(i: int) -> Message:
    return Message("tool", (ToolResultPart(f"w{i}", (TextPart("written"),)),))


def test_an_old_call_whose_long_input_shrinks_too_little_to_be_a_candidate_rides_along() -> None:
    msgs = [user("go"), call(0), result(0, 100), _write(1, 400), _done(1)]
    for i in range(2, 6):
        msgs += [call(i), result(i, 10)]
    items = [ViewItem(f"m{k}", m, count(m)) for k, m in enumerate(msgs)]
    got = clear_for_cache(items, count, 0, CFG)
    assert got is not None
    out = got[0]
    assert is_masked(out[2].message) and is_cleared(out[3].message)  # the 400-character content went too
    assert json.loads(out[3].message.tool_calls[0].arguments)["file_path"] == "/src/f1.py"
    assert out[3].tokens < items[3].tokens


def _last_payload(ride_along: bool, seed: int) -> tuple[int, int]:
    """(masked results under the size floor, history tokens) of the last build of a seeded session."""
    s, _ = _session(CacheConfig(ride_along=ride_along))
    s.add(user("Port the parser; never change the public API."))
    rng = random.Random(seed)
    sizes = {}
    for i in range(40):
        words = rng.choice((rng.randint(5, 30), rng.randint(100, 300)))
        sizes[f"c{i}"] = words
        s.add(call(i), result(i, words))
        b = s.build()
        assert "never change the public API." in b.messages[0].text
    small = sum(1 for m in b.messages if m.role == "tool" and is_masked(m) and sizes[m.tool_results[0].call_id] <= 30)
    return small, sum(count(m) for m in b.messages)


def test_on_a_seeded_session_riding_along_clears_small_results_the_old_rule_keeps_and_sends_less() -> None:
    small_on, tokens_on = _last_payload(True, seed=3)
    small_off, tokens_off = _last_payload(False, seed=3)
    assert small_off == 0 and small_on > 0
    assert tokens_on < tokens_off
