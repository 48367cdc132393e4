"""The held-out ``moss`` family's generator (benchmarks/memory_family_moss.py), checked against the text
it writes: a test of the GENERATOR, not of the ledger (nothing here reads a session with the ledger or
compacts one: only the lead runs ``bench_memory.py --family moss``)."""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_moss_text as T
import memory_moss_world as W
from contextwindow.messages import ToolResultPart, dumps
from contextwindow.tokens import counter_for
from memory_family_moss import SEED_BASE, MossPlant, MossSession, consistent, generate
from memory_moss_values import Q, Values, found, relative_day

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(SEED_BASE, SEED_BASE + 30)  # bench_memory.py runs the first 12 (--sessions 12)
HARNESS = re.compile(r"<environment_context>.*?</environment_context>|<system-reminder>.*?</system-reminder>", re.DOTALL)


@pytest.fixture(scope="module")
def sessions() -> list[MossSession]:
    return [generate(s) for s in SEEDS]


def _plants(g: MossSession) -> list[MossPlant]:
    return [p for p in g.plants if isinstance(p, MossPlant)]


def _updates(p: MossPlant) -> list[tuple[int, str, str]]:
    """(index in ``p.said``, form, sentence) of the first statement and each update (floated values skipped)."""
    ks = [k for k, f in enumerate(p.forms) if f != "floated"]
    assert len(ks) == len(p.texts)
    return [(k, p.forms[k], text) for k, text in zip(ks, p.texts, strict=True)]


def _user_words(text: str) -> str:
    return HARNESS.sub("", text)


def test_seeded_and_deterministic() -> None:
    a, b, c = generate(SEED_BASE + 5), generate(SEED_BASE + 5), generate(SEED_BASE + 6)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [(p.value, p.stale, p.stale_at, p.kind) for p in a.plants] == [(p.value, p.stale, p.stale_at, p.kind) for p in b.plants]
    assert (a.traps, a.distractors) == (b.traps, b.distractors)
    assert [m.text for m in a.messages] != [m.text for m in c.messages]


def test_every_value_is_exactly_where_the_generator_says(sessions: list[MossSession]) -> None:
    for g in sessions:
        assert consistent(g)
        tracked = set(g.mentions)
        assert {v for p in _plants(g) for v in p.said} | set(g.distractors) | set(g.traps) == tracked
        for p in _plants(g):
            for v, at in zip(p.said, p.said_at, strict=True):
                assert found(v, g.messages[at].text), (g.seed, p.subject, v, at)
                assert g.messages[at].role == "user" and not g.messages[at].is_tool_result
                assert found(v, _user_words(g.messages[at].text))  # said by the user, not by a harness block
        # every value belongs to one subject only, and no planted value is a distractor or a trap
        owners: dict[str, set[str]] = {}
        for p in _plants(g):
            for v in p.said:
                owners.setdefault(v.lower(), set()).add(p.subject)
        assert all(len(s) == 1 for s in owners.values())
        others = [d.lower() for d in (*g.distractors, *g.traps)]
        assert len(set(others)) == len(others) and not set(owners) & set(others)


def test_current_and_superseded_values_agree_with_the_text(sessions: list[MossSession]) -> None:
    for g in sessions:
        for p in _plants(g):
            assert p.value == p.said[-1] and p.forms[-1] != "floated"
            assert p.said_at == sorted(p.said_at)
            assert p.stale == [v for v in dict.fromkeys(p.said) if v != p.value]
            for v, at in zip(p.stale, p.stale_at, strict=True):
                last = max(k for k, x in enumerate(p.said) if x == v)
                assert at == p.said_at[last + 1]  # superseded by the next value said
            for k, f in enumerate(p.forms):
                if f == "floated":  # floated and dropped in the same sentence
                    assert p.said_at[k + 1] == p.said_at[k] and p.forms[k + 1] != "floated"
            # a value is only ever said (by anyone) while it is in force, or in the message that replaces it
            for v in dict.fromkeys(p.said):
                for i in g.mentions[v]:
                    in_force = [x for x, at in zip(p.said, p.said_at, strict=True) if at <= i]
                    replaced_here = any(p.said[k] == v and p.said_at[k + 1] == i for k in range(len(p.said) - 1))
                    assert (in_force and in_force[-1] == v) or replaced_here, (g.seed, p.subject, v, i)
            # a superseded value is never said after the message that superseded it
            for v, at in zip(p.stale, p.stale_at, strict=True):
                assert max(g.mentions[v]) <= at, (g.seed, p.subject, v)


