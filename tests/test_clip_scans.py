"""The clippers' scans of one text, reused by a clip's re-runs at other budgets (clipping/select.py
``scanned``): the same bodies with and without the shared scans, on seeded texts of every scanning
kind and on the real tool results of ../shared/fixtures."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from contextwindow.clipping.logs import clip_log
from contextwindow.clipping.router import CLIPPERS, SCANNING
from contextwindow.clipping.search import clip_search
from contextwindow.clipping.select import Scans
from contextwindow.clipping.text import clip_numbered, clip_text
from contextwindow.tokens import counter_for

COUNT = counter_for(None).count_text
BUDGETS = (600, 250, 1_200, 90, 600, 9_000)  # re-runs of one clip: smaller, larger, the same again; a larger cap


def _numbered(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randint(200, 700)):
        if rng.random() < 0.05:
            lines.append(f"{i + 1:>6}→def f_{i}(x):")
        elif rng.random() < 0.03:
            lines.append(f"{i + 1:>6}→import mod_{i}")
        else:
            lines.append(f"{i + 1:>6}→    y = x * {rng.randint(0, 99)}  # {'w' * rng.randint(0, 60)}")
    return "\n".join(lines)


def _log(rng: random.Random) -> str:
    out = []
    for i in range(rng.randint(300, 900)):
        r = rng.random()
        if r < 0.02:
            out += ["Traceback (most recent call last):", f'  File "a{i}.py", line {i}, in f', f"ValueError: bad {i}"]
        elif r < 0.06:
            out.append(f"WARNING: step {i} slow")
        elif r < 0.08:
            out.append(f"ERROR: step {i} failed")
        else:
            out.append(f"2026-01-01 10:00:{i % 60:02d} INFO step {i} {'x' * rng.randint(0, 80)}")
    out.append(f"{rng.randint(1, 9)} failed, {rng.randint(10, 99)} passed")
    return "\n".join(out)


def _search(rng: random.Random) -> str:
    return "\n".join(
        f"src/pkg{rng.randint(0, 9)}/mod{rng.randint(0, 40)}.py:{rng.randint(1, 900)}:    value = lookup({rng.randint(0, 10**6)})"
        for _ in range(rng.randint(200, 800))
    )


def _source(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randint(200, 600)):
        lines.append(f"class C{i}:" if rng.random() < 0.04 else f"    def m{i}(self):" if rng.random() < 0.08 else f"        return {i} + {'y' * rng.randint(0, 70)}")
    return "\n".join(lines)


KINDS = [(clip_numbered, _numbered), (clip_text, _source), (clip_text, lambda r: _log(r).replace("ERROR", "note")), (clip_log, _log), (clip_search, _search)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("clipper", "make"), KINDS, ids=["numbered", "source", "text", "log", "search"])
def test_shared_scans_give_the_same_bodies(seed: int, clipper, make) -> None:  # type: ignore[no-untyped-def]
    text = make(random.Random(seed))
    scans: Scans = {}
    for budget in BUDGETS:
        assert clipper(text, budget, COUNT, scans=scans) == clipper(text, budget, COUNT)
    assert scans, "the first run keeps its scan for the next"


def test_every_scanning_clipper_takes_scans() -> None:
    assert set(CLIPPERS) >= SCANNING
    text = _numbered(random.Random(1))
    for kind in SCANNING:
        scans: Scans = {}
        assert CLIPPERS[kind](text, 300, COUNT, scans=scans) == CLIPPERS[kind](text, 300, COUNT)  # type: ignore[call-arg]


def test_real_results_clip_the_same_with_shared_scans(transcripts_dir: Path) -> None:
    bench_path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_clip.py"
    spec = importlib.util.spec_from_file_location("bench_clip", bench_path)
    assert spec and spec.loader
    bench = sys.modules.get("bench_clip") or importlib.util.module_from_spec(spec)
    if "bench_clip" not in sys.modules:
        sys.modules["bench_clip"] = bench
        spec.loader.exec_module(bench)
    from contextwindow.clipping.sniff import sniff

    big = [(tool, text) for _, tool, text in bench.tool_results(transcripts_dir) if len(text) > 12_000]
    assert len(big) >= 20
    checked = 0
    for tool, text in big[:40]:
        kind = sniff(text, tool)
        if kind not in SCANNING:
            continue
        scans: Scans = {}
        for budget in (3_900, 3_700, 3_950):
            assert CLIPPERS[kind](text, budget, COUNT, scans=scans) == CLIPPERS[kind](text, budget, COUNT)  # type: ignore[call-arg]
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("clipper", "make"), [KINDS[0], KINDS[3]], ids=["numbered", "log"])
def test_a_larger_budget_scans_a_long_text_again(clipper, make) -> None:  # type: ignore[no-untyped-def]
    """Past 200k characters the scans keep budget x 48 characters: another budget, another scan."""
    rng = random.Random(7)
    text = "\n".join(make(rng) for _ in range(16))
    assert len(text) > 300_000
    scans: Scans = {}
    for budget in (3_000, 9_000):
        assert clipper(text, budget, COUNT, scans=scans) == clipper(text, budget, COUNT)
    assert len(scans) == 2
