"""Provider request payloads saved as JSON/JSONL → ImportedSessions.

Accepted shapes (for OpenAI Chat Completions, Anthropic Messages and OpenAI Responses alike):

- one JSON object, the request body (``{"messages": [...]}`` / ``{"system"?, "messages"}`` /
  ``{"instructions"?, "input"}``), or a bare JSON list of messages / input items;
- JSONL with one message (or input item) per line → one conversation;
- JSONL with one request body per line → one session per line (``load_all``; ``load_transcript``
  returns the first).

The conversion itself is the provider converter's ``from_payload`` (formats.openai_chat, .anthropic,
.openai_responses). A message the converter rejects is skipped and reported (with its line in JSONL).
Each assistant message counts as one model call; an OpenAI Chat file may carry per-call usage as
``"assistant_usage": [{"message_index", "usage": {"prompt_tokens", "completion_tokens", ...}}]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..errors import ImportFormatError, PayloadError
from ..messages import Message
from .model import CallRecord, ImportedSession, RawInput, Skipped, as_int, sub
from .repair import finish_session

_LIST_KEY = {"openai-chat": "messages", "anthropic-messages": "messages", "openai-responses": "input"}


def _converter(fmt: str) -> Callable[[Any], list[Message]]:
    if fmt == "openai-chat":
        from ..formats import openai_chat

        return openai_chat.from_payload
    if fmt == "anthropic-messages":
        from ..formats import anthropic

        return anthropic.from_payload
    if fmt == "openai-responses":
        try:
            from ..formats import openai_responses
        except ImportError as exc:  # pragma: no cover - depends on the converter being installed
            raise ImportFormatError(f"OpenAI Responses payloads cannot be read here: {exc}") from exc
        return openai_responses.from_payload
    raise ImportFormatError(f"not a provider payload format: {fmt!r}")


def _convert(
    fmt: str, body: Any, lines: list[int | None] | None, skipped: list[Skipped], at: int | None = None
) -> tuple[list[Message], Any]:
    """Convert with the provider converter, dropping (and reporting) the items it rejects one by one."""
    convert = _converter(fmt)
    key = _LIST_KEY[fmt]
    items = body.get(key) if isinstance(body, dict) else body
    for _ in range(10_000):
        try:
            return convert(body), body
        except PayloadError as exc:
            idx = exc.index
            if idx is None or not isinstance(items, list) or not 0 <= idx < len(items):
                skipped.append(Skipped(at, f"not a valid {fmt} payload: {exc}"))
                return [], body
            line = lines[idx] if lines is not None and idx < len(lines) else at
            skipped.append(Skipped(line, f"{fmt} item rejected: {exc}"))
            items = items[:idx] + items[idx + 1 :]
            if lines is not None:
                lines = lines[:idx] + lines[idx + 1 :]
            body = {**body, key: items} if isinstance(body, dict) else items
    return [], body  # pragma: no cover - bounded loop


def _session(
    fmt: str, raw: RawInput, body: Any, lines: list[int | None] | None, skipped: list[Skipped], at: int | None = None
) -> ImportedSession | None:
    messages, body = _convert(fmt, body, lines, skipped, at)
    if not messages:
        return None
    model = body.get("model") if isinstance(body, dict) and isinstance(body.get("model"), str) else None
    usage_by_index: dict[int, dict[str, Any]] = {}
    if isinstance(body, dict) and isinstance(body.get("assistant_usage"), list):
        for u in body["assistant_usage"]:
            if isinstance(u, dict) and isinstance(u.get("message_index"), int) and isinstance(u.get("usage"), dict):
                usage_by_index[u["message_index"]] = u["usage"]
    # Payload message i is converted message i + shift when the converter added a leading system message.
    items = body.get(_LIST_KEY[fmt]) if isinstance(body, dict) else body
    shift = len(messages) - len(items) if isinstance(items, list) and len(messages) >= len(items) else 0
    calls: list[CallRecord] = []
    for i, m in enumerate(messages):
        if m.role != "assistant":
            continue
        u = usage_by_index.get(i - shift, {})
        details = sub(u, "prompt_tokens_details")
        calls.append(
            CallRecord(
                index=i,
                reply_end=i + 1,
                reported_input_tokens=as_int(u.get("prompt_tokens")),
                output_tokens=as_int(u.get("completion_tokens")),
                cache_read_tokens=as_int(details.get("cached_tokens")),
                model=model,
            )
        )
    meta: dict[str, Any] = {}
    if isinstance(body, dict):
        if body.get("derived_from") is not None:
            meta["derived_from"] = body["derived_from"]
        if isinstance(body.get("tools"), list):
            meta["tools"] = len(body["tools"])
    return finish_session(
        format=fmt,
        source=raw.source,
        messages=messages,
        calls=calls,
        checkpoints=[],
        skipped=skipped,
        model=model,
        title=None,
        meta=meta,
    )


def _is_body(obj: Any, fmt: str) -> bool:
    return isinstance(obj, dict) and _LIST_KEY[fmt] in obj


def import_raw(raw: RawInput, fmt: str) -> list[ImportedSession]:
    if fmt not in _LIST_KEY:
        raise ImportFormatError(f"not a provider payload format: {fmt!r}")
    skipped = raw.skipped  # shared: what an importer skips is reported even when nothing imports
    if raw.is_document:
        doc = raw.document
        if not (isinstance(doc, list) or _is_body(doc, fmt)):
            skipped.append(Skipped(None, f"a {fmt} file is a request body with {_LIST_KEY[fmt]!r} or a list of messages"))
            return []
        s = _session(fmt, raw, doc, None, skipped)
        return [s] if s else []
    bodies = [(line, obj) for line, obj in raw.records if _is_body(obj, fmt)]
    if bodies:
        sessions: list[ImportedSession] = []
        for line, obj in raw.records:
            if not _is_body(obj, fmt):
                skipped.append(Skipped(line, f"not a {fmt} request body"))
        for line, obj in bodies:
            own: list[Skipped] = []
            s = _session(fmt, raw, obj, None, own, line)
            if s is None:
                skipped.extend(own)
                skipped.append(Skipped(line, "request body with no importable messages"))
                continue
            sessions.append(s)
        if sessions and skipped:
            first = sessions[0]
            sessions[0] = replace(first, skipped=[*skipped, *first.skipped])
        return sessions
    items = [obj for _, obj in raw.records]
    lines: list[int | None] = [line for line, _ in raw.records]
    s = _session(fmt, raw, items, lines, skipped)
    return [s] if s else []
