"""The call loop over a Session: build → the model → record, and the reactive retry when the
provider says the prompt is too long (compact harder — a forced pass — and try again, at most
``SessionConfig.max_reactive_retries`` times). Sync and async alike; a thin layer: every payload
comes from :meth:`Session.build`, every reply goes through :meth:`Session.record`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ContextOverflowError, ContextWindowError

if TYPE_CHECKING:
    from .session import Session


def call(session: Session, model: Any, max_tokens: int | None) -> Any:
    """:meth:`Session.call`."""
    attempts = session.config.max_reactive_retries + 1
    for attempt in range(attempts):
        try:
            b = session.build(force=attempt > 0)
        except ContextWindowError:
            session._forget_provider_count(attempt)
            raise
        try:
            done = model.complete(b.sent_messages(session.id), system=session.system or None, max_tokens=max_tokens or min(session.max_output, 4096), tools=session.tools or None)
        except ContextOverflowError as exc:
            session._overflowed(exc, attempt)
            if attempt + 1 >= attempts:
                session._forget_provider_count(attempt + 1)
                raise
            continue
        session.record(done)
        return done
    raise AssertionError("unreachable")  # pragma: no cover


async def acall(session: Session, model: Any, max_tokens: int | None) -> Any:
    """:meth:`Session.acall`."""
    attempts = session.config.max_reactive_retries + 1
    for attempt in range(attempts):
        try:
            b = await session.abuild(force=attempt > 0)
        except ContextWindowError:
            session._forget_provider_count(attempt)
            raise
        try:
            done = await model.acomplete(b.sent_messages(session.id), system=session.system or None, max_tokens=max_tokens or min(session.max_output, 4096), tools=session.tools or None)
        except ContextOverflowError as exc:
            session._overflowed(exc, attempt)
            if attempt + 1 >= attempts:
                session._forget_provider_count(attempt + 1)
                raise
            continue
        await session.arecord(done)
        return done
    raise AssertionError("unreachable")  # pragma: no cover
