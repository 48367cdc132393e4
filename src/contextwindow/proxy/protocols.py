"""The three provider endpoints the proxy manages, described as data. Pure.

For each: the request path, the payload format (:mod:`contextwindow.formats`), the body keys that
hold the conversation, where the output reserve is, the provider's own error shape, and how its
usage reads (a whole JSON answer or its server-sent events).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..llm.anthropic import parse_usage as anthropic_usage
from ..llm.openai_compat import parse_usage as openai_usage
from ..usage import Usage


@dataclass(frozen=True, slots=True)
class Protocol:
    name: str  # the payload format: "openai", "openai_responses", "anthropic"
    path: str
    history_keys: tuple[str, ...]  # body keys that hold the conversation (what the proxy may rewrite)
    reserve_keys: tuple[str, ...]  # body keys that bound the output, first present wins

    # --- errors in the provider's own shape --------------------------------------------------
    def error_body(self, message: str, *, kind: str = "invalid_request_error", param: str | None = None) -> dict[str, Any]:
        if self.name == "anthropic":
            return {"type": "error", "error": {"type": kind, "message": message}}
        return {"error": {"message": message, "type": kind, "param": param, "code": None}}

    def error_bytes(self, message: str, *, kind: str = "invalid_request_error", param: str | None = None) -> bytes:
        return json.dumps(self.error_body(message, kind=kind, param=param)).encode()

    # --- the request --------------------------------------------------------------------------
    def reserve(self, body: Mapping[str, Any]) -> int | None:
        for k in self.reserve_keys:
            v = body.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
        return None

    def stateful(self, body: Mapping[str, Any]) -> bool:
        """True when the provider keeps the history itself (Responses ``previous_response_id`` /
        ``conversation``): the request holds only new items, so there is nothing to manage."""
        return self.name == "openai_responses" and (body.get("previous_response_id") is not None or body.get("conversation") is not None)

    # --- usage ----------------------------------------------------------------------------------
    def usage_from_body(self, body: Any, model: str | None) -> Usage | None:
        if not isinstance(body, Mapping) or not isinstance(body.get("usage"), Mapping):
            return None
        return self._parse(body["usage"], model)

    def _parse(self, usage: Mapping[str, Any], model: str | None) -> Usage:
        if self.name == "anthropic":
            return anthropic_usage(dict(usage), model)
        if self.name == "openai_responses":
            return openai_usage(usage, model, responses=True)
        return openai_usage(usage, model)

    def usage_from_events(self, events: list[Any], model: str | None) -> Usage | None:
        """Usage from the stream's parsed ``data`` objects (only those that carry usage are given)."""
        merged: dict[str, Any] = {}
        for ev in events:
            if not isinstance(ev, Mapping):
                continue
            if self.name == "anthropic":
                src = ev.get("message", {}).get("usage") if ev.get("type") == "message_start" else ev.get("usage")
            elif self.name == "openai_responses":
                resp = ev.get("response")
                src = resp.get("usage") if isinstance(resp, Mapping) else None
            else:
                src = ev.get("usage")
            if isinstance(src, Mapping):
                merged.update({k: v for k, v in src.items() if v is not None})
        return self._parse(merged, model) if merged else None


OPENAI_CHAT = Protocol("openai", "/v1/chat/completions", ("messages",), ("max_completion_tokens", "max_tokens"))
OPENAI_RESPONSES = Protocol("openai_responses", "/v1/responses", ("instructions", "input"), ("max_output_tokens",))
ANTHROPIC = Protocol("anthropic", "/v1/messages", ("system", "messages"), ("max_tokens",))

BY_PATH: Mapping[str, Protocol] = {p.path: p for p in (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC)}


def shape_for(path: str) -> Protocol:
    """The protocol whose error shape fits ``path`` (Anthropic's for ``/v1/messages...``)."""
    return ANTHROPIC if path.startswith("/v1/messages") or path.startswith("/v1/complete") else OPENAI_CHAT
