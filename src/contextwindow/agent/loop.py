"""The agent loop: a thin layer over :class:`~contextwindow.session.Session`.

One step is ``session.call(model)`` (build → compact when due → call → record, with the reactive
retry on an overflow), then the tool calls of the answer run together and their results go back
through ``session.add`` (clipped at the door). The loop ends at an answer without tool calls, at
``max_steps``, or when a session limit or a provider error stops it. Nothing here assembles a
payload: the Session stays the one assembler.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ContextWindowError
from ..llm.base import ChatModel, Completion
from ..messages import Message, TextPart, ToolCallPart, ToolResultPart
from ..session import Session
from ..usage import Usage
from .tools import Toolbox, describe_call

StopReason = Literal["answer", "max_steps", "cancelled"]


@dataclass(frozen=True, slots=True)
class Step:
    """One model call of a run: its usage (priced when the model is) and the tool calls it made."""

    usage: Usage
    tool_calls: int


@dataclass(slots=True)
class RunResult:
    conversation_id: str
    answer: str
    stopped: StopReason
    steps: list[Step] = field(default_factory=list)

    @property
    def cost_usd(self) -> float | None:
        """The main calls' dollars (None when any call is unpriced, never a silent $0)."""
        costs = [s.usage.cost_usd for s in self.steps]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def priced(usage: Usage, model: str | None) -> Usage:
    """``usage`` with ``cost_usd`` from the model registry when the provider did not give one."""
    if usage.cost_usd is not None:
        return usage
    from dataclasses import replace

    from ..models import get_model

    name = usage.model or model
    if not name:
        return usage
    try:
        spec = get_model(name)
    except ContextWindowError:
        return usage
    fresh = max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens)
    cost = spec.cost(fresh, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
    return usage if cost is None else replace(usage, cost_usd=cost)


class Agent:
    """Runs turns of a conversation: ``agent.run("task")``.

    ``cancel()`` (from another thread) stops the loop at the next safe point: before the next
    model call or between tool batches; a call already in flight finishes or fails first, and its
    answer is only stored once it is complete."""

    def __init__(self, session: Session, model: ChatModel, toolbox: Toolbox, *, max_steps: int | None = None, max_tokens: int | None = None) -> None:
        if max_steps is not None and max_steps < 1:
            from ..errors import ConfigError

            raise ConfigError(f"max_steps must be at least 1, got {max_steps}")
        self.session = session
        self.model = model
        self.toolbox = toolbox
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def _retrieve(self, call: ToolCallPart) -> ToolResultPart:
        part = self.session.run_retrieve(call).parts[0]
        assert isinstance(part, ToolResultPart)
        return part

    def _tool_done(self, call: ToolCallPart, part: ToolResultPart, seconds: float) -> None:
        self.session.events.emit(
            "agent.tool", call_id=call.id, tool=call.name, call=describe_call(call),
            ok=not part.is_error, chars=len(part.text), seconds=round(seconds, 3),
        )

    def _start(self, task: str | None) -> RunResult:
        self._cancel.clear()
        if task is not None:
            self.session.add(Message("user", (TextPart(task),)))
        return RunResult(self.session.id, "", "answer")

    def _stop(self, result: RunResult) -> bool:
        if self._cancel.is_set():
            result.stopped = "cancelled"
            return True
        if self.max_steps is not None and len(result.steps) >= self.max_steps:
            result.stopped = "max_steps"
            return True
        return False

    def _answered(self, result: RunResult, done: Completion, on_step: Callable[[Completion], Any] | None) -> list[ToolCallPart]:
        calls = list(done.message.tool_calls) if done.message is not None else []
        result.steps.append(Step(priced(done.usage, self.session.model), len(calls)))
        self.session.events.emit("agent.step", step=len(result.steps), tool_calls=len(calls), finish_reason=done.finish_reason)
        if on_step is not None:
            on_step(done)
        if not calls:
            result.answer = done.text
        return calls

    def run(self, task: str | None = None, *, on_step: Callable[[Completion], Any] | None = None) -> RunResult:
        """Add ``task`` as the user's message (None: continue the conversation as it is) and run
        until the model answers without calling a tool."""
        result = self._start(task)
        while not self._stop(result):
            done = self.session.call(self.model, max_tokens=self.max_tokens)
            calls = self._answered(result, done, on_step)
            if not calls:
                return result
            self.session.add(self.toolbox.run_all(calls, self._retrieve, self._tool_done))
        return result

    async def arun(self, task: str | None = None, *, on_step: Callable[[Completion], Any] | None = None) -> RunResult:
        """:meth:`run` for an event loop (the TUI): the call is awaited and the tools run in a
        thread, so cancelling the task aborts the HTTP request; an answer is stored only once it
        is complete, and tool results only once all of a response's calls are done."""
        import asyncio

        result = self._start(task)
        while not self._stop(result):
            done = await self.session.acall(self.model, max_tokens=self.max_tokens)
            calls = self._answered(result, done, on_step)
            if not calls:
                return result
            answer = await asyncio.to_thread(self.toolbox.run_all, calls, self._retrieve, self._tool_done)
            self.session.add(answer)
        return result
