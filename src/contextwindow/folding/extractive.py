"""The extractive brief: a fold summary with no model. Deterministic, bounded, always valid.

Sections: the goal (the user's first request, in their words — harness blocks such as Codex's
``<environment_context>`` or Claude Code's ``<system-reminder>`` go to a short Environment
section instead), the memory ledger verbatim, the latest user request, the tool calls made with
their key results, errors (a result flagged ``is_error`` or a non-zero exit code — never the word
"error" in a successful output), the files touched and open items.

A cumulative fold re-writes ONE brief: the prior brief's sections are read back and merged
(its goal stays the goal, its done-list goes before the new one, files and errors are unioned),
never nested under an "Earlier summary" heading, so the brief's size stays bounded fold after
fold. When the brief is over budget the oldest tool-call lines go first; the memory never does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..messages import Message, TextPart, ToolCallPart, ToolResultPart
from .base import SummaryOutcome, SummaryRequest, constraints_block, ensure_constraints
from .clauses import block_label, split_environment
from .constraints import user_words as said_by_user
from .entries import MAX_CLAUSE_CHARS, MAX_READ_WINDOWS
from .ledger import goal_in_force, unasserted_clauses, unread_chars

CountText = Callable[[str], int]

_PATH_KEYS = ("file_path", "path", "filepath", "filename", "file", "notebook_path", "target_file")
_PATH_RE = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b")
_EXIT_RE = re.compile(
    r"(?:exit(?:ed)?(?:\s+with)?(?:\s+(?:code|status))?|exit_code|exitcode|returncode|return code|process exited with code)[\s\"':=]*(-?\d+)",
    re.IGNORECASE,
)
_ERROR_LINE = re.compile(r"\b(error|exception|traceback|failed|failure|fatal|panic)\b", re.IGNORECASE)
_OPEN_RE = re.compile(r"(\bTODO\b|\bnext step|\bremaining\b|\bstill need|- \[ \])", re.IGNORECASE)
_SECTION = re.compile(r"^## (?P<name>[^\n]+)\n(?P<body>.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
MAX_DONE_LINES = 400
MAX_ERRORS = 10
MAX_FILES = 40


# every line boundary of str.splitlines (each one is whitespace to str.strip and to \s)
_LINE_END = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_NON_SPACE = re.compile(r"\S")


def _first_line(text: str, limit: int = 160) -> str:
    """The first line with a non-space character, stripped (the first non-empty ``line.strip()``
    of ``text.splitlines()``), found without splitting the whole text: everything before its
    first non-space character is space, line boundaries included."""
    m = _NON_SPACE.search(text)
    if m is None:
        return ""
    end = _LINE_END.search(text, m.start())
    s = text[m.start() : end.start() if end else len(text)].rstrip()
    return s[:limit] + ("…" if len(s) > limit else "")


# _OPEN_RE, case-sensitive, for lowercased text (as _EXIT_LOWER: exact where the text holds none
# of _FOLDS_TO_PATTERN, the non-ASCII letters IGNORECASE folds onto the pattern's letters)
_OPEN_LOWER = re.compile(_OPEN_RE.pattern.lower())


def _open_lines(text: str) -> list[str]:
    """The lines of ``text`` that name an open item (``_OPEN_RE``, case-insensitive), stripped.
    The pattern holds no line boundary and its ``\\b`` sees one as a non-word character, so a
    text with no match has no such line; lowercasing keeps every position and line boundary."""
    if not text.isascii() and any(c in text for c in _FOLDS_TO_PATTERN):
        return [ln.strip() for ln in text.splitlines() if _OPEN_RE.search(ln)]
    low = text.lower()
    if not _has_open_word(low):
        return []
    return [ln.strip() for ln, lw in zip(text.splitlines(), low.splitlines(), strict=True) if _has_open_word(lw) and _OPEN_LOWER.search(lw)]


def _has_open_word(low: str) -> bool:
    """Whether lowercased text holds one of _OPEN_RE's words at all (each alternative needs one;
    a substring test is many times faster than the pattern's scan, which tries every position)."""
    return "todo" in low or "next step" in low or "remaining" in low or "still need" in low or "- [ ]" in low


