"""The extractive brief: a fold summary with no model. Deterministic, bounded, always valid.

Sections: the goal (first user message), constraints & preferences verbatim, the latest user
request, the tool calls made with their key results (paths, ids, numbers, errors), the files
touched, open items, and the earlier summary (cumulative folds). When the brief is over budget the
oldest tool-call lines go first; constraints never do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..messages import Message, TextPart, ToolCallPart, ToolResultPart
from .base import SummaryOutcome, SummaryRequest, constraints_block, ensure_constraints

CountText = Callable[[str], int]

_PATH_KEYS = ("file_path", "path", "filepath", "filename", "file", "notebook_path", "target_file")
_PATH_RE = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b")
_ERROR_RE = re.compile(r"\b(error|exception|traceback|failed|failure|fatal|panic)\b", re.IGNORECASE)
_OPEN_RE = re.compile(r"(\bTODO\b|\bnext step|\bremaining\b|\bstill need|- \[ \])", re.IGNORECASE)
_SECTION_RE = re.compile(r"^## Constraints & preferences.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)


def _first_line(text: str, limit: int = 160) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s[:limit] + ("…" if len(s) > limit else "")
    return ""


def _key_result(result: ToolResultPart) -> str:
    text = result.text
    err = next((ln.strip() for ln in text.splitlines() if _ERROR_RE.search(ln)), None)
    if result.is_error or err:
        return "ERROR: " + (err or _first_line(text))[:200]
    n = text.count("\n") + 1 if text else 0
    first = _first_line(text, 120)
    return f"{n} lines: {first}" if first else "(empty)"


def _call_summary(call: ToolCallPart) -> str:
    args = call.parsed_arguments()
    if isinstance(args, dict):
        shown = []
        for k, v in list(args.items())[:3]:
            s = v if isinstance(v, str) else repr(v)
            shown.append(f"{k}={s[:80]}")
        return f"{call.name}({', '.join(shown)})"
    return f"{call.name}({str(args)[:80]})"


def call_path(call: ToolCallPart) -> str | None:
    """The file a tool call works on, from its arguments (``path``, ``file_path``, ...)."""
    args = call.parsed_arguments()
    if not isinstance(args, dict):
        return None
    for k in _PATH_KEYS:
        v = args.get(k)
        if isinstance(v, str) and v and len(v) < 300:
            return v
    return None


def files_touched(messages: Sequence[Message]) -> list[str]:
    seen: dict[str, None] = {}
    for m in messages:
        for c in m.tool_calls:
            path = call_path(c)
            if path:
                seen.setdefault(path, None)
    return list(seen)


def _user_texts(messages: Sequence[Message]) -> list[str]:
    return [p.text for m in messages if m.role == "user" for p in m.parts if isinstance(p, TextPart) and p.text.strip()]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit * 2 // 3] + "\n[…]\n" + text[-limit // 3 :]


def brief(request: SummaryRequest, count: CountText) -> str:
    msgs = request.messages
    users = _user_texts(msgs)
    calls: list[str] = []
    results: dict[str, ToolResultPart] = {r.call_id: r for m in msgs for r in m.tool_results}
    for m in msgs:
        for c in m.tool_calls:
            r = results.get(c.id)
            calls.append(f"- {_call_summary(c)} → {_key_result(r) if r else 'no result recorded'}")
    open_items = [
        ln.strip()
        for m in msgs
        if m.role == "assistant"
        for p in m.parts
        if isinstance(p, TextPart)
        for ln in p.text.splitlines()
        if _OPEN_RE.search(ln)
    ][-10:]
    errors = [c for c in calls if "→ ERROR" in c][-10:]
    files = files_touched(msgs)

    def render(n_calls: int, goal_limit: int, prior_limit: int) -> str:
        out: list[str] = []
        if request.prior_summary:
            prior = _SECTION_RE.sub("", request.prior_summary).strip()
            out.append("## Earlier summary\n" + _clip(prior, prior_limit))
        goal = users[0] if users else "(no user message in this part)"
        out.append("## Goal\n" + _clip(goal, goal_limit))
        if request.constraints:
            out.append(constraints_block(request.constraints))
        if len(users) > 1:
            out.append("## Latest user request\n" + _clip(users[-1], goal_limit))
        if calls and n_calls:
            shown = calls[-n_calls:]
            more = len(calls) - len(shown)
            head = f"## State & done ({len(calls)} tool calls" + (f"; the {more} oldest not listed" if more else "") + ")"
            out.append(head + "\n" + "\n".join(shown))
        if errors:
            out.append("## Errors seen\n" + "\n".join(errors))
        if files:
            out.append("## Files touched\n" + "\n".join(f"- {f}" for f in files[-40:]))
        if open_items:
            out.append("## Next steps / open items\n" + "\n".join(f"- {x}" for x in open_items))
        if request.instructions:
            out.append("## Focus requested\n" + request.instructions.strip())
        return "\n\n".join(out)

    n_calls, goal_limit, prior_limit = len(calls), 4000, 6000
    text = render(n_calls, goal_limit, prior_limit)
    for _ in range(12):
        if count(text) <= request.budget_tokens:
            break
        n_calls //= 2
        goal_limit = max(300, goal_limit * 2 // 3)
        prior_limit = max(300, prior_limit * 2 // 3)
        text = render(n_calls, goal_limit, prior_limit)
    return ensure_constraints(text, request.constraints, request.superseded)


class ExtractiveSummarizer:
    """A :class:`~contextwindow.folding.base.Summarizer` that needs no model."""

    name = "extractive"

    def __init__(self, count: CountText | None = None) -> None:
        self._count = count or _default_count()

    def summarize(self, request: SummaryRequest) -> SummaryOutcome:
        return SummaryOutcome(text=brief(request, self._count), method="extractive")


def _default_count() -> CountText:
    from ..tokens import counter_for

    return counter_for(None).count_text
