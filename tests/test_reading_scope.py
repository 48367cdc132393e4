"""folding/scoped.py: one ledger update types each clause's values once. The ledger is the same
with and without the scope (seeded sessions of rules, values and restatements; the user messages of
the real transcripts), the scope answers each text once, hands out fresh lists, and keeps nothing
after it ends."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from contextwindow.folding import constraints as ledger_mod
from contextwindow.folding import ledger as _ledger
from contextwindow.folding.clauses import find_values
from contextwindow.folding.scoped import kept_in_scope, reading_scope

SUBJECTS = ["the frontend release", "the API rate limit", "the staging database", "our on-call rotation", "the Q3 budget", "the deploy window"]
VALUES = ["May 2", "June 14th", "$3,100", "500 requests per minute", "v2.4.1", "/srv/app/config.yaml", "Dana", "Luca Rossi", "3pm UTC", "PROJ-142"]
RULES = ["Never push to main without a review.", "Always run the tests before committing.", "Don't touch the migrations folder.",
         "Keep responses under 200 words.", "I'd rather you use tabs.", "You must not delete files in /data."]
UPDATES = ["{S} moved to {v}.", "Actually, {s} is now {v}.", "{S} slipped to {v} instead.", "We changed {s} to {v}; also, {s2} is {v2}."]


def _session(seed: int) -> list[str]:
    rng = random.Random(seed)
    out = [f"I need {rng.choice(SUBJECTS)} ready by {rng.choice(VALUES)}. " + " ".join(rng.sample(RULES, 2))]
    for _ in range(rng.randint(4, 12)):
        s, s2 = rng.sample(SUBJECTS, 2)
        parts = []
        for _ in range(rng.randint(1, 4)):
            t = rng.choice([*UPDATES, "{S} is {v}.", rng.choice(RULES), "Thanks, looks good.", "Can you check {s}?"])
            parts.append(t.format(S=s[:1].upper() + s[1:], s=s, v=rng.choice(VALUES), s2=s2, v2=rng.choice(VALUES)))
        out.append(" ".join(parts))
    return out


def _both(texts: list[str]) -> tuple[list[ledger_mod.Constraint], list[ledger_mod.Constraint]]:
    scoped: list[ledger_mod.Constraint] = []
    plain: list[ledger_mod.Constraint] = []
    for t in texts:
        scoped = ledger_mod.update(scoped, t, source=str(len(scoped)))
        plain = _ledger.update(plain, t, source=str(len(plain)))  # the same reading, no scope
    return scoped, plain  # compared as entries, every field


@pytest.mark.parametrize("seed", range(20))
def test_a_seeded_session_reads_the_same_ledger_in_a_scope(seed: int) -> None:
    scoped, plain = _both(_session(seed))
    assert scoped == plain
    assert plain, "the session states something"


def test_real_user_messages_read_the_same_ledger_in_a_scope(transcripts_dir: Path) -> None:
    from contextwindow.importers import load_all

    entries = 0
    for f in sorted(transcripts_dir.glob("*/*")):
        for s in load_all(f):
            texts = [w for w in (ledger_mod.user_words(m) for m in s.messages) if w is not None]
            scoped, plain = _both(texts)
            assert scoped == plain, f.name
            entries += len(plain)
    assert entries > 100


def test_the_scope_answers_each_text_once_with_fresh_lists() -> None:
    calls: list[str] = []

    @kept_in_scope
    def words(text: str) -> list[str]:
        calls.append(text)
        return text.split()

    with reading_scope():
        a = words("a b c")
        a.append("changed")
        assert words("a b c") == ["a", "b", "c"]
        assert words("d") == ["d"]
    assert calls == ["a b c", "d"]
    words("a b c")  # outside a scope nothing is kept
    with reading_scope():
        words("a b c")  # a new scope starts empty
    assert calls == ["a b c", "d", "a b c", "a b c"]


def test_find_values_is_the_same_in_and_out_of_a_scope() -> None:
    text = "The Q3 budget moved to $3,100 on May 2 (PROJ-142), Dana owns v2.4.1 at /srv/app/config.yaml."
    outside = find_values(text)
    with reading_scope():
        assert find_values(text) == outside
        assert find_values(text) == outside
    assert [v.kind for v in outside].count("money") == 1
