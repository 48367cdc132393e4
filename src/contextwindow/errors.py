"""Errors raised by contextwindow.

Every error the library raises derives from :class:`ContextWindowError`. Misuse (a bad
argument or configuration) is kept apart from runtime failures (a provider that errs, a
budget that cannot be met), so callers can catch one family and let the other surface::

    ContextWindowError
    ├── ConfigError                  misuse: bad argument, option, environment value
    │   └── UnknownModelError        a model the registry does not know (says how to set limits)
    ├── InputError                   bad data handed in by a user (names where and what)
    │   ├── PayloadError             a malformed message / provider payload (index + field)
    │   ├── ImportFormatError        a transcript that cannot be imported
    │   └── TokenizeError            text that cannot be counted (too large, not text)
    ├── StoreError                   the conversation store
    │   ├── NotFoundError            unknown conversation id, message id or offload ref
    │   │   └── AmbiguousRefError    a msg-<seq> ref that names different messages across a fork's lineage
    │   ├── StoreBusyError           the database stayed locked past the bound
    │   ├── StoreCorruptError        a file that is not (or no longer) a contextwindow store
    │   └── SelectionError           an invalid curation selection (fold + its own turns, ...)
    ├── LimitExceeded                a session limit (turns, tokens, tool calls, cost, wall time)
    ├── CompactionError              compaction could not reach its target (carries the numbers)
    ├── InvalidPayloadError          a payload that would break provider rules (a bug guard)
    └── ProviderError                a model call failed
        ├── ContextOverflowError     the provider said the context is too long
        ├── RateLimitError           429 / overloaded, after retries
        ├── ProviderTimeoutError     no answer in time, after retries
        │   └── DeadlineExceededError  a model call inside build()/fold() passed its total deadline
        ├── RetryAfterTooLongError   the provider asked to wait past the caller's deadline (retryable)
        └── SummarizerError          the summarizer failed or returned nothing usable
"""

from __future__ import annotations


class ContextWindowError(Exception):
    """Root of every error raised by contextwindow."""


class ConfigError(ContextWindowError):
    """A bad argument, option or environment value (misuse, not a runtime failure)."""


class UnknownModelError(ConfigError):
    """A model name the registry does not know."""

    def __init__(self, model: str, hint: str = "") -> None:
        self.model = model
        msg = (
            f"unknown model {model!r}: not in the bundled models.dev data nor in the override file. "
            "Set its limits by hand with --window/--max-output (or ModelSpec(...)), or add it to the "
            "override file named by CONTEXTWINDOW_MODELS_FILE"
        )
        super().__init__(msg + (f" ({hint})" if hint else ""))


class InputError(ContextWindowError):
    """Bad data handed in by a user; the message names where and what."""


class PayloadError(InputError):
    """A malformed message or provider payload. ``index`` and ``field`` say where."""

    def __init__(self, message: str, *, index: int | None = None, field: str | None = None) -> None:
        self.index = index
        self.field = field
        where = []
        if index is not None:
            where.append(f"message {index}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class ImportFormatError(InputError):
    """A transcript file that cannot be imported at all."""


class TokenizeError(InputError):
    """Text that cannot be counted (not text, or past the size bound)."""


class StoreError(ContextWindowError):
    """A failure of the conversation store."""


class NotFoundError(StoreError):
    """An unknown conversation id, message id or offload ref."""


class AmbiguousRefError(NotFoundError):
    """A ``msg-<seq>`` ref whose number holds different messages in a fork and its sources
    (contextwindow/fork_refs.py): the message it named cannot be told, so none is read."""


class StoreBusyError(StoreError):
    """The database stayed locked longer than the configured bound."""


class StoreCorruptError(StoreError):
    """A file that is not, or is no longer, a contextwindow store. It is never overwritten."""


class SelectionError(StoreError):
    """An invalid curation selection."""


class LimitExceeded(ContextWindowError):
    """A session limit was reached. ``limit`` names it, ``value``/``maximum`` give the numbers."""

    def __init__(self, limit: str, value: float, maximum: float) -> None:
        self.limit = limit
        self.value = value
        self.maximum = maximum
        super().__init__(f"session limit {limit!r} exceeded: {value:g} > {maximum:g}")


class CompactionError(ContextWindowError):
    """Compaction could not bring the context within budget; carries the numbers."""

    def __init__(self, message: str, *, tokens: int | None = None, budget: int | None = None) -> None:
        self.tokens = tokens
        self.budget = budget
        super().__init__(message)


class InvalidPayloadError(ContextWindowError):
    """A payload would violate the provider's structural rules (guards invariant 2).

    ``index`` (the message or item of the payload) and ``rule`` (a code of the provider rules in
    :mod:`contextwindow.formats.rules`) say where and what, when known."""

    def __init__(self, message: str, *, index: int | None = None, rule: str | None = None) -> None:
        self.index = index
        self.rule = rule
        super().__init__(message)


class ProviderError(ContextWindowError):
    """A model call failed. ``status`` and ``body`` keep what the provider said."""

    def __init__(self, message: str, *, status: int | None = None, body: str | None = None) -> None:
        self.status = status
        self.body = body
        super().__init__(message)


class ContextOverflowError(ProviderError):
    """The provider rejected the request because the context is too long."""


class RateLimitError(ProviderError):
    """Rate limited or overloaded, after the configured retries."""


class ProviderTimeoutError(ProviderError):
    """The provider did not answer in time, after the configured retries."""


class DeadlineExceededError(ProviderTimeoutError):
    """A model call made inside ``build()``/``fold()`` (summarizer, title) did not finish within
    its total deadline; the caller used its fallback (the extractive brief, a first-line title)."""


class RetryAfterTooLongError(RateLimitError):
    """The provider asked to wait (``Retry-After``) longer than the caller's deadline allows.
    Raised at once instead of sleeping; ``retry_after`` holds the seconds it asked for. Retryable:
    try again after that long."""

    retryable = True

    def __init__(self, message: str, *, retry_after: float, status: int | None = None, body: str | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message, status=status, body=body)


class SummarizerError(ProviderError):
    """The summarizer failed or returned nothing usable."""


class WorkerError(ContextWindowError):
    """The lean proxy front's worker process could not be kept running (``ctxw proxy --front lean``)."""
