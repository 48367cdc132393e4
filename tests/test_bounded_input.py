"""Issue 17, item 4: bounded work on model-controlled input, typed errors for misuse."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow import admit, compact, load_transcript
from contextwindow.clipping import MemoryOffload, retrieve, run_retrieve_call
from contextwindow.clipping.safegrep import compile_grep
from contextwindow.errors import ConfigError, InputError, PayloadError
from contextwindow.jsonbound import loads, nesting_depth
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session
from contextwindow.store import open_store
from contextwindow.tokens import counter_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import provider_checker

FORMATS = ("openai", "openai_responses", "anthropic", "gemini")


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a*b?)*", "(?:x+y)+z", "((ab)*c)+"])
def test_nested_quantifiers_from_the_model_are_refused_before_matching(pattern: str) -> None:
    sink = MemoryOffload()
    ref = sink.put_offload("a" * 5_000 + "!")
    with pytest.raises(InputError, match="nests a quantifier"):
        retrieve(sink, ref, grep=pattern)
    part = run_retrieve_call(sink, "c1", json.dumps({"ref": ref, "grep": pattern}))
    assert part.is_error and "drop the inner quantifier" in part.text  # the model reads what to do


def test_ordinary_patterns_still_work() -> None:
    sink = MemoryOffload()
    ref = sink.put_offload("alpha\nerror: disk full\nbeta\nerror: timeout after 3s\n")
    out = retrieve(sink, ref, grep=r"error.*(timeout|full)")
    assert "disk full" in out and "timeout after 3s" in out and "beta" not in out
    assert compile_grep("(ab){3}|a{2,5}|(foo|bar)+").search("xxfoobar", 0) is not None


def test_a_pattern_that_still_backtracks_stops_at_its_budget_with_a_typed_error() -> None:
    grep = compile_grep("(a|aa)+$", budget_s=0.05)  # overlapping alternatives: not refused statically
    with pytest.raises(InputError, match=r"did not finish within its 0\.05 s budget"):
        grep.search("a" * 60 + "!", 0)


def _depth_char_by_char(text: str) -> int:
    """The reference: a character-by-character scan (strings, escapes, unterminated strings)."""
    depth = deepest = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='[]{}"\\a\n:,', max_size=40))
def test_nesting_depth_reads_strings_escapes_and_brackets_as_a_character_scan_does(text: str) -> None:
    assert nesting_depth(text) == _depth_char_by_char(text)


def test_nesting_depth_skips_brackets_inside_long_strings() -> None:
    text = json.dumps({"content": "x[{\\" * 5_000 + '"', "a": [[[1]], {"b": ["]"]}]})
    assert nesting_depth(text) == _depth_char_by_char(text) == 4
    assert nesting_depth('"abc\\') == 0 and nesting_depth('"a\\"[') == 0 and nesting_depth('"a\\\\"[') == 1


def test_arguments_nested_a_thousand_deep_keep_every_build_working() -> None:
    deep = "[" * 1_000 + "]" * 1_000
    assert nesting_depth(deep) == 1_000
    with pytest.raises(PayloadError, match="nests 1000 levels"):
        loads(deep)
    assert loads('{"a": "[[[[[["}') == {"a": "[[[[[["}  # brackets inside strings do not count
    call = ToolCallPart("t1", "bash", deep)
    assert call.parsed_arguments() == deep  # opaque text, no RecursionError
    for fmt in FORMATS:
        store = open_store("memory:")
        s = Session(store, window=100_000, format=fmt)
        s.add(Message("user", (TextPart("go"),)), Message("assistant", (call,)), Message("tool", (ToolResultPart("t1", (TextPart(deep),)),)))
        for _ in range(2):  # every later build too
            b = s.build()
            assert provider_checker.problems(fmt, b.payload) == []
        assert store.list(s.id)[1].message.tool_calls[0].arguments == deep  # kept in the store as it came


@pytest.mark.parametrize("bad", [{}, 42, b"gpt-4o", ["gpt-4o"]])
def test_counter_for_rejects_non_names_with_a_config_error(bad: object) -> None:
    with pytest.raises(ConfigError, match=r"counter_for\(model\) must be a string or None"):
        counter_for(bad)  # type: ignore[arg-type]
    assert counter_for(None) is counter_for(None)


def test_public_functions_name_the_bad_argument() -> None:
    with pytest.raises(ConfigError, match=r"admit\(cwd\)"):
        admit({}, None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"admit\(per_file_chars\)"):
        admit(".", None, per_file_chars="many")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"load_transcript\(path\)"):
        load_transcript(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"compact\(items\)"):
        compact(42, budget=10, target=5, count=len)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"compact\(budget\)"):
        compact([], budget="x", target=5, count=len)  # type: ignore[arg-type]


def test_calibration_never_scales_the_estimate_below_its_floor() -> None:
    from contextwindow.tokens.calibration import APPLY_FLOOR, MIN_SAMPLES_BELOW_ONE, Calibration

    once_low = Calibration().observe(10_000, 5_000)  # a provider that counts low once
    assert once_low.factor < 1 and once_low.apply(10_000) == 10_000
    cal = Calibration()
    est = rep = 0
    for _ in range(MIN_SAMPLES_BELOW_ONE + 3):  # it keeps counting half of our estimate
        est, rep = est + 2_000, rep + 1_000
        cal = cal.observe(est, rep)
    assert cal.factor < APPLY_FLOOR and cal.apply(10_000) == round(10_000 * APPLY_FLOOR)
    high = Calibration().observe(10_000, 13_000)
    assert high.apply(10_000) == 13_000  # counting higher applies at once
