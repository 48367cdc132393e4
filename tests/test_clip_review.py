"""Review of the clipping stage against issue 4: invariants on real tool outputs (the fixture
transcripts, and outputs of real commands run over this repository)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from contextwindow.clipping import MemoryOffload, clip, count_markers
from contextwindow.tokens import counter_for

ROOT = Path(__file__).resolve().parent.parent
_BENCH = ROOT / "benchmarks" / "bench_clip.py"
_spec = importlib.util.spec_from_file_location("bench_clip", _BENCH)
assert _spec and _spec.loader
bench = sys.modules.get("bench_clip") or importlib.util.module_from_spec(_spec)
if "bench_clip" not in sys.modules:
    sys.modules["bench_clip"] = bench
    _spec.loader.exec_module(bench)

COUNT = counter_for(None).count_text


def _run(*cmd: str, cwd: Path = ROOT) -> str:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False).stdout


@pytest.fixture(scope="module")
def grep_output() -> str:
    out = _run("grep", "-rn", "def ", "src/contextwindow")
    assert out.count("\n") > 500
    return out


def test_within_budget_with_a_store_on_real_results(transcripts_dir: Path) -> None:
    """With a store the marker carries a real ref, whose hex digits can cost more tokens than the
    probe's; the result must still be within the budget (it came out 1-4 tokens over)."""
    results = [r for r in bench.tool_results(transcripts_dir) if len(r[2]) > 1500]
    over = []
    for budget in (4000, 500):
        for _src, name, text in results:
            r = clip(text, budget, tool_name=name or None, sink=MemoryOffload(), count=COUNT)
            if r.report.clipped and r.report.kind != "offload" and r.report.tokens_after > budget:
                over.append((budget, r.report.kind, r.report.tokens_after))
    assert over == []


def test_within_budget_with_a_store_on_grep_output(grep_output: str) -> None:
    for budget in (4000, 1000, 300):
        r = clip(grep_output, budget, sink=MemoryOffload(), count=COUNT)
        assert r.report.clipped and count_markers(r.text) == 1
        assert r.report.tokens_after <= budget, budget


def test_grep_output_keeps_every_file_path_when_the_paths_fit(grep_output: str) -> None:
    """grep -rn over this repository: ~130 files, ~1,000 matches. The paths alone cost well under
    the budget, so every one must be named (with its exact count); 20% were lost in a
    '… and 20 more files' gap."""
    files = bench.parse_search(grep_output.split("\n")).files
    assert COUNT("\n".join(files)) < 2000
    r = clip(grep_output, 4000, sink=MemoryOffload(), count=COUNT)
    assert r.report.kind == "search"
    missing = [p for p in files if p not in r.text]
    assert missing == []
    for path, f in files.items():  # every file not shown whole says how many of its matches it lost
        if f.matches > 1 and r.text.count(f"{path}:") < f.matches:
            assert f"{f.matches:,} in total" in r.text or f"of {f.matches:,})" in r.text, path