def test_updates_are_worded_as_their_form_says(sessions: list[MossSession]) -> None:
    seen: Counter[str] = Counter()
    for g in sessions:
        for p in _plants(g):
            for k, form, text in _updates(p):
                seen[form] += 1
                assert found(p.said[k], text), (g.seed, p.subject, form, text)
                assert text in g.messages[p.said_at[k]].text
                low = text.lower()
                if form == "first":
                    continue
                old = p.said[k - 1] if p.forms[k - 1] != "floated" else p.said[k - 2]
                named_old = found(old, text)
                assert named_old == (form in (*T.NAMES_OLD, "goal")), (g.seed, form, text)
                words = {"moved": ("moved",), "now": ("now",), "instead": ("instead of",), "no_longer": ("no longer",),
                         "pointback": ("earlier", "at the start"), "correct": ("correction", "wrong"), "revert": ("back to", "original"),
                         "hedged": ("maybe", "perhaps"), "table": ("| what | value |",), "quoted": ("says",), "second": ("you'll",),
                         "goal": ("instead", "forget", "drop")}.get(form)
                if words:
                    assert any(w in low for w in words), (form, text)
                if form == "hedged":
                    assert p.forms[k - 1] == "floated" and found(p.said[k - 1], text)
                if form == "revert":
                    first = next(x for x, f in zip(p.said, p.forms, strict=True) if f == "first")
                    assert p.said[k] == first and p.said[k - 1] != first
                if form == "relative":
                    new, was = p.mags[k], p.mags[k - 1]
                    assert new is not None and was is not None
                    if p.vtype == "date":
                        shift = next(d for d, ph in T.SHIFTS if ph.format(n=p.noun).lower() in low)
                        assert new - was == shift
                        assert (shift > 0) == any(w in low for w in ("later", "back", "slip"))
                    else:
                        factor = next(f for f, ph in T.RATIOS if ph.format(n=p.noun).lower() in low)
                        assert new == pytest.approx(was * factor)
                        assert (factor > 1) == any(w in low for w in ("double", "raise", "triple"))
    assert set(seen) >= {"first", "goal", *T.UPDATE_FORMS}, seen


def test_kinds_agree_with_the_sentences(sessions: list[MossSession]) -> None:
    subjects = {f"{sit.key}.{s.key}": s for sit in W.SITUATIONS for s in sit.subjects}
    for g in sessions:
        kinds = Counter(p.kind for p in _plants(g))
        assert kinds["goal"] == 1 and kinds["safety"] >= 3 and kinds["constraint"] >= 3 and kinds["preference"] >= 1
        for p in _plants(g):
            first = p.texts[0].lower()
            if p.subject in subjects:
                s = subjects[p.subject]
                assert s.kind == p.kind and s.q.vtype == p.vtype
            if p.kind == "goal":
                opening = next(m for m in g.messages if m.role == "user" and not m.text.startswith("<environment_context>"))
                assert found(p.said[0], opening.text) and p.said_at[0] == g.messages.index(opening)
            elif p.kind == "safety":
                assert any(w in first for w in T.RULE_WORDS), first
                assert "maybe" not in first  # a safety rule is never hedged
            elif p.kind == "constraint":
                assert any(w in first for w in T.BOUND_WORDS), first
            elif p.kind == "preference":
                assert any(w in first for w in T.PREF_WORDS), first


def test_traps_and_harness_blocks_stay_out_of_the_user_words(sessions: list[MossSession]) -> None:
    planted = 0
    for g in sessions:
        subjects = {p.subject: p for p in _plants(g)}
        assert len(g.traps) == len(g.trap_subject) == len(g.trap_at) >= 2
        for w, subj, at in zip(g.traps, g.trap_subject, g.trap_at, strict=True):
            planted += 1
            assert g.mentions[w] == [at]
            m = g.messages[at]
            if m.is_tool_result:
                assert any(isinstance(part, ToolResultPart) and part.name == "read_file" for part in m.parts)
            else:
                assert found(w, "\n".join(HARNESS.findall(m.text))) and not found(w, _user_words(m.text))
            p = subjects[subj]
            assert p.said_at[0] < at  # the trap comes after the user stated the subject
            assert T.bare(p.noun).lower() in m.text.lower()
        # no planted value in tool output or a harness block
        for p in _plants(g):
            for v in p.said:
                for i in g.mentions[v]:
                    assert not g.messages[i].is_tool_result
                    assert not found(v, "\n".join(HARNESS.findall(g.messages[i].text)))
    assert planted >= 70


def test_pairs_are_different_subjects_sharing_words(sessions: list[MossSession]) -> None:
    for g in sessions:
        pair = [p for p in _plants(g) if p.pair is not None]
        assert len(pair) == 2
        (a, b) = pair
        shared = a.subject.split(" ", 1)[1]
        assert b.subject.split(" ", 1)[1] == shared and a.subject != b.subject
        assert a.noun.endswith(shared) and b.noun.endswith(shared) and a.value != b.value


def test_misquotes_are_corrected_and_echoes_say_the_value_in_force(sessions: list[MossSession]) -> None:
    for g in sessions:
        for i, m in enumerate(g.messages):
            if m.role != "assistant" or not m.text:
                continue
            for p in _plants(g):
                in_force = [x for x, at in zip(p.said, p.said_at, strict=True) if at < i]
                for v in p.said:
                    if found(v, m.text):
                        assert in_force and in_force[-1] == v  # the assistant echoes only the value in force
            if m.text.endswith("right?"):
                misquoted = [d for d in g.distractors if found(d, m.text)]
                nxt = next(n for n in g.messages[i + 1 :] if n.role == "user" and not n.text.startswith("<environment_context>"))
                assert misquoted and all(found(w, nxt.text) for w in misquoted) and re.search(r"\bnot\b|\bwrong\b", nxt.text.lower())


