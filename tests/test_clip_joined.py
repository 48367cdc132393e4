"""A clip's final text (body, newline, marker) counted from its pieces (clipping/measure.py
``safe_count_joined``, the Session's ``CounterCount``): the same clip, byte for byte and token for
token, as with a count that reads every text whole — on seeded texts of every kind the router
sniffs, at budgets that make it re-run, for the estimator and an exact tokenizer, and for bodies
too short for the estimator's feature memo."""

from __future__ import annotations

import random

import pytest

from contextwindow.clipping import MemoryOffload, clip
from contextwindow.clipping.measure import safe_count, safe_count_joined
from contextwindow.tokens import counter_for
from contextwindow.tokens.estimate import Estimator
from contextwindow.tokens.memo import CounterCount


def _numbered(rng: random.Random) -> str:
    return "\n".join(f"{i + 1:>6}→    y = x * {rng.randint(0, 99)}  # {'w' * rng.randint(0, 60)}" for i in range(rng.randint(200, 700)))


def _log(rng: random.Random) -> str:
    out = [f"2026-01-01 10:00:{i % 60:02d} INFO step {i} {'x' * rng.randint(0, 80)}" for i in range(rng.randint(300, 900))]
    out.insert(rng.randrange(len(out)), "Traceback (most recent call last):\n  File \"a.py\", line 3, in f\nValueError: bad")
    return "\n".join(out)


def _search(rng: random.Random) -> str:
    return "\n".join(f"src/pkg{rng.randint(0, 9)}/mod{rng.randint(0, 40)}.py:{rng.randint(1, 900)}:    v = f({rng.randint(0, 10**6)})" for _ in range(rng.randint(200, 800)))


def _json(rng: random.Random) -> str:
    import json

    return json.dumps({"items": [{"id": i, "name": "n" * rng.randint(1, 40), "tags": ["a", "b"]} for i in range(rng.randint(100, 400))]})


def _prose(rng: random.Random) -> str:  # one long line: the character clipper
    return " ".join(rng.choice(["alpha", "Beta", "gamma42", "δέλτα", "naïve", "x=1;", "{}"]) for _ in range(rng.randint(3000, 6000)))


MAKERS = [_numbered, _log, _search, _json, _prose]


class WholeCount:
    """The counter's count with no ``joined``: every text read whole (what a clip did before)."""

    def __init__(self, counter: object) -> None:
        self.counter = counter
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return self.counter.count_text(text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gpt-4o"])
@pytest.mark.parametrize("seed", range(4))
def test_joined_clip_equals_the_whole_count(model: str, seed: int) -> None:
    rng = random.Random(seed)
    for make in MAKERS:
        text = make(rng)
        for budget in (40, 300, 1_000, 2_500):
            counter = counter_for(model)
            counter.forget_memos()
            joined = clip(text, budget, sink=MemoryOffload(), count=CounterCount(counter))
            counter.forget_memos()
            whole = clip(text, budget, sink=MemoryOffload(), count=WholeCount(counter))
            assert joined.text == whole.text
            assert joined.report == whole.report
            assert joined.report.tokens_after == counter.count_text(joined.text)


def test_the_final_text_is_counted_from_its_pieces() -> None:
    """With the estimator, the body counted while it was fitted is not read again for the final
    text: only the marker is (the check fails when finish counts the joined text whole)."""
    read: list[int] = []

    class Probe(Estimator):  # an estimator that says which texts it reads
        def features(self, text: str):  # type: ignore[no-untyped-def]
            read.append(len(text))
            return super().features(text)

    est = Probe("anthropic")
    text = _log(random.Random(7))
    out = clip(text, 800, count=CounterCount(est))
    body = out.text.rsplit("\n", 1)[0]
    assert out.report.clipped
    assert read.count(len(out.text)) == 0, "the final text was read whole"
    assert read.count(len(body)) >= 1
    assert est.count_text(out.text) == out.report.tokens_after == Estimator("anthropic").count_text(out.text)


def test_joined_count_falls_back_like_safe_count() -> None:
    class Broken:
        def __call__(self, text: str) -> int:
            raise ValueError("no")

        def joined(self, text: str, pieces: object) -> int:
            raise ValueError("no")

    assert safe_count_joined(Broken(), "abcd" * 10, ["abcd" * 5, "abcd" * 5]) == safe_count(Broken(), "abcd" * 10)
    assert safe_count_joined(len, "abc\ndef", ["abc", "\ndef"]) == 7  # a plain callable is read whole


def test_counter_count_without_memo_or_joined() -> None:
    class Plain:
        def count_text(self, text: str) -> int:
            return len(text.split())

    c = CounterCount(Plain())
    assert c("a b c") == 3 and c.joined("a b\nc", ["a b", "\nc"]) == 3
