"""How well the estimator follows the bill on an imported session: growth since the first call, and the
next call from the last report. Pure over an :class:`ImportedSession` and a counter choice.

A log holds neither the system prompt nor the tool definitions, a constant prefix of every call; so the
estimate is judged on *growth*: for the calls of one segment, ``ΔE = E_i − E_0`` (our count of what the
provider was sent) against ``ΔR = R_i − R_0`` (what it reported), error ``|ΔE − ΔR| / ΔR``. A segment
restarts (re-anchors) where the constant prefix changes: a model switch (a new system prompt and tools)
and a compaction the log records (the prompt is rebuilt). Calls whose reported growth is below
``min_growth`` tokens are left out of the growth errors (a relative error on a few hundred tokens says
nothing) and counted.

Per call, the way a session uses the estimate between two reports: ``R_{i−1} + (E_i − E_{i−1})`` against
``R_i``, as a share of the prompt ``R_i``.

Each step (from one call to the next in a segment) is also labelled by what the log shows about it, so
the remaining error can be said per cause (:data:`CAUSES`). A step whose reported change differs from the
estimated one by more than :data:`UNEXPLAINED_TOKENS` is one the log does not explain: :func:`unexplained`
lists them, with their label, and ``ctxw inspect`` shows that list (a named event per step, never silent).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..importers import ImportedSession
from ..importers.window import tokenizer_model
from ..messages import Message, TextPart, ToolCallPart, ToolResultPart
from ..tokens import TokenCounter, counter_for
from ..tokens.unlogged import unlogged_tokens
from .engine import provider_view

#: Labels of a step (first match wins), in the order :func:`step_cause` tests them.
CAUSES = (
    "web search (results not in the log)",
    "reported prompt fell (the client sent less than it logged)",
    "new user turn (client-injected content the log may not show)",
    "file listings (>= 20 paths under the log's cwd; a sanitized log shortens them)",
    "first read under a directory, grew > 500 beyond the log (a nested CLAUDE.md attached, not logged)",
    "tool results and replies",
)
MIN_GROWTH = 1_000
#: A step whose tool results hold at least this many lines naming a path under the session's working
#: directory is labelled a file listing: where a log's publisher replaced that directory by a shorter
#: placeholder (``/Users/user/repo``), the provider billed the longer original on every line.
LISTING_LINES = 20
#: A step whose reported change differs from the estimated change by more than this many tokens is one the
#: log does not explain (content the client added or removed without logging it). The same number decides
#: the two labels that depend on the size of the miss (a fall, a first read that grew beyond the log).
UNEXPLAINED_TOKENS = 500


@dataclass(frozen=True, slots=True)
class Point:
    """One call with usage: its segment, the reported prompt, our estimate, and what came before it."""

    segment: int
    model: str | None
    reported: int
    estimated: int
    cause: str  # what the step from the previous call of the segment holds (CAUSES); "" for a first call
    unlogged: int = 0  # of ``estimated``: estimates of content the log does not hold (tokens/unlogged.py)
    index: int = -1  # the call's message index in the session


@dataclass(frozen=True, slots=True)
class Unexplained:
    """A step the log does not explain: the reported prompt changed by ``reported_delta`` from the previous
    call of its segment, the estimate by ``estimated_delta``; ``cause`` is the step's label (CAUSES)."""

    index: int
    reported: int
    reported_delta: int
    estimated_delta: int
    cause: str

    @property
    def tokens(self) -> int:
        """Tokens the provider counted beyond the estimate (negative: fewer)."""
        return self.reported_delta - self.estimated_delta


@dataclass(frozen=True, slots=True)
class Accuracy:
    growth: list[float]  # |ΔE − ΔR| / ΔR per call with ΔR >= min_growth
    small_growth: int  # calls left out of ``growth`` (ΔR < min_growth)
    step: list[float]  # |R_{i-1} + E_i − E_{i-1} − R_i| / R_i per call after a segment's first
    step_abs: dict[str, int]  # Σ |step error| in tokens per cause
    segments: int
    calls: int


def step_cause(
    session: ImportedSession,
    prev: tuple[int, int],
    call: tuple[int, int],
    reported_delta: int,
    estimated_delta: int,
    read_dirs: set[str] | None = None,
) -> str:
    """What a step shows: ``prev`` and ``call`` are the two calls' ``(index, reply_end)``. A server-side
    web search in either reply counts: its results enter the prompt of the response that ran it.
    ``read_dirs``: the directories under the log's cwd that earlier steps read files in (updated here);
    a step that reads in a new one and whose reported prompt grew more than 500 tokens beyond the
    estimated change is labelled: Claude Code attaches that directory's CLAUDE.md, if it has one, without
    logging it (its documented nested-memory behaviour)."""
    msgs = session.messages
    prev_index, prev_end = prev
    index, end = call
    if any(isinstance(p, ToolCallPart) and p.name == "web_search" for m in msgs[prev_index:end] for p in m.parts):
        return CAUSES[0]
    if reported_delta < 0 and reported_delta < estimated_delta - UNEXPLAINED_TOKENS:
        return CAUSES[1]
    if any(m.role == "user" for m in msgs[prev_end:index]):
        return CAUSES[2]
    cwd = session.meta.get("cwd")
    if isinstance(cwd, str) and cwd.count("/") >= 2 and _path_lines(msgs[prev_end:index], cwd.rstrip("/") + "/") >= LISTING_LINES:
        return CAUSES[3]
    if (
        isinstance(cwd, str)
        and read_dirs is not None
        and _reads_new_dir(msgs[prev_index:prev_end], cwd.rstrip("/") + "/", read_dirs)
        and reported_delta > estimated_delta + UNEXPLAINED_TOKENS
    ):
        return CAUSES[4]
    return CAUSES[5]