# The same pattern, case-sensitive, for lowercased text: ~7x faster than IGNORECASE on a tool
# output (sre tries every alternative case-folded at every position). Exact where lowercasing is
# what IGNORECASE does for this pattern's letters: everywhere except the non-ASCII letters it
# folds to them (dotless i, dotted capital I, long s; tests/test_exit_code.py derives this set).
_EXIT_LOWER = re.compile(_EXIT_RE.pattern)
_FOLDS_TO_PATTERN = ("\u0130", "\u0131", "\u017f")
_HEAD, _TAIL = 4000, 2000  # where an exit code is looked for: the output's start and its end


def _exit_match(window: str) -> re.Match[str] | None:
    if not window.isascii() and any(c in window for c in _FOLDS_TO_PATTERN):
        return _EXIT_RE.search(window)
    low = window.lower()  # same length and positions: only İ lowercases to two characters
    if "exit" not in low and "return" not in low:  # every alternative holds one of the two
        return None
    return _EXIT_LOWER.search(low)


@lru_cache(maxsize=1024)
def exit_code(text: str) -> int | None:
    """The exit code a tool output reports (``Exit code: 1``, ``"exit_code": 2``, ``exited with 127``).
    Pure, and remembered: a brief asks it of each result more than once, and every fold again.
    Looked for in the first 4,000 and the last 2,000 characters, case-insensitively."""
    m = _exit_match(text[:_HEAD]) or _exit_match(text[-_TAIL:])
    return int(m.group(1)) if m else None


def failed(result: ToolResultPart) -> bool:
    """A failed call: flagged ``is_error`` or a non-zero exit code (printing "error" is not failing)."""
    if result.is_error:
        return True
    code = exit_code(result.text)
    return code is not None and code != 0


def _key_result(result: ToolResultPart) -> str:
    text = result.text
    if failed(result):
        err = next((ln.strip() for ln in text.splitlines() if _ERROR_LINE.search(ln)), None)
        code = exit_code(text)
        where = f"exit {code}: " if code not in (None, 0) else ""
        return "ERROR: " + where + (err or _first_line(text))[:200]
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


def user_requests(messages: Sequence[Message]) -> tuple[list[str], list[str]]:
    """(what the person wrote in each user message, the harness blocks found), in order."""
    own: list[str] = []
    env: list[str] = []
    for m in messages:
        if m.role != "user" or m.is_tool_result or m.meta.get("cw"):
            continue
        for p in m.parts:
            if isinstance(p, TextPart) and p.text.strip():
                text, blocks = split_environment(p.text)
                env += blocks
                if text:
                    own.append(text)
    return own, env


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit * 2 // 3] + "\n[…]\n" + text[-limit // 3 :]


def sections(summary: str) -> dict[str, str]:
    """A brief's ``## `` sections by name (lower case, first words), bodies stripped."""
    out: dict[str, str] = {}
    for m in _SECTION.finditer(summary):
        name = m.group("name").strip().lower()
        key = next((k for k in ("goal", "environment", "memory", "constraints", "latest user request", "state & done", "progress",
                               "errors", "files touched", "next steps", "remaining", "focus", "earlier", "user messages") if name.startswith(k)), name)
        out[key] = (out.get(key, "") + "\n" + m.group("body").strip()).strip()
    return out


def _no_headings(text: str) -> str:
    """User text inside a section: its own markdown headings escaped, so the next fold reads the
    brief's sections back intact."""
    return re.sub(r"^(#+)(?=\s)", lambda m: "\\" + m.group(1), text, flags=re.MULTILINE)


USER_SHARE = 0.4  # of the brief's budget for the user's own earlier messages
SHRINK_STEPS = 14  # at most this many shrinks of a brief's limits


