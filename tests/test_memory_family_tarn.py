"""The held-out ``tarn`` family's generator (benchmarks/memory_family_tarn.py), checked against the text
it writes: a test of the GENERATOR, not of the ledger (nothing here reads a session with the ledger or
compacts one: only the lead runs ``bench_memory.py --family tarn``)."""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_tarn_text as T
from contextwindow.messages import ToolResultPart, dumps
from contextwindow.tokens import counter_for
from memory_family_tarn import FORMS, NAMES_OLD, SEED_BASE, VOICES, TarnPlant, TarnSession, consistent, generate
from memory_tarn_tools import HANDBOOK
from memory_tarn_values import V, Values, found, inside

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(SEED_BASE, SEED_BASE + 30)  # bench_memory.py runs the first 12 (--sessions 12)

#: words that make a first statement of each kind what it is (read from the templates written)
KIND_WORDS = {
    "safety": ("go to me", "only", "nowhere", "no other", "nobody", "not ", "alone", "nothing else", "read-only", "stay", "no cloud"),
    "constraint": ("at most", "under", "below", "no more than", "within", "between", "no earlier", "rolled back", "has to",
                   "does not go out", "waits", "use seed", "runs", "due", "retranslated", "upwards", "has ", "off", "a row"),
    "preference": ("prefer", "rather", "like", "happiest", "best", "reach for", "lovely", "easiest", "go with", "please"),
}
MOVE_WORDS = {1: ("slips", "later", "add", "raise", "up", "another", "bump"), -1: ("forward", "earlier", "trim", "cut", "drop", "lower", "shave", "down")}


@pytest.fixture(scope="module")
def sessions() -> list[TarnSession]:
    return [generate(s) for s in SEEDS]


def _plants(g: TarnSession) -> list[TarnPlant]:
    return [p for p in g.plants if isinstance(p, TarnPlant)]


def _where(g: TarnSession, value: str) -> list[int]:
    return [i for i, m in enumerate(g.messages) if found(value, m.text)]


def test_seeded_and_deterministic() -> None:
    a, b, c = generate(SEED_BASE + 3), generate(SEED_BASE + 3), generate(SEED_BASE + 4)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [(p.value, p.stale, p.stale_at) for p in a.plants] == [(p.value, p.stale, p.stale_at) for p in b.plants]
    assert [m.text for m in a.messages] != [m.text for m in c.messages]


def test_every_value_is_exactly_where_the_generator_says(sessions: list[TarnSession]) -> None:
    for g in sessions:
        assert consistent(g)
        for p in _plants(g):
            assert p.value in g.mentions and all(v in g.mentions for v in p.stale)
            for v, at in zip(p.said, p.said_at, strict=True):
                assert found(v, g.messages[at].text), (g.seed, p.subject, v, at)
                assert g.messages[at].role == "user" and not g.messages[at].is_tool_result
        # every planted value belongs to one subject only (a revert says a subject's own value again)
        owners: dict[str, set[str]] = {}
        for p in _plants(g):
            for v in p.said:
                owners.setdefault(v.lower(), set()).add(p.subject)
        assert all(len(s) == 1 for s in owners.values())
        assert not set(owners) & {d.lower() for d in (*g.distractors, *g.traps)}


def test_current_and_superseded_values_agree_with_the_text(sessions: list[TarnSession]) -> None:
    for g in sessions:
        for p in _plants(g):
            assert p.value == p.said[-1]
            assert len(p.forms) == len(p.said) - 1 == len(p.moves)
            assert p.said_at == sorted(p.said_at)
            for k, form in enumerate(p.forms, start=1):
                assert p.said_at[k] > p.said_at[k - 1] or form == "same"
            assert p.value not in p.stale and len(set(p.stale)) == len(p.stale)
            assert set(p.stale) == set(p.said[:-1]) - {p.value}
            for v, at in zip(p.stale, p.stale_at, strict=True):
                last = max(k for k, s in enumerate(p.said) if s == v)
                assert at == p.said_at[last + 1]
                # after its update a superseded value is said again only by the update that names it
                later = [i for i in g.mentions[v] if i >= at]
                assert later in ([], [at]), (g.seed, p.subject, v, later)
                if later:
                    assert p.forms[last] in (*NAMES_OLD, "same"), (g.seed, p.subject, v, p.forms[last])  # "same": the statement and its fix share a message


