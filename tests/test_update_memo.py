"""The memos that keep pure answers between calls: SizedMemo's bound, and the ledger's updates kept
by (ledger, text, source, asked) in folding/constraints.py (a replay's setup and its Session read
the same user messages; the second read must give the very answer a fresh reading gives)."""

from __future__ import annotations

import threading

from contextwindow.folding import constraints
from contextwindow.folding import ledger as ledger_impl
from contextwindow.folding.scoped import reading_scope
from contextwindow.tokens.memo import SizedMemo, TextMemo


def fresh(ledger: list[constraints.Constraint], text: str, source: str = "", asked: str = "") -> list[constraints.Constraint]:
    """The update read afresh (the memo bypassed)."""
    with reading_scope():
        return ledger_impl.update(ledger, text, source, asked)


def test_sized_memo_forgets_oldest_past_its_bound_and_refuses_an_item_over_a_quarter() -> None:
    memo: SizedMemo[tuple[str, int], str] = SizedMemo(threading.Lock(), 100)
    memo.put(("a", 1), "A", 20)
    memo.put(("b", 2), "B", 25)
    memo.put(("big", 3), "X", 26)  # over a quarter of 100: not kept
    assert memo.get(("big", 3)) is None and memo.size == 45
    for k in range(3, 7):
        memo.put(("c", k), "C", 20)  # 45 + 80 > 100: the oldest go until it fits
    assert memo.get(("a", 1)) is None and memo.get(("b", 2)) is None
    assert memo.get(("c", 6)) == "C" and memo.size == 80 and len(memo) == 4
    assert list(memo) == [("c", 3), ("c", 4), ("c", 5), ("c", 6)]
    memo.clear()
    assert memo.size == 0 and len(memo) == 0


def test_text_memo_keeps_its_old_contract() -> None:
    memo: TextMemo[int] = TextMemo(threading.Lock(), 4, 40)
    assert memo.put("abc", 1) == 1 and memo.get("abc") is None  # under min_chars
    memo.put("abcdefghij", 2)  # 10 = max_chars // 4: kept
    memo.put("abcdefghijk", 3)  # 11: over a quarter
    assert memo.get("abcdefghij") == 2 and memo.get("abcdefghijk") is None and memo.chars == 10


def test_an_update_asked_again_is_the_fresh_reading_and_keyed_by_all_it_reads() -> None:
    constraints.UPDATES.clear()
    first = "Never push to main without a review. The batch size is 500."
    led = constraints.update([], first, source="0")
    assert led == fresh([], first, "0") and len(led) >= 2
    assert len(constraints.UPDATES) == 1
    again = constraints.update([], first, source="0")
    assert again == led and again is not led  # a new list each time (callers may extend it)
    again.append(led[0])
    assert constraints.update([], first, source="0") == led  # the kept answer is not the caller's list
    # every input is part of the key: another source, another ledger, another asked text
    assert constraints.update([], first, source="7") == fresh([], first, "7") != led
    answer = "800 now."
    asked = "Is the batch size still 500?"
    after = constraints.update(led, answer, source="2", asked=asked)
    assert after == fresh(led, answer, "2", asked)
    assert constraints.update(led, answer, source="2", asked="") == fresh(led, answer, "2", "")
    assert constraints.update(led, answer, source="2", asked="") != after  # the question is what the bare value answers
    assert constraints.update(led[:1], answer, source="2", asked=asked) == fresh(led[:1], answer, "2", asked)
    assert len(constraints.UPDATES) == 5


def test_a_stored_ledger_finds_the_update_made_before_it_was_stored() -> None:
    """The Session keeps its ledger as JSON; read back, it is the same key (every field round-trips)."""
    constraints.UPDATES.clear()
    led = constraints.update([], "Always run the tests before a commit. The deadline is Friday.", source="0")
    stored = constraints.from_json(constraints.to_json(led))
    assert stored == led
    text = "Actually the deadline is Monday."
    made = constraints.update(led, text, source=str(len(led)))
    n = len(constraints.UPDATES)
    assert constraints.update(stored, text, source=str(len(stored))) == made
    assert len(constraints.UPDATES) == n  # found, not made again


def test_the_update_memo_counts_the_ledgers_it_keeps_not_only_the_texts() -> None:
    """A memo entry keeps its key's ledger and the updated one; a Session reads its ledger back from JSON on every
    add, so each entry holds its own copies: the bound must count them (found in review: 25 KB held per entry
    counted as ~11 characters)."""
    from contextwindow.folding import constraints

    constraints.UPDATES.clear()
    ledger: list[constraints.Constraint] = []
    for i in range(40):
        ledger = constraints.update(ledger, f"The limit for service alpha{i} must be {i * 7} megabytes.", source=str(i))
    stored = constraints.to_json(ledger)
    before = constraints.UPDATES.size
    constraints.update(constraints.from_json(stored), "ok go on", source="x")
    counted = constraints.UPDATES.size - before
    assert counted >= sum(len(e.text) for e in ledger) * 2
    constraints.UPDATES.clear()
