"""OpenAI request rules: Chat Completions (``messages``) and Responses (``input`` items). Pure.

Chat Completions, as the API documents and enforces them:

- ``messages`` is not empty; roles are system, developer, user, assistant, tool;
- an assistant message with ``tool_calls`` is followed directly by one ``tool`` message per
  call id (in any order), and a ``tool`` message answers a call of the assistant message right
  before its run of tool messages — nothing else between them;
- a call id is 1–40 characters and used once;
- an assistant message has content or tool calls; a tool message's content is text (a string or
  text parts); images go in user messages only;
- an inline image is a ``data:<media type>;base64,`` URL with an image media type.

Responses: ``input`` is not empty; every ``function_call_output`` follows a ``function_call``
with the same ``call_id`` and every call has exactly one output; call ids are 1–64 characters
and unique; message items have content; inline images carry their media type.

Repairs: in Chat Completions, user messages that sit between the tool messages of one assistant
message (images from parallel results) move after ALL of them; blank text parts inside content
lists are left out.
"""

from __future__ import annotations

from typing import Any

from .rules import Fix, Violation, blank

__all__ = ["check", "repair"]

_CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_MEDIA_OK = ("image/jpeg", "image/png", "image/gif", "image/webp")


def repair(fmt: str, payload: dict[str, Any]) -> tuple[dict[str, Any], list[Fix]]:
    if fmt == "openai_responses":
        return payload, []
    msgs = payload.get("messages")
    if not isinstance(msgs, list):
        return payload, []
    fixes: list[Fix] = []
    for i, m in enumerate(msgs):
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            kept = [p for p in m["content"] if not (isinstance(p, dict) and p.get("type") == "text" and blank(p.get("text")))]
            if len(kept) != len(m["content"]) and kept:
                fixes.append(Fix(i, "blank_text", f"{len(m['content']) - len(kept)} blank text part(s) left out"))
                m["content"] = kept
    payload["messages"] = _gather_results(msgs, fixes)
    return payload, fixes


def _call_ids(m: Any) -> list[str]:
    if not isinstance(m, dict) or m.get("role") != "assistant" or not isinstance(m.get("tool_calls"), list):
        return []
    return [str(c.get("id")) for c in m["tool_calls"] if isinstance(c, dict)]


def _gather_results(msgs: list[Any], fixes: list[Fix]) -> list[Any]:
    """Tool messages of one assistant message first, the user messages among them after."""
    out: list[Any] = []
    i = 0
    while i < len(msgs):
        m = msgs[i]
        out.append(m)
        i += 1
        pending = set(_call_ids(m))
        if not pending:
            continue
        j = i
        while j < len(msgs) and isinstance(msgs[j], dict) and msgs[j].get("role") in ("tool", "user"):
            j += 1
        # the last tool message of this run that answers a pending call
        last = max((k for k in range(i, j) if msgs[k].get("role") == "tool" and msgs[k].get("tool_call_id") in pending), default=i - 1)
        window = msgs[i : last + 1]
        tools = [x for x in window if x.get("role") == "tool"]
        users = [x for x in window if x.get("role") != "tool"]
        if users and tools:
            fixes.append(Fix(i, "misplaced_content", f"{len(users)} user message(s) moved after the {len(tools)} tool results of message {i - 1}"))
        out.extend(tools + users)
        i = last + 1
    return out


def _media_ok(url: Any) -> bool:
    if not isinstance(url, str) or not url.startswith("data:"):
        return isinstance(url, str) and bool(url)
    head = url[5:].partition(",")[0]
    return head.endswith(";base64") and head[: -len(";base64")].lower() in _MEDIA_OK


