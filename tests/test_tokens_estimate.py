"""The class-rate estimator, message framing, images and tool definitions."""

from __future__ import annotations

import base64
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.errors import TokenizeError
from contextwindow.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    assistant,
    tool_result,
    user,
)
from contextwindow.tokens import Estimator, counter_for, image_tokens
from contextwindow.tokens.exact import count_tokens
from contextwindow.tokens.textclass import stats
from contextwindow.tools import ToolSpec

PROSE = "The committee reviewed the proposal carefully and decided to postpone the final vote until next week. " * 40
CODE = "".join(f"def handler_{i}(request, *args):\n    value = compute(request.data['key_{i}'], limit={i})\n    return value\n\n" for i in range(60))
JSON = str([{"id": i, "name": f"item{i}", "tags": ["a", "b"], "price": i * 1.5} for i in range(80)]).replace("'", '"')
CJK = "这是一个用于估计标记数量的中文文本示例，我们希望它能够准确地反映真实的情况。" * 20
RU = "Это пример русского текста, который используется для оценки количества токенов в сообщении. " * 20


@pytest.mark.parametrize("text", [PROSE, CODE, JSON, CJK, RU], ids=["prose", "code", "json", "cjk", "ru"])
def test_openai_shape_close_to_o200k(text: str) -> None:
    est = Estimator("openai").count_text(text)
    exact = count_tokens("o200k_base", text)
    assert abs(est - exact) / exact < 0.35, (est, exact)  # per text; sums over a conversation do far better


def test_better_than_chars_over_4_on_mixed_content() -> None:
    texts = [PROSE, CODE, JSON, CJK, RU]
    est_err = sum(abs(Estimator("openai").count_text(t) - count_tokens("o200k_base", t)) for t in texts)
    ratio_err = sum(abs(len(t) / 4 - count_tokens("o200k_base", t)) for t in texts)
    assert est_err < ratio_err * 0.75


def test_blobs_are_detected_and_dense() -> None:
    random.seed(3)
    b64 = base64.b64encode(os.urandom(3000)).decode()
    hx = os.urandom(1500).hex()
    assert stats(b64).b64_chars == len(b64)
    assert stats(hx).hex_chars == len(hx)
    assert stats("/usr/local/lib/python3.11/site-packages/contextwindow").b64_chars == 0
    exact = count_tokens("o200k_base", b64)
    assert abs(Estimator("openai").count_text(b64) - exact) / exact < 0.15


def test_families_scale() -> None:
    a = Estimator("anthropic").count_text(PROSE)
    o = Estimator("openai").count_text(PROSE)
    assert a > o
    with pytest.raises(TokenizeError):
        Estimator("nope")


def test_empty_and_non_text() -> None:
    e = Estimator()
    assert e.count_text("") == 0
    assert e.count_text("a") == 1
    with pytest.raises(TokenizeError):
        e.count_text(b"bytes")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_estimate_is_roughly_additive_and_monotone(a: str, b: str) -> None:
    e = Estimator()
    whole = e.count_text(a + b)
    parts = e.count_text(a) + e.count_text(b)
    assert whole >= 0
    assert abs(whole - parts) <= 3 + 0.05 * parts


def test_message_framing_and_tool_calls() -> None:
    e = counter_for("claude-sonnet-4-5")
    m = assistant("Let me look.", ToolCallPart(id="toolu_01", name="Read", arguments='{"path": "a.py"}'))
    body = e.count_text("Let me look.") + e.count_text("toolu_01") + e.count_text("Read") + e.count_text('{"path": "a.py"}')
    assert e.count_message(m) == body + e.profile.per_message + e.profile.per_tool_call
    r = tool_result("toolu_01", "print(1)")
    assert e.count_message(r) > e.count_text("print(1)")
    assert e.count_messages([user("hi"), m, r]) == e.profile.per_request + sum(e.count_message(x) for x in (user("hi"), m, r))


