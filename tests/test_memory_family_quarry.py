"""The held-out ``quarry`` family's generator (benchmarks/memory_family_quarry.py), checked against the
text it writes: a test of the GENERATOR, not of the ledger (nothing here reads a session with the
ledger or compacts one: only the lead runs ``bench_memory.py --family quarry``)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_quarry_text as T
from contextwindow.messages import dumps
from contextwindow.tokens import counter_for
from memory_family_quarry import CARRIERS, FORMS, VOICES, QuarryPlant, QuarrySession, generate
from memory_quarry_values import found

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(20_000, 20_024)  # what `bench_memory.py --family quarry --sessions 24` would run

#: words that make a sentence of each kind what it is (read here, from the sentences written)
SAFETY_WORDS = ("never", "do not", "don't", "nowhere else", "off limits", "stay out", "nothing lands", "no public")
BOUND_WORDS = ("must", "at most", "at least", "under", "below", "cap", "max", "limit", "more than", "longer than", "or less",
               "budget", "can't go over", "has to", "minimum", "don't change", "run longer")
LIKE_WORDS = ("prefer", "rather", "like", "please")


@pytest.fixture(scope="module")
def sessions() -> list[QuarrySession]:
    return [generate(s) for s in SEEDS]


def _plants(g: QuarrySession) -> list[QuarryPlant]:
    return [p for p in g.plants if isinstance(p, QuarryPlant)]


def _where(g: QuarrySession, value: str) -> list[int]:
    return [i for i, m in enumerate(g.messages) if found(value, m.text)]


def _shape(value: str) -> str:
    return re.sub(r"\d+", "#", value)


def test_seeded_and_deterministic() -> None:
    a, b, c = generate(20_000), generate(20_000), generate(20_001)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [vars(p) for p in a.plants] == [vars(p) for p in b.plants]
    assert [dumps(m) for m in a.messages] != [dumps(m) for m in c.messages]
    assert a.family == "quarry" and a.seed == 20_000


def test_every_value_is_exactly_where_the_generator_says(sessions: list[QuarrySession]) -> None:
    for g in sessions:
        values = {v for p in _plants(g) for v in p.said} | set(g.distractors) | set(g.traps)
        assert values <= set(g.mentions)
        for v in values:
            assert _where(g, v) == g.mentions[v], (g.seed, v)
        assert not [(a, b) for a in values for b in values if a != b and found(a, b)], g.seed
        assert not (set(g.distractors) | set(g.traps)) & {v for p in _plants(g) for v in p.said}


def test_current_and_superseded_values_agree_with_the_text(sessions: list[QuarrySession]) -> None:
    for g in sessions:
        for p in _plants(g):
            n = len(p.forms)
            assert p.value == p.said[-1] and len(p.said) == len(p.said_at) == n + 1 == len(p.carriers) + 1 == len(p.moves) + 1 == len(p.texts) + 1
            assert p.said_at == sorted(p.said_at)
            for v, at in zip(p.said, p.said_at, strict=True):
                assert found(v, g.messages[at].text) and g.messages[at].role == "user", (g.seed, p.subject, v)
            assert found(p.said[0], p.statement)
            # superseded: every value the user set and later replaced, never the one in force
            assert set(p.stale) == set(p.said) - {p.value} and len(p.stale) == len(set(p.stale)) == len(p.stale_at)
            for v, at in zip(p.stale, p.stale_at, strict=True):
                k = max(i for i in range(1, len(p.said)) if p.said[i - 1] == v)
                assert at == p.said_at[k] and p.said[k] != v
                assert max(g.mentions[v]) <= at, (g.seed, p.subject, v)  # never said again after its update
            for k, form in enumerate(p.forms, start=1):
                old, new, text = p.said[k - 1], p.said[k], p.texts[k - 1]
                assert old != new and found(new, text), (g.seed, p.subject, form, text)
                if form == "correct_named":
                    assert found(old, text)
                if form == "revert":
                    assert new == p.said[0] and k == len(p.forms)
                if form == "units":
                    assert _shape(new) != _shape(old), (old, new)
                if form == "rel":
                    assert p.moves[k - 1] != 0
                if p.carriers[k - 1] == "same":
                    assert p.said_at[k] == p.said_at[k - 1] and form in ("correct", "correct_named")


def test_kinds_agree_with_the_sentences(sessions: list[QuarrySession]) -> None:
    seen: Counter[str] = Counter()
    for g in sessions:
        for p in _plants(g):
            low = p.statement.lower().replace("teh ", "the ")
            seen[p.kind] += 1
            if p.kind == "goal":
                assert p.said_at[0] in (0, 1) and found(p.said[0], g.messages[p.said_at[0]].text)
            elif p.kind == "safety":
                assert any(w in low for w in SAFETY_WORDS), low
            elif p.kind == "constraint":
                assert any(w in low for w in BOUND_WORDS), low
            elif p.kind == "preference":
                assert any(w in low for w in LIKE_WORDS), low
            else:
                assert not any(w in low for w in SAFETY_WORDS), low
            if p.kind == "safety":
                assert set(p.forms) <= {"correct", "correct_named"} and len(p.forms) <= 1
    assert all(seen[k] for k in ("goal", "safety", "constraint", "preference", "fact"))


def test_updates_move_the_way_their_words_say(sessions: list[QuarrySession]) -> None:
    moved = 0
    for g in sessions:
        for p in _plants(g):
            for k, move in enumerate(p.moves, start=1):
                text = p.texts[k - 1].lower()
                up = any(w in text for w in T.HIGHER)
                down = any(w in text for w in T.LOWER)
                if move == 0:
                    continue
                moved += 1
                a, b = p.mags[k - 1], p.mags[k]
                assert a is not None and b is not None
                assert (b > a) == (move > 0) and (up if move > 0 else down), (g.seed, p.subject, text, a, b)
    assert moved > 20


def test_traps_and_harness_blocks_stay_out_of_the_user_words(sessions: list[QuarrySession]) -> None:
    for g in sessions:
        planted = {v for p in _plants(g) for v in p.said}
        for i, m in enumerate(g.messages):
            if m.role == "tool":
                assert not [v for v in planted if found(v, m.text)], (g.seed, i)
        for v, at in zip(g.traps, g.trap_at, strict=True):
            assert g.mentions[v] == [at]
            m = g.messages[at]
            if m.role == "user":
                block = re.search(r"<system-reminder>.*?</system-reminder>", m.text, re.S)
                assert block and found(v, block.group(0)) and not found(v, m.text.replace(block.group(0), ""))
            else:
                assert m.role == "tool" and "You must" in m.text
        assert set(g.trap_subject) <= {p.subject for p in _plants(g)}
    assert sum(len(g.traps) for g in sessions) >= len(sessions)
    envs = [g for g in sessions if any("<environment_context>" in m.text for m in g.messages)]
    assert len(sessions) // 2 <= len(envs) < len(sessions)


def test_pairs_are_different_subjects_sharing_words(sessions: list[QuarrySession]) -> None:
    for g in sessions:
        by_pair: dict[int, list[QuarryPlant]] = {}
        for p in _plants(g):
            if p.pair is not None:
                by_pair.setdefault(p.pair, []).append(p)
        assert by_pair or g.short
        for a, b in by_pair.values():
            assert a.noun != b.noun and a.value != b.value
            shared = set(a.noun.lower().split()) & set(b.noun.lower().split()) - {"the"}
            assert shared, (a.noun, b.noun)


def test_structure_varies(sessions: list[QuarrySession]) -> None:
    forms = Counter(f for g in sessions for p in _plants(g) for f in p.forms)
    carriers = Counter(c for g in sessions for p in _plants(g) for c in p.carriers)
    assert set(forms) - {"goal"} == set(FORMS) and set(carriers) == set(CARRIERS), (forms, carriers)
    assert {g.voice for g in sessions} == set(VOICES)
    counter = counter_for(None)
    short = [g for g in sessions if g.short]
    assert len(sessions) // 6 <= len(short) <= len(sessions) // 3
    for g in short:  # rule-heavy: many statements in few tokens
        assert len(g.plants) >= 12 and counter.count_messages(g.messages) < 3_000
        assert sum(p.kind in ("safety", "constraint") for p in g.plants) >= 6
    far = [p for g in sessions for p in _plants(g) for a, b in zip(p.said_at, p.said_at[1:], strict=False) if b - a >= 40]
    assert len(far) >= 10  # updates many turns after what they update
    assert all(g.distractors for g in sessions if not g.short)
    echoes = [g for g in sessions if any(m.role == "assistant" and any(found(p.value, m.text) for p in _plants(g)) for m in g.messages)]
    assert len(echoes) > len(sessions) // 2
    assert any(p.kind == "goal" and p.stale for g in sessions for p in g.plants)
    names = {v for g in sessions for p in _plants(g) if p.vtype == "person" for v in p.said}
    assert any(not n.isascii() for n in names)


def test_registered_held_out() -> None:
    import bench_memory

    assert "quarry" in bench_memory.FAMILIES and "quarry" not in bench_memory.TUNING
    assert bench_memory.family_names("quarry") == ("quarry",)
    assert "quarry" not in bench_memory.family_names("all") and "quarry" not in bench_memory.family_names("tuning")


def test_its_sentences_are_its_own() -> None:
    """No template of ``quarry`` is one of the other families' (placeholders aside, case and final stop ignored)."""

    def norm(t: str) -> str:
        return re.sub(r"\{\w+\}", "{}", t).lower().strip(" .!")

    theirs: set[str] = set()
    for name in ("memory_sessions.py", "memory_probe8.py", "memory_field_text.py", "memory_ridge_text.py"):
        path = BENCH / name
        if path.exists():
            src = path.read_text(encoding="utf-8")
            theirs |= {norm(x) for x in re.findall(r'"([^"]*)"', src) + re.findall(r"'([^']*)'", src)}
    ours = [t for d in T.DOMAINS.values() for s in d for t in s.plant]
    ours += [t for ps in T.PAIRS.values() for p in ps for t in (*p.joint, *p.one)]
    ours += [t for ts in (*T.PARA.values(), *T.OTHER.values()) for t in ts]
    ours += [*T.GOAL_OPEN, *T.GOAL_UPDATE, *T.UP, *T.DOWN, *T.LATER, *T.EARLIER, *T.CORRECT, *T.CORRECT_NAMED, *T.IMPLIED,
             *T.REL_UP, *T.REL_DOWN, *T.REL_LATER, *T.REL_EARLIER, *T.REVERT, *T.ASK, *T.QUOTE, *T.LIST_LEAD, *T.CODE_LEAD,
             *T.REPEAT, *T.ECHO, *T.QUESTIONS, *T.CHATTER, *T.TASKS, *T.RAMBLE, *T.ACKS, *T.DONE]
    assert len(ours) > 150
    assert [t for t in ours if len(norm(t)) > 4 and norm(t) in theirs] == []
