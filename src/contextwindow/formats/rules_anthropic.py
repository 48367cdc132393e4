"""Anthropic Messages request rules. Pure.

As the Messages API documents and enforces them:

- ``messages`` is not empty, roles are ``user``/``assistant``, they alternate, and the first is
  the user's;
- every message has content (a non-empty string or a non-empty block list);
- text blocks hold non-whitespace text (the API rejects empty and whitespace-only text blocks);
  the final assistant message (a prefill) does not end in whitespace;
- a ``tool_use`` id matches ``^[a-zA-Z0-9_-]+$`` and is used once;
- every ``tool_use`` of an assistant message is answered by exactly one ``tool_result`` in the
  very next (user) message, whose ``tool_result`` blocks come before any other content, and a
  ``tool_result`` answers a ``tool_use`` of the message right before it;
- a base64 image has a media type among image/jpeg, image/png, image/gif, image/webp;
- ``system`` text blocks are not blank either.

Repairs: blank text blocks are left out (a message left empty goes, and same-role neighbours
are merged), tool results move first in their message, trailing whitespace of a final
assistant text is cut, and a user note goes first when the list would start with the assistant.
"""

from __future__ import annotations

import re
from typing import Any

from .rules import Fix, Violation, alternating, blank

__all__ = ["check", "repair"]

_ID = re.compile(r"[a-zA-Z0-9_-]+")
_MEDIA = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
HEAD_NOTE = "[The conversation continues from earlier context.]"


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    return list(content) if isinstance(content, list) else []


def _blank_block(b: Any) -> bool:
    return isinstance(b, dict) and b.get("type") == "text" and blank(b.get("text"))


def repair(fmt: str, payload: dict[str, Any]) -> tuple[dict[str, Any], list[Fix]]:
    fixes: list[Fix] = []
    sys_value = payload.get("system")
    if isinstance(sys_value, list):
        kept = [b for b in sys_value if not _blank_block(b)]
        if len(kept) != len(sys_value):
            fixes.append(Fix(-1, "blank_text", f"{len(sys_value) - len(kept)} blank system block(s) left out"))
            if kept:
                payload["system"] = kept
            else:
                del payload["system"]
    elif isinstance(sys_value, str) and not sys_value.strip():
        del payload["system"]
    msgs = payload.get("messages")
    if not isinstance(msgs, list):
        return payload, fixes
    out: list[dict[str, Any]] = []
    for i, m in enumerate(msgs):
        if not isinstance(m, dict):
            out.append(m)
            continue
        content = m.get("content")
        if isinstance(content, list):
            kept = []
            for b in content:
                if _blank_block(b):
                    continue
                if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                    inner = [x for x in b["content"] if not _blank_block(x)]
                    if len(inner) != len(b["content"]):
                        b = {k: v for k, v in b.items() if k != "content"}
                        if inner:
                            b["content"] = inner
                kept.append(b)
            if len(kept) != len(content):
                fixes.append(Fix(i, "blank_text", f"{len(content) - len(kept)} blank text block(s) left out"))
            m = {**m, "content": kept}
        elif isinstance(content, str) and not content.strip():
            fixes.append(Fix(i, "blank_text", "a blank text message left out"))
            m = {**m, "content": []}
        if m.get("content") == []:
            continue
        if out and isinstance(out[-1], dict) and out[-1].get("role") == m.get("role"):
            out[-1] = {**out[-1], "content": _blocks(out[-1]["content"]) + _blocks(m["content"])}
            fixes.append(Fix(i, "not_alternating", "merged into the message before it"))
        else:
            out.append(m)
    for i, m in enumerate(out):
        if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), list):
            c = m["content"]
            results = [b for b in c if isinstance(b, dict) and b.get("type") == "tool_result"]
            if results and c[: len(results)] != results:
                m["content"] = results + [b for b in c if not (isinstance(b, dict) and b.get("type") == "tool_result")]
                fixes.append(Fix(i, "results_not_first", "tool results moved before the other content"))
    if out and isinstance(out[0], dict) and out[0].get("role") == "assistant":
        out.insert(0, {"role": "user", "content": HEAD_NOTE})
        fixes.append(Fix(0, "first_not_user", "a user note put first"))
    if out and isinstance(out[-1], dict) and out[-1].get("role") == "assistant":
        last = out[-1]
        c = last.get("content")
        if isinstance(c, str) and c != c.rstrip():
            last["content"] = c.rstrip()
            fixes.append(Fix(len(out) - 1, "blank_text", "trailing whitespace of the final assistant text cut"))
        elif isinstance(c, list) and c and isinstance(c[-1], dict) and c[-1].get("type") == "text":
            t = c[-1].get("text")
            if isinstance(t, str) and t != t.rstrip():
                c[-1] = {**c[-1], "text": t.rstrip()}
                fixes.append(Fix(len(out) - 1, "blank_text", "trailing whitespace of the final assistant text cut"))
    payload["messages"] = out
    return payload, fixes


