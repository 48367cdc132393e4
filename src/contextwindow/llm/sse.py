"""Server-sent-event encodings of a whole answer, as OpenAI and Anthropic stream them.

Used by :class:`~contextwindow.llm.localserver.LocalProviderServer` to answer a streaming
request (``"stream": true``, or a :class:`Reply` with ``stream=True``): the same answer as the
non-streaming body, cut into the chunks/events each provider sends (text in small deltas,
tool-call arguments in fragments, usage last).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def _pieces(text: str, size: int = 7) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]


def _event(data: Any, name: str | None = None) -> str:
    head = f"event: {name}\n" if name else ""
    return head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"


def openai_stream(body: dict[str, Any]) -> bytes:
    """A ``chat.completion`` body → the ``chat.completion.chunk`` stream that carries it."""
    head = {k: body[k] for k in ("id", "model", "created") if k in body}
    choice = body["choices"][0]
    msg = choice["message"]
    out = [_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})]

    def chunk(delta: dict[str, Any]) -> None:
        out.append(_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}))

    for piece in _pieces(msg.get("content") or ""):
        chunk({"content": piece})
    for i, call in enumerate(msg.get("tool_calls") or []):
        fn = call["function"]
        chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function", "function": {"name": fn["name"], "arguments": ""}}]})
        for piece in _pieces(fn["arguments"]):
            chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    out.append(_event({**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}))
    out.append(_event({**head, "object": "chat.completion.chunk", "choices": [], "usage": body["usage"]}))
    out.append(_event("[DONE]"))
    return "".join(out).encode("utf-8")


def anthropic_stream(body: dict[str, Any]) -> bytes:
    """A Messages API body → its ``message_start`` … ``message_stop`` event stream."""
    usage = body["usage"]
    start = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    out = [_event({"type": "message_start", "message": start}, "message_start")]
    for i, block in enumerate(body["content"]):
        if block["type"] == "text":
            out.append(_event({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}, "content_block_start"))
            for piece in _pieces(block["text"]):
                out.append(_event({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}}, "content_block_delta"))
        else:
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out.append(_event({"type": "content_block_start", "index": i, "content_block": first}, "content_block_start"))
            for piece in _pieces(json.dumps(block["input"])):
                out.append(_event({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta"))
        out.append(_event({"type": "content_block_stop", "index": i}, "content_block_stop"))
    delta = {"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None}, "usage": {"output_tokens": usage["output_tokens"]}}
    out.append(_event(delta, "message_delta"))
    out.append(_event({"type": "message_stop"}, "message_stop"))
    return "".join(out).encode("utf-8")
