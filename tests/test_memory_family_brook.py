"""The held-out ``brook`` family's generator (benchmarks/memory_family_brook.py) and its ground-truth
checker (benchmarks/check_family_brook.py). This tests the GENERATOR and the CHECKER only: no session
here is read by the ledger or compacted (the lead alone runs ``bench_memory.py --family brook``, once)."""

from __future__ import annotations

import dataclasses
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_brook_text as T
from check_family_brook import is_user, problems
from contextwindow.messages import ToolResultPart, dumps, tool_result, user
from contextwindow.tokens import counter_for
from family_helpers import borrowed
from memory_brook_values import found
from memory_brook_world import SITUATIONS
from memory_family_brook import SEED_BASE, VOICES, BrookPlant, BrookSession, generate

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(SEED_BASE, SEED_BASE + 24)  # the benchmark runs the first 12


@pytest.fixture(scope="module")
def sessions() -> list[BrookSession]:
    return [generate(s) for s in SEEDS]


def test_same_seed_same_session_other_seed_other_session() -> None:
    a, b, c = generate(SEED_BASE + 3), generate(SEED_BASE + 3), generate(SEED_BASE + 4)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in a.plants] == [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in b.plants]
    assert (a.traps, a.trap_at, a.distractors, a.mentions) == (b.traps, b.trap_at, b.distractors, b.mentions)
    assert [m.text for m in a.messages] != [m.text for m in c.messages]


def test_the_checker_passes_on_every_seed(sessions: list[BrookSession]) -> None:
    for g in sessions:
        assert problems(g) == [], g.seed


def _swap(g: BrookSession, at: int, new_text: str, tool: bool = False) -> BrookSession:
    msgs = list(g.messages)
    msgs[at] = tool_result("call_x", new_text, name="bash") if tool else user(new_text)
    return dataclasses.replace(g, messages=msgs)


def test_the_checker_finds_wrong_ground_truth() -> None:
    """Each kind of wrong ground truth, made by hand from a right one, is reported."""
    g = generate(SEED_BASE + 1)
    p = next(p for p in g.plants if isinstance(p, BrookPlant) and p.stale)
    # the current value swapped with a superseded one
    wrong = dataclasses.replace(g, plants=[dataclasses.replace(p, value=p.stale[0]) if q is p else q for q in g.plants])
    assert any("current value" in x for x in problems(wrong))
    # a planted value said only by a tool (the user's message that said it became tool output)
    first = p.said_at[0]
    assert any("own words" in x or "tool output" in x for x in problems(_swap(g, first, g.messages[first].text, tool=True)))
    # a superseded value said again after its replacement
    last = len(g.messages) - 1
    said_again = _swap(g, last - 1, g.messages[last - 1].text + f" Still {p.stale[0]}.")
    said_again.mentions = {**g.mentions, p.stale[0]: [*g.mentions[p.stale[0]], last - 1]}
    assert any("said again" in x or "not in force" in x for x in problems(said_again))
    # a pasted trap value taken out of its code fence: the user's own word now
    k = g.trap_how.index("paste")
    at = g.trap_at[k]
    assert any("pasted code" in x for x in problems(_swap(g, at, g.messages[at].text.replace("```", ""))))
    # an update whose verb goes the wrong way
    q, i = next((q, i) for q in g.plants if isinstance(q, BrookPlant) for i, t in enumerate(q.texts) if " bumped " in t)
    flipped = q.texts[i].replace("bumped", "cut", 1)
    moved = dataclasses.replace(q, texts=[flipped if j == i else t for j, t in enumerate(q.texts)])
    bad = dataclasses.replace(_swap(g, q.said_at[i], g.messages[q.said_at[i]].text.replace(q.texts[i], flipped)),
                              plants=[moved if x is q else x for x in g.plants])
    assert any("other way" in x for x in problems(bad))


def test_kinds_forms_and_updates_all_occur(sessions: list[BrookSession]) -> None:
    first: Counter[str] = Counter()
    upd: Counter[str] = Counter()
    for g in sessions:
        kinds = Counter(p.kind for p in g.plants)
        assert kinds["goal"] == 1 and kinds["safety"] == 3 and kinds["constraint"] >= 3 and kinds["preference"] >= 1 and kinds["fact"] >= 4
        for p in g.plants:
            assert isinstance(p, BrookPlant)
            first[p.forms[0]] += 1
            upd.update(p.forms[1:])
    assert set(first) >= {"goal", "please", "going", "hard", "nonneg", "question", "list", "two", "passing", "rather", "is", "fyi", "paren"}, first
    assert set(upd) >= {"date", "number", "person", "thing", "place", "fact_pick", "pick", "generic", "moved", "rescope",
                        "bound_max", "bound_min", "bound_by"}, upd
    assert sum(1 for g in sessions for p in g.plants if len(p.said) >= 3) >= 20  # chains A → B → C
    texts = " ".join(t.lower() for g in sessions for p in g.plants if isinstance(p, BrookPlant) for t in p.texts[1:])
    for verb in ("pushed to", "bumped", "swapped", "stepped in as", "we dropped", "handed things over"):
        assert verb in texts, verb


def test_rules_in_lists_and_as_questions(sessions: list[BrookSession]) -> None:
    listed = asked = 0
    for g in sessions:
        for p in g.plants:
            assert isinstance(p, BrookPlant)
            if p.forms[0] == "list":
                msg = g.messages[p.said_at[0]].text
                line = next(x for x in msg.split("\n") if p.texts[0] in x)
                assert line.startswith("- ") and p.kind in ("safety", "constraint") and any(lead in msg for lead in T.LIST_LEAD)
                listed += 1
            if p.forms[0] == "question":
                assert p.kind == "constraint" and p.texts[0].endswith("?")
                asked += 1
    assert listed >= 20 and asked >= 5


