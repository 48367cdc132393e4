"""The router's invariants: unchanged under budget, one marker, within bound, offload over the
hard cap, never re-clipping retrieve output, and bad input that never raises."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contextwindow.clipping import (
    MARKER_ALLOWANCE,
    ClipConfig,
    MemoryOffload,
    clip,
    clip_with,
    count_markers,
    retrieve,
)
from contextwindow.clipping.search import listed_files
from contextwindow.errors import ConfigError
from contextwindow.messages import ImagePart, TextPart, ToolResultPart
from contextwindow.tokens import counter_for

COUNT = counter_for(None).count_text


def test_under_budget_is_returned_unchanged() -> None:
    text = "total 8\ndrwxr-xr-x 2 u u 4096 .\n"
    r = clip(text, 4000)
    assert r.text == text and not r.report.clipped and r.report.kind == "none"
    assert r.report.tokens_before == r.report.tokens_after == COUNT(text)
    assert count_markers(r.text) == 0


def test_tool_result_part_keeps_identity_and_images() -> None:
    img = ImagePart(source="url", data="https://ex.com/a.png")
    part = ToolResultPart(call_id="c1", name="bash", is_error=True,
                          content=(TextPart("x\n" * 30000), img, TextPart("tail text")))
    r = clip(part, 300, sink=MemoryOffload())
    assert r.part is not None
    assert r.part.call_id == "c1" and r.part.is_error and r.part.name == "bash"
    assert r.part.content[1] == img and len(r.part.content) == 2
    assert r.part.text == r.text and count_markers(r.text) == 1


def test_clipped_output_has_one_marker_with_the_ref_and_fits() -> None:
    sink = MemoryOffload()
    text = "\n".join(f"row {i}: value={i * 7}" for i in range(3000))
    r = clip(text, 400, sink=sink)
    assert count_markers(r.text) == 1 and r.text.rstrip().endswith("]")
    assert r.report.ref and f'ref="{r.report.ref}"' in r.text
    assert r.report.tokens_after == COUNT(r.text) <= 400 + MARKER_ALLOWANCE
    assert r.report.dropped_lines > 0 and r.report.dropped_tokens > 0
    assert f"{r.report.dropped_tokens:,}" in r.text and f"{r.report.dropped_lines:,}" in r.text
    assert sink.get_offload(r.report.ref).content == text  # the original, byte-exact


def test_old_markers_in_the_input_are_defused() -> None:
    first = clip("\n".join(f"line {i}" for i in range(4000)), 500)
    again = clip(first.text + "\n" + "\n".join(f"more {i}" for i in range(4000)), 200)
    assert count_markers(again.text) == 1


def test_big_outputs_keep_their_structure_whatever_the_hard_cap() -> None:
    """The hard cap no longer demotes a big result to a preview: the search clipper still runs."""
    sink = MemoryOffload()
    text = "\n".join(f"src/a{i % 50}.py:{i}:match {i}" for i in range(20000))
    r = clip(text, 4000, sink=sink, hard_cap_tokens=10000)
    assert r.report.kind == "search" and r.report.sniffed == "search"
    assert r.report.tokens_after <= 4000
    assert len(listed_files(r.text)) == 50
    assert sink.get_offload(r.report.ref).content == text


def test_retrieve_output_is_never_reclipped() -> None:
    sink = MemoryOffload()
    r = clip("\n".join(f"entry {i} " * 5 for i in range(5000)), 300, sink=sink)
    assert r.report.ref
    out = retrieve(sink, r.report.ref, budget_tokens=2000)
    again = clip(out, 300)  # smaller budget, but it is retrieve output: left alone
    assert again.text == out and not again.report.clipped
    by_name = clip(ToolResultPart(call_id="x", name="retrieve", content=(TextPart("z\n" * 3000),)), 100)
    assert not by_name.report.clipped


def test_per_tool_budgets() -> None:
    cfg = ClipConfig(default_budget=2000, per_tool={"grep": 300})
    text = "\n".join(f"lib/m{i}.c:{i}:int x{i};" for i in range(2000))
    assert clip_with(text, cfg, tool_name="grep").report.tokens_after <= 300 + MARKER_ALLOWANCE
    assert clip_with(text, cfg, tool_name="other").report.tokens_after > 300 + MARKER_ALLOWANCE
    with pytest.raises(ConfigError):
        ClipConfig(per_tool={"x": 0})
    with pytest.raises(ConfigError):
        clip("x", 0)
    with pytest.raises(ConfigError):
        clip("x", 10, kind="yaml")


def test_no_sink_says_the_original_was_not_kept() -> None:
    r = clip("a line\n" * 5000, 200)
    assert r.report.ref is None and "was not kept" in r.text


class _BrokenSink:
    def put_offload(self, content: str, meta: dict | None = None) -> str:
        raise OSError("disk full")

    def get_offload(self, ref: str) -> None:  # pragma: no cover - never reached
        raise AssertionError


def test_failing_sink_does_not_break_the_clip() -> None:
    r = clip("a line\n" * 5000, 200, sink=_BrokenSink())
    assert r.report.ref is None and "disk full" in r.text and count_markers(r.text) == 1


# --- bad input ---------------------------------------------------------------------------


def test_binary_content() -> None:
    data = bytes(range(256)) * 2000
    r = clip(data, 300, sink=MemoryOffload())
    assert r.report.clipped and "\x00" not in r.text and count_markers(r.text) == 1
    assert any("binary" in n for n in r.report.notes)


def test_invalid_utf8_is_decoded_with_replacement_and_said() -> None:
    data = ("ok line\n" * 3000).encode() + b"\xff\xfe bad \xc3\x28\n" + ("tail\n" * 3000).encode()
    r = clip(data, 300)
    assert any("not valid UTF-8" in n for n in r.report.notes)
    assert r.report.clipped and r.report.tokens_after <= 300 + MARKER_ALLOWANCE


def test_giant_single_line_is_bounded_in_time_and_memory() -> None:
    text = "x" * 200_000_000
    tracemalloc.start()
    r = clip(text, 4000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert r.report.kind == "text" and r.report.estimated
    assert r.report.tokens_after <= 4000
    assert peak < 20_000_000, peak  # bounded: linear scans only, never a parse of 200 MB (time: benchmarks/bench_clip.py)


def test_deep_json_and_malformed_json() -> None:
    deep = "[" * 10000 + "]" * 10000
    r = clip(deep, 200)
    assert r.report.clipped and r.report.tokens_after <= 200 + MARKER_ALLOWANCE
    assert any("too deeply" in n for n in r.report.notes)
    broken = '{"a": [' + ", ".join(f'{{"k{i}": "{i}"' for i in range(1000)) + "]}"
    rb = clip(broken, 300)
    assert rb.report.clipped and any("did not parse" in n for n in rb.report.notes)
    assert rb.report.tokens_after <= 300 + MARKER_ALLOWANCE


def test_json_deeper_than_the_render_depth() -> None:
    value: object = {"leaf": "x" * 5000}
    for i in range(300):
        value = {f"k{i}": value, "pad": list(range(50))}
    r = clip(json.dumps(value), 500)
    assert r.report.clipped and r.report.tokens_after <= 500 + MARKER_ALLOWANCE


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.text(max_size=300), min_size=0, max_size=400),
    budget=st.integers(min_value=1, max_value=3000),
    kind=st.sampled_from(["auto", "search", "log", "json", "diff", "html", "read", "text"]),
)
# a short line of characters that cost several tokens each: the character cut kept it whole and
# added a note of "-8 chars omitted", then cut that again (163 tokens for a 25-token original)
@example(lines=["00\U0001d4080\U0001d40a0\U0001d40f1\U0001d4120\U0001d415\U0001d414\U0001d41e\U0001d423\U0001d425\U0001d426"], budget=1, kind="auto")
def test_any_text_any_budget_never_raises_and_stays_bounded(lines: list[str], budget: int, kind: str) -> None:
    text = "\n".join(lines)
    r = clip(text, budget, kind=kind, sink=MemoryOffload())
    if r.report.clipped:
        assert count_markers(r.text) == 1
        assert r.report.tokens_after <= budget + MARKER_ALLOWANCE
    else:
        assert r.text == text


@settings(max_examples=25, deadline=None)
@given(data=st.binary(min_size=0, max_size=50_000), budget=st.integers(min_value=1, max_value=2000))
def test_any_bytes_never_raise(data: bytes, budget: int) -> None:
    r = clip(data, budget)
    if r.report.clipped:
        assert r.report.tokens_after <= budget + MARKER_ALLOWANCE and count_markers(r.text) == 1
    else:
        assert r.report.tokens_after <= budget


def test_public_surface() -> None:
    import contextwindow.clipping as clipping

    assert set(clipping.__all__) >= {"clip", "clip_with", "retrieve", "ClipConfig", "ClipReport", "ClipResult",
                                     "OffloadSink", "MemoryOffload", "RETRIEVE_TOOL", "elide_seen_images"}
    assert all(hasattr(clipping, name) for name in clipping.__all__)


def test_old_markers_inside_a_big_output_are_defused() -> None:
    old = clip("\n".join(f"line {i}" for i in range(4000)), 300).text
    r = clip(old + "\n" + "z\n" * 60000, 2000, hard_cap_tokens=5000)
    assert r.report.clipped and count_markers(r.text) == 1
