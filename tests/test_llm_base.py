"""The model protocol and ScriptedModel."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from contextwindow.errors import ConfigError, RateLimitError
from contextwindow.llm.anthropic import AnthropicModel
from contextwindow.llm.base import ChatModel, Completion, ScriptedModel, ScriptExhaustedError
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.messages import Message, user
from contextwindow.tools import ToolSpec
from contextwindow.usage import Usage


def test_everything_satisfies_the_protocol() -> None:
    models = [
        ScriptedModel(["x"]),
        OpenAICompatibleModel("m", base_url="http://127.0.0.1:9/v1"),
        AnthropicModel("m", base_url="http://127.0.0.1:9", api_key="k"),
    ]
    for m in models:
        assert isinstance(m, ChatModel)


def test_script_in_order_with_exceptions_and_records_calls() -> None:
    done = Completion(text="given", usage=Usage(input_tokens=5, output_tokens=1))
    model = ScriptedModel(["first", RateLimitError("busy"), done], name="fake", window=1000)
    tools = [ToolSpec("read_file")]
    first = model.complete([user("hello")], system="be brief", max_tokens=50, tools=tools)
    assert first.text == "first" and first.finish_reason == "stop"
    assert first.message is not None and first.message.role == "assistant" and first.message.text == "first"
    assert first.usage.input_tokens > 0 and first.usage.output_tokens == 2 and first.usage.model == "fake"
    with pytest.raises(RateLimitError):
        model.complete([user("again")])
    assert model.complete([user("third")]) is done
    assert [c.messages[0].text for c in model.calls] == ["hello", "again", "third"]
    assert model.calls[0].system == "be brief" and model.calls[0].max_tokens == 50 and model.calls[0].tools == tuple(tools)
    assert model.calls[1].tools is None
    assert "be brief" in model.calls[0].prompt_text and "hello" in model.calls[0].prompt_text
    assert model.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="3 scripted replies but was called 4 times"):
        model.complete([user("one too many")])


def test_function_script_sees_messages_and_system() -> None:
    def answer(messages: Sequence[Message], system: str | None) -> str:
        return f"{len(messages)} messages, system={system}"

    model = ScriptedModel(answer)
    assert model.complete([user("a"), user("b")], system="s").text == "2 messages, system=s"
    assert asyncio.run(model.acomplete([user("a")])).text == "1 messages, system=None"
    assert len(model.calls) == 2 and model.remaining is None


def test_usage_grows_with_the_input() -> None:
    model = ScriptedModel(lambda ms, s: "ok")
    small = model.complete([user("x")]).usage.input_tokens
    big = model.complete([user("x" * 4000)]).usage.input_tokens
    assert big >= small + 900


def test_bad_scripts_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        ScriptedModel("just a string")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="got int"):
        ScriptedModel([42]).complete([user("x")])  # type: ignore[list-item]


def test_public_surface() -> None:
    import contextwindow.llm as llm

    assert sorted(llm.__all__) == sorted(name for name in dir(llm) if not name.startswith("_") and name not in {
        "annotations", "anthropic", "base", "localserver", "openai_compat", "overflow", "retry", "httpclient",
        "localstream", "sse",  # submodules the local server imports when it first answers
    })
    for name in llm.__all__:
        assert getattr(llm, name) is not None
