"""The OpenAI Responses API side of :class:`~contextwindow.llm.localserver.LocalProviderServer`:
its JSON answer and its server-sent events (``response.created`` ... ``response.completed``, the
shape the official SDK's stream reader accumulates). Pure: a reply and the request in, a dict or
event bytes out. (Chat completions and Anthropic streams are in :mod:`.sse`.)
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .localserver import ReceivedRequest, Reply


def _estimate(data: bytes | str) -> int:
    n = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    return max(1, (n + 3) // 4)


def _model(request: ReceivedRequest) -> str:
    return str(request.body.get("model", "local")) if isinstance(request.body, dict) else "local"


def _pieces(text: str, size: int) -> list[str]:  # text in deltas of ``size`` characters
    return [text[i : i + size] for i in range(0, len(text), size)] or []


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


def wants_stream(request: ReceivedRequest) -> bool:
    return isinstance(request.body, dict) and request.body.get("stream") is True


def responses_body(reply: Reply, request: ReceivedRequest, seq: int) -> dict[str, Any]:
    """The Responses API answer (``output`` items: a message, then function calls)."""
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append({"type": "message", "id": f"msg_local_{seq}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    for i, c in enumerate(reply.tool_calls):
        output.append({"type": "function_call", "id": f"fc_local_{seq}_{i}", "call_id": c.id or f"call_{seq}_{i}",
                       "name": c.name, "arguments": c.arguments if isinstance(c.arguments, str) else json.dumps(dict(c.arguments)),
                       "status": "completed"})
    prompt = reply.input_tokens if reply.input_tokens is not None else _estimate(request.raw)
    completion = reply.output_tokens if reply.output_tokens is not None else _estimate(reply.text or "x")
    return {
        "id": f"resp_local_{seq}", "object": "response", "created_at": int(time.time()), "status": "completed",
        "model": _model(request), "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": reply.cache_read_tokens},
                  "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": prompt + completion},
    }


def responses_events(reply: Reply, request: ReceivedRequest, seq: int, piece_chars: int = 8) -> list[bytes]:
    """A Responses API answer as its stream events."""
    done = responses_body(reply, request, seq)
    n = iter(range(1_000_000))
    started = {**done, "status": "in_progress", "output": [], "usage": None}
    out = [sse({"type": "response.created", "sequence_number": next(n), "response": started}, "response.created")]
    for oi, item in enumerate(done["output"]):
        if item["type"] == "message":
            empty = {**item, "status": "in_progress", "content": []}
            out.append(sse({"type": "response.output_item.added", "sequence_number": next(n), "output_index": oi, "item": empty}, "response.output_item.added"))
            part = {"type": "output_text", "text": "", "annotations": []}
            out.append(sse({"type": "response.content_part.added", "sequence_number": next(n), "item_id": item["id"], "output_index": oi,
                            "content_index": 0, "part": part}, "response.content_part.added"))
            for p in _pieces(reply.text, piece_chars):
                out.append(sse({"type": "response.output_text.delta", "sequence_number": next(n), "item_id": item["id"], "output_index": oi,
                                "content_index": 0, "delta": p, "logprobs": []}, "response.output_text.delta"))
            out.append(sse({"type": "response.output_text.done", "sequence_number": next(n), "item_id": item["id"], "output_index": oi,
                            "content_index": 0, "text": reply.text, "logprobs": []}, "response.output_text.done"))
            out.append(sse({"type": "response.content_part.done", "sequence_number": next(n), "item_id": item["id"], "output_index": oi,
                            "content_index": 0, "part": item["content"][0]}, "response.content_part.done"))
        else:
            out.append(sse({"type": "response.output_item.added", "sequence_number": next(n), "output_index": oi,
                            "item": {**item, "arguments": "", "status": "in_progress"}}, "response.output_item.added"))
        out.append(sse({"type": "response.output_item.done", "sequence_number": next(n), "output_index": oi, "item": item}, "response.output_item.done"))
    out.append(sse({"type": "response.completed", "sequence_number": next(n), "response": done}, "response.completed"))
    return out
