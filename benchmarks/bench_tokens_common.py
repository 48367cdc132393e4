"""Shared loaders for the token benchmarks: real Claude Code sessions and Codex rollouts
turned into (model, reported input tokens, messages sent) per model call.

A minimal reader of its own (the benchmarks must not depend on the importers being done):

- Claude Code: every assistant record names its API response (``message.id``) and carries
  the provider's usage; the prompt of that call is the ``parentUuid`` chain from the root to
  the record just before the response's first block. Reported prompt size =
  input_tokens + cache_creation_input_tokens + cache_read_input_tokens.
- Codex: every ``token_count`` event with ``info`` reports ``last_token_usage.input_tokens``
  of the call just made; its prompt is every ``response_item`` before it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contextwindow.messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
)

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT.parent / "shared" / "fixtures" / "transcripts"


@dataclass(frozen=True)
class Call:
    source: str
    chain: str  # calls of one chain share a growing prompt
    model: str
    reported: int
    messages: tuple[Message, ...]


# --- Claude Code ------------------------------------------------------------------------------


def _anthropic_part(block: dict[str, Any]) -> Part | None:
    t = block.get("type")
    if t == "text":
        return TextPart(block.get("text", ""))
    if t == "thinking":
        return ReasoningPart(text=block.get("thinking", ""), signature=block.get("signature"), provider="anthropic")
    if t == "redacted_thinking":
        return ReasoningPart(encrypted=block.get("data", ""), provider="anthropic")
    if t == "tool_use":
        return ToolCallPart(id=block.get("id", ""), name=block.get("name", ""), arguments=dump_arguments(block.get("input", {})))
    if t == "image":
        src = block.get("source", {})
        return ImagePart(source="base64", data=src.get("data", ""), media_type=src.get("media_type"))
    if t == "tool_result":
        c = block.get("content", "")
        content: list[TextPart | ImagePart] = []
        if isinstance(c, str):
            content.append(TextPart(c))
        else:
            for b in c or []:
                p = _anthropic_part(b)
                if isinstance(p, (TextPart, ImagePart)):
                    content.append(p)
        return ToolResultPart(call_id=block.get("tool_use_id", ""), content=tuple(content), is_error=bool(block.get("is_error")))
    return None


def _record_message(rec: dict[str, Any]) -> Message | None:
    m = rec.get("message")
    if not isinstance(m, dict):
        return None
    content = m.get("content")
    parts: list[Part] = []
    if isinstance(content, str):
        parts.append(TextPart(content))
    else:
        for b in content or []:
            p = _anthropic_part(b)
            if p is not None:
                parts.append(p)
    role = m.get("role")
    if role == "user" and parts and all(isinstance(p, ToolResultPart) for p in parts):
        return Message(role="tool", parts=tuple(parts))
    if role not in ("user", "assistant"):
        return None
    return Message(role=role, parts=tuple(parts))


def _context_records(call: dict[str, Any], records: dict[str, dict[str, Any]], order: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records sent with ``call``: its parentUuid ancestors, plus the sibling blocks of
    parallel tool calls that sit on side branches of the DAG (other blocks of an ancestor's
    API response, and the results of its tool calls), in file order, all before the call."""
    chain: dict[int, dict[str, Any]] = {}
    cur = records.get(call.get("parentUuid") or "")
    while cur is not None:
        chain[cur["_pos"]] = cur
        cur = records.get(cur.get("parentUuid") or "")
    msg_ids = {(r.get("message") or {}).get("id") for r in chain.values() if r.get("type") == "assistant"}
    msg_ids.discard(None)
    call_ids: set[str] = set()
    for r in order[: call["_pos"]]:
        if r.get("type") == "assistant" and (r.get("message") or {}).get("id") in msg_ids:
            chain.setdefault(r["_pos"], r)
    for r in chain.values():
        content = (r.get("message") or {}).get("content")
        if r.get("type") == "assistant" and isinstance(content, list):
            call_ids.update(b.get("id", "") for b in content if b.get("type") == "tool_use")
    for r in order[: call["_pos"]]:
        content = (r.get("message") or {}).get("content")
        if (
            r.get("type") == "user"
            and isinstance(content, list)
            and any(b.get("type") == "tool_result" and b.get("tool_use_id") in call_ids for b in content)
        ):
            chain.setdefault(r["_pos"], r)
    return [chain[k] for k in sorted(chain)]


