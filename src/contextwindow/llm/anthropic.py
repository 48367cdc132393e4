"""A client for Anthropic's Messages API (and servers that speak it).

POST ``{base_url}/v1/messages`` with ``x-api-key`` and ``anthropic-version`` headers; the system
prompt goes apart. Usage: Anthropic's ``input_tokens`` excludes cached tokens, so
:attr:`Usage.input_tokens` is ``input_tokens + cache_creation_input_tokens +
cache_read_input_tokens`` (the whole prompt), with the cache parts also kept apart (the
one-hour writes, ``cache_creation.ephemeral_1h_input_tokens``, in ``Usage.extra``, priced at 2×).

Prompt caching (``cache="5m"``, the default; ``"1h"``; ``"off"``): each request carries
``cache_control`` breakpoints (formats/cache_marks.py) at the end of the system prompt and of the
messages a :class:`~contextwindow.session.Session` names (its newest message, where its previous
call ended, its sticky head), or of the last message and the previous call's end; a request whose
messages already carry marks (``extra["anthropic"]["cache_control"]``) is sent as it is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..errors import ConfigError, PayloadError
from ..formats.anthropic import to_payload
from ..formats.cache_marks import CacheMode, anchors_of, check_mode, place
from ..messages import Message, Part, ReasoningPart, TextPart, ToolCallPart, dump_arguments
from ..tools import ToolSpec
from ..usage import Usage
from .base import Completion
from .httpclient import HTTPChatModel, as_int
from .retry import RetryPolicy

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicModel(HTTPChatModel):
    """An Anthropic chat model over HTTP. ``api_key`` defaults to ``$ANTHROPIC_API_KEY``; it is
    required for api.anthropic.com."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.anthropic.com",
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        *,
        async_transport: httpx.AsyncBaseTransport | None = None,
        window: int | None = None,
        headers: Mapping[str, str] | None = None,
        version: str = ANTHROPIC_VERSION,
        extra_body: Mapping[str, Any] | None = None,
        cache: CacheMode = "5m",
    ) -> None:
        self.cache: CacheMode = check_mode(cache, "AnthropicModel(cache=...)")
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY") or None
        if key is None and "api.anthropic.com" in base_url:
            raise ConfigError("AnthropicModel: no API key; pass api_key=... or set ANTHROPIC_API_KEY")
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
        self.version = version
        self.extra_body = dict(extra_body or {})

    def _url(self) -> str:
        base = self.base_url
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def _headers(self) -> dict[str, str]:
        h = {"anthropic-version": self.version}
        if self.api_key:
            h["x-api-key"] = self.api_key
        return h

    def _payload(
        self, messages: Sequence[Message], system: str | None, max_tokens: int, tools: Sequence[ToolSpec] | None
    ) -> dict[str, Any]:
        positions: list[tuple[int, int]] = []
        payload = to_payload(messages, system=system, tools=tools, model=self.name, positions=positions)
        payload["max_tokens"] = max_tokens
        payload.update(self.extra_body)
        return place(payload, self.cache, model=self.name, anchors=anchors_of(messages, positions))

    def _parse(self, data: dict[str, Any]) -> Completion:
        return parse_response(data)

    def _assemble_stream(self, events: list[Any]) -> dict[str, Any]:
        return assemble_stream(events)


# --- response ----------------------------------------------------------------------------------


def parse_usage(usage: Any, model: str | None = None) -> Usage:
    """Anthropic usage → :class:`Usage`; ``input_tokens`` becomes the whole prompt."""
    if not isinstance(usage, dict):
        return Usage(model=model, extra={"usage_missing": True})
    fresh = as_int(usage.get("input_tokens"))
    write = as_int(usage.get("cache_creation_input_tokens"))
    read = as_int(usage.get("cache_read_input_tokens"))
    split = usage.get("cache_creation")
    hour = as_int(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    return Usage(
        input_tokens=fresh + write + read,
        output_tokens=as_int(usage.get("output_tokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        model=model,
        extra={"cache_write_1h_tokens": min(hour, write)} if hour else {},
    )


_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}


def assemble_stream(events: Sequence[Any]) -> dict[str, Any]:
    """Messages-API stream events → the message the non-streaming API returns (text, thinking,
    signature and tool input fragments joined; stop_reason and usage from ``message_delta``).
    An ``error`` event comes back as is."""
    message: dict[str, Any] | None = None
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "error":
            return dict(event)
        if kind == "message_start":
            message = dict(event["message"])
            usage.update(message.get("usage") or {})
        elif kind == "content_block_start":
            blocks[int(event["index"])] = dict(event["content_block"])
        elif kind == "content_block_delta":
            index, delta = int(event["index"]), event["delta"]
            block = blocks.setdefault(index, {})
            if delta.get("type") == "input_json_delta":
                partial.setdefault(index, []).append(str(delta.get("partial_json", "")))
            elif delta.get("type") in _DELTA_FIELDS:
                name = _DELTA_FIELDS[delta["type"]]
                block[name] = (block.get(name) or "") + str(delta.get(name, ""))
        elif kind == "message_delta":
            if message is None:
                raise PayloadError("message_delta before message_start", field="stream")
            message.update({k: v for k, v in (event.get("delta") or {}).items() if v is not None})
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
    if message is None:
        raise PayloadError("no message_start event in the stream", field="stream")
    for index, pieces in partial.items():
        text = "".join(pieces)
        blocks[index]["input"] = json.loads(text) if text.strip() else {}
    return {**message, "content": [blocks[i] for i in sorted(blocks)], "usage": usage}


def parse_response(data: Mapping[str, Any]) -> Completion:
    """A Messages API response → :class:`Completion`."""
    content = data.get("content")
    if not isinstance(content, list):
        raise PayloadError("no content list in the response", field="content")
    parts: list[Part] = []
    unknown: list[Any] = []
    for i, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(TextPart(str(block.get("text", ""))))
        elif kind == "thinking":
            parts.append(ReasoningPart(text=str(block.get("thinking", "")), signature=block.get("signature"), provider="anthropic"))
        elif kind == "redacted_thinking":
            parts.append(ReasoningPart(encrypted=str(block.get("data", "")), provider="anthropic"))
        elif kind == "tool_use":
            if not isinstance(block.get("name"), str):
                raise PayloadError(f"tool_use block {i} has no name", field="content")
            parts.append(ToolCallPart(id=str(block.get("id", f"toolu_{i}")), name=block["name"], arguments=dump_arguments(block.get("input", {}))))
        else:  # a block type we do not model (server tools, ...): kept opaque on the message
            unknown.append(block)
    extra = {"anthropic": {"unknown_blocks": unknown}} if unknown else {}
    message = Message(role="assistant", parts=tuple(parts), extra=extra)
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    model = data.get("model") if isinstance(data.get("model"), str) else None
    stop = data.get("stop_reason")
    return Completion(
        text=text,
        usage=parse_usage(data.get("usage"), model),
        raw=dict(data),
        finish_reason=stop if isinstance(stop, str) else None,
        message=message,
    )
