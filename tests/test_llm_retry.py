"""RetryPolicy: which failures are retried, how long it waits, Retry-After parsing."""

from __future__ import annotations

import asyncio
import email.utils

import httpx
import pytest

from contextwindow.errors import ContextOverflowError, ProviderError, ProviderTimeoutError, RateLimitError
from contextwindow.llm.overflow import ErrorInfo, describe_error, error_from_info
from contextwindow.llm.retry import NO_RETRY, RetryPolicy, parse_retry_after


class Flaky:
    """Fails with the given errors, then returns "ok"."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def test_backoff_delays_then_success() -> None:
    slept: list[float] = []
    fn = Flaky(RateLimitError("busy"), ProviderError("bad gateway", status=502), ProviderTimeoutError("slow"))
    assert RetryPolicy(sleep=slept.append).run(fn) == "ok"
    assert slept == [1.0, 2.0, 4.0] and fn.calls == 4


def test_exhausted_raises_the_last_error_after_all_delays() -> None:
    slept: list[float] = []
    errors = [ProviderError(f"boom {i}", status=500) for i in range(6)]
    with pytest.raises(ProviderError, match="boom 5"):
        RetryPolicy(sleep=slept.append).run(Flaky(*errors))
    assert slept == [1.0, 2.0, 4.0, 8.0, 16.0]


@pytest.mark.parametrize(
    "exc",
    [
        ContextOverflowError("too long", status=400),
        error_from_info(describe_error(500, {"error": {"message": "the request exceeds the available context size"}})),
        ProviderError("bad request", status=400),
        ProviderError("unauthorized", status=401),
        error_from_info(ErrorInfo(kind="rate_limit", status=429, code="insufficient_quota")),
        ValueError("not a provider error"),
    ],
    ids=["overflow", "overflow-500", "400", "401", "insufficient-quota", "value-error"],
)
def test_not_retried(exc: Exception) -> None:
    slept: list[float] = []
    fn = Flaky(exc)
    with pytest.raises(type(exc)):
        RetryPolicy(sleep=slept.append).run(fn)
    assert fn.calls == 1 and slept == []


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
def test_retried_statuses(status: int) -> None:
    slept: list[float] = []
    assert RetryPolicy(sleep=slept.append).run(Flaky(ProviderError("x", status=status))) == "ok"
    assert slept == [1.0]


def test_retry_after_replaces_backoff_and_is_capped() -> None:
    slept: list[float] = []
    hinted = error_from_info(ErrorInfo(kind="rate_limit", status=429, retry_after=7.5))
    huge = error_from_info(ErrorInfo(kind="rate_limit", status=429, retry_after=9999))
    policy = RetryPolicy(sleep=slept.append, max_retry_after=30)
    assert policy.run(Flaky(hinted, huge, RateLimitError("plain"))) == "ok"
    assert slept == [7.5, 30.0, 4.0]


def test_no_retry_policy() -> None:
    fn = Flaky(RateLimitError("busy"))
    with pytest.raises(RateLimitError):
        NO_RETRY.run(fn)
    assert fn.calls == 1 and NO_RETRY.attempts == 1


def test_async_run_uses_async_sleep() -> None:
    slept: list[float] = []

    async def record(s: float) -> None:
        slept.append(s)

    errors = [RateLimitError("a"), ProviderTimeoutError("b")]

    async def fn() -> str:
        if errors:
            raise errors.pop(0)
        return "ok"

    policy = RetryPolicy(delays=(0.5, 3.0), async_sleep=record, sleep=lambda s: pytest.fail("sync sleep used"))
    assert asyncio.run(policy.arun(fn)) == "ok"
    assert slept == [0.5, 3.0]


def test_parse_retry_after_forms() -> None:
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 12, usegmt=True)
    assert parse_retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after": "1.5"})) == 1.5
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert parse_retry_after(httpx.Headers({"Retry-After": date}), now=lambda: now) == pytest.approx(12.0)
    past = email.utils.formatdate(now - 100, usegmt=True)
    assert parse_retry_after(httpx.Headers({"Retry-After": past}), now=lambda: now) == 0.0
    assert parse_retry_after(httpx.Headers({"Retry-After": "-4"})) == 0.0
    for bad in ("soon", "nan", "inf", ""):
        assert parse_retry_after(httpx.Headers({"Retry-After": bad})) is None
    assert parse_retry_after(httpx.Headers({})) is None
