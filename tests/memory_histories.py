"""A hypothesis strategy shared by the memory property tests: a session that states dates for a
few subjects and restates some of them in other words (each test brings its own wording)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user


@dataclass(frozen=True)
class Wording:
    subjects: Sequence[str]
    plant: Sequence[str]  # "{S}"/"{s}": the subject (capitalised or not), "{v}": its date
    update: Sequence[str]
    days: Sequence[str]
    noted: str  # the assistant's acknowledgement
    outputs: Sequence[str]  # tool outputs to draw from
    last: str  # the newest user message
    max_updates: int
    rules: Sequence[str] = ()  # drawn into a first user message when given


@dataclass(frozen=True)
class History:
    messages: list[Message]
    stale: list[str]  # values a later message changed
    current: list[str]  # the values in force at the end


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


@st.composite
def histories(draw: st.DrawFn, w: Wording) -> History:
    n = draw(st.integers(1, len(w.subjects)))
    days = iter(draw(st.permutations(list(w.days))))
    current: dict[int, str] = {}
    stale: list[str] = []
    msgs: list[Message] = []
    if w.rules:
        msgs.append(user(" ".join(draw(st.lists(st.sampled_from(list(w.rules)), max_size=5, unique=True))) or "Let's start."))
    events = [(i, False) for i in range(n)] + [(i, True) for i in draw(st.lists(st.integers(0, n - 1), max_size=w.max_updates))]
    for k, (i, is_update) in enumerate(events):
        s, v = w.subjects[i], next(days)
        tmpl = draw(st.sampled_from(list(w.update if is_update else w.plant)))
        if is_update:
            stale.append(current[i])
        current[i] = v
        msgs.append(user(tmpl.replace("{s}", s).replace("{S}", _cap(s)).format(v=v)))
        cid = f"c{k}"
        msgs.append(assistant(w.noted.format(s=s, v=v), ToolCallPart(cid, "shell", '{"command": "make check"}')))
        msgs.append(tool_result(cid, draw(st.sampled_from(list(w.outputs))) + "\nExit code: 0", name="shell"))
        msgs.append(assistant("Done."))
    msgs.append(user(w.last))
    return History(msgs, stale, list(current.values()))
