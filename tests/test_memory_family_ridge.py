"""The held-out ``ridge`` family's generator (benchmarks/memory_family_ridge.py), checked against the
text it writes: a test of the generator, not of the ledger (nothing here reads a session with the
ledger or compacts one: only the lead runs ``bench_memory.py --family ridge``)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_ridge_text as T
from contextwindow.messages import dumps
from memory_family_ridge import CARRIERS, FORMS, RidgePlant, RidgeSession, direction, generate
from memory_ridge_values import found

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(19_000, 19_024)  # what `bench_memory.py --family ridge --sessions 24` would run


@pytest.fixture(scope="module")
def sessions() -> list[RidgeSession]:
    return [generate(s) for s in SEEDS]


def _plants(g: RidgeSession) -> list[RidgePlant]:
    return [p for p in g.plants if isinstance(p, RidgePlant)]


def _where(g: RidgeSession, value: str) -> list[int]:
    return [i for i, m in enumerate(g.messages) if found(value, m.text)]


def test_seeded_and_deterministic() -> None:
    a, b, c = generate(19_000), generate(19_000), generate(19_001)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [vars(p) for p in a.plants] == [vars(p) for p in b.plants]
    assert [dumps(m) for m in a.messages] != [dumps(m) for m in c.messages]
    assert a.family == "ridge" and a.seed == 19_000


def test_every_value_is_exactly_where_the_generator_says(sessions: list[RidgeSession]) -> None:
    for g in sessions:
        values = {v for p in _plants(g) for v in p.said} | set(g.distractors) | set(g.traps)
        assert values <= set(g.mentions)
        for v in values:
            assert _where(g, v) == sorted(set(g.mentions[v])), (g.seed, v)
        # unique: no value is found inside another
        assert not [(a, b) for a in values for b in values if a != b and found(a, b)], g.seed


def test_current_and_superseded_values_agree_with_the_text(sessions: list[RidgeSession]) -> None:
    for g in sessions:
        for p in _plants(g):
            assert p.value == p.said[-1] and len(p.said) == len(p.forms) + 1 == len(p.update_at) + 1 == len(p.meanings)
            assert found(p.said[0], g.messages[p.said_at].text) and found(p.said[0], p.statement)
            assert p.update_at == sorted(p.update_at) and all(a >= p.said_at for a in p.update_at)
            for k, (at, text) in enumerate(zip(p.update_at, p.update_texts, strict=True)):
                assert found(p.said[k + 1], text) and text in g.messages[at].text, (g.seed, text)
            # stale: every value said that is not the current one, replaced in the message after it
            assert set(p.stale) == set(p.said) - {p.value} and p.value not in p.stale
            for v, at in zip(p.stale, p.stale_at, strict=True):
                k = p.said.index(v)
                assert at == p.update_at[k]
                # never said again after its update, except by the correction that names it there
                assert max(g.mentions[v]) <= at, (g.seed, v)
                if found(v, g.messages[at].text):
                    assert p.forms[k] in ("correct_named", "same"), (g.seed, v)
            if "revert" in p.forms:
                assert p.forms[-1] == "revert" and p.value == p.said[0] and len(p.said) >= 3


def test_kinds_agree_with_the_sentences(sessions: list[RidgeSession]) -> None:
    def matches(template: str, text: str) -> bool:
        parts = re.split(r"\{\w+\}", template)
        return re.search(".+?".join(re.escape(x) for x in parts), text) is not None

    for g in sessions:
        kinds = Counter(p.kind for p in _plants(g))
        assert kinds["goal"] == 1 and 2 <= kinds["safety"] <= 3 and 3 <= kinds["constraint"] <= 4 and 2 <= kinds["preference"] <= 3
        for p in _plants(g):
            if p.kind == "goal":
                assert p.said_at == next(i for i, m in enumerate(g.messages) if m.role == "user" and m.text != T.ENV_BLOCK)
                assert any(matches(t, p.statement) for t in T.GOAL_OPEN)
                continue
            slot = T.SLOT[p.slot]
            assert slot.kind == p.kind and p.subject == slot.names[0]
            assert any(matches(t, p.statement) for t in slot.plant), p.statement
            if p.kind == "safety":
                assert len(p.forms) <= 1 and set(p.forms) <= {"correct", "correct_named"}


def test_updates_move_the_way_their_words_say(sessions: list[RidgeSession]) -> None:
    checked = Counter[str]()
    for g in sessions:
        for p in _plants(g):
            for k, form in enumerate(p.forms):
                old, new = p.meanings[k], p.meanings[k + 1]
                said = direction(p.update_texts[k]) if form != "same" else 0
                if said and old is not None and new is not None:
                    assert (new - old) * said > 0, (g.seed, p.update_texts[k])
                    checked["direction"] += 1
                if form == "rel":
                    assert said != 0 and old is not None and new is not None
                if form == "units":
                    assert p.formats[k + 1] != p.formats[k], (g.seed, p.said)
                    checked["units"] += 1
                if form == "revert":
                    assert p.said[k + 1] == p.said[0]
                if form == "correct_named":
                    assert found(p.said[k], p.update_texts[k])
    assert checked["direction"] > 50 and checked["units"] > 10


def test_traps_and_harness_blocks_stay_out_of_the_user_words(sessions: list[RidgeSession]) -> None:
    for g in sessions:
        planted = {v for p in _plants(g) for v in p.said}
        for m in g.messages:
            if m.role == "tool":
                assert not [v for v in planted if found(v, m.text)], g.seed  # no planted value in tool output
        by_slot = {p.slot: p for p in _plants(g)}
        for v, at, slot in zip(g.traps, g.trap_at, g.trap_slots, strict=True):
            m = g.messages[at]
            assert g.mentions[v] == [at] and at > by_slot[slot].said_at
            assert (m.role == "tool" and "You must" in m.text) or (m.role == "user" and m.text.startswith("<system-reminder>"))
            assert T.SLOT[slot].names[0].lower() in m.text.lower()  # it names the planted subject: read as the user's, it would replace the value
    assert sum(1 for g in sessions for m in g.messages if m.role == "user" and "<environment_context>" in m.text) >= len(sessions) // 2


def test_pairs_are_different_subjects_sharing_words(sessions: list[RidgeSession]) -> None:
    for g in sessions:
        pairs: dict[int, list[RidgePlant]] = {}
        for p in _plants(g):
            if p.pair is not None:
                pairs.setdefault(p.pair, []).append(p)
        assert len(pairs) == 2
        for a, b in pairs.values():
            wa, wb = set(a.subject.split()), set(b.subject.split())
            assert a.slot != b.slot and T.SLOT[a.slot].pair == b.slot and wa & wb - {"the", "of"} and wa != wb


def test_structure_varies(sessions: list[RidgeSession]) -> None:
    forms = Counter(f for g in sessions for p in _plants(g) for f in p.forms)
    carriers = Counter(c for g in sessions for p in _plants(g) for c, f in zip(p.carriers, p.forms, strict=True) if f != "same")
    assert set(forms) == set(FORMS) and all(n >= 5 for n in forms.values()), forms
    assert set(carriers) == set(CARRIERS) and all(n >= 3 for n in carriers.values()), carriers
    updates = Counter(len(p.forms) for g in sessions for p in _plants(g) if p.kind != "goal")
    assert all(updates[n] for n in range(4))
    gaps = [b - a for g in sessions for p in _plants(g) for a, b in zip([p.said_at, *p.update_at], p.update_at, strict=False)]
    assert min(gaps) == 0 and max(gaps) > 60  # the same message … far later
    assert all(g.distractors for g in sessions)
    assert any(len(set(g.mentions[p.value])) > 1 + len(p.stale) for g in sessions for p in _plants(g) if p.kind != "goal")  # repeats, echoes
    echoes = [g for g in sessions if any(m.role == "assistant" and any(found(p.value, m.text) for p in _plants(g)) for m in g.messages)]
    assert len(echoes) > len(sessions) // 2


def test_registered_held_out() -> None:
    import bench_memory

    assert "ridge" in bench_memory.FAMILIES and "ridge" not in bench_memory.TUNING
    assert bench_memory.family_names("ridge") == ("ridge",)
    assert "ridge" not in bench_memory.family_names("all") and "ridge" not in bench_memory.family_names("tuning")


def test_its_sentences_are_its_own() -> None:
    """No template of ``ridge`` is one of the other families' (placeholders aside, case and final stop ignored)."""

    def norm(t: str) -> str:
        return re.sub(r"\{\w+\}", "{}", t).lower().strip(" .!")

    theirs: set[str] = set()
    for name in ("memory_sessions.py", "memory_probe8.py", "memory_field_text.py"):
        path = BENCH / name
        if path.exists():
            src = path.read_text(encoding="utf-8")
            theirs |= {norm(x) for x in re.findall(r'"([^"]*)"', src) + re.findall(r"'([^']*)'", src)}
    ours = [t for s in T.SLOTS for t in (*s.plant, *s.upd)]
    for group in (T.PARA, T.IT, T.OTHER):
        ours += [t for ts in group.values() for t in ts]
    ours += [*T.GOAL_OPEN, *T.GOAL_UPDATE, *T.INTRO, *T.IT_NUMBER, *T.CORRECT, *T.CORRECT_NAMED, *T.REVERT, *T.REL_UP, *T.REL_DOWN,
             *T.REL_LATER, *T.REL_EARLIER, *T.SAME, *T.ASK, *T.CODE_LEAD, *T.QUOTE, *T.LIST_LEADS, *T.REPEAT, *T.ECHO, *T.QUESTIONS,
             *T.CHATTER, *T.TASKS, *T.NARRATIVE, *T.ACKS]
    assert len(ours) > 150
    assert [t for t in ours if norm(t) in theirs] == []
