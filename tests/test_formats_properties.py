"""Property tests: any history → to_payload → from_payload → to_payload is stable, for every
format; and converting through any provider gives a payload that is structurally valid for
any other (each tool call answered right after, no orphan result, roles as the provider wants).
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow import messages as msgs
from contextwindow.formats import FORMATS, get_format
from contextwindow.messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
)
from contextwindow.tools import ToolSpec

# --- structural validators (what each provider demands) -------------------------------


def validate_openai(p: dict[str, Any]) -> None:
    pending: set[str] | None = None
    for i, m in enumerate(p["messages"]):
        role = m["role"]
        assert role in ("system", "developer", "user", "assistant", "tool"), (i, role)
        if role == "tool":
            assert pending is not None and m["tool_call_id"] in pending, f"orphan tool result at {i}"
            pending.discard(m["tool_call_id"])
            assert isinstance(m["content"], (str, list))
            continue
        assert not pending, f"unanswered tool calls {pending} before message {i}"
        pending = None
        if role == "assistant" and m.get("tool_calls"):
            ids = [tc["id"] for tc in m["tool_calls"]]
            assert len(set(ids)) == len(ids)
            assert all(isinstance(tc["function"]["arguments"], str) for tc in m["tool_calls"])
            pending = set(ids)
        else:
            assert "content" in m
    assert not pending, f"unanswered tool calls at the end: {pending}"


_ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


def validate_anthropic(p: dict[str, Any]) -> None:
    system = p.get("system")
    assert system is None or isinstance(system, str) or all(b["type"] == "text" for b in system)
    prev_role: str | None = None
    pending: list[str] = []
    for i, m in enumerate(p["messages"]):
        assert m["role"] in ("user", "assistant") and m["role"] != prev_role, f"roles must alternate at {i}"
        if prev_role is None:
            assert m["role"] == "user", "the first message must be user"
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        assert blocks and all(b["type"] != "text" or b["text"] for b in blocks), f"empty content at {i}"
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        if pending:
            assert m["role"] == "user" and Counter(results) == Counter(pending), f"tool_use not answered at {i}"
            assert all(b["type"] == "tool_result" for b in blocks[: len(results)]), "tool_result blocks come first"
        else:
            assert not results, f"orphan tool_result at {i}"
        pending = [b["id"] for b in blocks if b["type"] == "tool_use"]
        for b in blocks:
            if b["type"] == "tool_use":
                assert _ANTHROPIC_ID.match(b["id"]) and isinstance(b["input"], dict)
            if b["type"] in ("thinking", "redacted_thinking", "tool_use"):
                assert m["role"] == "assistant"
        prev_role = m["role"]
    assert not pending, "the last tool_use is unanswered"


def validate_responses(p: dict[str, Any]) -> None:
    assert isinstance(p["input"], (str, list))
    pending: set[str] = set()
    for i, item in enumerate(p["input"] if isinstance(p["input"], list) else []):
        kind = item.get("type", "message")
        if kind in ("function_call", "custom_tool_call"):
            assert item["call_id"] not in pending and isinstance(item.get("arguments", item.get("input")), str)
            pending.add(item["call_id"])
        elif kind in ("function_call_output", "custom_tool_call_output"):
            assert item["call_id"] in pending, f"orphan output at {i}"
            pending.discard(item["call_id"])
        elif kind == "message":
            assert item["role"] in ("user", "system", "developer", "assistant")
            if item["role"] != "assistant":
                assert not pending, f"unanswered calls {pending} before item {i}"
        elif kind == "reasoning":
            assert isinstance(item["summary"], list)
    assert not pending


def validate_gemini(p: dict[str, Any]) -> None:
    prev: dict[str, Any] | None = None
    for i, c in enumerate(p["contents"]):
        assert c["role"] in ("user", "model") and (prev is None or prev["role"] != c["role"]), f"roles at {i}"
        if prev is None:
            assert c["role"] == "user"
        assert c["parts"], f"empty content at {i}"
        assert all(part.get("text", "x") != "" or "thoughtSignature" in part for part in c["parts"]), f"empty text at {i}"
        calls = [part["functionCall"] for part in (prev or {"parts": []})["parts"] if "functionCall" in part]
        responses = [part["functionResponse"] for part in c["parts"] if "functionResponse" in part]
        assert Counter(r["name"] for r in responses) == Counter(f["name"] for f in calls), f"unpaired functionResponse at {i}"
        assert Counter(r.get("id") for r in responses) == Counter(f.get("id") for f in calls)
        for f in (part["functionCall"] for part in c["parts"] if "functionCall" in part):
            assert c["role"] == "model" and isinstance(f["args"], dict)
        prev = c
    assert prev is None or not any("functionCall" in part for part in prev["parts"])


VALIDATORS: dict[str, Callable[[dict[str, Any]], None]] = {
    "openai": validate_openai,
    "openai_responses": validate_responses,
    "anthropic": validate_anthropic,
    "gemini": validate_gemini,
}

# --- random neutral histories -----------------------------------------------------------

texts = st.text(max_size=20)
nonempty = st.text(alphabet=string.ascii_letters + " é中\n", min_size=1, max_size=20)
opaque_str = st.text(alphabet=string.ascii_letters + string.digits + "+/=", min_size=1, max_size=16)
json_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
json_args = st.dictionaries(st.text(max_size=5), json_values, max_size=3)
tool_names = st.sampled_from(["read", "grep", "bash", "edit_file"])
images = st.one_of(
    st.builds(lambda d: ImagePart(source="base64", data=d, media_type="image/png"), opaque_str),
    st.builds(lambda d: ImagePart(source="url", data="https://example.com/" + d + ".png"), st.text(string.ascii_lowercase, min_size=1, max_size=5)),
)


@st.composite
def reasoning(draw: st.DrawFn) -> ReasoningPart:
    provider = draw(st.sampled_from([None, "openai_responses", "anthropic", "gemini"]))
    text = draw(texts)
    if provider == "anthropic" and draw(st.booleans()):
        return ReasoningPart(encrypted=draw(opaque_str), provider=provider)
    if provider in ("anthropic", "gemini"):
        return ReasoningPart(text=text, signature=draw(st.none() | opaque_str), provider=provider)
    if provider == "openai_responses":
        return ReasoningPart(text=text, encrypted=draw(st.none() | opaque_str), provider=provider)
    return ReasoningPart(text=text)


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(msgs.system(draw(nonempty)))
    n = 0
    for _ in range(draw(st.integers(1, 3))):
        user_parts: list[Part] = [TextPart(draw(nonempty))]
        if draw(st.integers(0, 4)) == 0:
            user_parts.append(draw(images))
        out.append(Message(role="user", parts=tuple(user_parts)))
        for _ in range(draw(st.integers(0, 3))):
            parts: list[Part] = []
            if draw(st.booleans()):
                parts.append(draw(reasoning()))
            if draw(st.booleans()):
                parts.append(TextPart(draw(texts)))
            calls = [
                ToolCallPart(id=f"call_{n + j}", name=draw(tool_names), arguments=dump_arguments(draw(json_args)))
                for j in range(draw(st.integers(0, 3)))
            ]
            n += len(calls)
            parts.extend(calls)
            out.append(Message(role="assistant", parts=tuple(parts or [TextPart("ok")])))
            if not calls:
                break
            results = [
                ToolResultPart(
                    call_id=c.id,
                    content=(TextPart(draw(texts)),),
                    is_error=draw(st.booleans()),
                    name=c.name if draw(st.booleans()) else None,
                )
                for c in calls
            ]
            results = draw(st.permutations(results))
            if draw(st.booleans()):
                extra: tuple[Part, ...] = (TextPart(draw(nonempty)),) if draw(st.booleans()) else ()
                out.append(Message(role="tool", parts=(*results, *extra)))
            else:
                out.extend(Message(role="tool", parts=(r,)) for r in results)
    return out


specs = st.lists(
    st.builds(ToolSpec, name=tool_names, description=texts, parameters=st.just({"type": "object", "properties": {"x": {"type": "string"}}})),
    max_size=2,
    unique_by=lambda s: s.name,
)

SETTINGS = settings(max_examples=int(__import__("os").environ.get("CW_FORMATS_EXAMPLES", "120")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(history=histories(), system=st.none() | nonempty, tools=specs, fmt=st.sampled_from(sorted(FORMATS)))
def test_to_from_to_is_stable(history: list[Message], system: str | None, tools: list[ToolSpec], fmt: str) -> None:
    conv = get_format(fmt)
    p1 = conv.to_payload(history, system=system, tools=tools, model="m")
    back = [msgs.loads(msgs.dumps(m)) for m in conv.from_payload(p1)]
    p2 = conv.to_payload(back, tools=conv.tools_from_payload(p1), model="m")
    assert p2 == p1
    assert json.loads(json.dumps(p1)) == p1  # plain JSON all the way down
    if system:
        assert (conv.system_from_payload(p1) or "").startswith(system)


@SETTINGS
@given(history=histories(), source=st.sampled_from(sorted(FORMATS)), target=st.sampled_from(sorted(FORMATS)))
def test_cross_provider_payloads_are_valid(history: list[Message], source: str, target: str) -> None:
    direct = get_format(target).to_payload(history)
    VALIDATORS[target](direct)
    via = get_format(source).from_payload(get_format(source).to_payload(history))
    VALIDATORS[target](get_format(target).to_payload(via))


def _reasoning_count(p: dict[str, Any], fmt: str) -> int:
    if fmt == "anthropic":
        return sum(
            b["type"] in ("thinking", "redacted_thinking")
            for m in p["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
        )
    if fmt == "openai_responses":
        return sum(isinstance(i, dict) and i.get("type") == "reasoning" for i in p["input"])
    if fmt == "gemini":
        return sum(bool(part.get("thought")) or set(part) == {"thoughtSignature"} for c in p["contents"] for part in c["parts"])
    return 0  # Chat Completions takes no reasoning back


@SETTINGS
@given(history=histories(), target=st.sampled_from(sorted(FORMATS)))
def test_reasoning_goes_back_only_to_its_provider(history: list[Message], target: str) -> None:
    p = get_format(target).to_payload(history)
    own = sum(
        isinstance(x, ReasoningPart) and x.provider == target and (target != "gemini" or bool(x.text or x.signature))
        for m in history
        for x in m.parts
    )  # an empty Gemini thought with no signature carries nothing and is left out
    assert _reasoning_count(p, target) == own
