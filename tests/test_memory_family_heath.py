"""The held-out ``heath`` family's generator (benchmarks/memory_family_heath.py) against the text it
writes. This tests the GENERATOR only: no session here is read by the ledger or compacted (the lead
alone runs ``bench_memory.py --family heath``, once)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_heath_text as T
import memory_heath_world as W
from contextwindow.messages import Message, ToolResultPart, dumps
from contextwindow.tokens import counter_for
from family_helpers import borrowed
from memory_family_heath import SEED_BASE, UPDATE_FORMS, VOICES, HeathPlant, HeathSession, consistent, generate
from memory_heath_values import found

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SUBJECTS = {f"{s.key}.{x.key}": x for s in W.SITUATIONS for x in s.subjects}
SEEDS = range(SEED_BASE, SEED_BASE + 30)  # the benchmark runs the first 12
#: where a value may be said that is not the user's own word: harness blocks and pasted code
NOT_USER = re.compile(r"<environment_context>.*?</environment_context>|<system-reminder>.*?</system-reminder>|```.*?```", re.DOTALL)


@pytest.fixture(scope="module")
def sessions() -> list[HeathSession]:
    return [generate(s) for s in SEEDS]


def plants(g: HeathSession) -> list[HeathPlant]:
    out = [p for p in g.plants if isinstance(p, HeathPlant)]
    assert len(out) == len(g.plants)
    return out


def own_words(m: Message) -> str:
    return NOT_USER.sub("", m.text)


def is_user(m: Message) -> bool:
    return m.role == "user" and not m.is_tool_result


def test_same_seed_same_session_other_seed_other_session() -> None:
    a, b, c = generate(SEED_BASE + 7), generate(SEED_BASE + 7), generate(SEED_BASE + 8)
    assert [dumps(m) for m in a.messages] == [dumps(m) for m in b.messages]
    assert [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in a.plants] == [(p.kind, p.value, p.stale, p.stale_at, p.pair) for p in b.plants]
    assert (a.traps, a.trap_at, a.distractors, a.mentions) == (b.traps, b.trap_at, b.distractors, b.mentions)
    assert [m.text for m in a.messages] != [m.text for m in c.messages]


def test_values_are_where_the_generator_says_and_nowhere_else(sessions: list[HeathSession]) -> None:
    for g in sessions:
        assert consistent(g)
        said = {v for p in plants(g) for v in p.said}
        assert said | set(g.distractors) | set(g.traps) == set(g.mentions)
        owner: dict[str, str] = {}
        for p in plants(g):
            for v, at in zip(p.said, p.said_at, strict=True):
                assert owner.setdefault(v.lower(), p.subject) == p.subject  # one subject per value
                m = g.messages[at]
                assert is_user(m) and found(v, own_words(m)), (g.seed, p.subject, v)
        others = [v.lower() for v in (*g.distractors, *g.traps)]
        assert len(others) == len(set(others)) and not set(others) & set(owner)


def test_current_and_superseded_values_follow_the_text(sessions: list[HeathSession]) -> None:
    for g in sessions:
        for p in plants(g):
            assert p.value == p.said[-1] and p.said_at == sorted(p.said_at)
            assert p.stale == [v for v in dict.fromkeys(p.said) if v != p.value]
            for v, at in zip(p.stale, p.stale_at, strict=True):
                last = max(k for k, x in enumerate(p.said) if x == v)
                assert at == p.said_at[last + 1] > p.said_at[last]
                assert max(g.mentions[v]) <= at, (g.seed, p.subject, v)  # never said after it was replaced
            for v in dict.fromkeys(p.said):
                for i in g.mentions[v]:
                    before = [x for x, at in zip(p.said, p.said_at, strict=True) if at < i]
                    here = [x for x, at in zip(p.said, p.said_at, strict=True) if at == i]
                    # said while in force, or by the message that sets or replaces it
                    assert v in here or (before and before[-1] == v), (g.seed, p.subject, v, i)


def test_each_update_reads_as_its_form(sessions: list[HeathSession]) -> None:
    seen: Counter[str] = Counter()
    for g in sessions:
        for p in plants(g):
            for k in range(1, len(p.said)):
                form, text, new, old = p.forms[k], p.texts[k], p.said[k], p.said[k - 1]
                seen[form] += 1
                assert text in g.messages[p.said_at[k]].text and found(new, text) and new != old
                low = text.lower()
                if form == "goal_change":  # the old goal dropped, not postponed ("forget X for now")
                    assert p.kind == "goal" and found(old, text) and "drop" in low and not re.search(r"forget|for now|later|pause", low), text
                    continue
                # the update names the subject with the words its first statement used (or answers a question naming it)
                if form == "typo":
                    pass
                elif form == "qa":
                    assert p.noun in g.messages[p.said_at[k] - 1].text
                elif form != "two" or p.noun in text:
                    assert p.noun.lower() in low, (g.seed, form, text)
                    assert p.noun.lower() in p.texts[0].lower() or p.forms[0] == "qa", (g.seed, p.texts[0], text)
                assert found(old, text) == (form in T.NAMES_OLD), (g.seed, form, text)
                if form == "revert":
                    assert new == p.said[0] and "back to" in low
                if form == "negation":
                    assert "not " in low
                if form == "instead":
                    assert "instead of" in low or ", not " in low
                if form == "typo":
                    assert p.noun.lower() not in low
                    words = set(re.findall(r"[\w']+", low.replace(new.lower(), " ")))
                    noun_words = re.findall(r"[\w']+", p.noun.lower())
                    swapped = [w for w in noun_words if w not in words]
                    assert len(swapped) == 1 and any(sorted(x) == sorted(swapped[0]) and x != swapped[0] for x in words), (text, p.noun)
                if form == "qa":
                    m = g.messages[p.said_at[k]]
                    asked = g.messages[p.said_at[k] - 1]
                    assert asked.role == "assistant" and found(old, asked.text) and p.noun in asked.text and "?" in asked.text
                    assert m.text == text and len(text.replace(new, "").split()) <= 3  # the answer alone, in a few words
                if form == "two":
                    others = [q for q in plants(g) if q is not p and p.said_at[k] in q.said_at and text in q.texts]
                    assert len(others) == 1
                assert form != "retract" or (p.kind == "safety" and SUBJECTS[p.subject].additive), (g.seed, p.subject, text)
                if p.kind == "safety":
                    assert len(p.said) <= 2
                    subject = SUBJECTS[p.subject]
                    if subject.additive:  # a later value does not lift "never … on U": only "U was a mistake / no longer applies"
                        assert form in T.ADDITIVE_UPDATES and any(w in low for w in T.RETRACTS), (g.seed, text)
                    else:
                        assert form in T.SAFETY_UPDATES
    assert set(seen) >= {*UPDATE_FORMS, "two", "goal_change", "retract"}, seen
    assert sum(1 for g in sessions for p in plants(g) if len(p.said) >= 3) >= 30  # chains A → B → C


def test_first_statements_read_as_their_kind(sessions: list[HeathSession]) -> None:
    subjects = {f"{s.key}.{x.key}": x for s in W.SITUATIONS for x in s.subjects}
    forms: Counter[str] = Counter()
    for g in sessions:
        kinds = Counter(p.kind for p in plants(g))
        assert kinds["goal"] == 1 and kinds["safety"] >= 3 and kinds["constraint"] >= 3 and kinds["preference"] >= 1
        for p in plants(g):
            form, text = p.forms[0], p.texts[0]
            forms[form] += 1
            low = text.lower()
            if p.subject in subjects:
                assert subjects[p.subject].kind == p.kind
            if p.kind == "goal":
                first = next(m for m in g.messages if is_user(m))
                assert p.said_at[0] == 0 and found(p.said[0], own_words(first))
            elif form == "qa":
                asked = g.messages[p.said_at[0] - 1]
                assert asked.role == "assistant" and p.noun in asked.text and asked.text.endswith("?")
                assert ("who" in asked.text.lower().split()) == (p.vtype == "name"), asked.text  # "who is the harbourmaster?"
                assert g.messages[p.said_at[0]].text == text and len(text.replace(p.said[0], "").split()) <= 3
            elif p.kind == "safety":
                assert any(w in low for w in T.WORDS_RULE), text
                assert p.noun.lower() in low, text  # the rule names the subject its updates will name
                if form == "correction":
                    assert p.noun in g.messages[p.said_at[0] - 1].text and low.startswith("no")
            elif p.kind == "constraint":  # the bound reads as a note or a predicate, never "we can do not after …"
                note, pred = T.LIMIT[subjects[p.subject].bound]
                assert note.format(v=p.said[0]) in text or pred.format(v=p.said[0]) in text, text
                assert not re.search(r"\b(can do|be|is) (not after|by) ", low), text
                assert p.noun.lower() in low
            elif p.kind == "preference":
                assert any(w in low for w in T.WORDS_PREF), text
                assert p.noun.lower() in low, text
            elif form != "two":
                assert p.noun.lower() in low
    assert set(forms) >= {"plain", "terse", "dash", "paren", "nonnative", "correction", "qa", "two", "goal"}, forms
    conditional = [p for g in sessions for p in plants(g) if p.kind == "safety" and p.texts[0].lower().lstrip("no—. ").startswith("if ")]
    assert len(conditional) >= 5


def test_traps_are_only_in_harness_blocks_tools_and_pasted_config(sessions: list[HeathSession]) -> None:
    how: Counter[str] = Counter()
    for g in sessions:
        subjects = {p.subject: p for p in plants(g)}
        assert len(g.traps) == len(g.trap_subject) == len(g.trap_at) == len(g.trap_how) >= 2
        for w, subj, at, kind in zip(g.traps, g.trap_subject, g.trap_at, g.trap_how, strict=True):
            how[kind] += 1
            assert g.mentions[w] == [at]
            m = g.messages[at]
            p = subjects[subj]
            assert p.kind in ("safety", "constraint", "fact") and (p.noun in m.text or p.noun.replace(" ", "_").replace("'", "") in m.text)
            if kind == "handbook":
                assert m.is_tool_result and any(isinstance(x, ToolResultPart) and x.name == "read_file" for x in m.parts)
            else:
                assert is_user(m) and not found(w, own_words(m))
                block = {"env": "<environment_context>", "reminder": "<system-reminder>", "paste": "```yaml"}[kind]
                assert block in m.text
            if kind != "env":
                assert p.said_at[0] < at  # said after the user stated the subject
        for p in plants(g):  # no planted value in tool output, a harness block or pasted code
            for v in p.said:
                for i in g.mentions[v]:
                    assert is_user(g.messages[i]) or g.messages[i].role == "assistant"
                    assert not found(v, "\n".join(NOT_USER.findall(g.messages[i].text)))
    assert set(how) == {"env", "reminder", "handbook", "paste"} and sum(how.values()) >= 80


def test_one_pair_of_subjects_sharing_words(sessions: list[HeathSession]) -> None:
    for g in sessions:
        a, b = [p for p in plants(g) if p.pair is not None]
        assert a.pair == b.pair and a.kind == b.kind == "fact"
        shared = next(s.pair[2] for s in W.SITUATIONS if s.key == g.situations[0])
        assert a.noun != b.noun and a.noun.endswith(shared) and b.noun.endswith(shared)
        assert not set(a.said) & set(b.said)
        # each member's values from its own range: the matinee before the evening, the ceremony before the reception
        sit = next(s for s in W.SITUATIONS if s.key == g.situations[0])
        for p, k in ((a, sit.pair[3]), (b, sit.pair[4])):
            assert p.noun.startswith(sit.pair[0] if k is sit.pair[3] else sit.pair[1])
            for v in p.said:
                n = int(v.split(":")[0]) if k.vtype == "time" else int(re.sub(r"\D", "", v))
                assert k.lo <= n <= k.hi, (g.seed, p.noun, v)
    for key in ("theatre", "wedding", "brewery"):
        k1, k2 = next(s.pair[3:] for s in W.SITUATIONS if s.key == key)
        assert k1.hi < k2.lo


def test_the_assistant_echoes_what_is_in_force_and_misquotes_are_corrected(sessions: list[HeathSession]) -> None:
    misquotes = 0
    for g in sessions:
        for i, m in enumerate(g.messages):
            if m.role != "assistant" or not m.text:
                continue
            for p in plants(g):
                before = [x for x, at in zip(p.said, p.said_at, strict=True) if at < i]
                assert all(before and before[-1] == v for v in p.said if found(v, m.text)), (g.seed, i, m.text)
            if m.text.endswith("right?"):
                misquotes += 1
                wrong = [d for d in g.distractors if found(d, m.text)]
                reply = g.messages[next(j for j in range(i + 1, len(g.messages)) if is_user(g.messages[j]))]
                assert len(wrong) == 1 and found(wrong[0], reply.text) and re.search(r"\bnot\b|\bwrong\b", reply.text.lower())
    assert misquotes >= 15


def test_shapes_voices_and_situations_vary(sessions: list[HeathSession]) -> None:
    count = counter_for(None).count_messages
    short = [g for g in sessions if g.short]
    assert len(short) == len(sessions) // 5
    for g in sessions:
        users = [m for m in g.messages if is_user(m)]
        rules = sum(1 for p in plants(g) if p.kind in ("safety", "constraint"))
        if g.short:
            assert count(g.messages) < 3_000 and len(users) <= 8 and rules >= 8
        else:
            assert 15_000 < count(g.messages) < 32_000 and len(users) >= 30 and rules >= 6
        for at in g.rambles:  # the binding line sits in the middle of a long message
            paras = g.messages[at].text.split("\n\n")
            assert len(paras) >= 3 and len(paras[0]) > 80 and len(paras[2]) > 80
            assert any(at in p.said_at for p in plants(g))
            assert not any(found(v, paras[0] + paras[2]) for p in plants(g) for v in p.said)
    assert {g.voice for g in sessions} == set(VOICES) and len({g.voice for g in short}) >= 3
    assert {s for g in sessions for s in g.situations} == {s.key for s in W.SITUATIONS}
    assert sum(len(g.rambles) for g in sessions) >= 30
    results = [x for g in sessions for m in g.messages for x in m.parts if isinstance(x, ToolResultPart)]
    assert any(x.is_error for x in results) and sum(x.is_error for x in results) < len(results) / 5
    assert any("ERROR" in x.text and "exit status 0" in x.text for x in results)
    names = [v for g in sessions for p in plants(g) if p.vtype == "name" for v in p.said]
    assert any(not v.isascii() for v in names)
    updated = [p for g in sessions for p in plants(g) if p.stale]
    assert len(updated) >= 150 and any(p.kind == "safety" for p in updated)


def test_registered_as_held_out() -> None:
    import bench_memory

    assert "heath" in bench_memory.FAMILIES and "heath" in bench_memory.BY_NAME_ONLY and "heath" not in bench_memory.TUNING
    assert bench_memory.family_names("heath") == ("heath",)
    assert "heath" not in bench_memory.family_names("all") + bench_memory.family_names("tuning")


def test_no_sentence_is_borrowed_from_another_family() -> None:
    """No string literal of heath's text and world modules (longer than a few words) is a string of any
    other family's modules, placeholders and case aside."""

    count, shared = borrowed(BENCH, "heath", ("memory_heath_text.py", "memory_heath_world.py"))
    assert count > 200
    assert shared == []