def _reads_new_dir(replies: Sequence[Message], prefix: str, seen: set[str]) -> bool:
    """Whether a Read in ``replies`` opens a file under a directory below ``prefix`` (the cwd) that no
    earlier Read did; every directory on the way is added to ``seen``."""
    new = False
    for m in replies:
        for p in m.parts:
            if not isinstance(p, ToolCallPart) or p.name != "Read":
                continue
            args = p.parsed_arguments()
            path = args.get("file_path") if isinstance(args, dict) else None
            if not isinstance(path, str) or not path.startswith(prefix):
                continue
            parts = path[len(prefix) :].split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                d = "/".join(parts[:depth])
                if d not in seen:
                    seen.add(d)
                    new = True
    return new


def _path_lines(messages: Sequence[Message], prefix: str) -> int:
    n = 0
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolResultPart):
                for c in p.content:
                    if isinstance(c, TextPart):
                        n += sum(1 for line in c.text.splitlines() if line.lstrip().startswith(prefix))
    return n


def points(session: ImportedSession, counter: Callable[[str | None], TokenCounter] | None = None) -> list[Point]:
    """The calls of ``session`` that carry usage, with their segment and our estimate of their prompt.
    ``counter(model)`` picks the counter (default: :func:`counter_for` of the call's model, else the
    session's tokenizer model)."""
    pick = counter or counter_for
    out: list[Point] = []
    segment = -1
    key: tuple[str | None, int] | None = None
    prev_call = (0, 0)
    prev: Point | None = None
    read_dirs: set[str] = set()
    for c in session.calls:
        if c.reported_input_tokens is None:
            continue
        model = c.model or tokenizer_model(session)
        folded = sum(1 for cp in session.checkpoints if cp.upto <= c.index)
        # A server-side tool the reply ran (a Codex web search) put its results into this call's own
        # billed input: the estimate of those unlogged results counts here, not only from the next call.
        view = provider_view(session, c)
        own = sum(unlogged_tokens(m) for m in session.messages[c.index : c.reply_end])
        est = pick(model).count_messages(view) + own
        unlogged = own + sum(unlogged_tokens(m) for m in view)
        cause = ""
        if key != (model, folded):
            key = (model, folded)
            segment += 1
        elif prev is not None:
            cause = step_cause(session, prev_call, (c.index, c.reply_end), c.reported_input_tokens - prev.reported, est - prev.estimated, read_dirs)
        prev = Point(segment, model, c.reported_input_tokens, est, cause, unlogged, c.index)
        out.append(prev)
        prev_call = (c.index, c.reply_end)
    return out


#: Causes whose tokens the log cannot show: ``measure(..., reanchor=UNLOGGED)`` restarts the growth there —
#: a server-side web search, a prompt that fell while the log kept every message (an unlogged
#: microcompact), a first read that grew beyond the log (an unlogged nested CLAUDE.md).
UNLOGGED = frozenset((CAUSES[0], CAUSES[1], CAUSES[4]))


def unexplained(pts: Sequence[Point], threshold: int = UNEXPLAINED_TOKENS) -> list[Unexplained]:
    """The steps of ``pts`` whose reported change differs from the estimated change by more than
    ``threshold`` tokens, in call order (the first call of a segment has no step)."""
    out: list[Unexplained] = []
    prev: Point | None = None
    for p in pts:
        if prev is not None and p.segment == prev.segment:
            d_rep, d_est = p.reported - prev.reported, p.estimated - prev.estimated
            if abs(d_rep - d_est) > threshold:
                out.append(Unexplained(p.index, p.reported, d_rep, d_est, p.cause or CAUSES[-1]))
        prev = p
    return out


def measure(
    pts: Sequence[Point], min_growth: int = MIN_GROWTH, reanchor: frozenset[str] = frozenset(), reanchor_over: int | None = None
) -> Accuracy:
    """Growth and step errors of ``pts``; growth also restarts after a step whose cause is in ``reanchor``,
    and (``reanchor_over``) after a step whose reported change missed the estimated one by more than that many
    tokens — the steps :func:`unexplained` lists for that threshold."""
    growth: list[float] = []
    step: list[float] = []
    step_abs = dict.fromkeys(CAUSES, 0)
    small = 0
    first: Point | None = None
    prev: Point | None = None
    segments = 0
    for p in pts:
        if first is None or p.segment != first.segment:
            first, prev = p, p
            segments += 1
            continue
        assert prev is not None
        miss = prev.reported + (p.estimated - prev.estimated) - p.reported
        if p.cause in reanchor or (reanchor_over is not None and abs(miss) > reanchor_over):
            # the step's error still counts; growth starts again from this call
            step.append(abs(miss) / p.reported if p.reported > 0 else 0.0)
            step_abs[p.cause or CAUSES[-1]] += abs(miss)
            first, prev = p, p
            continue
        d_rep = p.reported - first.reported
        if d_rep >= min_growth:
            growth.append(abs((p.estimated - first.estimated) - d_rep) / d_rep)
        else:
            small += 1
        if p.reported > 0:
            step.append(abs(miss) / p.reported)
        step_abs[p.cause or CAUSES[-1]] += abs(miss)
        prev = p
    return Accuracy(growth, small, step, step_abs, segments, len(pts))


def quantiles(xs: Sequence[float]) -> tuple[float, float]:
    """(median, p95) — nearest-rank p95; (nan, nan) when empty."""
    if not xs:
        return float("nan"), float("nan")
    s = sorted(xs)
    return statistics.median(s), s[min(len(s) - 1, int(0.95 * len(s)))]
