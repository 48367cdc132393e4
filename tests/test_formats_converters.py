"""What each converter keeps, drops and refuses, on small hand-written payloads."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import contextwindow.formats as formats
from contextwindow import messages as msgs
from contextwindow.errors import ConfigError, PayloadError
from contextwindow.formats import anthropic, gemini, get_format, openai_chat, openai_responses, tooldefs
from contextwindow.messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from contextwindow.tools import ToolSpec


def round_trip(conv: Any, payload: dict[str, Any]) -> dict[str, Any]:
    ms = [msgs.loads(msgs.dumps(m)) for m in conv.from_payload(copy.deepcopy(payload))]
    return conv.to_payload(ms, tools=conv.tools_from_payload(payload) or None, model=payload.get("model"))


# --- registry ---------------------------------------------------------------------------


def test_registry_names_and_unknown_name() -> None:
    assert set(formats.FORMATS) == {"openai", "openai_responses", "anthropic", "gemini"}
    assert get_format("anthropic") is anthropic
    with pytest.raises(ConfigError, match="known: openai, openai_responses, anthropic, gemini"):
        get_format("cohere")
    assert set(formats.__all__) <= set(dir(formats))


# --- OpenAI Chat ------------------------------------------------------------------------

CHAT = {
    "model": "gpt-4o",
    "messages": [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "look"}], "name": "ann"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ", "detail": "low"}},
                {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{ "path" : "a.py" }'}},
                {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "print(1)"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "no match"}], "name": "grep"},
        {"role": "assistant", "content": "done"},
    ],
}


def test_chat_round_trip_keeps_every_shape() -> None:
    assert round_trip(openai_chat, CHAT) == CHAT
    ms = openai_chat.from_payload(CHAT)
    assert ms[0].role == "system" and ms[0].extra == {"openai": {"role": "developer"}}
    img = ms[2].parts[1]
    assert isinstance(img, ImagePart) and (img.source, img.media_type, img.data, img.detail) == ("base64", "image/jpeg", "/9j/4AAQ", "low")
    assert [c.arguments for c in ms[3].tool_calls] == ['{ "path" : "a.py" }', "{}"]
    assert [m.role for m in ms[4:6]] == ["tool", "tool"] and ms[5].tool_results[0].name == "grep"


def test_chat_several_results_become_several_tool_messages_and_extras_follow() -> None:
    history = [
        msgs.user("hi"),
        msgs.assistant("", ToolCallPart("a", "read", "{}"), ToolCallPart("b", "read", "{}")),
        Message(
            role="tool",
            parts=(
                ToolResultPart("b", (TextPart("B"), ImagePart("url", "https://x/i.png"))),
                ToolResultPart("a", (TextPart("A"),), is_error=True),
                TextPart("now go on"),
            ),
        ),
    ]
    out = openai_chat.to_payload(history, system="sys", model="m")["messages"]
    assert out[0] == {"role": "system", "content": "sys"}
    assert out[2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "read", "arguments": "{}"}},
    ]}
    assert out[3:5] == [{"role": "tool", "tool_call_id": "b", "content": "B"}, {"role": "tool", "tool_call_id": "a", "content": "A"}]
    assert out[5]["role"] == "user" and out[5]["content"][0] == {"type": "image_url", "image_url": {"url": "https://x/i.png"}}


@pytest.mark.parametrize(
    ("payload", "index", "field"),
    [
        ({"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": {}}]}, 1, "tool_calls"),
        ({"messages": [{"content": "x"}]}, 0, "role"),
        ({"messages": [{"role": "tool", "content": "x"}]}, 0, "tool_call_id"),
        ({"messages": [{"role": "user", "content": 3}]}, 0, "content"),
        ({"messages": [{"role": "function", "content": "x"}]}, 0, "role"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]}]}, 0, "name"),
    ],
)
def test_chat_malformed_payloads_name_index_and_field(payload: Any, index: int, field: str) -> None:
    with pytest.raises(PayloadError) as err:
        openai_chat.from_payload(payload)
    assert (err.value.index, err.value.field) == (index, field)
    assert str(err.value).startswith(f"message {index}, field {field!r}")


def test_chat_error_message_reads_well() -> None:
    with pytest.raises(PayloadError, match=r"^message 1, field 'tool_calls': expected list"):
        openai_chat.from_payload([{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": "nope"}])
    with pytest.raises(PayloadError, match="object with 'messages' or a list"):
        openai_chat.from_payload("hello")


# --- Anthropic --------------------------------------------------------------------------

ANTHROPIC = {
    "model": "claude-sonnet-4",
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": "what is in a.py?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "read it", "signature": "EqQBCkYIBxgCKkB"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py", "n": 1.5}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "x = 1"}], "is_error": False},
                {"type": "text", "text": "and summarize", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "x is 1"}]},
    ],
    "tools": [{"name": "read", "description": "Read a file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
}


def test_anthropic_round_trip_keeps_system_blocks_thinking_cache_control_and_documents() -> None:
    assert round_trip(anthropic, ANTHROPIC) == ANTHROPIC
    ms = anthropic.from_payload(ANTHROPIC)
    assert [m.role for m in ms] == ["system", "user", "assistant", "tool", "assistant"]
    think, redacted, call = ms[2].parts
    assert isinstance(think, ReasoningPart) and think.signature == "EqQBCkYIBxgCKkB" and think.provider == "anthropic"
    assert isinstance(redacted, ReasoningPart) and redacted.encrypted == "EmwKAhgBEgy3va"
    assert isinstance(call, ToolCallPart) and json.loads(call.arguments) == {"path": "a.py", "n": 1.5}
    text = ms[3].parts[1]
    assert isinstance(text, TextPart) and text.extra["anthropic"] == {"cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert anthropic.system_from_payload(ANTHROPIC) == "You are terse."


def test_anthropic_reasoning_goes_only_to_anthropic() -> None:
    ms = anthropic.from_payload(ANTHROPIC)
    chat = json.dumps(openai_chat.to_payload(ms))
    resp = openai_responses.to_payload(ms)
    assert "EqQBCkYIBxgCKkB" not in chat and "EmwKAhgBEgy3va" not in chat
    assert not any(i.get("type") == "reasoning" for i in resp["input"])
    assert "cache_control" not in chat  # Anthropic's cache hints stay with Anthropic


def test_anthropic_merges_roles_and_sanitizes_foreign_ids() -> None:
    history = [
        msgs.user("a"),
        msgs.user("b"),
        msgs.assistant("", ToolCallPart("read#0", "read", "not json")),
        msgs.tool_result("read#0", "ok"),
        msgs.user("thanks"),
    ]
    out = anthropic.to_payload(history)["messages"]
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    assert out[0]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert out[1]["content"] == [{"type": "tool_use", "id": "read_0", "name": "read", "input": {"input": "not json"}}]
    assert out[2]["content"] == [{"type": "tool_result", "tool_use_id": "read_0", "content": "ok"}, {"type": "text", "text": "thanks"}]


def test_anthropic_plain_string_content_stays_a_string() -> None:
    p = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}]}
    assert round_trip(anthropic, p) == p


def test_anthropic_malformed() -> None:
    with pytest.raises(PayloadError, match=r"^message 0, field 'content'"):
        anthropic.from_payload({"messages": [{"role": "user"}]})
    with pytest.raises(PayloadError, match=r"^message 1, field 'id'"):
        anthropic.from_payload([{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "tool_use", "name": "r"}]}])


# --- OpenAI Responses -------------------------------------------------------------------

RESPONSES = {
    "model": "gpt-5",
    "instructions": "You are Codex.",
    "input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sandbox on"}]},
        {"role": "user", "content": "fix it"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "plan"}, {"type": "summary_text", "text": "act"}], "encrypted_content": "gAAAA"},
        {"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": "on it", "annotations": []}]},
        {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{\"cmd\":\"ls\"}", "id": "fc_1"},
        {"type": "custom_tool_call", "call_id": "call_2", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}},
        {"type": "function_call_output", "call_id": "call_1", "output": "a.py"},
        {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Success"},
        {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "https://x/y.png", "detail": "auto"}]},
    ],
    "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {}}}],
}


def test_responses_round_trip_and_grouping() -> None:
    assert round_trip(openai_responses, RESPONSES) == RESPONSES
    ms = openai_responses.from_payload(RESPONSES)
    assert [m.role for m in ms] == ["system", "system", "user", "assistant", "tool", "user"]
    r = ms[3].parts[0]
    assert isinstance(r, ReasoningPart) and (r.text, r.encrypted, r.provider) == ("plan\n\nact", "gAAAA", "openai_responses")
    assert [c.name for c in ms[3].tool_calls] == ["shell", "apply_patch"]
    assert [t.call_id for t in ms[4].tool_results] == ["call_1", "call_2"]
    assert openai_responses.system_from_payload(RESPONSES) == "You are Codex.\n\nsandbox on"


def test_responses_string_input_and_malformed() -> None:
    p = {"instructions": "s", "input": "hello"}
    assert round_trip(openai_responses, p) == p
    with pytest.raises(PayloadError, match=r"^message 1, field 'call_id'"):
        openai_responses.from_payload([{"role": "user", "content": "x"}, {"type": "function_call", "name": "a", "arguments": "{}"}])


# --- Gemini (hand-written from the public generateContent shape) -----------------------

GEMINI = {
    "systemInstruction": {"parts": [{"text": "You are a weather bot."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
        {
            "role": "model",
            "parts": [
                {"text": "I should call the tool twice.", "thought": True, "thoughtSignature": "CiQB0e2Kb7"},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "Cp8BAdHtim9"},
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "18C"}}},
                {"functionResponse": {"name": "get_weather", "response": {"temp": 21, "unit": "C"}}},
            ],
        },
        {"role": "model", "parts": [{"text": "Paris 18C, Rome 21C."}, {"thoughtSignature": "EjQKMgFy"}]},
        {"role": "user", "parts": [{"text": "and Oslo?"}, {"fileData": {"mimeType": "image/jpeg", "fileUri": "gs://b/o.jpg"}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "fc-9"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "id": "fc-9", "response": {"error": "no data"}}}]},
        {"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "print(1)"}}, {"text": "No data for Oslo."}]},
    ],
    "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Weather", "parameters": {"type": "object"}}]}],
}


def test_gemini_round_trip_with_thought_signatures_and_synthesized_ids() -> None:
    assert round_trip(gemini, GEMINI) == GEMINI
    ms = gemini.from_payload(GEMINI)
    assert [m.role for m in ms] == ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    thought, c1, c2 = ms[2].parts
    assert isinstance(thought, ReasoningPart) and thought.signature == "CiQB0e2Kb7" and thought.provider == "gemini"
    assert isinstance(c1, ToolCallPart) and c1.extra["gemini"]["fields"] == {"thoughtSignature": "Cp8BAdHtim9"}
    assert [c.id for c in (c1, c2)] == ["get_weather#0", "get_weather#1"]
    r1, r2 = ms[3].tool_results
    assert (r1.call_id, r1.text) == ("get_weather#0", "18C")
    assert r2.call_id == "get_weather#1" and json.loads(r2.text) == {"temp": 21, "unit": "C"}
    assert ms[7].tool_results[0].is_error and ms[7].tool_results[0].call_id == "fc-9"
    assert ms[4].parts[1] == ReasoningPart(signature="EjQKMgFy", provider="gemini", extra={"gemini": {"bare": True}})
    assert gemini.system_from_payload(GEMINI) == "You are a weather bot."


def test_gemini_to_openai_and_anthropic_is_valid_and_drops_signatures() -> None:
    from test_formats_properties import validate_anthropic, validate_openai

    ms = gemini.from_payload(GEMINI)
    chat = openai_chat.to_payload(ms)
    validate_openai(chat)
    an = anthropic.to_payload(ms)
    validate_anthropic(an)
    for dumped in (json.dumps(chat), json.dumps(an)):
        assert "CiQB0e2Kb7" not in dumped and "Cp8BAdHtim9" not in dumped and "EjQKMgFy" not in dumped
    assert an["messages"][1]["content"][0]["id"] == "get_weather_0"


def test_gemini_names_responses_from_their_calls() -> None:
    history = [msgs.user("hi"), msgs.assistant("", ToolCallPart("toolu_1", "ls", '{"d":"."}')), msgs.tool_result("toolu_1", "a b")]
    out = gemini.to_payload(history)["contents"]
    assert out[1] == {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {"d": "."}, "id": "toolu_1"}}]}
    assert out[2] == {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a b"}, "id": "toolu_1"}}]}


def test_gemini_malformed() -> None:
    with pytest.raises(PayloadError, match=r"^message 0, field 'parts'"):
        gemini.from_payload({"contents": [{"role": "user"}]})
    with pytest.raises(PayloadError, match=r"^message 0, field 'role'"):
        gemini.from_payload([{"role": "assistant", "parts": []}])


# --- tool definitions -------------------------------------------------------------------

SPECS = [
    ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec("now"),
]


@pytest.mark.parametrize(
    ("to", "back"),
    [
        (tooldefs.to_openai_tools, tooldefs.tools_from_openai),
        (tooldefs.to_responses_tools, tooldefs.tools_from_responses),
        (tooldefs.to_anthropic_tools, tooldefs.tools_from_anthropic),
        (tooldefs.to_gemini_tools, tooldefs.tools_from_gemini),
    ],
)
def test_tool_definitions_round_trip(to: Any, back: Any) -> None:
    assert back(to(SPECS)) == SPECS
    raw = {"type": "web_search_20250305", "name": "web_search"}
    assert to([*SPECS, raw])[-1] == raw  # provider-shaped tools pass through


def test_tool_definition_shapes() -> None:
    assert tooldefs.to_openai_tools(SPECS[:1])[0]["function"]["name"] == "read"
    assert tooldefs.to_anthropic_tools(SPECS[:1])[0]["input_schema"]["required"] == ["path"]
    assert tooldefs.to_gemini_tools(SPECS) == [{"functionDeclarations": [
        {"name": "read", "description": "Read a file", "parameters": dict(SPECS[0].parameters)},
        {"name": "now", "parameters": {"type": "object", "properties": {}}},
    ]}]
    with pytest.raises(PayloadError, match="tool 0 has no name"):
        tooldefs.tools_from_anthropic([{"description": "x", "input_schema": {}}])
