"""The call loop over a Session: build → the model → record, and the reactive retry when the
provider says the prompt is too long (compact harder — a forced pass — and try again, at most
``SessionConfig.max_reactive_retries`` times). A thin layer: every payload comes from
:meth:`Session.build`, every reply goes through :meth:`Session.record`, and what the loop tells the
Session goes through its public methods (:meth:`Session.note_overflow`,
:meth:`Session.forget_provider_count`).

The loop is written once, as a generator of the I/O steps it needs (:func:`_attempts`: build, ask
the model, record); :func:`call` performs them and :func:`acall` awaits them, so the sync and the
async path cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ContextOverflowError, ContextWindowError

if TYPE_CHECKING:
    from .session import Session
    from .session_config import Build


@dataclass(frozen=True, slots=True)
class _Build:
    force: bool  # a forced pass: the provider said the last payload was too long


@dataclass(frozen=True, slots=True)
class _Ask:
    build: Build


@dataclass(frozen=True, slots=True)
class _Record:
    reply: Any


_Step = _Build | _Ask | _Record


def _attempts(session: Session) -> Generator[_Step, Any, Any]:
    """The loop. Each step it yields is performed by the caller, who sends the result back or throws
    the step's exception in; it returns the model's reply."""
    attempts = session.config.max_reactive_retries + 1
    for attempt in range(attempts):
        try:
            b = yield _Build(force=attempt > 0)
        except ContextWindowError:
            session.forget_provider_count(attempt)
            raise
        try:
            reply = yield _Ask(b)
        except ContextOverflowError as exc:
            session.note_overflow(exc, attempt)
            if attempt + 1 >= attempts:
                session.forget_provider_count(attempt + 1)
                raise
            continue
        yield _Record(reply)
        return reply
    raise AssertionError("unreachable")  # pragma: no cover


class _Loop:
    """Drives :func:`_attempts` one step at a time (the same for the sync and the async caller)."""

    def __init__(self, session: Session) -> None:
        self.gen = _attempts(session)
        self.result: Any = None
        self.error: Exception | None = None
        self.reply: Any = None

    def next(self) -> _Step | None:
        """The next step, or None once the loop returned (its reply in :attr:`reply`); an exception
        the loop does not handle propagates from here."""
        error, self.error = self.error, None
        try:
            return self.gen.throw(error) if error is not None else self.gen.send(self.result)
        except StopIteration as stop:
            self.reply = stop.value
            return None


def _request(session: Session, b: Build, max_tokens: int | None) -> tuple[list[Any], dict[str, Any]]:
    return b.sent_messages(session.id), {"system": session.system or None, "max_tokens": max_tokens or min(session.max_output, 4096),
                                         "tools": session.tools or None}


def call(session: Session, model: Any, max_tokens: int | None) -> Any:
    """:meth:`Session.call`."""
    loop = _Loop(session)
    while (step := loop.next()) is not None:
        try:
            if isinstance(step, _Build):
                loop.result = session.build(force=step.force)
            elif isinstance(step, _Ask):
                messages, kw = _request(session, step.build, max_tokens)
                loop.result = model.complete(messages, **kw)
            else:
                loop.result = session.record(step.reply)
        except Exception as exc:  # the loop decides: retry, or raise it
            loop.error = exc
    return loop.reply


async def acall(session: Session, model: Any, max_tokens: int | None) -> Any:
    """:meth:`Session.acall`: the same loop, the build in a worker thread, the model awaited, a due
    fold in the background."""
    loop = _Loop(session)
    while (step := loop.next()) is not None:
        try:
            if isinstance(step, _Build):
                loop.result = await session.abuild(force=step.force)
            elif isinstance(step, _Ask):
                messages, kw = _request(session, step.build, max_tokens)
                loop.result = await model.acomplete(messages, **kw)
            else:
                loop.result = await session.arecord(step.reply)
        except Exception as exc:  # the loop decides: retry, or raise it
            loop.error = exc
    return loop.reply