def test_text_reads_as_sentences(sessions: list[HeathSession]) -> None:
    """What a reviewer of seeds 23000-23011 found garbled, each kind of it: sentences run together, an
    article before a name that carries one, a handbook rule that does not fit its value, the same
    rambling paragraph again and again, every distractor behind the same few markers."""
    for g in sessions:
        for m in g.messages:
            assert not re.search(r"\bthe (the|a|an) ", m.text, re.IGNORECASE), m.text  # "Forget the The Salt Road"
        for p in plants(g):  # a planted sentence followed by another in its paragraph is closed
            for text, at in zip(p.texts, p.said_at, strict=True):
                msg = g.messages[at].text
                after = msg[msg.index(text) + len(text):]
                assert text.rstrip()[-1] in ".!?)" or after[:1] in ("", ".", "\n"), (g.seed, text, after[:40])
        for m in g.messages:  # a task worded as a question ends as one
            if is_user(m) and m.text.split(" ", 1)[0].lower() in T.ASKING:
                assert not m.text.split("\n\n")[0].endswith("."), m.text
        paras = [para for at in g.rambles for para in (g.messages[at].text.split("\n\n")[0], g.messages[at].text.split("\n\n")[2])]
        assert len(paras) == len(set(paras)), g.seed
        subjects = {p.subject: p for p in plants(g)}
        for w, subj, at, how in zip(g.traps, g.trap_subject, g.trap_at, g.trap_how, strict=True):
            if how == "handbook":
                page = g.messages[at].text
                numeric = subjects[subj].vtype in ("qty", "money", "pct")
                assert found(w, page) and subjects[subj].noun in page
                assert numeric or not re.search(r"exceed|fall below", page), page  # "must never exceed Sunniva Aas"
    for sit in W.SITUATIONS:
        for goal in sit.goals:
            assert "the {v}" not in goal.lower()
        for v in sit.goal_values:
            assert not re.search(r"\bthe (the|a|an) ", T.the(v), re.IGNORECASE)
    texts = [m.text for g in sessions for m in g.messages if is_user(m) and any(found(d, m.text) for d in g.distractors)]
    marked = [t for t in texts if any(x in t.lower() for x in T.OTHER_MARKERS)]
    assert len(texts) >= 50 and len(marked) < len(texts) / 2, (len(marked), len(texts))
    # an additive safety rule: one that can hold for several values at once ("never open the CIP valve on BT-5")
    assert {k for k, x in SUBJECTS.items() if x.additive} >= {"brewery.cip", "brewery.yeast", "ferry.manifest", "museum.masters", "museum.restricted", "wedding.allergy", "ground.txlock"}
