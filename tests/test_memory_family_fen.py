"""The held-out ``fen`` family's generator (benchmarks/memory_family_fen.py) against its own ground-truth
checker (benchmarks/check_family_fen.py). Tests the GENERATOR only: no session here is read by the
ledger or compacted (the lead alone runs ``bench_memory.py --family fen``, once)."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import memory_fen_text as T
from check_family_fen import problems
from contextwindow.messages import dumps, user
from family_helpers import borrowed
from memory_family_fen import SEED_BASE, FenPlant, FenSession, generate

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEEDS = range(SEED_BASE, SEED_BASE + 16)


@pytest.fixture(scope="module")
def sessions() -> list[FenSession]:
    return [generate(s) for s in SEEDS]


def test_generation_is_deterministic_per_seed(sessions: list[FenSession]) -> None:
    for g in sessions[:4]:
        again = generate(g.seed)
        assert [dumps(m) for m in again.messages] == [dumps(m) for m in g.messages]
        assert [(p.kind, p.value, p.stale, p.stale_at) for p in again.plants] == [(p.kind, p.value, p.stale, p.stale_at) for p in g.plants]
    assert [dumps(m) for m in sessions[0].messages] != [dumps(m) for m in sessions[1].messages]


def test_ground_truth_agrees_with_the_text(sessions: list[FenSession]) -> None:
    assert [line for g in sessions for line in problems(g)] == []


def _plant(g: FenSession, pred: Callable[[FenPlant], bool]) -> FenPlant:
    return next(p for p in g.plants if isinstance(p, FenPlant) and pred(p))


def _drop_last(g: FenSession) -> None:
    p = _plant(g, lambda p: p.kind == "constraint" and len(p.said) > 1 and p.stale_at[-1] == p.said_at[-1])
    for a in ("said", "said_at", "forms", "texts"):
        getattr(p, a).pop()
    p.value, p.stale, p.stale_at = p.said[-1], p.said[:-1], p.stale_at[: len(p.said) - 1]


def _colleague_as_ours(g: FenSession) -> None:
    i, m = next((i, m) for i, m in enumerate(g.messages) if m.role == "user" and " to never " in m.text)
    text = "never " + m.text.split(" to never ", 1)[1].split(";")[0]
    w = next(d for d in g.distractors if d in text)
    g.distractors.remove(w)
    g.plants.append(FenPlant(kind="safety", value=w, subject=f"{g.situation}.colleague", noun="sign-offs", said=[w], said_at=[i],
                             forms=["please"], texts=[text]))


def _stale_asked(g: FenSession) -> None:
    p = _plant(g, lambda p: p.kind == "fact" and p.stale and p.stale_at[0] < len(g.messages) - 10)
    i = next(i for i in range(p.said_at[-1] + 1, len(g.messages)) if g.messages[i].role == "user" and not g.messages[i].is_tool_result)
    g.messages[i] = user(f"Is {p.noun} still {p.stale[0]}, or did that change?")


def _docs_trap_current(g: FenSession) -> None:
    k = g.trap_how.index("docs")
    p = _plant(g, lambda p: p.subject == g.trap_subject[k])
    line = next(ln for ln in g.messages[g.trap_at[k]].text.split("\n") if g.traps[k] in ln)
    p.said.append(g.traps[k])
    p.said_at.append(g.trap_at[k])
    p.forms.append("makeit")
    p.texts.append(line)
    p.value, p.stale, p.stale_at = p.said[-1], p.said[:-1], [*p.stale_at, g.trap_at[k]]
    for a in ("traps", "trap_at", "trap_how", "trap_subject"):
        getattr(g, a).pop(k)


def _swap(g: FenSession) -> None:
    p = _plant(g, lambda p: bool(p.stale))
    p.value, p.stale[0] = p.stale[0], p.value


def _retraction_dropped(g: FenSession) -> None:
    p = _plant(g, lambda p: bool(p.retracted))
    k = p.stale.index(p.retracted[0])
    p.retracted, p.ended_at = [], {}
    p.stale_at[k] = p.said_at[k + 1]


def _split_late(g: FenSession) -> None:
    a, b = g.splits[0]
    p = _plant(g, lambda p: a in p.stale_at)
    p.stale_at[p.stale_at.index(a)] = b


def _moved_late(g: FenSession) -> None:
    p = _plant(g, lambda p: bool(p.stale) and p.stale_at[-1] == p.said_at[-1])
    p.stale_at[-1] += 2


def _pair_same_noun(g: FenSession) -> None:
    a, b = [p for p in g.plants if p.pair is not None]
    b.noun = a.noun


def _kind(pred: Callable[[FenPlant], bool], kind: str) -> Callable[[FenSession], None]:
    return lambda g: setattr(_plant(g, pred), "kind", kind)


#: each kind of wrong ground truth the checker must catch (review rfen, finding 1; finding 2's stale question)
MUTATIONS: dict[str, Callable[[FenSession], None]] = {
    "constraint labelled preference": _kind(lambda p: p.kind == "constraint", "preference"),
    "fact labelled constraint": _kind(lambda p: p.kind == "fact", "constraint"),
    "goal labelled fact": _kind(lambda p: p.kind == "goal", "fact"),
    "safety rule labelled fact": _kind(lambda p: p.kind == "safety", "fact"),
    "truth missing the last update": _drop_last,
    "a planted safety rule deleted from the truth": lambda g: g.plants.remove(_plant(g, lambda p: p.kind == "safety")),
    "a colleague's rule planted as our safety rule": _colleague_as_ours,
    "pair members with the same noun": _pair_same_noun,
    "a stale value brought back by the user": _stale_asked,
    "superseded value claimed as current": _swap,
    "retraction dropped": _retraction_dropped,
    "split at the wrong message": _split_late,
    "superseded moved after its replacement": _moved_late,
    "docs-trap value made current": _docs_trap_current,
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_the_checker_catches_a_wrong_ground_truth(sessions: list[FenSession], name: str) -> None:
    g = copy.deepcopy(next(g for g in sessions if not g.short))
    assert problems(g) == []
    MUTATIONS[name](g)
    assert problems(g), name


def test_the_checker_catches_an_update_worded_against_its_direction(sessions: list[FenSession]) -> None:
    """"bumped up to" a lower value, or "taken down to" a higher one (review rfen, finding 4)."""
    g = copy.deepcopy(next(g for g in sessions if any(f in ("bumped", "lowered") for p in g.plants for f in p.forms)))
    assert problems(g) == []
    p = _plant(g, lambda p: "bumped" in p.forms or "lowered" in p.forms)
    k = next(k for k, f in enumerate(p.forms) if f in ("bumped", "lowered"))
    flip = {"bumped": "lowered", "lowered": "bumped"}[p.forms[k]]
    wrong = T.UPDATE[flip].format(n=p.noun, v=p.said[k])
    at = p.said_at[k]
    g.messages[at] = user(g.messages[at].text.replace(p.texts[k], wrong))
    p.texts[k], p.forms[k] = wrong, flip
    assert problems(g)


def test_the_checker_catches_a_planted_value_claimed_as_a_trap(sessions: list[FenSession]) -> None:
    g2 = copy.deepcopy(sessions[0])
    g2.traps.append(g2.plants[1].value)
    g2.trap_at.append(0)
    g2.trap_how.append("tool")
    assert problems(g2)


def test_sessions_hold_the_under_used_kinds(sessions: list[FenSession]) -> None:
    short = [g for g in sessions if g.short]
    assert short and len(short) < len(sessions)
    for g in sessions:
        plants = [p for p in g.plants if isinstance(p, FenPlant)]
        assert g.splits, g.seed
        assert any(p.retracted for p in plants), g.seed
        if not g.short:
            assert g.spec_at >= 0 and g.docs_at >= 0 and g.traps, g.seed
            assert any(p.refs for p in plants) and any("two" in p.forms for p in plants), g.seed


def test_sentences_are_its_own() -> None:
    n, shared = borrowed(BENCH, "fen", ("memory_fen_text.py", "memory_fen_tools.py"))
    assert n > 50
    assert shared == []


def test_registered_as_held_out() -> None:
    import bench_memory
    import memory_misses

    assert "fen" in bench_memory.FAMILIES and "fen" in bench_memory.BY_NAME_ONLY and "fen" not in bench_memory.TUNING
    assert bench_memory.family_names("fen") == ("fen",)
    assert "fen" not in bench_memory.family_names("all") + bench_memory.family_names("tuning")
    assert "fen" in memory_misses.HELD_OUT and "fen" not in memory_misses.TUNING
    assert memory_misses.session("fen", SEED_BASE).messages == generate(SEED_BASE).messages