def check(fmt: str, payload: Any) -> list[Violation]:
    if fmt == "openai_responses":
        return _check_responses(payload)
    out: list[Violation] = []
    add = out.append
    msgs = payload.get("messages") if isinstance(payload, dict) else None
    if not isinstance(msgs, list):
        return [Violation(-1, "bad_shape", "'messages' is not a list")]
    if not msgs:
        return [Violation(-1, "empty_payload", "no messages")]
    seen: set[str] = set()
    pending: set[str] = set()  # calls of the current assistant message not yet answered
    in_results = False
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in _CHAT_ROLES:
            add(Violation(i, "bad_role", f"role {m.get('role') if isinstance(m, dict) else m!r}"))
            continue
        role = m["role"]
        content = m.get("content")
        if role == "tool":
            cid = m.get("tool_call_id")
            if not in_results:
                add(Violation(i, "orphan_result", f"tool message {cid!r} does not follow an assistant message with tool_calls"))
            elif cid not in pending:
                add(Violation(i, "duplicate_result" if cid in seen else "orphan_result", f"tool_call_id {cid!r} answers no open call of the assistant message"))
            pending.discard(cid)
            if not (isinstance(content, str) or (isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content))):
                add(Violation(i, "misplaced_content", "a tool message's content must be text"))
            continue
        if pending:
            add(Violation(i - 1, "unanswered_call", f"call(s) {sorted(pending)} have no tool message before message {i}"))
        pending = set()
        in_results = False
        if isinstance(content, list):
            for p in content:
                if not isinstance(p, dict):
                    add(Violation(i, "bad_shape", "a content part is not an object"))
                elif p.get("type") == "image_url":
                    if role != "user":
                        add(Violation(i, "misplaced_content", f"an image in a {role} message"))
                    iu = p.get("image_url")
                    if not isinstance(iu, dict) or not _media_ok(iu.get("url")):
                        add(Violation(i, "media_type", "an image URL that is empty or a data URL without an image media type"))
                elif p.get("type") == "text" and not isinstance(p.get("text"), str):
                    add(Violation(i, "bad_shape", "a text part without text"))
        elif content is not None and not isinstance(content, str):
            add(Violation(i, "bad_shape", "content is not a string, list or null"))
        calls = m.get("tool_calls") if role == "assistant" else None
        if role == "assistant" and not calls and (content is None or content == [] or content == ""):
            add(Violation(i, "empty_content", "an assistant message with neither content nor tool calls"))
        if role in ("user", "system", "developer") and (content is None or content == []):
            add(Violation(i, "empty_content", f"a {role} message without content"))
        if calls:
            for c in calls:
                cid = c.get("id") if isinstance(c, dict) else None
                if not isinstance(cid, str) or not cid or len(cid) > 40:
                    add(Violation(i, "bad_id", f"call id {cid!r} must be 1-40 characters"))
                elif cid in seen:
                    add(Violation(i, "bad_id", f"call id {cid!r} used twice"))
                if isinstance(cid, str):
                    seen.add(cid)
                    pending.add(cid)
            in_results = True
    if pending:
        add(Violation(len(msgs) - 1, "unanswered_call", f"call(s) {sorted(pending)} have no tool message"))
    return out


def _check_responses(payload: Any) -> list[Violation]:
    out: list[Violation] = []
    add = out.append
    items = payload.get("input") if isinstance(payload, dict) else None
    if isinstance(items, str):
        return [] if items else [Violation(-1, "empty_payload", "empty input")]
    if not isinstance(items, list):
        return [Violation(-1, "bad_shape", "'input' is not a list or string")]
    if not items:
        return [Violation(-1, "empty_payload", "no input items")]
    calls: dict[str, int] = {}
    answered: set[str] = set()
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            add(Violation(i, "bad_shape", "an input item is not an object"))
            continue
        kind = it.get("type", "message" if "role" in it else None)
        if kind in ("function_call", "custom_tool_call"):
            cid = it.get("call_id")
            if not isinstance(cid, str) or not cid or len(cid) > 64:
                add(Violation(i, "bad_id", f"call_id {cid!r} must be 1-64 characters"))
            elif cid in calls:
                add(Violation(i, "bad_id", f"call_id {cid!r} used by two calls"))
            else:
                calls[cid] = i
        elif kind in ("function_call_output", "custom_tool_call_output"):
            cid = it.get("call_id")
            if cid not in calls:
                add(Violation(i, "orphan_result", f"output for call_id {cid!r} has no call before it"))
            elif cid in answered:
                add(Violation(i, "duplicate_result", f"second output for call_id {cid!r}"))
            answered.add(cid) if isinstance(cid, str) else None
            output = it.get("output")
            if not isinstance(output, (str, list)):
                add(Violation(i, "bad_shape", "an output that is not a string or a list"))
            elif isinstance(output, list):
                _check_content(output, i, add)
        elif kind == "message":
            role = it.get("role")
            if role not in ("user", "assistant", "system", "developer"):
                add(Violation(i, "bad_role", f"role {role!r}"))
            content = it.get("content")
            if content is None or content == [] or (isinstance(content, str) and not content and role == "assistant"):
                add(Violation(i, "empty_content", f"a {role} message without content"))
            elif isinstance(content, list):
                _check_content(content, i, add)
                if role != "user" and any(isinstance(p, dict) and p.get("type") == "input_image" for p in content):
                    add(Violation(i, "misplaced_content", f"an image in a {role} message"))
    for cid, i in calls.items():
        if cid not in answered:
            add(Violation(i, "unanswered_call", f"call_id {cid!r} has no output"))
    out.sort(key=lambda v: v.index)
    return out


def _check_content(parts: list[Any], i: int, add: Any) -> None:
    for p in parts:
        if not isinstance(p, dict):
            add(Violation(i, "bad_shape", "a content part is not an object"))
        elif p.get("type") == "input_image" and "file_id" not in p and not _media_ok(p.get("image_url")):
            add(Violation(i, "media_type", "an image without a file id or a data URL with an image media type"))
