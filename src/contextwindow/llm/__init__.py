"""Model calls: the :class:`ChatModel` protocol, HTTP clients, retries, error classification.

- :mod:`.base`          Completion, ChatModel, ScriptedModel (a real fake for tests and demos)
- :mod:`.openai_compat` OpenAICompatibleModel: any ``/chat/completions`` endpoint
- :mod:`.anthropic`     AnthropicModel: ``/v1/messages``
- :mod:`.retry`         RetryPolicy (1, 2, 4, 8, 16 s; Retry-After; never on overflow)
- :mod:`.overflow`      classify_error / describe_error: the provider error table
- :mod:`.localserver`   LocalProviderServer: a real local HTTP server speaking both protocols
"""

from __future__ import annotations

from .anthropic import AnthropicModel
from .base import ChatModel, Completion, ScriptedCall, ScriptedModel, ScriptExhaustedError
from .localserver import LocalProviderServer, ReceivedRequest, Reply, ToolCallSpec
from .openai_compat import OpenAICompatibleModel
from .overflow import (
    OVERFLOW_RULES,
    ErrorInfo,
    ErrorKind,
    HTTPConnectionError,
    HTTPContextOverflowError,
    HTTPProviderError,
    HTTPRateLimitError,
    HTTPStatusError,
    HTTPTimeoutError,
    OverflowRule,
    classify_error,
    describe_error,
)
from .retry import NO_RETRY, RetryPolicy, parse_retry_after

__all__ = [
    "NO_RETRY",
    "OVERFLOW_RULES",
    "AnthropicModel",
    "ChatModel",
    "Completion",
    "ErrorInfo",
    "ErrorKind",
    "HTTPConnectionError",
    "HTTPContextOverflowError",
    "HTTPProviderError",
    "HTTPRateLimitError",
    "HTTPStatusError",
    "HTTPTimeoutError",
    "LocalProviderServer",
    "OpenAICompatibleModel",
    "OverflowRule",
    "ReceivedRequest",
    "Reply",
    "RetryPolicy",
    "ScriptExhaustedError",
    "ScriptedCall",
    "ScriptedModel",
    "ToolCallSpec",
    "classify_error",
    "describe_error",
    "parse_retry_after",
]