@dataclass(frozen=True, slots=True)
class Limits:
    """What a brief's parts may hold: the goal and the latest request (characters), the user's earlier messages
    (tokens), a prior brief's other notes (characters) and the tool-call lines (a count)."""

    goal: int = 4000
    user: int = 0
    notes: int = 0
    calls: int = 0

    def shrunk(self) -> Limits:
        """One step smaller: each part by a third (the goal not under 300 characters; the user's messages and the
        notes to nothing once small), the tool-call lines by half."""
        return Limits(
            goal=max(300, self.goal * 2 // 3),
            user=self.user * 2 // 3 if self.user > 60 else 0,
            notes=self.notes * 2 // 3 if self.notes > 300 else 0,
            calls=self.calls // 2,
        )


def fit(render: Callable[[Limits], str], count: CountText, budget: int, start: Limits) -> tuple[Limits, str]:
    """The limits from ``start`` shrunk until ``render`` of them fits ``budget`` tokens (or
    :data:`SHRINK_STEPS` shrinks are done), and that rendering: the extractive brief's and the
    harness's part of a model's brief (anchor.py) are fitted alike."""
    limits = start
    text = render(limits)
    for _ in range(SHRINK_STEPS):
        if count(text) <= budget:
            break
        limits = limits.shrunk()
        text = render(limits)
    return limits, text


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " / ", text.strip())


@lru_cache(maxsize=2048)
def condensed_line(line: str) -> str:
    """A user message reduced to its clauses that state an entry or carry a value (pure; remembered:
    a brief renders several times at shrinking limits and every fold meets the same earlier lines)."""
    from .clauses import find_values, sentences
    from .ledger import parse

    body = line[2:].removeprefix("(condensed) ")
    keep = [c for c in sentences(body.replace(" / ", "\n")) if parse(c) is not None or find_values(c)]
    return f"- (condensed) {' '.join(keep)}" if keep else ""


def _user_section(said: Sequence[str], limit: int, count: CountText) -> str:
    """The user's earlier messages: verbatim newest first while they fit ``limit`` tokens, then
    condensed (values kept), then counted as left out."""
    if not said or limit <= 0:
        return f"## User messages\n[{len(said)} earlier user messages left out of this brief; the store keeps them]" if said else ""
    kept: list[str] = []
    used, dropped = 0, 0
    for line in reversed(said):
        n = count(line)
        if used + n > limit:  # condensed only when the verbatim line does not fit
            line = condensed_line(line)
            n = count(line) if line else 0
        if line and used + n <= limit:
            kept.append(line)
            used += n
        else:
            dropped += 1
    body = "\n".join(reversed(kept))
    if dropped:
        body = f"[{dropped} older user messages left out of this brief; the store keeps them]\n" + body
    return "## User messages (verbatim, older ones condensed)\n" + body


def _lines(body: str) -> list[str]:
    return [ln for ln in body.splitlines() if ln.strip().startswith("- ")]


def unread_note(messages: Sequence[Message]) -> str:
    """A line saying how many characters of the user's words in ``messages`` the memory ledger did not read (a run-on
    clause's rest, ledger.unread_chars) and one saying how many of their clauses it read as stating nothing
    (ledger.unasserted_clauses), or "" when it read them all: the miss is said, not silent."""
    said = [t for m in messages if (t := said_by_user(m))]
    n = sum(unread_chars(t) for t in said)
    k = sum(unasserted_clauses(t) for t in said)  # clauses that only suppose, or report a rule disowned (unasserted.py)
    notes = [f"[{n:,} characters of user text were not read for the memory: run-on clauses past their first "
             f"{MAX_READ_WINDOWS * MAX_CLAUSE_CHARS:,} characters; the messages themselves are in the store]"] if n else []
    if k:
        notes.append(f"[{k:,} clauses of user text were read as stating nothing for the memory (supposed, or a rule reported "
                     "and disowned); the messages themselves are in the store]")
    return "\n".join(notes)


def user_words(request: SummaryRequest, users: Sequence[str], prior: dict[str, str]) -> tuple[str, str, list[str]]:
    """(goal, latest request, earlier messages as "- " lines) in the user's own words, as a brief
    carries them: the goal in force from the ledger, else the prior brief's goal, else the first
    request; the prior brief's user lines and this part's messages, less the goal, the latest and
    any message the memory block carries whole (the brief would hold it twice). ``users``: what
    :func:`user_requests` found in ``request.messages``; ``prior``: the prior brief's sections."""
    goal = goal_in_force(request.ledger) or prior.get("goal") or (users[0] if users else "(no user request in this part)")
    latest = users[-1] if users else prior.get("latest user request", "")
    earlier_latest = prior.get("latest user request", "")
    carried = {_one_line(c) for c in request.constraints}
    said = [
        ln
        for ln in _lines(prior.get("user messages", "")) + [f"- {_one_line(u)}" for u in [earlier_latest, *users] if u and u not in (goal, latest)]
        if ln[2:] not in carried
    ]
    return goal, latest, said


