"""The ``default`` policy of a replay: this project's own :class:`~contextwindow.session.Session`.

The log's messages are added to a Session over an in-memory store as the agent produced them
(tool results clipped at append, user rules entering the constraint ledger), ``build`` makes each
call's payload (layered compaction when the trigger is crossed), and each reply is recorded with a
usage whose ``input_tokens`` is our count of the payload just built — the provider's real numbers
belong to the raw history, not to this one — so folds happen at turn boundaries as they would live.

The fixed prefix the log does not show (system prompt + tools) is taken off the Session's window,
so its budget sees the same room as the other policies.

Message ids and offload refs (named in mask and clip markers) are deterministic here, not random as
in a live store: a random id's token count varies, which moved compaction decisions from run to run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..errors import CompactionError
from ..events import Event
from ..messages import Message
from ..store.memory import MemoryStore
from ..usage import Usage
from .policies import ReplayContext, Step

MIN_SESSION_WINDOW = 1_024


def output_cap(window: int) -> int:
    """The output reserve the replayed Session keeps: its usual cap (20k), but at most a quarter of
    the window, so a "what if my window were smaller" replay still leaves room for history."""
    return max(256, min(20_000, window // 4))


class SessionPolicy:
    name = "default"

    def __init__(self, ctx: ReplayContext, *, incremental: bool = True) -> None:
        """``incremental=False``: the Session walks its whole view on every build (the same
        payloads, slower; tests/test_growing_build.py compares the two)."""
        from dataclasses import replace

        from ..budget import BudgetConfig, Limits
        from ..compaction.cache import CacheConfig
        from ..session import Session, SessionConfig
        self.ctx = ctx
        self.store = MemoryStore(deterministic=True)
        self.session = Session(
            self.store,
            window=max(MIN_SESSION_WINDOW, ctx.window - ctx.overhead),
            max_output=ctx.max_output,
            counter=ctx.counter,
            summarizer=ctx.summarizer,
            config=SessionConfig(
                budget=BudgetConfig.from_env(os.environ, output_cap=output_cap(ctx.window)),
                limits=Limits(),  # a replay measures: no session limits
                cache=replace(
                    ctx.cache or CacheConfig(), read_weight=ctx.read_weight, write_weight=ctx.write_weight, summary_output_weight=ctx.output_weight
                ),
                incremental=incremental,
                cache_marks="off",  # a replay measures the view; the breakpoints are no tokens (docs/caching.md)
            ),
            title="replay",
        )
        self.cursor = 0
        self._events: list[str] = []
        self.session.events.subscribe(self._on_event)

    def _on_event(self, ev: Event) -> None:
        if ev.name == "compaction.applied" and ev.data.get("steps"):
            self._events.append("compaction")
            if ev.data.get("fold"):
                self._events.append("fold")
        elif ev.name == "fold.applied":
            self._events.append("fold")

    def before_call(self, history: Sequence[Message]) -> Step:
        if len(history) > self.cursor:
            self.session.add(*history[self.cursor :])
            self.cursor = len(history)
        try:
            built = self.session.build()
        except CompactionError:
            # the Session says it cannot fit (a live agent gets this typed error): the replay sends the
            # uncompacted view, which the engine counts as over the window
            events, self._events = self._events, []
            return Step([it.message for it in self.session.view()], [*events, "error"])
        events, self._events = self._events, []
        return Step(list(built.messages), events)

    def after_call(self, reply: Sequence[Message], prompt_tokens: int) -> None:
        if not reply:
            return
        usage = Usage(input_tokens=max(0, prompt_tokens - self.ctx.overhead), model=None)
        first, rest = reply[0], list(reply[1:])
        if first.role == "assistant" and not rest:
            self.session.record(first, usage)
        elif first.role == "assistant":
            # several messages came back from one call: record the first, add the rest
            self.session.record(first, usage)
            self.session.add(*rest)
        else:
            self.session.add(*reply)
        self.cursor += len(reply)

    def take_events(self) -> list[str]:
        """Events after the last call (a fold recorded with the last reply)."""
        events, self._events = self._events, []
        return events

    def close(self) -> None:
        self.store.close()
