"""The clippers on the real tool results of ../shared/fixtures/transcripts (Claude Code, Codex,
SWE-agent, OpenHands): within bound, one marker, and what matters kept."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from contextwindow.clipping import MARKER_ALLOWANCE, MemoryOffload, clip, count_markers, retrieve
from contextwindow.tokens import counter_for

_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_clip.py"
_spec = importlib.util.spec_from_file_location("bench_clip", _BENCH)
assert _spec and _spec.loader
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_clip"] = bench
_spec.loader.exec_module(bench)

COUNT = counter_for(None).count_text


@pytest.fixture
def results(transcripts_dir: Path) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = bench.tool_results(transcripts_dir)
    assert len(out) > 300
    return out


def test_every_source_yields_tool_results(results: list[tuple[str, str, str]]) -> None:
    assert {src for src, _, _ in results} == {"claude_code", "codex", "swe_agent", "openhands"}


def test_real_results_fit_and_carry_one_marker(results: list[tuple[str, str, str]]) -> None:
    big = [r for r in results if len(r[2]) > 3000]
    assert len(big) > 50
    sink = MemoryOffload()
    kinds = set()
    for _src, name, text in big:
        r = clip(text, 500, tool_name=name or None, sink=sink, count=COUNT)
        if not r.report.clipped:
            assert r.text == text
            continue
        kinds.add(r.report.kind)
        assert count_markers(r.text) == 1
        assert r.report.tokens_after <= 500 + MARKER_ALLOWANCE
        assert sink.get_offload(r.report.ref).content == text
    assert {"search", "log", "read", "json", "html"} <= kinds


def test_real_search_results_keep_every_file_at_default_budget(results: list[tuple[str, str, str]]) -> None:
    kept = wanted = 0
    for _src, name, text in results:
        r = clip(text, 4000, tool_name=name or None, count=COUNT)
        if r.report.clipped and r.report.kind == "search":
            k, w = bench.search_paths_kept(text, r.text)
            kept, wanted = kept + k, wanted + w
    assert wanted > 100
    assert kept / wanted >= 0.6  # path lists longer than the budget itself cannot all fit


def test_real_logs_keep_their_error_lines_at_default_budget(results: list[tuple[str, str, str]]) -> None:
    kept = wanted = 0
    for _src, name, text in results:
        r = clip(text, 4000, tool_name=name or None, count=COUNT)
        if r.report.clipped and r.report.kind == "log":
            k, w = bench.error_lines_kept(text, r.text)
            kept, wanted = kept + k, wanted + w
    assert wanted > 20 and kept / wanted >= 0.95


def test_retrieve_a_real_original(results: list[tuple[str, str, str]]) -> None:
    sink = MemoryOffload()
    text = max((t for _, _, t in results), key=len)
    r = clip(text, 500, sink=sink, count=COUNT)
    assert r.report.ref
    out = retrieve(sink, r.report.ref, offset=0, limit=20, budget_tokens=800, count=COUNT)
    assert COUNT(out) <= 800
    first = text.split("\n", 1)[0]
    assert first[:60] in out