def brief(request: SummaryRequest, count: CountText) -> str:
    msgs = request.messages
    users, env = user_requests(msgs)
    prior = sections(request.prior_summary) if request.prior_summary else {}
    calls: list[str] = _lines(prior.get("state & done", "") or prior.get("progress", ""))
    results: dict[str, ToolResultPart] = {r.call_id: r for m in msgs for r in m.tool_results}
    errors: list[str] = _lines(prior.get("errors", ""))
    for m in msgs:
        for c in m.tool_calls:
            r = results.get(c.id)
            line = f"- {_call_summary(c)} → {_key_result(r) if r else 'no result recorded'}"
            calls.append(line)
            if r is not None and failed(r):
                errors.append(line)
    calls = calls[-MAX_DONE_LINES:]
    errors = errors[-MAX_ERRORS:]
    open_items = [ln for m in msgs if m.role == "assistant" for p in m.parts if isinstance(p, TextPart) for ln in _open_lines(p.text)][-10:]
    files = list(dict.fromkeys([ln[2:].strip() for ln in _lines(prior.get("files touched", ""))] + files_touched(msgs)))[-MAX_FILES:]
    env_lines = list(dict.fromkeys([*(ln for ln in prior.get("environment", "").splitlines() if ln.strip()), *(f"- {block_label(b)}" for b in env)]))[-8:]
    goal, latest, said = user_words(request, users, prior)
    unread = unread_note(msgs)
    # what a model-written prior brief said outside the known sections: kept once, clipped
    known = {"goal", "environment", "memory", "constraints", "latest user request", "state & done", "progress", "errors", "files touched", "focus",
             "user messages"}
    notes = "\n".join(f"{k}: {v}" if k != "earlier" else v for k, v in prior.items() if k not in known and v)

    def render(limits: Limits) -> str:
        n_calls, goal_limit, notes_limit, user_limit = limits.calls, limits.goal, limits.notes, limits.user
        out = ["## Goal\n" + _clip(_no_headings(goal), goal_limit)]
        if env_lines:
            out.append("## Environment (harness/system blocks, not user requests)\n" + "\n".join(env_lines))
        if request.constraints:
            out.append(constraints_block(request.constraints))
        if latest and latest != goal:
            out.append("## Latest user request\n" + _clip(_no_headings(latest), goal_limit))
        said_text = _user_section(said, user_limit, count)
        if said_text:
            out.append(said_text)
        if unread:
            out.append(unread)
        if calls and n_calls:
            shown = calls[-n_calls:]
            more = len(calls) - len(shown)
            head = f"## State & done ({len(calls)} tool calls" + (f"; the {more} oldest not listed" if more else "") + ")"
            out.append(head + "\n" + "\n".join(shown))
        if errors:
            out.append("## Errors seen\n" + "\n".join(errors))
        if files:
            out.append("## Files touched\n" + "\n".join(f"- {f}" for f in files))
        if open_items or prior.get("next steps") or prior.get("remaining"):
            items = open_items or _lines(prior.get("next steps", "") or prior.get("remaining", ""))
            out.append("## Next steps / open items\n" + "\n".join(x if x.startswith("- ") else f"- {x}" for x in items[-10:]))
        if notes and notes_limit:
            out.append("## Earlier notes\n" + _clip(notes, notes_limit))
        if request.instructions:
            out.append("## Focus requested\n" + request.instructions.strip())
        return "\n\n".join(out)

    start = Limits(goal=4000, user=int(request.budget_tokens * USER_SHARE), notes=3000, calls=len(calls))
    text = fit(render, count, request.budget_tokens, start)[1]
    return ensure_constraints(text, request.constraints, request.superseded, request.ledger)


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
