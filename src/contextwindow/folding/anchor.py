"""A model's brief with the user's own words put in by the harness, not left to the model.

A model summarizer writes a plausible brief, and nothing holds it to the user's request: a lossy
one names as the goal whatever user line it met first, and keeps only the user lines it likes. The
memory block (the ledger's entries, ``base.ensure_constraints``) was already the harness's; so now
is everything else the user said that the extractive brief carries, by the same rules
(``extractive.user_words``):

- ``## Goal`` — the user's request in their words: the goal in force from the ledger once restated,
  else the prior brief's goal (ours, since the first fold), else the first request with harness
  blocks removed. What the model wrote under its own Goal heading is kept, under
  ``## The summarizer's reading of the goal``, only when it says something those words and the
  user lines below do not (a real model may have seen a change of plan the ledger did not read);
- the model's other sections, as it wrote them, scrubbed of superseded values;
- ``## Latest user request`` and ``## User messages`` (verbatim, newest first, then condensed, then
  counted as left out: ``extractive._user_section``, at most 40% of the brief's budget);
- the memory block, last.

The brief's budget is spent in the order of sacrifice of docs/memory.md: the model's text goes
first (its longest head that fits is kept, cut at a line, with a note), then the user's older
messages are condensed and left out, and the goal is clipped; the memory block is never cut here
(the ladder, ``compaction/degrade.py``, condenses it when even that does not fit).
:func:`model_budget` is what the model is asked to write in: the budget less the harness's part.
Pure: text in, text out, counted with the caller's counter.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .base import SummaryRequest, constraints_block, ensure_constraints, scrub_stale
from .extractive import (
    _SECTION,
    USER_SHARE,
    Limits,
    _clip,
    _no_headings,
    _user_section,
    fit,
    sections,
    unread_note,
    user_requests,
    user_words,
)

CountText = Callable[[str], int]

GOAL_READING = "## The summarizer's reading of the goal"
CUT_NOTE = "[the summarizer's brief was cut here to fit beside the user's own words]"
#: what the model is asked to write in at least, however much of the budget the user's words take
MIN_MODEL_BUDGET = 200
_HEADING = re.compile(r"^#{1,3}[ \t]", re.MULTILINE)
# a Goal/Task/Objective heading: the whole heading line, so "## Tasks completed" is not the goal
_GOAL_HEADING = re.compile(
    r"^#{1,3}[ \t]*(?:\*\*)?[ \t]*(?:(?:the[ \t]+)?(?:main|overall|primary|user'?s?)[ \t]+)?(?:goal|task|objective)s?"
    r"[ \t]*(?:\([^)\n]*\))?[ \t]*:?[ \t]*(?:\*\*)?[ \t]*:?[ \t]*(?:\n|\Z)",
    re.IGNORECASE | re.MULTILINE,
)
#: the sections the harness writes (besides the goal): a model's copy of them is dropped, not kept
_OWNED_HEADING = re.compile(r"^#{1,3}[ \t]*(?:\*\*)?[ \t]*(?:latest user request|user messages|memory: the user's)[^\n]*(?:\n|\Z)", re.IGNORECASE | re.MULTILINE)
#: the keys of ``extractive.sections`` the harness reads back from the prior brief (first section only)
_OWNED_KEYS = ("goal", "latest user request", "user messages", "memory")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w$%./:-]+", " ", text.lower()).split())


def split_goal(text: str) -> tuple[str, str]:
    """(the model's text without its Goal/Task sections, what those sections said)."""
    return _split(text, _GOAL_HEADING)


def drop_owned(text: str) -> str:
    """The model's text without the sections the harness writes (the latest request, the user's
    messages, the memory block): a model that re-writes the earlier brief copies them, and the
    next fold would read them twice."""
    return _split(text, _OWNED_HEADING)[0]


def prior_sections(summary: str) -> dict[str, str]:
    """The prior brief's sections, the harness's own (goal, latest request, user messages, memory)
    read from their FIRST section only: a copy further down (a model's, before this was mended)
    is not joined to it."""
    out = sections(summary)
    first: dict[str, str] = {}
    for m in _SECTION.finditer(summary):
        key = next((k for k in _OWNED_KEYS if m.group("name").strip().lower().startswith(k)), None)
        if key is not None and key not in first:
            first[key] = m.group("body").strip()
    out.update(first)
    return out


def _split(text: str, heading: re.Pattern[str]) -> tuple[str, str]:
    goals: list[str] = []
    out: list[str] = []
    at = 0
    for m in heading.finditer(text):
        if m.start() < at:
            continue
        nxt = _HEADING.search(text, m.end())
        end = nxt.start() if nxt else len(text)
        out.append(text[at : m.start()])
        goals.append(text[m.end() : end].strip())
        at = end
    out.append(text[at:])
    return "".join(out).strip(), "\n".join(g for g in goals if g)


class _Parts:
    """The harness's pieces of one brief, scrubbed once."""

    def __init__(self, request: SummaryRequest, count: CountText) -> None:
        users, _env = user_requests(request.messages)
        prior = prior_sections(request.prior_summary) if request.prior_summary else {}
        goal, latest, said = user_words(request, users, prior)
        self.request = request
        self.count = count
        self.goal = self._scrub(goal)
        self.latest = self._scrub(latest) if latest and latest != goal else ""
        self.said = [self._scrub(s) for s in said]
        self.block = constraints_block(request.constraints)
        self.unread = unread_note(request.messages)
        self._users: dict[int, str] = {}
        self._limits: tuple[int, int] | None = None

    def _scrub(self, text: str) -> str:
        r = self.request
        return scrub_stale(text, r.constraints, r.superseded, r.ledger)

    def render(self, model: str, user_limit: int, goal_limit: int) -> str:
        out = ["## Goal\n" + _clip(_no_headings(self.goal), goal_limit)]
        if model:
            out.append(model)
        if self.latest:
            out.append("## Latest user request\n" + _clip(_no_headings(self.latest), goal_limit))
        if user_limit not in self._users:  # the same section at every step of a search for the model's share
            self._users[user_limit] = _user_section(self.said, user_limit, self.count)
        users = self._users[user_limit]
        if users:
            out.append(users)
        if self.unread:
            out.append(self.unread)
        if self.block:
            out.append(self.block)
        return "\n\n".join(out)

    def limits(self) -> tuple[int, int]:
        """(user_limit, goal_limit): the extractive brief's, shrunk until the harness's part alone
        fits the budget (or they reach their floors); computed once."""
        if self._limits is None:
            budget = self.request.budget_tokens
            got, _ = fit(lambda lim: self.render("", lim.user, lim.goal), self.count, budget, Limits(user=int(budget * USER_SHARE)))
            self._limits = (got.user, got.goal)
        return self._limits


def harness(request: SummaryRequest, count: CountText) -> _Parts:
    """The harness's part of ``request``'s brief, built once for :func:`model_budget` and
    :func:`anchored` of the same request."""
    return _Parts(request, count)


def model_room(request: SummaryRequest, count: CountText, parts: _Parts | None = None) -> int:
    """Tokens the brief's budget leaves beside what the harness carries (the user's words and the
    memory block): what the model's own text can take and still fit (may be under zero).
    ``parts``: :func:`harness` of the same request and counter, when the caller has it."""
    parts = parts or _Parts(request, count)
    return request.budget_tokens - count(parts.render("", *parts.limits()))


def model_budget(request: SummaryRequest, count: CountText, parts: _Parts | None = None) -> int:
    """Tokens the model's own text may take: :func:`model_room`, at least :data:`MIN_MODEL_BUDGET`
    (or the budget)."""
    return max(min(request.budget_tokens, MIN_MODEL_BUDGET), model_room(request, count, parts))


def model_left_out(request: SummaryRequest, count: CountText, parts: _Parts | None = None) -> str:
    """Why no model should be asked for ``request``'s brief: the harness's part leaves less than
    :data:`MIN_MODEL_BUDGET` tokens (or than a budget smaller than that) for the model's text, which
    would be cut away to fit beside the user's words; "" when the model has its room."""
    room = model_room(request, count, parts)
    floor = min(request.budget_tokens, MIN_MODEL_BUDGET)
    if room >= floor:
        return ""
    return (f"the user's words and the memory block leave {max(room, 0)} of the brief's {request.budget_tokens} tokens "
            f"for a model's text (under {floor}): no model call, the extractive brief")


def anchored(text: str, request: SummaryRequest, count: CountText, parts: _Parts | None = None) -> str:
    """The model's brief ``text`` with the user's own words and the memory block put in by the
    harness, within ``request.budget_tokens`` when the harness's part alone fits (module doc)."""
    parts = parts or _Parts(request, count)
    body = ensure_constraints(text, request.constraints, request.superseded, request.ledger, rebuild=True)
    if parts.block and body.endswith(parts.block):
        body = body[: -len(parts.block)].rstrip()
    body, said_goal = split_goal(drop_owned(body))
    if said_goal:
        ours = _norm("\n".join([parts.goal, parts.latest, *parts.said]))
        lines = [ln for ln in said_goal.splitlines() if ln.strip() and _norm(ln.lstrip("-* ")) not in ours]
        if lines:
            body = GOAL_READING + "\n" + _no_headings("\n".join(lines)) + ("\n\n" + body if body else "")
    user_limit, goal_limit = parts.limits()
    # a list line the model copied (whole or cut short) from what the harness carries is not said twice
    carried = _norm(parts.render("", user_limit, goal_limit))
    body = "\n".join(ln for ln in body.splitlines() if not _copied(ln, carried))
    budget = request.budget_tokens
    whole = parts.render(body, user_limit, goal_limit)
    if count(whole) <= budget or not body:
        return whole
    lo, hi = 0, len(body)
    while lo < hi:  # the longest head of the model's text that fits beside the user's words
        mid = (lo + hi + 1) // 2
        if count(parts.render(_head(body, mid), user_limit, goal_limit)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    out = parts.render(_head(body, lo), user_limit, goal_limit)
    return out if count(out) <= budget else parts.render("", user_limit, goal_limit)


def _copied(line: str, carried: str) -> bool:
    """A list line of the model's whose words (20 characters or more) the harness's part holds."""
    text = line.strip()
    if not text.startswith(("- ", "* ")):
        return False
    said = _norm(text[2:].rstrip("…").removesuffix("..."))
    return len(said) >= 20 and said in carried


def _head(body: str, chars: int) -> str:
    """The first ``chars`` characters of the model's text, ended at a line, with the cut said."""
    if chars >= len(body):
        return body
    head = body[:chars]
    head = head.rsplit("\n", 1)[0] if "\n" in head else ""
    return f"{head.rstrip()}\n{CUT_NOTE}" if head.strip() else CUT_NOTE
