"""Graceful degradation: the smallest faithful context when nothing cheaper fits.

When masking, truncation and folds still leave a history over its budget, this ladder gives
things up in a fixed, tested order and stops at the first rung that fits:

1. ``old_tool_output`` — tool results before the newest turn become one-line placeholders;
2. ``old_assistant`` — assistant prose before the newest turn goes, then its whole old steps
   (each call with its result, so no pair is broken);
3. ``summary_detail`` — the fold summary keeps only its goal and the memory ledger;
4. ``old_user_text`` — older user messages are condensed to the clauses that carry a ledger entry
   or a value, then left out (their entries are in the ledger block);
5. ``newest_steps`` — the newest turn keeps its user message and newest step, then the user message only;
6. ``ledger_condensed`` — ledger entries in their shortest faithful phrasing (every value kept);
7. ``ledger_entries`` — entries left out, facts first, then preferences, goals, hard constraints,
   safety rules last of all, with ONE line that says how many of each kind and the ``retrieve``
   ref of the originals.

:class:`~contextwindow.errors.CompactionError` only when the newest user message and that line
cannot fit. Pure over message lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import CompactionError
from ..folding import ledger as ledger_mod
from ..folding.base import fold_message, summary_text
from ..folding.clauses import find_values, sentences
from ..folding.constraints import from_json, to_json
from ..folding.extractive import sections
from ..messages import Message, TextPart, ToolCallPart, ToolResultPart

CountMessages = Callable[[Sequence[Message]], int]
#: the kinds given up after the goal (ledger_mod.DROP_ORDER): hard constraints and safety rules
_LAST = frozenset(ledger_mod.DROP_ORDER[ledger_mod.DROP_ORDER.index("goal") + 1 :])
MEMORY_HEADER = "[Earlier context folded to fit the budget.]"
RUNGS = ("old_tool_output", "old_assistant", "summary_detail", "old_user_text", "newest_steps", "ledger_condensed", "ledger_entries")


def is_user_text(m: Message) -> bool:
    return m.role == "user" and not m.is_tool_result and not m.meta.get("cw")


def newest_turn_start(messages: Sequence[Message]) -> int:
    """Index of the newest user message the person wrote (len(messages) when there is none)."""
    for i in range(len(messages) - 1, -1, -1):
        if is_user_text(messages[i]):
            return i
    return len(messages)


def _placeholder(r: ToolResultPart) -> ToolResultPart:
    return ToolResultPart(r.call_id, (TextPart(f"[{r.name or 'tool'} output left out to fit the budget]"),), name=r.name, is_error=r.is_error)


def _mask_old_results(msgs: list[Message], upto: int) -> list[Message]:
    out = []
    for i, m in enumerate(msgs):
        if i < upto and m.tool_results:
            parts = tuple(_placeholder(p) if isinstance(p, ToolResultPart) else p for p in m.parts)
            m = Message(m.role, parts, meta=m.meta)
        out.append(m)
    return out


def _drop_old_prose(msgs: list[Message], upto: int) -> list[Message]:
    out = []
    for i, m in enumerate(msgs):
        if i < upto and m.role == "assistant":
            calls = tuple(ToolCallPart(p.id, p.name, "{}") for p in m.parts if isinstance(p, ToolCallPart))
            if not calls:
                continue
            m = Message("assistant", calls, meta=m.meta)
        out.append(m)
    return out


def _drop_old_steps(msgs: list[Message], upto: int) -> list[Message]:
    return [m for i, m in enumerate(msgs) if i >= upto or not (m.role in ("assistant", "tool") or m.is_tool_result)]


def _condense_user(m: Message, ledger: Sequence[ledger_mod.Entry]) -> Message | None:
    keep = []
    for clause in sentences(m.text):
        if ledger_mod.parse(clause) is not None or find_values(clause):
            keep.append(clause)
    if not keep:
        return None
    return Message("user", (TextPart(ledger_mod.scrub(" ".join(keep), ledger)),), meta=m.meta)


def _steps_of_newest(msgs: list[Message], start: int) -> list[tuple[int, int]]:
    spans, i = [], start + 1
    while i < len(msgs):
        j = i + 1
        while j < len(msgs) and (msgs[j].role == "tool" or msgs[j].is_tool_result):
            j += 1
        spans.append((i, j))
        i = j
    return spans


#: meta key under which a memory message carries the entries its line left out (never sent): the next compaction's ledger
#: (replay.compact.memory_ledger) still holds them, so a later round with room brings them back instead of losing them for good
LEFT_OUT_META = "cw_left_out"


def left_out_entries(m: Message) -> list[ledger_mod.Entry]:
    """The entries a memory message left out (:data:`LEFT_OUT_META`), in force."""
    return from_json(m.meta.get(LEFT_OUT_META))


def memory_message(goal: str, entries: Sequence[ledger_mod.Entry], *, condense: bool, left_out: str, extra: str = "",
                   left: Sequence[ledger_mod.Entry] = ()) -> Message:
    parts = [f"## Goal\n{goal}"] if goal else []
    block = ledger_mod.render(entries, condense=condense, left_out=left_out)
    if block:
        parts.append(block)
    if extra:
        parts.append(extra)
    body = "\n\n".join(parts) or left_out
    kept = {LEFT_OUT_META: to_json(left)} if left else {}
    if condense:  # the tightest rungs: a one-line header instead of the fold's long one
        return Message("user", (TextPart(f"{MEMORY_HEADER}\n{body}"),), meta={"cw": "fold_summary", "method": "memory", **kept})
    return fold_message(body, method="memory")


def left_out_line(dropped: Sequence[ledger_mod.Entry], ref: str) -> str:
    if not dropped:
        return ""
    kinds: dict[str, int] = {}
    for e in dropped:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    label = {"safety": "safety rule"}
    what = ", ".join(f"{n} {label.get(k, k)}{'s' if n > 1 else ''}" for k, n in kinds.items())
    return f"[{len(dropped)} memory entries left out ({what}); retrieve(ref=\"{ref}\")]"


def degrade(
    messages: Sequence[Message],
    *,
    budget: int,
    count: CountMessages,
    ledger: Sequence[ledger_mod.Entry],
    ref: str,
) -> tuple[list[Message], list[str]]:
    """``messages`` (a history: [fold summary?] + messages, no leading system) brought within
    ``budget`` by the ladder; returns the result and the rungs used. Raises CompactionError only
    when the newest user message and the left-out line alone are over the budget."""
    msgs = list(messages)
    used: list[str] = []
    if count(msgs) <= budget:
        return msgs, used
    start = newest_turn_start(msgs)
    live = ledger_mod.active(ledger)

    def fits(candidate: list[Message], rung: str) -> bool:
        nonlocal msgs
        if candidate != msgs:
            msgs = candidate
            used.append(rung)
        return count(msgs) <= budget

    if fits(_mask_old_results(msgs, start), "old_tool_output"):
        return msgs, used
    if fits(_drop_old_prose(msgs, start), "old_assistant"):
        return msgs, used
    if fits(_drop_old_steps(msgs, start), "old_assistant"):
        return msgs, used
    start = newest_turn_start(msgs)
    # 3. the summary keeps its goal and the memory (the whole ledger, verbatim)
    folds = [m for m in msgs[:start] if m.meta.get("cw") == "fold_summary"]
    prior = sections(summary_text(folds[-1])) if folds else {}
    firsts = [m for m in msgs[:start] if is_user_text(m)]
    goal = prior.get("goal") or (ledger_mod.scrub(firsts[0].text, ledger)[:600] if firsts else "")
    rest = [m for m in msgs if m.meta.get("cw") not in ("fold_summary", "nudge")]
    base = memory_message(goal, live, condense=False, left_out="")
    if fits([base, *rest], "summary_detail"):
        return msgs, used
    # 4. older user text condensed to what carries values or entries, then left out
    start = newest_turn_start(msgs)
    condensed = [msgs[0]] + [(_condense_user(m, ledger) if is_user_text(m) else m) if i < start else m for i, m in enumerate(msgs[1:], 1)]
    if fits([m for m in condensed if m is not None], "old_user_text"):
        return msgs, used
    start = newest_turn_start(msgs)
    if fits([msgs[0], *msgs[start:]], "old_user_text"):
        return msgs, used
    # 5. the newest turn: its user message and newest step, then the user message alone
    start = 1
    steps = _steps_of_newest(msgs, start)
    if len(steps) > 1 and fits([*msgs[: start + 1], *msgs[steps[-1][0] : steps[-1][1]]], "newest_steps"):
        return msgs, used
    if fits(msgs[: start + 1], "newest_steps"):
        return msgs, used
    newest = msgs[start]
    # 6. the ledger in its shortest faithful phrasing
    if fits([memory_message(goal, live, condense=True, left_out=""), newest], "ledger_condensed"):
        return msgs, used
    # 7. entries left out, least binding and oldest first; safety rules last of all
    order = {k: i for i, k in enumerate(ledger_mod.DROP_ORDER)}
    doomed = sorted(range(len(live)), key=lambda i: (order.get(live[i].kind, 0), i))

    def attempt(n: int, with_goal: bool) -> list[Message]:
        gone = set(doomed[:n])
        kept = [e for i, e in enumerate(live) if i not in gone]
        line = left_out_line([live[i] for i in doomed[:n]], ref) or (f"[memory left out; retrieve(ref=\"{ref}\") reads it]" if not kept else "")
        return [memory_message(goal if with_goal else "", kept, condense=True, left_out=line, left=[live[i] for i in doomed[:n]]), newest]

    def fewest(with_goal: bool) -> int | None:
        """The fewest entries left out that fit, or None when even all of them out does not."""
        lo, hi = 1, len(live)
        if count(attempt(hi, with_goal)) > budget:
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if count(attempt(mid, with_goal)) <= budget:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def binding_out(n: int) -> int:
        return sum(live[i].kind in _LAST for i in doomed[:n])

    # the goal's section goes before any hard constraint or safety rule does (DROP_ORDER: the goal is given up before
    # them): kept only while keeping it costs no binding entry (brook: a long opening request kept as the goal pushed
    # two safety rules out of a short session's memory)
    with_goal, n = True, fewest(True)
    if n is None or binding_out(n):
        bare = fewest(False)
        if bare is not None and (n is None or binding_out(bare) < binding_out(n)):
            with_goal, n = False, bare
    if n is not None:
        fits(attempt(n, with_goal), "ledger_entries")
        return msgs, used
    last = attempt(len(live), False)
    raise CompactionError(
        f"the budget of {budget} tokens cannot hold the newest user message with the memory line ({count(last)} tokens); "
        "raise the budget: nothing smaller is a faithful context",
        tokens=count(last),
        budget=budget,
    )
