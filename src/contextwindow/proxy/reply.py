"""The model's reply, read from the answer the proxy relayed. Pure.

The proxy stores each reply when the answer comes back (a JSON body, or the server-sent events of
a stream, joined the way each provider's SDK joins them), so the store holds the whole conversation
even when the client never sends that reply back. It is converted with the same wire format as the
client's history (:mod:`contextwindow.formats`), so when the client does send it back unchanged it
is recognised as the same message (:mod:`contextwindow.sync`). An answer that cannot be read (an
error, a cut stream, a shape we do not know) gives None and a reason: the usage is still recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ContextWindowError
from ..formats import get_format
from ..llm.anthropic import assemble_stream as anthropic_stream
from ..llm.openai_compat import assemble_stream as openai_stream
from ..llm.sse import payloads
from ..messages import Message
from .history import parse_body


def sse_events(data: bytes) -> list[Any]:
    """The parsed ``data`` objects of a server-sent event stream (``[DONE]`` and non-JSON skipped)."""
    out: list[Any] = []
    for payload in payloads(data):
        try:
            out.append(parse_body(payload, answer=True))
        except ValueError:
            continue
    return out


def _wire_message(protocol: str, body: Any, streaming: bool) -> tuple[Any, str | None]:
    """The reply in the request's own wire shape (what the client appends to its history)."""
    if streaming:
        events = sse_events(body)
        if protocol == "openai":
            body = openai_stream(events)
        elif protocol == "anthropic":
            body = anthropic_stream(events)
        else:
            done = [e for e in events if isinstance(e, Mapping) and e.get("type") == "response.completed"]
            if not done:
                return None, "the stream has no response.completed event"
            body = done[-1].get("response")
    if not isinstance(body, Mapping):
        return None, "the answer is not a JSON object"
    if protocol == "openai":
        choices = body.get("choices")
        msg = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], Mapping) else None
        return ([dict(msg)], None) if isinstance(msg, Mapping) else (None, "no choices[0].message")
    if protocol == "anthropic":
        content = body.get("content")
        if not isinstance(content, list):
            return None, "no content list"
        return [{"role": "assistant", "content": content}], None
    output = body.get("output")
    return ({"input": list(output)}, None) if isinstance(output, list) else (None, "no output list")


def reply_message(protocol: str, data: bytes | Any, *, streaming: bool) -> tuple[Message | None, str | None]:
    """The assistant message of one answer (``data``: the stream's bytes, or the JSON body already
    parsed), or None and why not."""
    try:
        wire, why = _wire_message(protocol, data, streaming)
        if wire is None:
            return None, why
        messages = get_format(protocol).from_payload(wire)
    except (ContextWindowError, ValueError, KeyError, TypeError, IndexError) as exc:
        return None, f"unreadable answer: {exc}"
    if len(messages) != 1 or messages[0].role != "assistant":
        return None, f"the answer converts to {len(messages)} message(s), not one assistant message"
    if not messages[0].parts:
        return None, "the answer is empty"
    return messages[0], None
