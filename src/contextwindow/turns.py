"""Turns, safe cut points, tool-pair validation and repair. Pure functions over message lists.

A *turn* starts at a ``user`` message that is not a tool result (nor a fold summary, see
NON_TURN_MARKERS); messages before the first turn (system prompt, fold summary) form the *preamble*.

Tool calls pair with results by id: a result pairs with an unanswered call of the same id in an
earlier message, the nearest such assistant message first (then the first call in it). A result
with no such call is an *orphan*. A cut between ``messages[:i]`` and ``messages[i:]`` is *safe*
when it separates no call from its result.

:func:`validate` checks a history against a provider's structural rules, :func:`repair` makes
any history valid without losing anything silently (its report lists every change and returns
what it dropped), and :func:`merge_for_alternation` produces the view that Anthropic and Gemini
need (strict user/assistant alternation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .errors import ConfigError, InvalidPayloadError
from .messages import Message, Part, Role, TextPart, ToolCallPart, ToolResultPart

__all__ = [
    "NON_TURN_MARKERS",
    "PROBLEM_CODES",
    "PROVIDERS",
    "REPAIR_ACTIONS",
    "SYNTHETIC_RESULT_TEXT",
    "DroppedMessage",
    "DroppedPart",
    "Problem",
    "Provider",
    "RepairAction",
    "RepairReport",
    "ToolPair",
    "Turn",
    "assert_valid",
    "group_turns",
    "is_empty_message",
    "is_safe_cut",
    "merge_for_alternation",
    "repair",
    "safe_cut_points",
    "tool_pairs",
    "turn_starts",
    "validate",
]

Provider = Literal["openai", "anthropic", "gemini", "openai_responses"]
PROVIDERS: tuple[str, ...] = ("openai", "anthropic", "gemini", "openai_responses")

SYNTHETIC_RESULT_TEXT = "[tool call interrupted: no result was recorded]"


# --- turns -----------------------------------------------------------------------------------


#: ``meta["cw"]`` markers of user messages that belong to the preamble, not to a turn: a fold
#: summary stands in for archived history, so dropping "the oldest turn" must never take it.
#: ``tool_text`` marks text that came with tool results and that repair moved into a user message;
#: ``client_attachment`` what an agent client attached on its own (importers/claude_attachments.py).
NON_TURN_MARKERS: frozenset[str] = frozenset({"fold_summary", "tool_text", "client_attachment"})


def _starts_turn(m: Message) -> bool:
    return m.role == "user" and not m.is_tool_result and m.meta.get("cw") not in NON_TURN_MARKERS


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Indices of the user messages that start a turn (tool results and fold summaries never do)."""
    return [i for i, m in enumerate(messages) if _starts_turn(m)]


@dataclass(frozen=True, slots=True)
class Turn:
    """``messages[start:end]``. ``preamble`` marks the messages before the first turn."""

    start: int
    end: int
    preamble: bool = False

    def __len__(self) -> int:
        return self.end - self.start


def group_turns(messages: Sequence[Message]) -> list[Turn]:
    """Partition ``messages`` into the preamble (if any) and turns, in order, covering every index."""
    starts = turn_starts(messages)
    n = len(messages)
    turns: list[Turn] = []
    first = starts[0] if starts else n
    if first > 0:
        turns.append(Turn(0, first, preamble=True))
    for k, s in enumerate(starts):
        turns.append(Turn(s, starts[k + 1] if k + 1 < len(starts) else n))
    return turns


# --- pairing ---------------------------------------------------------------------------------

_Loc = tuple[int, int]  # (message index, part index)


@dataclass(frozen=True, slots=True)
class ToolPair:
    """A call and its result, by message index."""

    call_id: str
    call_index: int
    result_index: int