def test_updates_are_worded_as_their_form_says(sessions: list[TarnSession]) -> None:
    for g in sessions:
        for p in _plants(g):
            for k, form in enumerate(p.forms, start=1):
                new, old, at = p.said[k], p.said[k - 1], p.said_at[k]
                text = g.messages[at].text
                wrote = p.texts[k]
                assert found(new, wrote) and wrote.strip() in text
                if form in NAMES_OLD:
                    assert found(old, wrote)
                    words = r"\bout\b|drop|replace|instead|place|swap|stop|leaves" if form == "swap" else r"\bnot\b|no longer|isn't|instead of|forget"
                    assert re.search(words, wrote, re.I)
                elif form != "answer":
                    assert not found(old, wrote)
                if form == "revert":  # back to the first value, or to its same-message fix (the first was a typo)
                    assert new == p.said[1 if p.forms[0] == "same" else 0] and re.search(r"back|undo", wrote)
                if form == "config":
                    assert re.search(rf"^\w+: {re.escape(new)}$", wrote, re.M)
                if form == "answer":
                    question = g.messages[at - 1]
                    assert question.role == "assistant" and "?" in question.text and found(old, question.text)
                    assert p.name not in wrote and not found(old, wrote)
                if form == "alias":
                    assert p.name.lower() not in wrote.lower()
                if form == "rel":
                    assert p.mags[k] is not None and p.mags[k - 1] is not None
                    assert (p.mags[k] - p.mags[k - 1]) * p.moves[k - 1] > 0  # type: ignore[operator]
                    assert any(w in wrote.lower() for w in MOVE_WORDS[p.moves[k - 1]])
                    assert not any(w in wrote.lower().split() for w in MOVE_WORDS[-p.moves[k - 1]] if len(w) > 3)
                else:
                    assert p.moves[k - 1] == 0
                if form == "swap":
                    assert p.subject.startswith("list:") and found(old, wrote)
                if p.kind == "safety":
                    assert form in ("correct", "negate") and len(p.forms) == 1


def test_kinds_agree_with_the_sentences(sessions: list[TarnSession]) -> None:
    for d in T.DOMAINS.values():
        for s in d.subjects:
            if s.kind in KIND_WORDS:
                assert any(w in s.say.lower() for w in KIND_WORDS[s.kind]), s.say
            assert "{v}" in s.say and s.name.lower() not in s.alias.lower()
    for g in sessions:
        goal = [p for p in _plants(g) if p.kind == "goal"]
        assert len(goal) == 1 and goal[0].said_at[0] in (0, 2)
        opening = g.messages[goal[0].said_at[0]].text
        assert found(goal[0].said[0], opening)
        for p in _plants(g):
            first = p.texts[0]
            assert found(p.said[0], first) and (first in g.messages[p.said_at[0]].text or first.strip() in g.messages[p.said_at[0]].text)


def test_traps_and_harness_blocks_stay_out_of_the_user_words(sessions: list[TarnSession]) -> None:
    said = 0
    for g in sessions:
        planted = {v for p in _plants(g) for v in p.said}
        for i, m in enumerate(g.messages):
            if m.is_tool_result:
                assert not any(found(v, m.text) for v in planted), (g.seed, i)
            env = re.findall(r"<environment_context>.*?</environment_context>", m.text, re.S)
            assert not any(found(v, e) for v in planted for e in env)
        assert len(g.traps) == len(g.trap_at) == len(g.trap_subject)
        subjects = {p.subject for p in _plants(g)}
        for w, at, subj in zip(g.traps, g.trap_at, g.trap_subject, strict=True):
            assert subj in subjects and g.mentions[w] == [at]
            m = g.messages[at]
            if m.is_tool_result:
                assert HANDBOOK.split("\n")[0] in m.text
            else:
                block = re.match(r"<system-reminder>.*?</system-reminder>", m.text, re.S)  # at the top of the message
                assert block and found(w, block.group(0)) and not found(w, m.text.replace(block.group(0), ""))
            said += 1
    assert said >= len(sessions)


