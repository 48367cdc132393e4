"""An independent checker of provider request bodies, for the fuzz benchmark and tests.

Written from the providers' documented request rules, apart from contextwindow's own
validator (formats/rules*.py, which also repairs) and importing nothing from contextwindow, so a
benchmark that counts "invalid payloads" with it is not grading the validator by itself.
It only reads; ``problems(fmt, payload)`` lists what the provider would reject.

Rules checked (source: each provider's API reference and its documented 400 errors):

OpenAI Chat Completions
  C1 messages non-empty; roles in {system, developer, user, assistant, tool}
  C2 "An assistant message with 'tool_calls' must be followed by tool messages responding to each
     'tool_call_id'" — the very next messages, nothing between them
  C3 "messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
  C4 tool_calls[].id at most 40 characters, non-empty
  C5 assistant needs content or tool_calls; image_url only in user content; data URLs carry an
     image/* type
OpenAI Responses
  R1 input non-empty; R2 "No tool call found for function call output with call_id ...";
  R3 "No tool output found for function call ..."; R4 call ids non-empty
Anthropic Messages
  A1 messages non-empty, first is user, roles alternate
  A2 "text content blocks must contain non-whitespace text"; "all messages must have non-empty
     content except for the optional final assistant message"; "final assistant content cannot
     end with trailing whitespace"
  A3 tool_use.id matches ^[a-zA-Z0-9_-]+$, unique
  A4 "tool_use ids were found without tool_result blocks immediately after"; "unexpected
     tool_use_id found in tool_result blocks"; tool_result blocks first in the user content;
     one result per id
  A5 base64 image media_type in {image/jpeg, image/png, image/gif, image/webp}
Gemini generateContent
  G1 contents non-empty, roles user/model alternating, user first
  G2 parts non-empty; no empty text part
  G3 "the number of function response parts is equal to the number of function call parts of
     the function call turn"
  G4 functionResponse.response is an object; inlineData has mimeType and data
"""

from __future__ import annotations

import re
from typing import Any

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def problems(fmt: str, payload: Any) -> list[str]:
    return {"openai": chat, "openai_responses": responses, "anthropic": anthropic, "gemini": gemini}[fmt](payload)


def _data_url_ok(url: Any) -> bool:
    if not isinstance(url, str) or not url:
        return False
    if not url.startswith("data:"):
        return True
    m = re.match(r"^data:([^;,]+);base64,", url)
    return bool(m) and m.group(1).lower() in IMAGE_TYPES


def chat(p: Any) -> list[str]:
    errs: list[str] = []
    msgs = p.get("messages")
    if not msgs:
        return ["C1 no messages"]
    i = 0
    while i < len(msgs):
        m = msgs[i]
        role = m.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            errs.append(f"C1 [{i}] role {role}")
        if role == "tool":
            errs.append(f"C3 [{i}] tool message not right after an assistant's tool calls")
            i += 1
            continue
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "image_url":
                    if role != "user":
                        errs.append(f"C5 [{i}] image in {role}")
                    if not _data_url_ok((part.get("image_url") or {}).get("url")):
                        errs.append(f"C5 [{i}] image url")
        tcs = m.get("tool_calls") or [] if role == "assistant" else []
        if role == "assistant" and not tcs and not content:
            errs.append(f"C5 [{i}] empty assistant")
        if role in ("user", "system", "developer") and content in (None, []):
            errs.append(f"C5 [{i}] empty {role}")
        want = []
        for tc in tcs:
            tid = tc.get("id")
            if not isinstance(tid, str) or not 0 < len(tid) <= 40:
                errs.append(f"C4 [{i}] id {tid!r}")
            want.append(tid)
        i += 1
        got = []
        while i < len(msgs) and msgs[i].get("role") == "tool":
            got.append(msgs[i].get("tool_call_id"))
            c = msgs[i].get("content")
            if not isinstance(c, str) and not (isinstance(c, list) and all(x.get("type") == "text" for x in c)):
                errs.append(f"C5 [{i}] tool content not text")
            i += 1
        if sorted(map(str, got)) != sorted(map(str, want)):
            errs.append(f"C2 [{i}] calls {want} answered by {got}")
    return errs


def responses(p: Any) -> list[str]:
    items = p.get("input")
    if isinstance(items, str):
        return [] if items else ["R1 empty input"]
    if not items:
        return ["R1 no input"]
    errs: list[str] = []
    calls: list[str] = []
    outputs: list[str] = []
    for i, it in enumerate(items):
        t = it.get("type", "message")
        if t in ("function_call", "custom_tool_call"):
            if not it.get("call_id"):
                errs.append(f"R4 [{i}] empty call id")
            if it.get("call_id") in calls:
                errs.append(f"R4 [{i}] call id reused")
            calls.append(it.get("call_id"))
        elif t in ("function_call_output", "custom_tool_call_output"):
            if it.get("call_id") not in calls:
                errs.append(f"R2 [{i}] output {it.get('call_id')!r} without call")
            if it.get("call_id") in outputs:
                errs.append(f"R2 [{i}] second output")
            outputs.append(it.get("call_id"))
        elif t == "message":
            c = it.get("content")
            if c in (None, []):
                errs.append(f"R1 [{i}] empty message")
            for part in c if isinstance(c, list) else []:
                if part.get("type") == "input_image" and "file_id" not in part and not _data_url_ok(part.get("image_url")):
                    errs.append(f"R5 [{i}] image url")
    for c in calls:
        if c not in outputs:
            errs.append(f"R3 call {c!r} has no output")
    return errs