def check(fmt: str, payload: Any) -> list[Violation]:
    out: list[Violation] = []
    add = out.append
    if not isinstance(payload, dict):
        return [Violation(-1, "bad_shape", "the payload is not an object")]
    sys_value = payload.get("system")
    if isinstance(sys_value, list):
        for b in sys_value:
            if not isinstance(b, dict) or b.get("type") != "text" or blank(b.get("text")):
                add(Violation(-1, "blank_text", "a system block that is not a non-blank text block"))
    elif sys_value is not None and not isinstance(sys_value, str):
        add(Violation(-1, "bad_shape", "system is not a string or a list of text blocks"))
    msgs = payload.get("messages")
    if not isinstance(msgs, list):
        return [*out, Violation(-1, "bad_shape", "'messages' is not a list")]
    if not msgs:
        return [*out, Violation(-1, "empty_payload", "no messages")]
    ids: set[str] = set()
    open_calls: set[str] = set()
    for i, m, role in alternating(msgs, ("user", "assistant"), "message", add):
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            add(Violation(i, "bad_shape", "content is not a string or a list"))
            continue
        if not blocks:
            add(Violation(i, "empty_content", f"a {role} message with no content"))
        answered: set[str] = set()
        seen_other = False
        for b in blocks:
            kind = b.get("type") if isinstance(b, dict) else None
            if kind == "text":
                if blank(b.get("text")):
                    add(Violation(i, "blank_text", "an empty or whitespace-only text block"))
                seen_other = True
            elif kind == "image":
                src = b.get("source")
                if not isinstance(src, dict):
                    add(Violation(i, "bad_shape", "an image without a source"))
                elif src.get("type") == "base64" and src.get("media_type") not in _MEDIA:
                    add(Violation(i, "media_type", f"base64 image with media type {src.get('media_type')!r}"))
                seen_other = True
            elif kind == "tool_use":
                cid = b.get("id")
                if role != "assistant":
                    add(Violation(i, "misplaced_content", "tool_use in a user message"))
                if not isinstance(cid, str) or not _ID.fullmatch(cid) or len(cid) > 256:
                    add(Violation(i, "bad_id", f"tool_use id {cid!r} does not match ^[a-zA-Z0-9_-]+$"))
                elif cid in ids:
                    add(Violation(i, "bad_id", f"tool_use id {cid!r} used twice"))
                else:
                    ids.add(cid)
            elif kind == "tool_result":
                cid = b.get("tool_use_id")
                if role != "user":
                    add(Violation(i, "misplaced_content", "tool_result in an assistant message"))
                if seen_other:
                    add(Violation(i, "results_not_first", f"tool_result {cid!r} after other content"))
                if cid in answered:
                    add(Violation(i, "duplicate_result", f"two tool_results for {cid!r}"))
                elif cid not in open_calls:
                    add(Violation(i, "orphan_result", f"tool_result {cid!r} answers no tool_use of the message before"))
                answered.add(cid)
                inner = b.get("content")
                if isinstance(inner, list):
                    for x in inner:
                        if _blank_block(x):
                            add(Violation(i, "blank_text", "a blank text block inside a tool_result"))
                        elif isinstance(x, dict) and x.get("type") == "image":
                            src = x.get("source")
                            if isinstance(src, dict) and src.get("type") == "base64" and src.get("media_type") not in _MEDIA:
                                add(Violation(i, "media_type", f"base64 image with media type {src.get('media_type')!r}"))
                elif inner is not None and not isinstance(inner, str):
                    add(Violation(i, "bad_shape", "tool_result content is not a string or a list"))
            else:
                seen_other = True
        if role == "user":
            missing = open_calls - answered
            if missing:
                add(Violation(i, "unanswered_call", f"tool_use {sorted(missing)} of message {i - 1} not answered here"))
            open_calls = set()
        else:
            if open_calls:
                add(Violation(i - 1, "unanswered_call", f"tool_use {sorted(open_calls)} not answered"))
            open_calls = {b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)}
    if open_calls:
        add(Violation(len(msgs) - 1, "unanswered_call", f"tool_use {sorted(open_calls)} not answered"))
    last = msgs[-1]
    if isinstance(last, dict) and last.get("role") == "assistant":
        c = last.get("content")
        tail = c if isinstance(c, str) else (c[-1].get("text") if isinstance(c, list) and c and isinstance(c[-1], dict) and c[-1].get("type") == "text" else None)
        if isinstance(tail, str) and tail != tail.rstrip():
            add(Violation(len(msgs) - 1, "blank_text", "the final assistant text ends in whitespace"))
    return out