def test_pairs_are_different_subjects_sharing_words(sessions: list[TarnSession]) -> None:
    for g in sessions:
        pair = [p for p in _plants(g) if p.pair is not None]
        assert len(pair) == 2
        a, b = pair
        assert a.subject != b.subject and a.value != b.value
        shared = set(a.name.split()) & set(b.name.split()) - {"the"}
        assert len(shared) >= 2


def test_structure_varies(sessions: list[TarnSession]) -> None:
    counter = counter_for(None)
    forms = Counter(f for g in sessions for p in _plants(g) for f in p.forms)
    assert set(forms) == set(FORMS)
    assert {g.voice for g in sessions} == set(VOICES)
    assert {g.voice for g in sessions if g.short} == set(VOICES)
    for g in sessions:
        size = counter.count_messages(g.messages)
        rules = sum(p.kind in ("safety", "constraint") for p in g.plants)
        if g.short:
            assert g.seed % 5 == 2 and size < 2_500 and rules >= 6
        else:
            assert 12_000 < size < 40_000 and len(g.plants) >= 18
        assert len({v for p in _plants(g) for v in p.said}) == sum(len(set(p.said)) for p in _plants(g))
    # the opening request: with an environment block in the same message, in one of its own, or alone
    assert {("<environment_context>" in g.messages[0].text, g.messages[0].text.startswith("<environment_context>") and len(g.messages[0].text) < 300)
            for g in sessions} >= {(True, False), (True, True), (False, False)}
    assert any(not n.isascii() for g in sessions for p in _plants(g) if p.vtype == "person" for n in p.said)
    # the paragraph voice: several first statements in one message
    for g in sessions:
        if g.voice == "paragraph" and not g.short:
            assert max(Counter(p.said_at[0] for p in _plants(g) if p.kind != "goal").values()) >= 4
    results = [part for g in sessions for m in g.messages for part in m.parts if isinstance(part, ToolResultPart)]
    assert any(part.is_error for part in results) and not all(part.is_error for part in results)


def test_registered_held_out() -> None:
    import bench_memory

    assert "tarn" in bench_memory.FAMILIES and "tarn" not in bench_memory.TUNING
    assert bench_memory.family_names("tarn") == ("tarn",)
    assert "tarn" not in bench_memory.family_names("all") and "tarn" not in bench_memory.family_names("tuning")


def test_its_sentences_are_its_own() -> None:
    """No template of ``tarn`` is one of the other families' (placeholders aside, case and final stop ignored)."""

    def norm(t: str) -> str:
        return re.sub(r"\{\w+\}", "{}", t).lower().strip(" .!")

    theirs: set[str] = set()
    for path in BENCH.glob("memory_*.py"):
        if "tarn" not in path.name:
            src = path.read_text(encoding="utf-8")
            theirs |= {norm(x) for x in re.findall(r'"([^"\n]*)"', src) + re.findall(r"'([^'\n]*)'", src)}
    ours = [t for d in T.DOMAINS.values() for t in (*d.goal, *d.chatter, *d.tasks, *(o[1] for o in d.others), d.pair.joint, d.pair.one,
                                                       d.lst.say, *d.lst.swap, *(s.say for s in d.subjects))]
    ours += [*T.PARA, *T.NO_LONGER, *T.NEGATE, *T.CORRECT, *T.IMPLIED, *T.REL_UP.values(), *T.REL_DOWN.values(), *T.REVERT,
             *T.ASK_FIRST, *T.ANSWER_FIRST, *T.ASK_AGAIN, *T.ANSWER_CHANGE, *T.ANSWER_SAME, *T.SAME_MSG, *T.REPEAT, *T.ECHO,
             *T.MISQUOTE, *T.FIX_MISQUOTE, *T.ACKS, *T.GOAL_CHANGE, *T.FILLER, *T.QUESTIONS, T.NEG_FIRST]
    assert len(ours) > 150
    assert [t for t in ours if len(norm(t)) > 8 and norm(t) in theirs] == []