def _text_blank(b: dict) -> bool:
    return b.get("type") == "text" and not str(b.get("text", "")).strip()


def anthropic(p: Any) -> list[str]:
    errs: list[str] = []
    for b in p.get("system") if isinstance(p.get("system"), list) else []:
        if _text_blank(b):
            errs.append("A2 blank system block")
    msgs = p.get("messages")
    if not msgs:
        return [*errs, "A1 no messages"]
    if msgs[0].get("role") != "user":
        errs.append("A1 first message not user")
    seen_ids: set[str] = set()
    for i, m in enumerate(msgs):
        if i and m.get("role") == msgs[i - 1].get("role"):
            errs.append(f"A1 [{i}] roles do not alternate")
        c = m.get("content")
        blocks = [{"type": "text", "text": c}] if isinstance(c, str) else (c or [])
        if not blocks and not (i == len(msgs) - 1 and m.get("role") == "assistant"):
            errs.append(f"A2 [{i}] empty content")
        for b in blocks:
            if _text_blank(b):
                errs.append(f"A2 [{i}] blank text block")
            if b.get("type") == "image" and b["source"].get("type") == "base64" and b["source"].get("media_type") not in IMAGE_TYPES:
                errs.append(f"A5 [{i}] media type")
            if b.get("type") == "tool_result":
                for x in b.get("content") if isinstance(b.get("content"), list) else []:
                    if _text_blank(x):
                        errs.append(f"A2 [{i}] blank text in tool_result")
                    if x.get("type") == "image" and x["source"].get("type") == "base64" and x["source"].get("media_type") not in IMAGE_TYPES:
                        errs.append(f"A5 [{i}] media type in tool_result")
        uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
        for u in uses:
            if not isinstance(u, str) or not ANTHROPIC_ID.match(u):
                errs.append(f"A3 [{i}] id {u!r}")
            if u in seen_ids:
                errs.append(f"A3 [{i}] id {u!r} reused")
            seen_ids.add(u)
        kinds = [b.get("type") for b in blocks]
        if "tool_result" in kinds and kinds.index("tool_result") > 0 and any(k != "tool_result" for k in kinds[: kinds.index("tool_result")]):
            errs.append(f"A4 [{i}] tool_result not first")
        if "tool_result" in kinds and kinds != sorted(kinds, key=lambda k: k != "tool_result"):
            errs.append(f"A4 [{i}] tool_result after other content")
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        prev_uses = []
        if i:
            pc = msgs[i - 1].get("content")
            prev_uses = [b.get("id") for b in (pc if isinstance(pc, list) else []) if b.get("type") == "tool_use"]
        if m.get("role") == "user" and sorted(map(str, results)) != sorted(map(str, prev_uses)):
            errs.append(f"A4 [{i}] tool_use {prev_uses} answered by {results}")
        if m.get("role") == "assistant" and uses and i == len(msgs) - 1:
            errs.append(f"A4 [{i}] tool_use without tool_result after it")
    last = msgs[-1]
    if last.get("role") == "assistant":
        c = last.get("content")
        tail = c if isinstance(c, str) else (c[-1].get("text") if c and c[-1].get("type") == "text" else None)
        if isinstance(tail, str) and tail != tail.rstrip():
            errs.append("A2 final assistant content ends in whitespace")
    return errs


def gemini(p: Any) -> list[str]:
    contents = p.get("contents")
    if not contents:
        return ["G1 no contents"]
    errs: list[str] = []
    if contents[0].get("role") != "user":
        errs.append("G1 first content not user")
    for i, c in enumerate(contents):
        if c.get("role") not in ("user", "model"):
            errs.append(f"G1 [{i}] role {c.get('role')}")
        if i and c.get("role") == contents[i - 1].get("role"):
            errs.append(f"G1 [{i}] roles do not alternate")
        parts = c.get("parts") or []
        if not parts:
            errs.append(f"G2 [{i}] no parts")
        for part in parts:
            if set(part) == {"text"} and not part["text"].strip():
                errs.append(f"G2 [{i}] empty text part")
            if "functionResponse" in part and not isinstance(part["functionResponse"].get("response"), dict):
                errs.append(f"G4 [{i}] response not an object")
            if "inlineData" in part and not (part["inlineData"].get("mimeType") and isinstance(part["inlineData"].get("data"), str)):
                errs.append(f"G4 [{i}] inlineData")
        n_calls = sorted(str(x["functionCall"].get("name")) for x in parts if "functionCall" in x)
        if n_calls:
            nxt = contents[i + 1].get("parts", []) if i + 1 < len(contents) else []
            n_resp = sorted(str(x["functionResponse"].get("name")) for x in nxt if "functionResponse" in x)
            if n_resp != n_calls:
                errs.append(f"G3 [{i}] {len(n_calls)} calls answered by {len(n_resp)} responses")
        if any("functionResponse" in x for x in parts):
            prev = contents[i - 1].get("parts", []) if i else []
            if not any("functionCall" in x for x in prev):
                errs.append(f"G3 [{i}] responses after a turn without calls")
    return errs