@dataclass(slots=True)
class _Pairing:
    calls: list[_Loc]  # tool calls in assistant messages, in order
    stray_calls: list[_Loc]  # tool calls outside assistant messages
    result_of: dict[_Loc, _Loc]  # call loc -> result loc
    call_of: dict[_Loc, _Loc]  # result loc -> call loc
    orphans: list[_Loc]


def _pair(messages: Sequence[Message]) -> _Pairing:
    # unanswered calls by id: one location, or a list of them when an id is reused
    pending: dict[str, _Loc | list[_Loc]] = {}
    p = _Pairing([], [], {}, {}, [])
    for mi, m in enumerate(messages):
        is_assistant = m.role == "assistant"
        new_calls: list[tuple[str, _Loc]] = []
        for pi, part in enumerate(m.parts):
            if part.kind == "tool_result":
                waiting = pending.get(part.call_id)
                if not waiting:
                    p.orphans.append((mi, pi))
                    continue
                if isinstance(waiting, tuple):
                    call = waiting
                    del pending[part.call_id]
                else:
                    # nearest assistant message first, then its first unanswered call
                    j = len(waiting) - 1
                    while j > 0 and waiting[j - 1][0] == waiting[-1][0]:
                        j -= 1
                    call = waiting.pop(j)
                p.result_of[call] = (mi, pi)
                p.call_of[(mi, pi)] = call
            elif part.kind == "tool_call":
                if is_assistant:
                    p.calls.append((mi, pi))
                    new_calls.append((part.id, (mi, pi)))
                else:
                    p.stray_calls.append((mi, pi))
        # a message's calls become answerable from the next message on
        for cid, loc in new_calls:
            w = pending.get(cid)
            if not w:
                pending[cid] = loc
            elif isinstance(w, tuple):
                pending[cid] = [w, loc]
            else:
                w.append(loc)
    return p


def tool_pairs(messages: Sequence[Message]) -> list[ToolPair]:
    """Every answered call with its result, in call order."""
    p = _pair(messages)
    out: list[ToolPair] = []
    for call in p.calls:
        res = p.result_of.get(call)
        if res is not None:
            part = messages[call[0]].parts[call[1]]
            assert isinstance(part, ToolCallPart)
            out.append(ToolPair(part.id, call[0], res[0]))
    return out


def _unsafe_counts(messages: Sequence[Message]) -> list[int]:
    """For each cut 0..n, how many pairs it would separate."""
    n = len(messages)
    diff = [0] * (n + 2)
    for call, res in _pair(messages).result_of.items():
        diff[call[0] + 1] += 1
        diff[res[0] + 1] -= 1
    out: list[int] = []
    running = 0
    for i in range(n + 1):
        running += diff[i]
        out.append(running)
    return out


def safe_cut_points(messages: Sequence[Message]) -> list[int]:
    """Every ``i`` in ``0..len(messages)`` where ``messages[:i]`` / ``messages[i:]`` separates no
    tool call from its result. In a valid history every turn start is among them."""
    return [i for i, c in enumerate(_unsafe_counts(messages)) if c == 0]


def is_safe_cut(messages: Sequence[Message], i: int) -> bool:
    """Whether cutting before ``messages[i]`` separates no call from its result."""
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= len(messages):
        raise ConfigError(f"cut index must be an integer in 0..{len(messages)}, got {i!r}")
    return all(not (c < i <= r) for c, r in ((call[0], res[0]) for call, res in _pair(messages).result_of.items()))


# --- validation ------------------------------------------------------------------------------

