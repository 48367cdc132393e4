from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.admission import Omission, Skill
from contextwindow.admission.frontmatter import FrontMatterError, parse
from contextwindow.admission.skills import load_skill


def test_plain_quoted_and_comment_values() -> None:
    fm = parse('---\nname: pdf-tools\ndescription: "Fill \\"PDF\\" forms"  # note\nalias: \'it\'\'s\'\nplain: a b # c\n---\nBody\n')
    assert fm.present
    assert fm.fields == {"name": "pdf-tools", "description": 'Fill "PDF" forms', "alias": "it's", "plain": "a b"}
    assert fm.body == "Body\n"


def test_folded_and_literal_blocks() -> None:
    fm = parse("---\ndescription: >\n  one\n  two\n\n  three\nlit: |-\n  a\n    b\n---\n")
    assert fm.fields["description"] == "one two\nthree\n"
    assert fm.fields["lit"] == "a\n  b"


def test_nested_blocks_and_flow_values_are_tolerated() -> None:
    fm = parse("---\nname: x\nmetadata:\n  version: 2\n  tags:\n    - a\nallowed-tools: [Read, Grep]\ndescription: d\n---\nB")
    assert fm.fields["metadata"] is None
    assert fm.fields["allowed-tools"] == "[Read, Grep]"
    assert fm.fields["description"] == "d"


def test_no_front_matter_is_not_an_error() -> None:
    fm = parse("# Title\ntext")
    assert not fm.present and fm.body == "# Title\ntext"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('---\nname = "toml"\n---\n', "not 'key: value'"),
        ('---\n{"name": "json"}\n---\n', "not 'key: value'"),
        ("---\nname: x\n", "not closed"),
        ("---\n  name: x\n---\n", "indented"),
        ("---\nname: x\nname: y\n---\n", "twice"),
        ('---\nname: "open\n---\n', "unterminated"),
        ("---\nname: 'a' b\n---\n", "after the closing quote"),
        ("---\nname: a\n  continued\n---\n", "indented lines"),
        ('---\nname: "bad \\q"\n---\n', "unsupported escape"),
        ("---\n- a\n- b\n---\n", "not 'key: value'"),
    ],
)
def test_malformed_front_matter_raises_a_clear_error(text: str, match: str) -> None:
    with pytest.raises(FrontMatterError, match=match):
        parse(text)


def test_crlf_line_endings() -> None:
    fm = parse("---\r\nname: win\r\ndescription: \"crlf\"\r\n---\r\nBody\r\n")
    assert fm.fields == {"name": "win", "description": "crlf"}
    assert fm.body.strip() == "Body"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("-:>|'\"#\\ \n\tab[]{}=+.")), max_size=80))
def test_parse_never_raises_anything_but_front_matter_error(body: str) -> None:
    try:
        fm = parse("---\n" + body)
    except FrontMatterError as exc:
        assert str(exc)
    else:
        assert all(isinstance(k, str) for k in fm.fields)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_a_skill_or_a_reason(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "SKILL.md"
        p.write_bytes(b"---\nname: x\n" + data)
        got = load_skill(p)
        assert isinstance(got, (Skill, Omission))
        if isinstance(got, Omission):
            assert got.reason.startswith("skill skipped: ")


def test_unclosed_flow_value_is_malformed_not_a_name() -> None:
    import pytest as _pytest

    from contextwindow.admission.frontmatter import FrontMatterError, parse

    with _pytest.raises(FrontMatterError, match="not closed"):
        parse("---\nname: [unclosed\ndescription: x\n---\nbody")
    assert parse("---\nname: ok\ntools: ['a]', b]\n---\n").fields["tools"] == "['a]', b]"
