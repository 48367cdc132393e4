"""A client for any OpenAI-compatible chat completions endpoint.

POST ``{base_url}/chat/completions``. Works with OpenAI itself, vLLM, llama.cpp's
``llama-server``, Ollama (``http://localhost:11434/v1``), a LiteLLM proxy, OpenRouter, Groq,
DeepSeek and the like: only the base URL, the key and the model name change::

    model = OpenAICompatibleModel("qwen2.5-7b-instruct", base_url="http://localhost:8000/v1")
    model.complete([user("Summarize ...")], max_tokens=512).text
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

import httpx

from ..errors import ConfigError, PayloadError
from ..formats.cache_marks import conversation_key
from ..formats.openai_chat import to_payload
from ..messages import Message, Part, ReasoningPart, TextPart, ToolCallPart, dump_arguments
from ..tools import ToolSpec
from ..usage import Usage
from .base import Completion
from .httpclient import HTTPChatModel, as_int
from .retry import RetryPolicy


class OpenAICompatibleModel(HTTPChatModel):
    """An OpenAI-compatible chat model over HTTP.

    ``api_key`` defaults to ``$OPENAI_API_KEY``; without one no Authorization header is sent
    (local servers need none), except that OpenAI's own URL requires a key.
    ``max_tokens_field`` is the payload field for the output cap: by default
    ``max_completion_tokens`` for api.openai.com (its reasoning models reject ``max_tokens``)
    and ``max_tokens`` elsewhere (what local servers and proxies read).
    ``cache_key``: send ``prompt_cache_key`` = the conversation id a
    :class:`~contextwindow.session.Session` left on its messages (formats/cache_marks.py), so
    OpenAI routes a conversation's calls to the same prompt cache, unless the body already has one
    (``extra_body``); by default only to api.openai.com (other servers may reject the field)."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        *,
        async_transport: httpx.AsyncBaseTransport | None = None,
        window: int | None = None,
        headers: Mapping[str, str] | None = None,
        max_tokens_field: str | None = None,
        extra_body: Mapping[str, Any] | None = None,
        cache_key: bool | None = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
        host = urlparse(base_url).hostname or ""
        if key is None and host == "api.openai.com":
            raise ConfigError(
                "OpenAICompatibleModel: no API key for api.openai.com; pass api_key=... or set OPENAI_API_KEY "
                "(or point base_url at a local server)"
            )
        super().__init__(
            model,
            base_url=base_url,
            api_key=key,
            timeout=timeout,
            retry=retry,
            transport=transport,
            async_transport=async_transport,
            window=window,
            headers=headers,
        )
        self.max_tokens_field = max_tokens_field or ("max_completion_tokens" if host == "api.openai.com" else "max_tokens")
        self.extra_body = dict(extra_body or {})
        self.cache_key = host == "api.openai.com" if cache_key is None else cache_key

    def _url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _payload(
        self, messages: Sequence[Message], system: str | None, max_tokens: int, tools: Sequence[ToolSpec] | None
    ) -> dict[str, Any]:
        payload = to_payload(messages, system=system, tools=tools, model=self.name)
        payload[self.max_tokens_field] = max_tokens
        payload.update(self.extra_body)
        if self.cache_key and "prompt_cache_key" not in payload:
            key = conversation_key(messages)
            if key is not None:
                payload["prompt_cache_key"] = key
        return payload

    def _parse(self, data: dict[str, Any]) -> Completion:
        return parse_response(data)

    def _assemble_stream(self, events: list[Any]) -> dict[str, Any]:
        return assemble_stream(events)


# --- response ----------------------------------------------------------------------------------