def test_old_reasoning_dropped_by_count_messages_only() -> None:
    e = counter_for("claude-sonnet-4-5")
    think = Message(role="assistant", parts=(ReasoningPart(text="thinking hard " * 50), TextPart("ok")))
    msgs = [user("q1"), think, user("q2")]
    whole = sum(e.count_message(m) for m in msgs) + e.profile.per_request
    assert e.count_messages(msgs) < whole
    assert e.count_messages([user("q1"), think]) == sum(e.count_message(m) for m in [user("q1"), think])


def test_images_by_provider_formula() -> None:
    assert image_tokens("openai", 1024, 1024) == 85 + 170 * 4
    assert image_tokens("openai", 4000, 4000, "low") == 85
    assert image_tokens("openai", None, None) == 765
    assert image_tokens("anthropic", 1000, 1000) == 1334
    assert image_tokens("anthropic", 4000, 3000) <= 1600
    assert image_tokens("gemini", 300, 300) == 258
    assert image_tokens("gemini", 1000, 800) == 258 * 4
    img = Message(role="user", parts=(ImagePart(source="url", data="http://x/y.png", width=1024, height=1024),))
    assert counter_for("gpt-4o").count_message(img) == 3 + 765


def test_tools_counted() -> None:
    e = counter_for("claude-sonnet-4-5")
    t = ToolSpec("read_file", "Read a file from disk.", {"type": "object", "properties": {"path": {"type": "string"}}})
    n = e.count_tools([t])
    assert n > e.count_text("read_file") + e.count_text("Read a file from disk.")
    assert e.count_tools([t, t]) == 2 * n
    with pytest.raises(TokenizeError, match="tool 0"):
        e.count_tools([{"name": "x"}])  # type: ignore[list-item]
    with pytest.raises(TokenizeError, match="JSON"):
        e.count_tools([ToolSpec("x", "", {"bad": object()})])


def test_tool_counts_are_remembered_for_the_same_specs_only() -> None:
    e = counter_for("gpt-4o-mini")
    e.forget_memos()
    a = ToolSpec("grep", "Search the tree.", {"type": "object"})
    b = ToolSpec("grep", "Search the tree, every file, and say how many lines matched in each.", {"type": "object"})
    specs = [a, a]
    n = e.count_tools(specs)
    assert e.count_tools(specs) == n and e.count_tools(tuple(specs)) == n  # the same objects: remembered
    specs[1] = b  # the list changed in place: counted again, not the remembered answer
    assert e.count_tools(specs) == e.count_tools([a]) + e.count_tools([b]) > n
    assert e.count_tools([ToolSpec("grep", "Search the tree.", {"type": "object"})] * 2) == n  # equal specs, other objects


def test_bad_message_is_a_typed_error() -> None:
    with pytest.raises(TokenizeError):
        counter_for(None).count_message("hello")  # type: ignore[arg-type]


def test_large_text_counts_like_its_pieces() -> None:
    # speed lives in benchmarks/bench_tokens_speed.py (MB/s); here: a 1.1 MB text is counted, and
    # additively (no quadratic re-scan that would show up as a different total)
    e = Estimator()
    piece = PROSE + CODE + JSON
    whole = e.count_text(piece * 40)
    assert abs(whole - 40 * e.count_text(piece)) <= 0.01 * whole


class _PartCounting(Estimator):
    """An Estimator that counts how often it measures a message part."""

    parts_counted = 0

    def count_part(self, part):  # type: ignore[no-untyped-def]
        self.parts_counted += 1
        return super().count_part(part)


def test_count_message_is_cached_per_object() -> None:
    e = _PartCounting()
    m = user("x" * 100_000)
    first = e.count_message(m)
    assert e.parts_counted == 1
    for _ in range(1000):
        assert e.count_message(m) == first
    assert e.parts_counted == 1  # measured once, then served from the cache


def test_public_surface() -> None:
    import contextwindow.tokens as t

    assert set(t.__all__) >= {"counter_for", "TokenCounter", "Estimator", "ExactCounter", "RunningCount", "Calibration", "effective_tokens"}
    for name in t.__all__:
        assert getattr(t, name) is not None
    assert isinstance(counter_for("gpt-4o"), t.TokenCounter)
    assert isinstance(counter_for("claude-opus-4-1"), t.TokenCounter)
