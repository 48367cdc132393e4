from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextwindow
from contextwindow import messages as m
from contextwindow.errors import PayloadError


def test_public_surface_is_declared() -> None:
    for name in contextwindow.__all__:
        assert hasattr(contextwindow, name), name
    assert "Message" in contextwindow.__all__


texts = st.text(max_size=40)
extras = st.dictionaries(st.sampled_from(["openai", "anthropic"]), st.dictionaries(st.text(max_size=5), st.integers()), max_size=2)
text_parts = st.builds(m.TextPart, text=texts, extra=extras)
image_parts = st.builds(
    m.ImagePart,
    source=st.sampled_from(["base64", "url", "file"]),
    data=texts,
    media_type=st.none() | st.just("image/png"),
    width=st.none() | st.integers(1, 4000),
    height=st.none() | st.integers(1, 4000),
)
parts = st.one_of(
    text_parts,
    image_parts,
    st.builds(m.ReasoningPart, text=texts, signature=st.none() | texts, encrypted=st.none() | texts, provider=st.none() | st.just("anthropic")),
    st.builds(m.ToolCallPart, id=texts, name=texts, arguments=texts),
    st.builds(m.ToolResultPart, call_id=texts, content=st.tuples(text_parts, image_parts), is_error=st.booleans(), name=st.none() | texts),
)
messages = st.builds(
    m.Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    parts=st.lists(parts, max_size=4).map(tuple),
    name=st.none() | texts,
    extra=extras,
    meta=st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)


@given(messages)
def test_json_round_trip_is_lossless(msg: m.Message) -> None:
    assert m.loads(m.dumps(msg)) == msg


def test_signature_is_byte_exact() -> None:
    sig = "EqQBCkYIBxgCKkD+/==\u00e9"
    msg = m.Message("assistant", (m.ReasoningPart("think", signature=sig, provider="anthropic"),))
    back = m.loads(m.dumps(msg))
    assert back.parts[0].signature == sig  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"role": "robot", "parts": []}, "role"),
        ({"role": "user"}, "parts"),
        ({"role": "user", "parts": [{"kind": "nope"}]}, "kind"),
        ({"role": "user", "parts": [{"kind": "text", "text": 3}]}, "text"),
    ],
)
def test_malformed_messages_name_index_and_field(raw: dict, field: str) -> None:
    with pytest.raises(PayloadError) as info:
        m.messages_from_json([{"role": "user", "parts": []}, raw])
    assert info.value.index == 1
    assert info.value.field == field
    assert "message 1" in str(info.value)
