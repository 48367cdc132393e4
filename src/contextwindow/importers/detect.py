"""Which transcript format a file holds, decided by content (pure functions over parsed values).

The rules, first match wins: Codex lines are ``{type, payload}`` with a Codex record type; Claude Code
lines are records with ``uuid``/``sessionId``; OpenHands has events with ``action``/``observation``
(or eval instances with a ``history`` of them); a SWE-agent trajectory is one object with ``history``
entries that name their ``agent``/``message_type``; provider payloads are told apart by their shape
(``input`` or Responses item types → OpenAI Responses; ``system`` or Anthropic content blocks → Anthropic
Messages; ``tool_calls``/role ``tool`` or anything else with ``messages`` → OpenAI Chat).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import RawInput

_CLAUDE_TYPES = frozenset({"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation"})
_CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_RESPONSES_ITEM_TYPES = frozenset(
    {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "web_search_call"}
)
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})


def _type(d: Any) -> str | None:
    """``d["type"]`` when ``d`` is an object and the type a string (a list or object there is malformed,
    and unhashable: it must not reach a set lookup)."""
    t = d.get("type") if isinstance(d, dict) else None
    return t if isinstance(t, str) else None


def _detect_record(obj: dict[str, Any]) -> str | None:
    """The format one JSONL record belongs to, or None when it says nothing."""
    t = _type(obj)
    if t in _CODEX_TYPES and "payload" in obj:
        return "codex"
    if t in _CLAUDE_TYPES and ("uuid" in obj or "sessionId" in obj or "leafUuid" in obj or "snapshot" in obj or "operation" in obj):
        return "claude-code"
    if isinstance(obj.get("history"), list) and ("instance_id" in obj or "instruction" in obj or "metrics" in obj):
        return "openhands"
    if "action" in obj or "observation" in obj:
        return "openhands"
    if "messages" in obj or "input" in obj or "role" in obj or t in _RESPONSES_ITEM_TYPES:
        return _detect_payload(obj)
    if "instructions" in obj and "id" in obj and "timestamp" in obj:
        return "codex"  # the first line of an older Codex rollout
    return None


def _blocks_say_anthropic(content: Any) -> bool:
    return isinstance(content, list) and any(_type(b) in _ANTHROPIC_BLOCKS for b in content)


def _detect_messages(items: list[Any]) -> str:
    for m in items:
        if not isinstance(m, dict):
            continue
        if _type(m) in _RESPONSES_ITEM_TYPES and "role" not in m:
            return "openai-responses"
        if _type(m) in ("function_call", "function_call_output", "reasoning"):
            return "openai-responses"
        if m.get("role") == "tool" or "tool_calls" in m or "tool_call_id" in m:
            return "openai-chat"
        if _blocks_say_anthropic(m.get("content")):
            return "anthropic-messages"
        content = m.get("content")
        if isinstance(content, list) and any(_type(b) in ("input_text", "output_text") for b in content):
            return "openai-responses"
    return "openai-chat"


def _detect_payload(obj: dict[str, Any]) -> str:
    if isinstance(obj.get("input"), (list, str)) and "messages" not in obj:
        return "openai-responses"
    if "role" in obj or _type(obj) in _RESPONSES_ITEM_TYPES:
        return _detect_messages([obj])
    if isinstance(obj.get("system"), (str, list)) or ("max_tokens" in obj and "anthropic_version" in obj):
        return "anthropic-messages"
    msgs = obj.get("messages")
    return _detect_messages(msgs if isinstance(msgs, list) else [])


def _detect_document(doc: Any) -> str | None:
    if isinstance(doc, dict):
        if isinstance(doc.get("history"), list) and ("trajectory" in doc or "info" in doc or "environment" in doc):
            return "swe-agent"
        if isinstance(doc.get("history"), list) and doc["history"] and all(
            isinstance(h, dict) and "role" in h and ("agent" in h or "message_type" in h) for h in doc["history"][:3]
        ):
            return "swe-agent"
        found = _detect_record(doc)
        if found:
            return found
        return None
    if isinstance(doc, list):
        items = [x for x in doc[:20] if isinstance(x, dict)]
        if not items:
            return None
        if any("action" in x or "observation" in x for x in items):
            return "openhands"
        if all(_detect_record(x) == "claude-code" for x in items[:3]):
            return "claude-code"
        if all(_detect_record(x) == "codex" for x in items[:3]):
            return "codex"
        if any("role" in x or _type(x) in _RESPONSES_ITEM_TYPES for x in items):
            return _detect_messages(items)
    return None


def detect_raw(raw: RawInput) -> str | None:
    if raw.is_document:
        return _detect_document(raw.document)
    votes: dict[str, int] = {}
    for _, obj in raw.records[:50]:
        f = _detect_record(obj)
        if f:
            votes[f] = votes.get(f, 0) + 1
    if not votes:
        return None
    return max(votes.items(), key=lambda kv: kv[1])[0]


def heuristic_from_text(text: str) -> str | None:
    """Detection from the first bytes of a document that does not parse yet (a prefix of a big file)."""
    if '"trajectory"' in text or ('"history"' in text and '"message_type"' in text):
        return "swe-agent"
    if '"observation"' in text or '"tool_call_metadata"' in text or ('"instance_id"' in text and '"instruction"' in text):
        return "openhands"
    if '"parentUuid"' in text or '"sessionId"' in text:
        return "claude-code"
    if '"session_meta"' in text or '"response_item"' in text:
        return "codex"
    return None