PROBLEM_CODES: dict[str, str] = {
    "empty_message": "a message with no content (no parts, or only blank text)",
    "call_outside_assistant": "a tool call in a message that is not from the assistant",
    "duplicate_call_id": "a tool call id used by more than one call",
    "unanswered_call": "a tool call with no result",
    "orphan_result": "a tool result with no call before it",
    "misplaced_result": "a tool result not where the provider expects it (right after its call's message)",
    "result_outside_tool_message": "a tool result in a message of the wrong role",
    "tool_without_result": "a tool message that holds no tool result (OpenAI chat)",
    "first_not_user": "the first message after the system prompt is not from the user (Anthropic, Gemini)",
    "results_not_first": "tool results after other content of the same merged user turn (Anthropic)",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One structural problem: the message index, a code from PROBLEM_CODES, and what/where."""

    index: int
    code: str
    detail: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.code}: {self.detail}"


def is_empty_message(m: Message) -> bool:
    """No parts, or only text parts holding blank text."""
    return all(p.kind == "text" and not p.text.strip() for p in m.parts)


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown provider rule set {provider!r} (expected one of {', '.join(PROVIDERS)})")


def _side(m: Message) -> str:
    return "user" if m.role in ("user", "tool") else m.role


def _run_ends(messages: Sequence[Message], roles: frozenset[str]) -> list[int]:
    """For each i, the first index j > i whose role is not in ``roles`` (or n)."""
    n = len(messages)
    ends = [n] * n
    nxt = n
    for i in range(n - 1, -1, -1):
        ends[i] = nxt
        if messages[i].role not in roles:
            nxt = i
    return ends


def _groups(messages: Sequence[Message]) -> list[int]:
    """The merged turn each message lands in when sent to Anthropic/Gemini: system messages are
    lifted out (-1), consecutive messages of the same side (tool counts as user) share a group."""
    gid = [-1] * len(messages)
    g = -1
    prev: str | None = None
    for i, m in enumerate(messages):
        if m.role == "system":
            continue
        side = _side(m)
        if side != prev:
            g += 1
            prev = side
        gid[i] = g
    return gid


_TOOL = frozenset({"tool"})
_USER_SIDE = frozenset({"user", "tool"})


def validate(messages: Sequence[Message], provider: str = "openai") -> list[Problem]:
    """Structural problems of ``messages`` under ``provider``'s rules, sorted by index.

    All providers: no empty message, tool calls only from the assistant, unique call ids, every
    call answered, no result without an earlier call. ``openai``: results in ``tool`` messages
    directly after their call's assistant message; every tool message holds a result.
    ``anthropic``/``gemini`` are checked as their converters send the list: system messages
    lifted into the system prompt, consecutive same-side messages (tool counts as user) merged
    (see :func:`merge_for_alternation`); the first turn must be the user's, a call's results must
    be in the very next (user) turn, and for Anthropic before any other content of that turn.
    ``openai_responses``: results anywhere after their call.
    """
    _check_provider(provider)
    problems: list[Problem] = []
    add = problems.append
    pairing = _pair(messages)
    merged = provider in ("anthropic", "gemini")

    seen_ids: dict[str, int] = {}
    for mi, pi in pairing.calls:
        part = messages[mi].parts[pi]
        assert isinstance(part, ToolCallPart)
        if part.id in seen_ids:
            add(Problem(mi, "duplicate_call_id", f"tool call id {part.id!r} was already used in message {seen_ids[part.id]}"))
        else:
            seen_ids[part.id] = mi
    for mi, pi in pairing.stray_calls:
        part = messages[mi].parts[pi]
        assert isinstance(part, ToolCallPart)
        add(Problem(mi, "call_outside_assistant", f"tool call {part.id!r} ({part.name}) in a {messages[mi].role} message"))
    for mi, pi in pairing.orphans:
        part = messages[mi].parts[pi]
        assert isinstance(part, ToolResultPart)
        add(Problem(mi, "orphan_result", f"result for call {part.call_id!r} has no matching call before it"))

    ends = _run_ends(messages, _TOOL) if provider == "openai" else []
    gid = _groups(messages) if merged else []
    for call in pairing.calls:
        part = messages[call[0]].parts[call[1]]
        assert isinstance(part, ToolCallPart)
        res = pairing.result_of.get(call)
        if res is None:
            add(Problem(call[0], "unanswered_call", f"tool call {part.id!r} ({part.name}) has no result"))
        elif (provider == "openai" and res[0] >= ends[call[0]]) or (merged and gid[res[0]] != gid[call[0]] + 1):
            where = "tool messages" if provider == "openai" else "user turn"
            add(Problem(res[0], "misplaced_result", f"result for call {part.id!r} (message {call[0]}) is not in the {where} right after it"))

    allowed_result_roles = _TOOL if provider == "openai" else _USER_SIDE
    first_turn_seen = False
    order_group = -1  # the user turn in which non-result content was seen (Anthropic: results first)
    flagged_group = -1
    for mi, m in enumerate(messages):
        if is_empty_message(m):
            add(Problem(mi, "empty_message", f"{m.role} message with no content"))
        has_result = False
        for part in m.parts:
            if part.kind != "tool_result":
                if merged and m.role in _USER_SIDE:
                    order_group = gid[mi]
                continue
            has_result = True
            if m.role not in allowed_result_roles:
                add(Problem(mi, "result_outside_tool_message", f"result for call {part.call_id!r} in a {m.role} message"))
            if provider == "anthropic" and order_group == gid[mi] != flagged_group:
                add(Problem(mi, "results_not_first", f"result for call {part.call_id!r} follows other content of its turn"))
                flagged_group = gid[mi]
        if provider == "openai" and m.role == "tool" and not has_result:
            add(Problem(mi, "tool_without_result", "tool message holds no tool result"))
        if merged and not first_turn_seen and m.role != "system":
            first_turn_seen = True
            if _side(m) != "user":
                add(Problem(mi, "first_not_user", f"{provider} needs the user's turn first, got {m.role}"))
    problems.sort(key=lambda p: p.index)
    return problems


def assert_valid(messages: Sequence[Message], provider: str = "openai") -> None:
    """Raise InvalidPayloadError listing the problems :func:`validate` finds."""
    problems = validate(messages, provider)
    if problems:
        shown = "; ".join(str(p) for p in problems[:10])
        more = f"; and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise InvalidPayloadError(f"{len(problems)} structural problem(s) for {provider}: {shown}{more}")


# --- repair ----------------------------------------------------------------------------------

RepairKind = Literal[
    "synthetic_result",
    "moved_result",
    "dropped_orphan_result",
    "dropped_misplaced_call",
    "renamed_duplicate_call",
    "removed_empty",
    "relabelled_tool_as_user",
    "split_tool_text",
]
REPAIR_ACTIONS: tuple[str, ...] = (
    "synthetic_result",
    "moved_result",
    "dropped_orphan_result",
    "dropped_misplaced_call",
    "renamed_duplicate_call",
    "removed_empty",
    "relabelled_tool_as_user",
    "split_tool_text",
)


@dataclass(frozen=True, slots=True)
class RepairAction:
    """One change. ``index`` is the message index in the input; ``call_id`` the call concerned."""

    index: int
    action: RepairKind
    call_id: str | None = None
    detail: str = ""

    def __str__(self) -> str:
        cid = f" call {self.call_id!r}" if self.call_id is not None else ""
        return f"message {self.index}: {self.action}{cid}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class DroppedPart:
    """A part repair removed, with the input index of the message that held it."""

    index: int
    part: Part


@dataclass(frozen=True, slots=True)
class DroppedMessage:
    """A message repair removed (what was left of it), with its input index."""

    index: int
    message: Message


@dataclass(frozen=True, slots=True)
class RepairReport:
    actions: tuple[RepairAction, ...] = ()
    dropped_parts: tuple[DroppedPart, ...] = ()
    dropped_messages: tuple[DroppedMessage, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.actions)

    def __bool__(self) -> bool:
        return self.changed

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for a in self.actions:
            out[a.action] = out.get(a.action, 0) + 1
        return out

    def describe(self) -> str:
        """One line: how many repairs of each kind."""
        if not self.actions:
            return "nothing to repair"
        return ", ".join(f"{k} ×{v}" for k, v in sorted(self.counts().items()))

    def __str__(self) -> str:
        return self.describe()


def _fresh_id(base: str, used: set[str]) -> str:
    k = 2
    while f"{base}~{k}" in used:
        k += 1
    new = f"{base}~{k}"
    used.add(new)
    return new


def repair(messages: Sequence[Message]) -> tuple[list[Message], RepairReport]:
    """A history valid for every provider rule set in its strictest (OpenAI chat) form.

    - a call with no result gets a synthetic error result (meta ``{"cw": "synthetic_result"}``)
      right after its assistant message's results;
    - a result after another non-tool message, or in a non-tool message, is moved right after
      its call's message; an orphan result is dropped; a call outside an assistant message is
      dropped (both returned in the report);
    - a reused call id is renamed ``<id>~2``, ``<id>~3``… on the later call and its result;
    - empty messages are removed (returned in the report); a tool message left without results
      becomes a user message (meta ``{"cw": "tool_text"}``, not a turn start), after the tool
      results when it sat among them; text beside results that would precede another result of
      the same turn moves into such a message after them (Anthropic wants results first).

    Valid histories come back unchanged; ``repair(repair(x)[0])`` changes nothing. The result
    is valid for Anthropic/Gemini too when its first non-system message is from the user.
    """
    msgs = list(messages)
    n = len(msgs)
    pairing = _pair(msgs)
    actions: list[RepairAction] = []
    dropped_parts: list[DroppedPart] = []
    dropped_messages: list[DroppedMessage] = []

    # unique call ids: later duplicates (and their results) get a fresh id
    used: set[str] = set()
    for m in msgs:
        for part in m.parts:
            if isinstance(part, ToolCallPart):
                used.add(part.id)
            elif isinstance(part, ToolResultPart):
                used.add(part.call_id)
    rename: dict[_Loc, str] = {}
    seen: set[str] = set()
    for loc in pairing.calls:
        part = msgs[loc[0]].parts[loc[1]]
        assert isinstance(part, ToolCallPart)
        if part.id in seen:
            new = _fresh_id(part.id, used)
            rename[loc] = new
            actions.append(RepairAction(loc[0], "renamed_duplicate_call", part.id, f"now {new!r}"))
            res = pairing.result_of.get(loc)
            if res is not None:
                rename[res] = new
        seen.add(part.id)

    tool_end = _run_ends(msgs, _TOOL)
    drop: set[_Loc] = set()
    for loc in pairing.orphans:
        part = msgs[loc[0]].parts[loc[1]]
        assert isinstance(part, ToolResultPart)
        drop.add(loc)
        dropped_parts.append(DroppedPart(loc[0], part))
        actions.append(RepairAction(loc[0], "dropped_orphan_result", part.call_id, "no matching call before it"))
    for loc in pairing.stray_calls:
        part = msgs[loc[0]].parts[loc[1]]
        assert isinstance(part, ToolCallPart)
        drop.add(loc)
        dropped_parts.append(DroppedPart(loc[0], part))
        actions.append(RepairAction(loc[0], "dropped_misplaced_call", part.id, f"tool call in a {msgs[loc[0]].role} message"))

    # results not in place move to the group of their call's message: target -> [(source msg, part locs)]
    moved_to: dict[int, list[_Loc]] = {}
    moving: set[_Loc] = set()
    for res, call in pairing.call_of.items():
        in_place = msgs[res[0]].role == "tool" and res[0] < tool_end[call[0]]
        if not in_place:
            moving.add(res)
            moved_to.setdefault(call[0], []).append(res)
            part = msgs[res[0]].parts[res[1]]
            assert isinstance(part, ToolResultPart)
            actions.append(
                RepairAction(res[0], "moved_result", rename.get(res, part.call_id), f"moved to follow message {call[0]}")
            )

    def renamed(loc: _Loc, part: Part) -> Part:
        new = rename.get(loc)
        if new is None:
            return part
        if isinstance(part, ToolCallPart):
            return replace(part, id=new)
        assert isinstance(part, ToolResultPart)
        return replace(part, call_id=new)

    # what is left of each message: None when it goes away
    kept: list[Message | None] = []
    wholly_moved: set[int] = set()
    for mi, m in enumerate(msgs):
        if is_empty_message(m):
            kept.append(None)
            dropped_messages.append(DroppedMessage(mi, m))
            actions.append(RepairAction(mi, "removed_empty", None, f"{m.role} message with no content"))
            continue
        parts: list[Part] = []
        n_moved = n_dropped = 0
        for pi, part in enumerate(m.parts):
            if (mi, pi) in drop:
                n_dropped += 1
            elif (mi, pi) in moving:
                n_moved += 1
            else:
                parts.append(renamed((mi, pi), part))
        if not parts:
            kept.append(None)
            targets = {pairing.call_of[(mi, pi)][0] for pi in range(len(m.parts)) if (mi, pi) in moving}
            if n_moved and not n_dropped and len(targets) == 1:
                wholly_moved.add(mi)  # the message itself moves, name/extra/meta included
            else:
                dropped_messages.append(DroppedMessage(mi, replace(m, parts=())))
                actions.append(RepairAction(mi, "removed_empty", None, "nothing left after the repairs above"))
            continue
        if not n_moved and not n_dropped and not any((mi, pi) in rename for pi in range(len(m.parts))):
            new_m = m
        else:
            new_m = replace(m, parts=tuple(parts))
        if is_empty_message(new_m):
            kept.append(None)
            dropped_messages.append(DroppedMessage(mi, new_m))
            actions.append(RepairAction(mi, "removed_empty", None, "only blank text left after the repairs above"))
            continue
        if new_m.role == "tool" and not new_m.is_tool_result:
            new_m = replace(new_m, role="user", meta={"cw": "tool_text", **new_m.meta})
            actions.append(RepairAction(mi, "relabelled_tool_as_user", None, "tool message without a tool result"))
        kept.append(new_m)

    def moved_messages(target: int) -> list[Message]:
        out: list[Message] = []
        by_source: dict[int, list[_Loc]] = {}
        for loc in moved_to.get(target, ()):
            by_source.setdefault(loc[0], []).append(loc)
        for src in sorted(by_source):
            locs = sorted(by_source[src])
            m = msgs[src]
            parts = tuple(renamed(loc, m.parts[loc[1]]) for loc in locs)
            if src in wholly_moved and len(locs) == len(m.parts):
                out.append(replace(m, role="tool", parts=parts))
            else:
                out.append(Message(role="tool", parts=parts, meta={"cw": "moved_result"}))
        return out

    def synthetic(target: int) -> list[Message]:
        out: list[Message] = []
        m = msgs[target]
        for pi, part in enumerate(m.parts):
            if isinstance(part, ToolCallPart) and (target, pi) not in pairing.result_of:
                cid = rename.get((target, pi), part.id)
                result = ToolResultPart(call_id=cid, content=(TextPart(SYNTHETIC_RESULT_TEXT),), is_error=True, name=part.name)
                out.append(Message(role="tool", parts=(result,), meta={"cw": "synthetic_result"}))
                actions.append(RepairAction(target, "synthetic_result", cid, f"no result was recorded for {part.name}"))
        return out

    def results_first(group: list[tuple[int, Message]]) -> list[Message]:
        """Anthropic wants every result of a turn before any other content: text beside results
        (except after the last message's results) moves into one user message after them."""
        res: list[Message] = []
        texts: list[Part] = []
        for k, (src, m) in enumerate(group):
            results = tuple(p for p in m.parts if p.kind == "tool_result")
            if len(results) == len(m.parts) or (k == len(group) - 1 and m.parts[: len(results)] == results):
                res.append(m)
                continue
            res.append(replace(m, parts=results))
            for p in m.parts:
                if p.kind == "tool_result":
                    continue
                if p.kind == "text" and not p.text.strip():
                    dropped_parts.append(DroppedPart(src, p))
                else:
                    texts.append(p)
            actions.append(RepairAction(src, "split_tool_text", None, "content beside tool results moved after them"))
        if texts:
            res.append(Message(role="user", parts=tuple(texts), meta={"cw": "tool_text"}))
        return res

    out: list[Message] = []
    i = 0
    while i < n:
        km = kept[i]
        if km is not None:
            out.append(km)
        if msgs[i].role == "assistant" and msgs[i].tool_calls:
            group: list[tuple[int, Message]] = []
            leftovers: list[Message] = []
            j = i + 1
            while j < n and msgs[j].role == "tool":
                kj = kept[j]
                if kj is not None:
                    if kj.role == "tool":
                        group.append((j, kj))
                    else:
                        leftovers.append(kj)
                j += 1
            group += [(i, m) for m in moved_messages(i) + synthetic(i)]
            out.extend(results_first(group))
            out.extend(leftovers)
            i = j
        else:
            i += 1

    actions.sort(key=lambda a: a.index)
    dropped_parts.sort(key=lambda d: d.index)
    dropped_messages.sort(key=lambda d: d.index)
    return out, RepairReport(tuple(actions), tuple(dropped_parts), tuple(dropped_messages))


# --- alternation view ------------------------------------------------------------------------


def _merge_meta(group: list[Message]) -> dict[str, object]:
    meta: dict[str, object] = {}
    for m in group:
        for k, v in m.meta.items():
            meta.setdefault(k, v)
    meta["cw_merged"] = len(group)
    return meta


def _merge_extra(group: list[Message]) -> dict[str, object]:
    extra: dict[str, object] = {}
    for m in group:
        for k, v in m.extra.items():
            extra.setdefault(k, v)
    return extra


def merge_for_alternation(messages: Sequence[Message], provider: str = "anthropic") -> list[Message]:
    """The list as the Anthropic and Gemini converters send it: system messages lifted to the front
    (they become the system prompt), then user/assistant strictly alternating. Consecutive
    user-side messages (user, tool) merge into one, tool results first (role ``tool`` when it
    holds only results, else ``user``); consecutive assistant messages merge. Parts are never
    altered or dropped; message-level ``extra``/``meta`` merge key by key (the first message wins
    a clash) and a merged message carries ``meta["cw_merged"]`` = how many.
    For ``openai``/``openai_responses`` the messages come back as they are.
    """
    _check_provider(provider)
    if provider not in ("anthropic", "gemini"):
        return list(messages)
    out: list[Message] = [m for m in messages if m.role == "system"]
    rest = [m for m in messages if m.role != "system"]
    k = 0
    while k < len(rest):
        side = _side(rest[k])
        j = k + 1
        while j < len(rest) and _side(rest[j]) == side:
            j += 1
        group = rest[k:j]
        if side == "user":
            results: list[Part] = [p for m in group for p in m.parts if isinstance(p, ToolResultPart)]
            others: list[Part] = [p for m in group for p in m.parts if not isinstance(p, ToolResultPart)]
            parts = tuple(results + others)
            if len(group) == 1 and parts == group[0].parts:
                out.append(group[0])
            else:
                role: Role = "tool" if results and not others else "user"
                base = group[0]
                out.append(
                    Message(
                        role=role,
                        parts=parts,
                        name=base.name,
                        extra=_merge_extra(group),
                        meta=_merge_meta(group) if len(group) > 1 else dict(base.meta),
                    )
                )
        elif len(group) == 1:
            out.append(group[0])
        else:
            base = group[0]
            out.append(
                Message(
                    role="assistant",
                    parts=tuple(p for m in group for p in m.parts),
                    name=base.name,
                    extra=_merge_extra(group),
                    meta=_merge_meta(group),
                )
            )
        k = j
    return out