def test_traps_are_in_tool_output_or_pasted_code_only(sessions: list[BrookSession]) -> None:
    how: Counter[str] = Counter()
    for g in sessions:
        for w, at, kind in zip(g.traps, g.trap_at, g.trap_how, strict=True):
            how[kind] += 1
            m = g.messages[at]
            assert found(w, m.text)
            if kind == "tool":
                assert m.is_tool_result and any(isinstance(x, ToolResultPart) for x in m.parts)
                # in the words the user uses for rules
                assert re.search(r"hard requirement|going forward|please make sure|non-negotiable", m.text, re.IGNORECASE)
            else:
                assert is_user(m) and "```" in m.text
    assert how["tool"] >= 15 and how["paste"] >= 20


def test_distractors_of_every_kind(sessions: list[BrookSession]) -> None:
    how = Counter(h for g in sessions for h in g.distractor_how)
    assert how["quoted"] >= 5 and how["hypothetical"] >= 5 and how["other"] >= 5, how
    quoted = [m.text for g in sessions for m in g.messages if is_user(m) and re.search(r"\bsaid\b.*\bnever\b|telling people never", m.text)]
    assert quoted  # "X said … must never …": someone else's rule, not the user's


def test_the_pair_shares_words_and_keeps_its_own_values(sessions: list[BrookSession]) -> None:
    for g in sessions:
        a, b = [p for p in g.plants if p.pair is not None]
        assert isinstance(a, BrookPlant) and isinstance(b, BrookPlant)
        assert a.noun != b.noun and a.noun.split()[-1] == b.noun.split()[-1]
        assert not set(a.said) & set(b.said)


def test_shapes_voices_and_situations_vary(sessions: list[BrookSession]) -> None:
    count = counter_for(None).count_messages
    first12 = sessions[:12]
    assert {g.voice for g in first12} == set(VOICES) and {g.situation for g in first12} == {s.key for s in SITUATIONS}
    assert 1 <= sum(g.short for g in first12) <= 3
    assert len({g.situation for g in sessions if g.short}) >= 3  # short sessions are not tied to a team
    for g in sessions:
        users = [m for m in g.messages if is_user(m)]
        if g.short:
            assert count(g.messages) < 3_000 and len(users) <= 8
        else:
            assert 15_000 < count(g.messages) < 30_000 and len(users) >= 30
    results = [x for g in sessions for m in g.messages for x in m.parts if isinstance(x, ToolResultPart)]
    assert any(x.is_error for x in results) and sum(x.is_error for x in results) < len(results) / 5
    assert sum(1 for g in sessions for p in g.plants if p.kind == "goal" and p.stale) >= 3  # goals re-scoped


def test_registered_as_held_out() -> None:
    import bench_memory
    import memory_misses

    assert "brook" in bench_memory.FAMILIES and "brook" in bench_memory.BY_NAME_ONLY and "brook" not in bench_memory.TUNING
    assert bench_memory.family_names("brook") == ("brook",)
    assert "brook" not in bench_memory.family_names("all") + bench_memory.family_names("tuning")
    assert "brook" in memory_misses.HELD_OUT and "brook" not in memory_misses.TUNING
    assert memory_misses.session("brook", SEED_BASE).messages == generate(SEED_BASE).messages


def test_no_sentence_is_borrowed_from_another_family() -> None:
    """No string literal of brook's text and world modules (longer than a few words) is one of another
    family's modules, placeholders and case aside."""

    count, shared = borrowed(BENCH, "brook", ("memory_brook_text.py", "memory_brook_world.py"))
    assert count > 150
    assert shared == []


def test_a_limit_said_again_is_named_as_the_limit(sessions: list[BrookSession]) -> None:
    """Saying a constraint's value again names the cap, floor or deadline: "the download size is still 167 MB"
    misstates the rule "under 167 MB" as what was measured."""
    bounds = {f"{s.key}.{x.key}": x.bound for s in SITUATIONS for x in s.subjects if x.kind == "constraint"}
    limit = {"max": "cap on", "min": "floor for", "by": "deadline for"}
    seen = 0
    for g in sessions:
        for p in g.plants:
            if p.kind != "constraint":
                continue
            for i in set(g.mentions.get(p.value, [])) - set(p.said_at):
                text = g.messages[i].text.lower()
                if p.noun.lower() in text:
                    seen += 1
                    assert f"{limit[bounds[p.subject]]} {p.noun.lower()}" in text, (g.seed, text)
    assert seen > 10


def test_only_a_place_gets_relocated(sessions: list[BrookSession]) -> None:
    relocated = Counter(p.vtype for g in sessions for p in g.plants for text in p.texts if "relocated" in text)
    assert relocated and set(relocated) <= {"path", "host"}


def test_one_list_a_message_and_no_tool_rule_caps_a_name(sessions: list[BrookSession]) -> None:
    leads = [sum(line in T.LIST_LEAD for line in m.text.splitlines()) for g in sessions for m in g.messages if is_user(m)]
    assert max(leads) == 1
    for g in sessions:
        for w, subject, how in zip(g.traps, g.trap_subject, g.trap_how, strict=True):
            p = next(p for p in g.plants if p.subject == subject)
            if how != "paste" and p.vtype not in ("qty", "money", "pct", "num"):
                assert not any(w in m.text and "no higher than" in m.text for m in g.messages if m.is_tool_result), (g.seed, w)
