"""Gemini generateContent request rules. Pure.

As the API documents and enforces them:

- ``contents`` is not empty; roles are ``user`` and ``model``, they alternate, the first is the
  user's (a function-call turn comes right after a user turn);
- every content has at least one part and no part is an empty text;
- a model turn with ``functionCall`` parts is followed by a user turn with exactly as many
  ``functionResponse`` parts, with the same names ("the number of function response parts is
  equal to the number of function call parts of the function call turn"); a function response
  answers the model turn right before it;
- a ``functionResponse.response`` is a JSON object;
- ``inlineData`` has a ``mimeType`` and ``data``.

Repairs: empty and whitespace-only text parts are left out (a content left empty goes, same-role
neighbours merge), function responses move before other parts of their turn, a response that
is not an object is wrapped as ``{"output": value}``, and a user note goes first when the
list would start with the model.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .rules import Fix, Violation, alternating, blank

__all__ = ["check", "repair"]

HEAD_NOTE = "[The conversation continues from earlier context.]"


def _blank_part(p: Any) -> bool:
    return isinstance(p, dict) and set(p) <= {"text", "thought"} and "text" in p and blank(p["text"]) and not p.get("thought")


def repair(fmt: str, payload: dict[str, Any]) -> tuple[dict[str, Any], list[Fix]]:
    fixes: list[Fix] = []
    contents = payload.get("contents")
    if not isinstance(contents, list):
        return payload, fixes
    out: list[Any] = []
    for i, c in enumerate(contents):
        if not isinstance(c, dict) or not isinstance(c.get("parts"), list):
            out.append(c)
            continue
        parts = []
        for p in c["parts"]:
            if _blank_part(p):
                continue
            fr = p.get("functionResponse") if isinstance(p, dict) else None
            if isinstance(fr, dict) and not isinstance(fr.get("response"), dict):
                p = {**p, "functionResponse": {**fr, "response": {"output": fr.get("response")}}}
                fixes.append(Fix(i, "bad_shape", "a function response that was not an object wrapped as {'output': ...}"))
            parts.append(p)
        if len(parts) != len(c["parts"]):
            fixes.append(Fix(i, "blank_text", f"{len(c['parts']) - len(parts)} blank text part(s) left out"))
        if not parts:
            continue
        c = {**c, "parts": parts}
        if out and isinstance(out[-1], dict) and out[-1].get("role") == c.get("role"):
            out[-1] = {**out[-1], "parts": out[-1]["parts"] + parts}
            fixes.append(Fix(i, "not_alternating", "merged into the content before it"))
        else:
            out.append(c)
    for i, c in enumerate(out):
        if isinstance(c, dict) and c.get("role") == "user" and isinstance(c.get("parts"), list):
            ps = c["parts"]
            frs = [p for p in ps if isinstance(p, dict) and "functionResponse" in p]
            if frs and ps[: len(frs)] != frs:
                c["parts"] = frs + [p for p in ps if not (isinstance(p, dict) and "functionResponse" in p)]
                fixes.append(Fix(i, "results_not_first", "function responses moved before the other parts"))
    if out and isinstance(out[0], dict) and out[0].get("role") == "model":
        out.insert(0, {"role": "user", "parts": [{"text": HEAD_NOTE}]})
        fixes.append(Fix(0, "first_not_user", "a user note put first"))
    payload["contents"] = out
    return payload, fixes


def check(fmt: str, payload: Any) -> list[Violation]:
    out: list[Violation] = []
    add = out.append
    contents = payload.get("contents") if isinstance(payload, dict) else None
    if not isinstance(contents, list):
        return [Violation(-1, "bad_shape", "'contents' is not a list")]
    if not contents:
        return [Violation(-1, "empty_payload", "no contents")]
    open_calls: Counter[str] = Counter()
    for i, c, role in alternating(contents, ("user", "model"), "content", add):
        parts = c.get("parts")
        if not isinstance(parts, list) or not parts:
            add(Violation(i, "empty_content", "a content with no parts"))
            parts = []
        responses: Counter[str] = Counter()
        calls: Counter[str] = Counter()
        for p in parts:
            if not isinstance(p, dict):
                add(Violation(i, "bad_shape", "a part is not an object"))
                continue
            if _blank_part(p):
                add(Violation(i, "blank_text", "an empty text part"))
            if "functionCall" in p:
                if role != "model":
                    add(Violation(i, "misplaced_content", "a function call in a user turn"))
                fc = p["functionCall"]
                calls[str(fc.get("name")) if isinstance(fc, dict) else ""] += 1
            if "functionResponse" in p:
                fr = p["functionResponse"]
                if role != "user":
                    add(Violation(i, "misplaced_content", "a function response in a model turn"))
                if not isinstance(fr, dict) or not isinstance(fr.get("response"), dict):
                    add(Violation(i, "bad_shape", "functionResponse.response is not an object"))
                responses[str(fr.get("name")) if isinstance(fr, dict) else ""] += 1
            if "inlineData" in p:
                blob = p["inlineData"]
                if not isinstance(blob, dict) or not blob.get("mimeType") or not isinstance(blob.get("data"), str):
                    add(Violation(i, "media_type", "inlineData without mimeType or data"))
        if role == "user":
            if open_calls and responses != open_calls:
                add(Violation(i, "unanswered_call", f"{sum(open_calls.values())} function call(s) {dict(open_calls)} answered by {dict(responses)}"))
            elif responses and not open_calls:
                add(Violation(i, "orphan_result", "function responses after a turn that made no function call"))
            open_calls = Counter()
        else:
            if open_calls:
                add(Violation(i - 1, "unanswered_call", "function calls not answered before the next model turn"))
            open_calls = calls
    if open_calls:
        add(Violation(len(contents) - 1, "unanswered_call", "function calls of the last turn not answered"))
    return out