def load_claude_calls(path: Path) -> list[Call]:
    records: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        rec["_pos"] = len(order)
        order.append(rec)
        if rec.get("uuid"):
            records[rec["uuid"]] = rec
    calls: list[Call] = []
    seen: set[str] = set()
    for rec in order:
        m = rec.get("message")
        if rec.get("type") != "assistant" or not isinstance(m, dict) or "usage" not in m:
            continue
        mid = m.get("id")
        if not mid or mid in seen or m.get("model") == "<synthetic>":
            continue
        seen.add(mid)
        u = m["usage"]
        reported = u.get("input_tokens", 0) + u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0)
        chain = _context_records(rec, records, order)
        msgs: list[Message] = []
        last_id: str | None = None
        for r in chain:
            if r.get("type") not in ("user", "assistant"):
                continue
            msg = _record_message(r)
            if msg is None:
                continue
            rid = (r.get("message") or {}).get("id") if r.get("type") == "assistant" else None
            if msgs and ((rid is not None and rid == last_id) or (msg.role == "tool" and msgs[-1].role == "tool")):
                msgs[-1] = Message(role=msgs[-1].role, parts=msgs[-1].parts + msg.parts)
            else:
                msgs.append(msg)
            last_id = rid
        root = chain[0].get("uuid", "") if chain else ""
        calls.append(Call(path.name, f"{path.name}:{root}", m.get("model", "?"), reported, tuple(msgs)))
    return calls


# --- Codex ------------------------------------------------------------------------------------


def _codex_message(item: dict[str, Any]) -> Message | None:
    t = item.get("type")
    if t == "message":
        role = {"developer": "system", "system": "system", "user": "user", "assistant": "assistant"}.get(item.get("role", ""))
        if role is None:
            return None
        parts: list[Part] = []
        for c in item.get("content") or []:
            if c.get("type") in ("input_text", "output_text"):
                parts.append(TextPart(c.get("text", "")))
            elif c.get("type") == "input_image":
                parts.append(ImagePart(source="url", data=c.get("image_url", "")))
        return Message(role=role, parts=tuple(parts))  # type: ignore[arg-type]
    if t == "reasoning":
        text = "\n".join(s.get("text", "") for s in item.get("summary") or [])
        return Message(role="assistant", parts=(ReasoningPart(text=text, encrypted=item.get("encrypted_content"), provider="openai_responses"),))
    if t in ("function_call", "custom_tool_call"):
        args = item.get("arguments") if t == "function_call" else item.get("input")
        return Message(role="assistant", parts=(ToolCallPart(id=item.get("call_id", ""), name=item.get("name", ""), arguments=args or ""),))
    if t in ("function_call_output", "custom_tool_call_output"):
        out = item.get("output")
        text = out if isinstance(out, str) else json.dumps(out)
        return Message(role="tool", parts=(ToolResultPart(call_id=item.get("call_id", ""), content=(TextPart(text),)),))
    return None


def load_codex_calls(path: Path) -> list[Call]:
    msgs: list[Message] = []
    calls: list[Call] = []
    model = "gpt-5"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        p = rec.get("payload") or {}
        if rec.get("type") == "turn_context" and p.get("model"):
            model = p["model"]
        elif rec.get("type") == "response_item":
            m = _codex_message(p)
            if m is not None:
                msgs.append(m)
        elif rec.get("type") == "compacted":
            msgs = [m for m in (_codex_message(i) for i in p.get("replacement_history") or []) if m is not None]
        elif rec.get("type") == "event_msg" and p.get("type") == "token_count" and p.get("info"):
            reported = p["info"]["last_token_usage"]["input_tokens"]
            calls.append(Call(path.name, path.name, model, reported, tuple(msgs)))
    return calls


def iter_calls(kind: str, base: Path = TRANSCRIPTS) -> Iterator[Call]:
    folder = base / ("claude_code" if kind == "claude" else "codex")
    loader = load_claude_calls if kind == "claude" else load_codex_calls
    for f in sorted(folder.glob("*.jsonl")):
        yield from loader(f)