def parse_usage(usage: Any, model: str | None = None, *, responses: bool = False) -> Usage:
    """OpenAI usage → :class:`Usage`. Chat Completions names it ``prompt_tokens`` /
    ``completion_tokens`` (+ ``*_tokens_details``); the Responses API (``responses=True``)
    ``input_tokens`` / ``output_tokens``. Either way the input already includes the cached part."""
    if not isinstance(usage, Mapping):
        return Usage(model=model, extra={"usage_missing": True})
    inp, out = ("input", "output") if responses else ("prompt", "completion")
    in_details = usage.get(f"{inp}_tokens_details") or {}
    out_details = usage.get(f"{out}_tokens_details") or {}
    return Usage(
        input_tokens=as_int(usage.get(f"{inp}_tokens")),
        output_tokens=as_int(usage.get(f"{out}_tokens")),
        cache_read_tokens=as_int(in_details.get("cached_tokens")) if isinstance(in_details, Mapping) else 0,
        reasoning_tokens=as_int(out_details.get("reasoning_tokens")) if isinstance(out_details, Mapping) else 0,
        model=model,
    )


def assemble_stream(chunks: Sequence[Any]) -> dict[str, Any]:
    """``chat.completion.chunk`` events → one ``chat.completion`` (choice 0: content, reasoning
    and tool-call argument fragments joined; the last finish_reason and usage). An error chunk
    comes back as is."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: Any = None
    usage: Any = None
    head: dict[str, Any] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            raise PayloadError(f"stream chunk is a {type(chunk).__name__}", field="chunk")
        if "error" in chunk and not chunk.get("choices"):
            return chunk
        head = head or {k: chunk[k] for k in ("id", "model", "created") if k in chunk}
        if isinstance(chunk.get("usage"), dict):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    reasoning.append(delta[key])
                    break
            for k, call in enumerate(delta.get("tool_calls") or []):
                index = call.get("index", k)
                slot = calls.setdefault(index, {"id": None, "type": "function", "function": {"name": None, "arguments": ""}})
                slot["id"] = slot["id"] or call.get("id")
                fn = call.get("function") or {}
                slot["function"]["name"] = slot["function"]["name"] or fn.get("name")
                if isinstance(fn.get("arguments"), str):
                    slot["function"]["arguments"] += fn["arguments"]
            finish = choice.get("finish_reason") or finish
    if not any(isinstance(c, dict) and c.get("choices") for c in chunks):
        raise PayloadError("no chunk with choices in the stream", field="choices")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) if content else None}
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {**head, "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


def parse_response(data: Mapping[str, Any]) -> Completion:
    """A chat completions response → :class:`Completion` (``choices[0]``)."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise PayloadError("no choices in the response", field="choices")
    choice = choices[0]
    msg = choice.get("message")
    if not isinstance(msg, dict):
        raise PayloadError("choices[0] has no message object", field="choices[0].message")
    parts: list[Part] = []
    reasoning = msg.get("reasoning_content") or msg.get("reasoning")  # vLLM / llama.cpp / DeepSeek / OpenRouter
    if isinstance(reasoning, str) and reasoning:
        parts.append(ReasoningPart(text=reasoning, provider="openai"))
    content = msg.get("content")
    if isinstance(content, str):
        if content:
            parts.append(TextPart(content))
    elif isinstance(content, list):
        parts.extend(TextPart(c["text"]) for c in content if isinstance(c, dict) and isinstance(c.get("text"), str))
    elif content is not None:
        raise PayloadError(f"message content is a {type(content).__name__}", field="choices[0].message.content")
    for i, call in enumerate(msg.get("tool_calls") or []):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise PayloadError(f"tool call {i} has no function name", field="choices[0].message.tool_calls")
        args = fn.get("arguments")
        arguments = args if isinstance(args, str) else dump_arguments(args if args is not None else {})
        parts.append(ToolCallPart(id=str(call.get("id") or f"call_{i}"), name=fn["name"], arguments=arguments))
    message = Message(role="assistant", parts=tuple(parts))
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    model = data.get("model") if isinstance(data.get("model"), str) else None
    finish = choice.get("finish_reason")
    return Completion(
        text=text,
        usage=parse_usage(data.get("usage"), model),
        raw=dict(data),
        finish_reason=finish if isinstance(finish, str) else None,
        message=message,
    )
