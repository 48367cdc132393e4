"""The held-out ``field`` family's generator (benchmarks/memory_family_field.py), checked against the
text it writes — a test of the generator, not of the ledger (nothing here reads a session with the
ledger: only the lead runs ``bench_memory.py --family field``)."""

from __future__ import annotations

import re
import statistics
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_field_text as T
from contextwindow.messages import dumps
from memory_family_field import FieldPlant, FieldSession, found_in, generate, hit

SEEDS = range(18_000, 18_036)  # what `bench_memory.py --family field --sessions 36` would run
KINDS = {"safety", "constraint", "goal", "preference", "fact"}


@pytest.fixture(scope="module")
def sessions() -> list[FieldSession]:
    return [generate(s) for s in SEEDS]


def _template_re(t: str) -> re.Pattern[str]:
    """A template as a pattern: each placeholder is some text."""
    parts = re.split(r"\{\w+\}", t)
    return re.compile("(?i)" + ".+?".join(re.escape(p) for p in parts) + "$")


def _kind_patterns() -> dict[str, list[re.Pattern[str]]]:
    out: dict[str, list[re.Pattern[str]]] = {"goal": [_template_re(t) for t in T.GOAL_OPEN]}
    for slot in (*T.FACTS, *T.CONSTRAINTS, *T.PREFERENCES, *T.SAFETY):
        out.setdefault(slot.kind, []).extend(_template_re(t) for t in slot.plant)
    out["fact"] += [_template_re(t) for t in (*T.PAIR_PLANT, *T.PAIR_BOTH)]
    return out


def test_seeded_and_deterministic() -> None:
    a, b, c = generate(18_000), generate(18_000), generate(18_001)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in a.plants] == [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in b.plants]
    assert [m.text for m in a.messages] != [m.text for m in c.messages]
    assert a.family == "field" and a.seed == 18_000


def test_values_are_where_the_generator_says(sessions: list[FieldSession]) -> None:
    patterns = _kind_patterns()
    for g in sessions:
        plants = [p for p in g.plants if isinstance(p, FieldPlant)]
        assert len(plants) == len(g.plants)
        assert {p.kind for p in plants} == KINDS, g.seed
        assert sum(p.kind == "goal" for p in plants) == 1
        values = [v for p in plants for v in (*p.stale, p.value)]
        every = values + g.distractors
        # unique, and none found inside another by the benchmark's own match
        assert len(set(every)) == len(every), g.seed
        for v in every:
            assert not any(hit(v, w) for w in every if w != v), (g.seed, v)
        lowered = [m.text.lower() for m in g.messages]
        where = {v: found_in(v, lowered) for v in every}
        for v in every:  # each value is in exactly the messages the generator reports
            assert where[v] == sorted(set(g.mentions[v])), (g.seed, v)
        for p in plants:
            chain, steps = [*p.stale, p.value], [p.said_at, *p.stale_at]
            assert len(p.stale) == len(p.stale_at) == len(p.forms), (g.seed, p)
            assert any(pat.match(p.statement) for pat in patterns[p.kind]), (g.seed, p.kind, p.statement)
            assert p.statement[1:].rstrip(".!") in g.messages[p.said_at].text  # (joined to another: first letter and stop may change)
            for k, (v, at) in enumerate(zip(chain, steps, strict=True)):
                m = g.messages[at]
                assert m.role == "user" and not m.is_tool_result and hit(v, m.text), (g.seed, v, at)
                if k:  # an update comes after what it updates: later, or later in the same message
                    same = p.forms[k - 1] == "same_message"
                    assert at == steps[k - 1] if same else at > steps[k - 1], (g.seed, p)
                    if same:
                        assert m.text.index(chain[k - 1]) < m.text.index(v)
                seen = where[v]
                assert min(seen) == at, (g.seed, v)  # never said before its step
                if k < len(p.stale):  # never said after the message that superseded it
                    assert max(seen) <= steps[k + 1], (g.seed, v, seen, steps)
                    if steps[k + 1] in seen:  # only corrections name the old value
                        assert p.forms[k] in ("correction", "same_message") or p.kind == "goal", (g.seed, p)
            assert not any(g.messages[i].is_tool_result for v in chain for i in where[v]), (g.seed, p)
        for d in g.distractors:  # another subject's value: said by the user, never planted
            assert d not in values
            assert all(g.messages[i].role == "user" for i in g.mentions[d])


