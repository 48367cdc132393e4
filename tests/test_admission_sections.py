from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextwindow.admission import PHASES, Section, assemble_system
from contextwindow.errors import ConfigError


def _sections() -> list[Section]:
    return [
        Section("memory-notes", "notes", "memory"),
        Section("role", "You are a careful agent.", "constraint", priority=10, sticky=True),
        Section("rules", "Never push to main.", "constraint", priority=0, sticky=True),
        Section("tools-doc", "Tools: grep, read.", "tools"),
        Section("task", "Fix the bug.", "task"),
        Section("runtime", "Iteration 1.", "memory", cacheable=False),
    ]


def test_order_is_phase_then_priority_then_name_with_per_call_last() -> None:
    p = assemble_system(_sections(), count=len)
    assert [s.name for s in p.sections] == ["role", "rules", "tools-doc", "task", "memory-notes", "runtime"]
    assert p.text.endswith("Iteration 1.")
    assert p.text.startswith("You are a careful agent.\n\nNever push to main.")


def test_reports_tokens_and_chars_per_section() -> None:
    p = assemble_system(_sections(), count=len)
    by = {s.name: s for s in p.sections}
    assert by["rules"].tokens == len("Never push to main.") == by["rules"].chars
    assert by["rules"].sticky and not by["task"].sticky
    assert not by["runtime"].cacheable
    assert p.tokens == len(p.text)


def test_cache_prefix_is_the_cacheable_part_and_survives_per_call_changes() -> None:
    a = assemble_system(_sections(), count=len)
    changed = [s if s.name != "runtime" else Section("runtime", "Iteration 2. Tools: grep.", "memory", cacheable=False) for s in _sections()]
    b = assemble_system(changed, count=len)
    assert a.text != b.text
    assert a.cache_prefix == b.cache_prefix
    assert a.cache_prefix.encode() == b.text[: b.cache_prefix_len].encode()
    assert "Iteration" not in a.cache_prefix
    assert a.cache_prefix.endswith("notes")


def test_same_input_gives_identical_bytes() -> None:
    a = assemble_system(_sections(), count=len)
    b = assemble_system(_sections(), count=len)
    assert a.text.encode() == b.text.encode()
    assert a == b


def test_empty_sections_are_omitted() -> None:
    p = assemble_system([Section("a", "x", "task"), Section("b", "  \n", "task")], count=len)
    assert [s.name for s in p.sections] == ["a"]
    assert p.text == "x"
    assert assemble_system([], count=len).text == ""


def test_only_per_call_sections_give_empty_prefix() -> None:
    p = assemble_system([Section("rt", "per call", "memory", cacheable=False)], count=len)
    assert p.cache_prefix_len == 0
    assert p.text == "per call"


def test_misuse_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown phase"):
        Section("x", "t", "later")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="named 'a'"):
        assemble_system([Section("a", "1", "task"), Section("a", "2", "tools")], count=len)
    with pytest.raises(ConfigError, match="non-empty name"):
        Section("", "t", "task")


def test_default_counter_is_used_when_none_given() -> None:
    p = assemble_system([Section("a", "hello world " * 50, "task")])
    assert 0 < p.tokens < len(p.text)


section_st = st.builds(
    Section,
    name=st.text("abcdefgh", min_size=1, max_size=6),
    text=st.text(max_size=30),
    phase=st.sampled_from(PHASES),
    priority=st.integers(-3, 3),
    sticky=st.booleans(),
    cacheable=st.booleans(),
)


@given(st.lists(section_st, max_size=8, unique_by=lambda s: s.name), st.randoms(use_true_random=False))
def test_order_does_not_depend_on_input_order(sections: list[Section], rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(sections)
    rnd.shuffle(shuffled)
    a = assemble_system(sections, count=len)
    b = assemble_system(shuffled, count=len)
    assert a.text == b.text and a.cache_prefix_len == b.cache_prefix_len
    # every cacheable section precedes every per-call one
    flags = [s.cacheable for s in a.sections]
    assert flags == sorted(flags, reverse=True)
    # the prefix never contains per-call text beyond the cacheable sections
    assert a.text[: a.cache_prefix_len] == "\n\n".join(
        s.text.rstrip() for s in sorted((s for s in sections if s.cacheable and s.text.strip()), key=lambda s: (PHASES.index(s.phase), -s.priority, s.name))
    )
