"""Retries with backoff for model calls, sync and async.

:class:`RetryPolicy` waits ``delays`` seconds between attempts (1, 2, 4, 8, 16 by default: six
attempts in all). A ``Retry-After`` hint from the server (seconds, an HTTP date, or OpenAI's
``retry-after-ms``) replaces the backoff delay, capped at ``max_retry_after``. It retries rate
limits, timeouts, connection failures and 408/409/429/5xx answers; it never retries a context
overflow (the request would fail the same way: compact first) nor any other 4xx.

``deadline_s`` is the caller's total time for the call, retries included: a wait that would end
past it is not started — a ``Retry-After`` longer than what is left raises
:class:`~contextwindow.errors.RetryAfterTooLongError` at once (typed, retryable: it carries the
seconds asked for), and a back-off past it re-raises the last error.

``sleep``/``async_sleep`` are injectable, so tests record the delays instead of waiting::

    slept: list[float] = []
    policy = RetryPolicy(sleep=slept.append)
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from ..errors import (
    ConfigError,
    ContextOverflowError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    RetryAfterTooLongError,
)
from .overflow import HTTPProviderError

T = TypeVar("T")

RETRY_KINDS = frozenset({"rate_limit", "timeout", "server", "connection"})
NO_RETRY_CODES = frozenset({"insufficient_quota"})  # a 429 that waiting does not fix
#: ``ErrorInfo.code`` of a connection that could not even be opened (refused, DNS, TLS).
CONNECT_FAILED = "connect_failed"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to retry. ``delays`` = the waits between attempts (its length is
    the number of retries; ``()`` = no retry). ``connect_retries`` caps the retries of a
    connection that could not be opened at all (nothing listening, DNS): a server that is down
    fails in about 3 s instead of 31 s of backoff."""

    delays: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0)
    retry_statuses: frozenset[int] = frozenset({408, 409, 429})
    max_retry_after: float = 120.0
    sleep: Callable[[float], None] = time.sleep
    async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    connect_retries: int = 2
    deadline_s: float | None = None  # the caller's total time for one call, retries included
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        d = self.deadline_s
        if d is not None and (isinstance(d, bool) or not isinstance(d, int | float) or not d > 0):
            raise ConfigError(f"RetryPolicy.deadline_s must be a positive number of seconds or None, got {d!r}")

    @property
    def attempts(self) -> int:
        """Attempts in all, the first included."""
        return len(self.delays) + 1

    def retryable_status(self, status: int) -> bool:
        return status in self.retry_statuses or status >= 500

    def should_retry(self, exc: BaseException) -> bool:
        """Whether ``exc`` is worth another attempt (never a context overflow)."""
        if isinstance(exc, ContextOverflowError):
            return False
        if isinstance(exc, HTTPProviderError):
            info = exc.info
            if info.code is not None and info.code.lower() in NO_RETRY_CODES:
                return False
            return info.kind in RETRY_KINDS or (info.status is not None and self.retryable_status(info.status))
        if isinstance(exc, (RateLimitError, ProviderTimeoutError)):
            return True
        if isinstance(exc, ProviderError) and exc.status is not None:
            return self.retryable_status(exc.status)
        return False

    def retries_for(self, exc: BaseException) -> int:
        """How many retries ``exc`` gets in all (a failed connect gets ``connect_retries``)."""
        if isinstance(exc, HTTPProviderError) and exc.info.code == CONNECT_FAILED:
            return min(len(self.delays), self.connect_retries)
        return len(self.delays)

    def delay_for(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based): the server's hint when it
        gave one (capped at ``max_retry_after``), else ``delays[retry]``."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return self.delays[min(retry, len(self.delays) - 1)]

    def _wait_for(self, retry: int, exc: Exception, started: float) -> float:
        """The wait before the next attempt; raises when it would end past ``deadline_s``."""
        hint = retry_after_of(exc)
        delay = self.delay_for(retry, hint)
        if self.deadline_s is None:
            return delay
        left = self.deadline_s - (self.clock() - started)
        if hint is not None and hint > left:
            raise RetryAfterTooLongError(
                f"the provider asks to wait {hint:g} s (Retry-After) but only {max(left, 0):.3g} s of the "
                f"{self.deadline_s:g} s deadline are left; not waiting. Retry after {hint:g} s. Last error: {exc}",
                retry_after=hint,
                status=getattr(exc, "status", None),
            ) from exc
        if delay > left:
            raise exc
        return delay

    def run(self, fn: Callable[[], T]) -> T:
        """Call ``fn`` until it returns, retrying what :meth:`should_retry` allows."""
        started = self.clock()
        for retry in range(self.attempts):
            try:
                return fn()
            except Exception as exc:
                if retry >= self.retries_for(exc) or not self.should_retry(exc):
                    raise
                self.sleep(self._wait_for(retry, exc, started))
        raise AssertionError("unreachable")  # pragma: no cover

    async def arun(self, fn: Callable[[], Awaitable[T]]) -> T:
        """:meth:`run` for coroutines; waits with ``async_sleep``."""
        started = self.clock()
        for retry in range(self.attempts):
            try:
                return await fn()
            except Exception as exc:
                if retry >= self.retries_for(exc) or not self.should_retry(exc):
                    raise
                await self.async_sleep(self._wait_for(retry, exc, started))
        raise AssertionError("unreachable")  # pragma: no cover


NO_RETRY = RetryPolicy(delays=())


def retry_after_of(exc: BaseException) -> float | None:
    """The server's Retry-After hint carried by an HTTP client error, if any."""
    return exc.info.retry_after if isinstance(exc, HTTPProviderError) else None


def _number(text: str | None) -> float | None:
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return max(v, 0.0) if math.isfinite(v) else None


def parse_retry_after(headers: Mapping[str, str], *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from ``retry-after-ms``, or ``retry-after`` in seconds or as an HTTP date.
    ``headers`` must look names up case-insensitively (httpx.Headers does). ``None`` when absent
    or unreadable; never negative."""
    ms = _number(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000.0
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:  # pragma: no cover - older Pythons
        return None
    return max(when.timestamp() - now(), 0.0)