def test_updates_move_the_way_their_words_say(sessions: list[FieldSession]) -> None:
    """"We relaxed the PR size limit to V" raises it, "V is plenty for diffs" lowers it: the numbers
    the generator reports agree with the words it wrote."""
    ways = [(t, 1) for t in T.HIGHER] + [(t, -1) for t in T.LOWER]
    checked = 0
    for g in sessions:
        for p in g.plants:
            assert isinstance(p, FieldPlant)
            chain = [*p.stale, p.value]
            for k, at in enumerate(p.stale_at, start=1):
                for t, way in ways:
                    said = re.compile(".+?".join(re.escape(part) for part in re.split(r"\{\w+\}", t.replace("{v}", "\0")))
                                      .replace(re.escape("\0"), re.escape(chain[k])), re.IGNORECASE)
                    if said.search(g.messages[at].text):
                        old, new = p.meanings[k - 1], p.meanings[k]
                        assert old is not None and new is not None and (new - old) * way > 0, (g.seed, t, chain[k - 1], chain[k])
                        checked += 1
    assert checked >= 10


def test_pairs_are_different_subjects_sharing_words(sessions: list[FieldSession]) -> None:
    for g in sessions:
        by_pair: dict[int, list[FieldPlant]] = {}
        for p in g.plants:
            if p.pair is not None:
                by_pair.setdefault(p.pair, []).append(p)  # type: ignore[arg-type]
        assert len(by_pair) == 2, g.seed
        for a, b in by_pair.values():
            assert a.kind == b.kind == "fact"
            assert a.subject != b.subject and set(a.subject.split()) & set(b.subject.split())


def test_structure_varies(sessions: list[FieldSession]) -> None:
    updates = Counter(len(p.stale) for g in sessions for p in g.plants)
    assert set(updates) == {0, 1, 2, 3}
    forms = Counter(f for g in sessions for p in g.plants for f in p.forms if isinstance(p, FieldPlant))
    assert set(forms) >= {"paraphrase", "correction", "implied", "relative", "units", "same_message"}
    texts = [m.text for g in sessions for m in g.messages if m.role == "user" and not m.is_tool_result]
    assert any("\n- " in t for t in texts)  # bulleted lists of statements
    assert sum("<environment_context>" in g.messages[0].text for g in sessions) not in (0, len(sessions))
    assert any(g.messages[0].text.startswith("<environment_context>") and g.messages[0].text.endswith("</environment_context>") for g in sessions)
    lengths = [len(t) for t in texts]
    assert max(lengths) > 5 * statistics.median(lengths)
    # where updates occur: right after the statement and far from it
    gaps = [b - a for g in sessions for p in g.plants if isinstance(p, FieldPlant) for a, b in zip([p.said_at, *p.stale_at], p.stale_at, strict=False)]
    assert min(gaps) == 0 and max(gaps) > 40
    # other subjects with same-type values, and values repeated unchanged
    assert all(g.distractors for g in sessions)
    assert any(len(g.mentions[p.value]) > 1 + len(p.stale) for g in sessions for p in g.plants if p.kind != "goal")


def test_registered_held_out() -> None:
    import bench_memory

    assert "field" in bench_memory.FAMILIES and "field" not in bench_memory.TUNING
    assert bench_memory.family_names("field") == ("field",)
    assert "field" not in bench_memory.family_names("all") and "field" not in bench_memory.family_names("tuning")


def test_its_sentences_are_its_own() -> None:
    """No template of `field` is one of memory_sessions.py's families' (placeholders aside)."""
    others = (Path(__file__).resolve().parents[1] / "benchmarks" / "memory_sessions.py").read_text(encoding="utf-8")

    def norm(t: str) -> str:
        return re.sub(r"\{\w+\}", "{}", t).lower().strip(" .!")

    theirs = {norm(lit) for lit in re.findall(r'"([^"]*)"', others)}
    ours = [t for slot in (*T.FACTS, *T.CONSTRAINTS, *T.PREFERENCES, *T.SAFETY)
            for t in (*slot.plant, *(u for us in slot.update.values() for u in us), *slot.repeat, *slot.distract)]
    ours += [*T.GOAL_OPEN, *T.GOAL_UPDATE, *T.PAIR_PLANT, *T.PAIR_BOTH, *T.PAIR_UPDATE, *T.SAME_MESSAGE, *T.QUESTIONS, *T.CHATTER,
             *T.TASKS, *T.NARRATIVE, *T.LIST_LEADS, *T.ACKS]
    assert len(ours) > 200
    assert [t for t in ours if norm(t) in theirs] == []