# --- a review of the ground truth (i11v): each test below fails on the generator before it ---------------

SUBJECTS = {s.key: s for d in T.DOMAINS.values() for s in d.subjects}
PAIRS = {f"pair:{m} {d.pair.noun}": d.pair for d in T.DOMAINS.values() for m in d.pair.mods}
#: two modifiers a reader takes as two different things (not "nested"/"outer": a nested fold is an inner one)
OPPOSITES = {("inner", "outer"), ("internal", "public"), ("inbound", "outbound"), ("morning", "lunch"), ("domestic", "international"),
             ("disk", "memory"), ("source", "target")}


def _numbers(v: str) -> list[str]:
    return re.findall(r"\d[\d,.]*", v)


def test_answers_stand_alone_and_end_with_a_stop(sessions: list[TarnSession]) -> None:
    """The assistant's question never carries a misquote (its answer would also have to fix it), and the
    user's answer is a sentence of its own."""
    answers = 0
    for g in sessions:
        for p in _plants(g):
            asked = [k for k, f in enumerate(p.forms, start=1) if f == "answer"]
            if p.texts and p.texts[0] in {a.format(v=p.said[0]) for a in T.ANSWER_FIRST}:  # an asked first statement
                asked.append(0)
            for k in asked:
                question = g.messages[p.said_at[k] - 1]
                assert not any(found(w, question.text) for w in g.distractors), (g.seed, p.said_at[k])
                assert p.texts[k].rstrip().endswith("."), p.texts[k]
                answers += 1
    assert answers >= 5


def test_the_assistant_says_your_not_my(sessions: list[TarnSession]) -> None:
    mine = [s for s in SUBJECTS.values() if re.search(r"\b(my|I|I'd|me)\b", s.name)]
    assert mine and all(not re.search(r"\b(my|I|I'd|me)\b", T.you(s.name)) for s in mine)
    said = 0
    for g in sessions:
        for m in g.messages:
            if m.role == "assistant":
                for s in mine:
                    assert s.name not in m.text, (g.seed, m.text)
                    said += T.you(s.name) in m.text
    assert said >= 3


def test_every_misquote_is_corrected(sessions: list[TarnSession]) -> None:
    misquotes = 0
    for g in sessions:
        for i, m in enumerate(g.messages):
            if m.role != "assistant" or not m.text:
                continue
            for w in g.distractors:
                if found(w, m.text):
                    nxt = next((j for j in range(i + 1, len(g.messages)) if g.messages[j].role == "user" and not g.messages[j].is_tool_result), None)
                    assert nxt is not None and found(w, g.messages[nxt].text), (g.seed, i, w)
                    misquotes += 1
    assert misquotes >= 5


def test_quantities_stay_plausible_and_read_as_one_value(sessions: list[TarnSession]) -> None:
    ranges = moved = 0
    for g in sessions:
        for p in _plants(g):
            span = SUBJECTS[p.subject].span if p.subject in SUBJECTS else PAIRS[p.subject].span if p.subject in PAIRS else None
            for k, (v, mag) in enumerate(zip(p.said, p.mags, strict=True)):
                assert inside(V(v, mag, p.vtype), span), (g.seed, p.subject, v, span)
                assert not re.search(r"(?<![\d.,])1 (hours|points|minutes|days|\w+s)\b", v), v
                if p.vtype == "range":
                    assert re.fullmatch(r"\d+–\d+ \w+", v), v
                    ranges += 1
                moved += k > 0 and p.forms[k - 1] == "rel"
            for t in p.texts[1:]:
                assert not re.search(r"(?<![\d.,])1 (hours|points)\b", t), t
    assert ranges and moved >= 10
    # the low end of a span of multiples of 5 rounds up: a 4-60 fee is never 0
    assert min(Values(random.Random(i)).draw("money", "", (4, 60)).mag or 0 for i in range(60)) >= 5


def test_pairs_are_two_different_things() -> None:
    assert {d.pair.mods for d in T.DOMAINS.values()} <= OPPOSITES