def test_relaxed_rules_still_bind(sessions: list[MossSession]) -> None:
    relaxed = 0
    for g in sessions:
        for p in _plants(g):
            if p.relaxed_at is None:
                continue
            relaxed += 1
            assert p.kind == "safety" and p.said_at[0] < p.relaxed_at
            text = g.messages[p.relaxed_at].text
            assert p.noun in text and not any(found(v, text) for v in p.said)  # the exception changes no value
            assert re.search(r"only|this once", text)
        if not g.short:
            assert any(p.relaxed_at is not None for p in _plants(g))
    assert relaxed >= 25


def test_structure_varies(sessions: list[MossSession]) -> None:
    counter = counter_for(None)
    short = [g for g in sessions if g.short]
    assert 0.1 <= len(short) / len(sessions) <= 0.2
    for g in sessions:
        size = counter.count_messages(g.messages)
        users = sum(1 for m in g.messages if m.role == "user" and not m.is_tool_result)
        if g.short:
            assert size < 3_500 and users <= 10
            assert sum(1 for p in _plants(g) if p.kind in ("safety", "constraint")) >= 8
        else:
            assert 14_000 < size < 30_000 and users >= 30
    assert {g.voice for g in sessions} == set(T.VOICES) and {g.voice for g in short} >= {"hedged", "quoted"}
    assert {s for g in sessions for s in g.situations} == {s.key for s in W.SITUATIONS}
    assert any(g.messages[0].text.startswith("<environment_context>") for g in sessions)
    assert any(not g.messages[0].text.startswith("<environment_context>") for g in sessions)
    texts = "\n".join(m.text for g in sessions for m in g.messages if m.role == "user")
    assert re.search(r"\n- \w+\n  - ", texts)  # nested bullets
    assert "| what | value | note |" in texts and "You'll " in texts and "... no, let's go with" in texts and "Legal says:" in texts
    assert re.search(r"(this|next) \w+day \(\w{3} \d+\)", texts)  # a relative date with its absolute day
    assert len({m.group(0)[0] for m in re.finditer(r"[$€£]\d", texts)}) >= 2  # several currencies
    results = [part for g in sessions for m in g.messages for part in m.parts if isinstance(part, ToolResultPart)]
    assert any(part.is_error for part in results) and not all(part.is_error for part in results)
    assert any("ERROR" in t and "exit status 0" in t for t in (m.text for g in sessions for m in g.messages if m.is_tool_result))
    assert any(not n.isascii() for g in sessions for p in _plants(g) if p.vtype == "name" for n in p.said)


def test_relative_days_name_the_right_weekday() -> None:
    today = dt.date(2026, 11, 24)  # a Tuesday
    assert relative_day(today, dt.date(2026, 11, 25)) == "tomorrow"
    assert relative_day(today, dt.date(2026, 11, 27)) == "this Friday"
    assert relative_day(today, dt.date(2026, 12, 4)) == "next Friday"
    assert relative_day(today, dt.date(2026, 12, 15)) == "three weeks from today"
    import random

    vals = Values(random.Random(1), today, "eur")
    v = vals.date(10, 2)
    assert (v.text, v.say) == ("Dec 4", "next Friday (Dec 4)")
    assert vals.at(Q("pct", 5, 20), 12).text in ("12%", "12 percent", "12 per cent")  # type: ignore[union-attr]
    assert vals.at(Q("pct", 5, 20), 12) is None  # a magnitude is drawn once per type


def test_registered_held_out() -> None:
    import bench_memory

    assert "moss" in bench_memory.FAMILIES and "moss" not in bench_memory.TUNING
    assert bench_memory.family_names("moss") == ("moss",)
    assert "moss" not in bench_memory.family_names("all") and "moss" not in bench_memory.family_names("tuning")


def test_its_sentences_are_its_own() -> None:
    """No string of ``moss``'s text and world modules is one of the other families' (placeholders aside,
    case and final stop ignored)."""

    def norm(t: str) -> str:
        return re.sub(r"\{\w*\}", "{}", t).lower().strip(" .!")

    def strings(path: Path) -> set[str]:
        src = path.read_text(encoding="utf-8")
        return {norm(x) for x in re.findall(r'"([^"\n]*)"', src) + re.findall(r"'([^'\n]*)'", src)}

    theirs: set[str] = set()
    for path in BENCH.glob("memory_*.py"):
        if "moss" not in path.name:
            theirs |= strings(path)
    ours = strings(BENCH / "memory_moss_text.py") | strings(BENCH / "memory_moss_world.py")
    assert len(ours) > 250
    assert sorted(t for t in ours if len(t) > 12 and " " in t and t in theirs) == []
