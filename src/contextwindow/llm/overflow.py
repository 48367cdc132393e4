"""Classify provider errors, context overflow first.

Providers say "the context is too long" in many ways. :data:`OVERFLOW_RULES` is a table
(data, not a chain of ifs): each rule names a provider shape, the HTTP statuses it applies to,
the error codes/types that mean overflow, and a message pattern whose named groups carry the
numbers (``requested``, ``limit``; or ``input`` + ``output`` that add up to the request).
:func:`classify_error` answers one :data:`ErrorKind`; :func:`describe_error` answers the full
:class:`ErrorInfo` (kind, code, message, numbers, matching rule).

The clients turn an :class:`ErrorInfo` into the library's typed errors with
:func:`error_from_info`; each carries ``info`` so callers (the reactive compaction layer, the
retry policy) can read the numbers::

    ProviderError                  (contextwindow.errors)
    └── HTTPProviderError          .info: ErrorInfo
        ├── HTTPContextOverflowError   also a ContextOverflowError; never retried
        ├── HTTPRateLimitError         also a RateLimitError; retried, Retry-After honoured
        ├── HTTPTimeoutError           also a ProviderTimeoutError; retried
        ├── HTTPConnectionError        refused, reset, DNS; retried
        └── HTTPStatusError            auth / bad_request / server / other
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..errors import ContextOverflowError, ProviderError, ProviderTimeoutError, RateLimitError

ErrorKind = Literal["context_overflow", "rate_limit", "timeout", "auth", "bad_request", "server", "connection", "other"]

_MAX_SCAN = 16_384  # characters of a message the patterns look at (bounded regex work)


@dataclass(frozen=True, slots=True)
class OverflowRule:
    """One way a provider says "context too long".

    ``codes`` match the error's code/type/status fields (case-insensitive); ``pattern`` is a
    case-insensitive regex searched in the error message. Either one matching is enough.
    ``statuses`` limits the rule to those HTTP statuses (``None`` in the set = no status known,
    e.g. an SDK exception); ``None`` means any status except 401/403/429.
    ``requested_field``/``limit_field`` name numeric fields of the error object (llama.cpp)."""

    name: str
    provider: str
    pattern: str | None = None
    codes: frozenset[str] = frozenset()
    statuses: frozenset[int | None] | None = None
    requested_field: str | None = None
    limit_field: str | None = None


_CLIENT = frozenset({400, 413, 422, None})
_ANY_ERR = frozenset({400, 413, 422, 500, None})

OVERFLOW_RULES: tuple[OverflowRule, ...] = (
    OverflowRule(
        "openai.context_length_exceeded",
        "openai",
        # vLLM's "max_tokens is too large" adds "(MAX_TOKENS > LIMIT - INPUT)": the request is both
        pattern=r"maximum context length is (?P<limit>\d+) tokens.{0,80}?(?:resulted in|requested(?: about)?|request has) (?P<requested>\d+)"
        r"(?: input tokens \((?P<output>\d+) > \d+ - \d+\))?",
        codes=frozenset({"context_length_exceeded"}),
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "openai.input_exceeds_limit",
        "openai",
        pattern=r"input tokens exceed the configured limit of (?P<limit>\d+) tokens.{0,40}?resulted in (?P<requested>\d+)",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "vllm.max_context",
        "vllm",
        pattern=r"maximum context length is (?P<limit>\d+) tokens(?:.{0,80}?(?:requested|has) (?P<requested>\d+))?",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "anthropic.prompt_too_long",
        "anthropic",
        pattern=r"prompt is too long(?::\s*(?P<requested>\d+) tokens\s*>\s*(?P<limit>\d+))?",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "anthropic.input_plus_max_tokens",
        "anthropic",
        pattern=r"input length and `?max_tokens`? exceed context limit:\s*(?P<input>\d+)\s*\+\s*(?P<output>\d+)\s*>\s*(?P<limit>\d+)",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "anthropic.request_too_large",
        "anthropic",
        codes=frozenset({"request_too_large"}),
        statuses=frozenset({413}),
    ),
    OverflowRule(
        "gemini.input_token_count",
        "gemini",
        pattern=r"input token count \((?P<requested>\d+)\) exceeds the maximum number of tokens allowed \((?P<limit>\d+)\)",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "bedrock.input_too_long",
        "bedrock",
        pattern=r"input is too long for (?:the )?requested model|too many input tokens",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "llamacpp.exceed_context_size",
        "llama.cpp",
        pattern=r"exceeds the available context size",
        codes=frozenset({"exceed_context_size_error"}),
        statuses=_ANY_ERR,
        requested_field="n_prompt_tokens",
        limit_field="n_ctx",
    ),
    OverflowRule(
        "ollama.context_length",
        "ollama",
        pattern=r"input length exceeds (?:the )?(?:maximum )?context length|context length exceeded",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "mistral.too_large_for_model",
        "mistral",
        pattern=r"prompt contains (?P<requested>\d+) tokens.{0,80}?too large for model with (?P<limit>\d+) maximum context length",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "xai.maximum_prompt_length",
        "xai",
        pattern=r"maximum prompt length is (?P<limit>\d+) but the request contains (?P<requested>\d+) tokens",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "tgi.inputs_plus_new_tokens",
        "tgi",
        pattern=r"`?inputs`? tokens \+ `?max_new_tokens`? must be <= (?P<limit>\d+)\.\s*given:\s*(?P<input>\d+) `?inputs`? tokens and (?P<output>\d+)",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "cohere.too_many_tokens",
        "cohere",
        pattern=r"too many tokens:.{0,80}?cannot exceed (?P<limit>\d+)(?:\s*-\s*received (?P<requested>\d+))?",
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "litellm.context_window_exceeded",
        "litellm",
        pattern=r"ContextWindowExceededError",
        codes=frozenset({"contextwindowexceedederror"}),
        statuses=_ANY_ERR,
    ),
    OverflowRule(
        "generic.context_window",
        "generic",
        pattern=r"exceeds? (?:the |your |this )?(?:model'?s? )?(?:maximum )?context (?:window|length|size)|context (?:window|length) (?:is )?exceeded",
        statuses=_CLIENT,
    ),
)

# Non-overflow kinds: by provider code/type first (a 400 whose type says "rate limit" is rare but
# exists on gateways), then by HTTP status.
CODE_KINDS: tuple[tuple[frozenset[str], ErrorKind], ...] = (
    (
        frozenset({
            "rate_limit_exceeded", "rate_limit_error", "overloaded_error", "resource_exhausted",
            "throttlingexception", "too_many_requests", "insufficient_quota", "servicequotaexceededexception",
        }),
        "rate_limit",
    ),
    (
        frozenset({
            "authentication_error", "permission_error", "invalid_api_key", "unauthenticated", "permission_denied",
            "accessdeniedexception", "unrecognizedclientexception", "invalid_authentication",
        }),
        "auth",
    ),
    (frozenset({"timeout", "deadline_exceeded", "request_timeout", "modeltimeoutexception"}), "timeout"),
    (
        frozenset({
            "api_error", "internal_server_error", "internal", "unavailable", "server_error",
            "serviceunavailableexception", "internalserverexception", "modelnotreadyexception",
        }),
        "server",
    ),
    (
        frozenset({
            "invalid_request_error", "invalid_argument", "validationexception", "not_found_error",
            "invalid_request_message_error", "failed_precondition", "invalid_function_parameters",
        }),
        "bad_request",
    ),
)

STATUS_KINDS: Mapping[int, ErrorKind] = {
    401: "auth",
    403: "auth",
    408: "timeout",
    429: "rate_limit",
    504: "timeout",
    529: "rate_limit",  # Anthropic "overloaded"
}

_NEVER_OVERFLOW = frozenset({401, 403, 429})


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What a provider error means. ``requested``/``limit`` are token counts when the provider
    gave them; ``retry_after`` (seconds) comes from response headers, filled in by the client."""

    kind: ErrorKind
    status: int | None = None
    code: str | None = None
    message: str = ""
    provider: str | None = None
    rule: str | None = None
    requested: int | None = None
    limit: int | None = None
    retry_after: float | None = None


@dataclass(slots=True)
class _Parsed:
    codes: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)


def _collect(obj: Mapping[str, Any], out: _Parsed) -> None:
    for key in ("code", "type", "status", "__type", "reason"):
        v = obj.get(key)
        if isinstance(v, str) and v and not (key == "type" and v == "error"):
            # Bedrock: "com.amazon.coral.validate#ValidationException:http://..." -> ValidationException
            out.codes.append(v.rsplit("#", 1)[-1].split(":", 1)[0].strip())
    for key in ("message", "Message", "detail", "msg", "error_description"):
        v = obj.get(key)
        if isinstance(v, str) and v:
            out.messages.append(v)
        elif isinstance(v, list):  # FastAPI-style detail lists
            out.messages.extend(str(d.get("msg", d)) if isinstance(d, Mapping) else str(d) for d in v)
    for k, v in obj.items():
        if isinstance(v, int) and not isinstance(v, bool):
            out.numbers.setdefault(k, v)


_HTML = re.compile(r"\s*<(?:!doctype|html|head|body|title|center|h1|p)\b", re.IGNORECASE)


def _html_text(page: str) -> str:
    """The text of an HTML error page (a proxy's 413/502), on one line: tags, scripts and
    styles dropped, entities decoded, repeats (a title echoed as the heading) kept once."""
    page = re.sub(r"<(script|style)\b.*?</\1\s*>", " ", page[:_MAX_SCAN], flags=re.IGNORECASE | re.DOTALL)
    words: list[str] = []
    for chunk in re.split(r"<[^>]*>", page):
        line = " ".join(html.unescape(chunk).split())
        if line and line not in words:
            words.append(line)
    return " ".join(words)


def _parse_body(body: str | bytes | Mapping[str, Any] | list[Any] | None) -> _Parsed:
    out = _Parsed()
    data: Any = body
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            text = _html_text(data) if _HTML.match(data) else data.strip()
            if text:
                out.messages.append(text)
            return out
    if isinstance(data, list) and data:  # Gemini REST sometimes wraps the error in a list
        data = data[0]
    if isinstance(data, str):
        out.messages.append(data)
        return out
    if not isinstance(data, Mapping):
        return out
    err = data.get("error")
    if isinstance(err, Mapping):
        _collect(err, out)
        inner = err.get("error")  # gateways nest the upstream error
        if isinstance(inner, Mapping):
            _collect(inner, out)
    elif isinstance(err, str) and err:
        out.messages.append(err)
    _collect(data, out)
    if not out.messages and not out.codes:
        out.messages.append(json.dumps(data, ensure_ascii=False)[:_MAX_SCAN])
    return out


def _status_allows(rule: OverflowRule, status: int | None) -> bool:
    if status in _NEVER_OVERFLOW:
        return False
    if rule.statuses is None:
        return True
    return status in rule.statuses or (status is not None and 200 <= status < 300 and None in rule.statuses)


def _numbers(rule: OverflowRule, text: str, parsed: _Parsed) -> tuple[int | None, int | None]:
    requested = parsed.numbers.get(rule.requested_field) if rule.requested_field else None
    limit = parsed.numbers.get(rule.limit_field) if rule.limit_field else None
    if rule.pattern:
        m = re.search(rule.pattern, text, re.IGNORECASE | re.DOTALL)
        if m:
            g = {k: int(v) for k, v in m.groupdict().items() if v is not None}
            if requested is None:
                requested = g.get("requested")
                if requested is None and "input" in g:
                    requested = g["input"] + g.get("output", 0)
                elif requested is not None and "output" in g:
                    requested += g["output"]
            if limit is None:
                limit = g.get("limit")
    return requested, limit


def _match_overflow(status: int | None, parsed: _Parsed, provider: str | None) -> ErrorInfo | None:
    text = "\n".join(parsed.messages)[:_MAX_SCAN]
    codes = {c.lower() for c in parsed.codes}
    rules = sorted(OVERFLOW_RULES, key=lambda r: r.provider != provider) if provider else OVERFLOW_RULES
    for rule in rules:
        if not _status_allows(rule, status):
            continue
        hit = bool(codes & rule.codes) or bool(rule.pattern and re.search(rule.pattern, text, re.IGNORECASE | re.DOTALL))
        if not hit:
            continue
        requested, limit = _numbers(rule, text, parsed)
        if requested is None or limit is None:  # another rule's pattern may carry the numbers
            for other in OVERFLOW_RULES:
                if other is not rule and (requested is None or limit is None):
                    r2, l2 = _numbers(other, text, parsed)
                    requested = requested if requested is not None else r2
                    limit = limit if limit is not None else l2
        return ErrorInfo(
            kind="context_overflow",
            status=status,
            code=parsed.codes[0] if parsed.codes else None,
            message=text,
            provider=provider or rule.provider,
            rule=rule.name,
            requested=requested,
            limit=limit,
        )
    return None


def describe_error(
    status: int | None,
    body: str | bytes | Mapping[str, Any] | list[Any] | None,
    provider: str | None = None,
) -> ErrorInfo:
    """Everything :func:`classify_error` knows about an error: kind, code, message, numbers."""
    parsed = _parse_body(body)
    found = _match_overflow(status, parsed, provider)
    if found is not None:
        return found
    text = "\n".join(parsed.messages)[:_MAX_SCAN]
    code = parsed.codes[0] if parsed.codes else None
    kind: ErrorKind | None = STATUS_KINDS.get(status) if status is not None else None
    if kind is None:
        codes = {c.lower() for c in parsed.codes}
        kind = next((k for names, k in CODE_KINDS if codes & names), None)
    if kind is None and status is not None:
        kind = "server" if status >= 500 else "bad_request" if 400 <= status < 500 else "other"
    return ErrorInfo(kind=kind or "other", status=status, code=code, message=text, provider=provider)


def classify_error(
    status: int | None,
    body: str | bytes | Mapping[str, Any] | list[Any] | None,
    provider: str | None = None,
) -> ErrorKind:
    """The kind of a provider error, from its HTTP status (``None`` when unknown), its body
    (JSON text, a parsed object, or plain text) and, optionally, the provider's name (its
    rules are tried first)."""
    return describe_error(status, body, provider).kind


# --- typed errors ----------------------------------------------------------------------------


class HTTPProviderError(ProviderError):
    """Base of the errors the HTTP clients raise; ``info`` says what the provider meant."""

    def __init__(self, message: str, *, info: ErrorInfo, body: str | None = None) -> None:
        super().__init__(message, status=info.status, body=body)
        self.info = info


class HTTPContextOverflowError(HTTPProviderError, ContextOverflowError):
    """The provider said the context is too long; ``info.requested``/``info.limit`` when known."""


class HTTPRateLimitError(HTTPProviderError, RateLimitError):
    """429 / overloaded after the retries; ``info.retry_after`` is the last hint."""


class HTTPTimeoutError(HTTPProviderError, ProviderTimeoutError):
    """No answer in time (client timeout, 408, 504) after the retries."""


class HTTPConnectionError(HTTPProviderError):
    """The server could not be reached (refused, reset, DNS) after the retries."""


class HTTPStatusError(HTTPProviderError):
    """Any other provider error: auth, bad request, server error, garbage response."""


_CLASSES: Mapping[ErrorKind, type[HTTPProviderError]] = {
    "context_overflow": HTTPContextOverflowError,
    "rate_limit": HTTPRateLimitError,
    "timeout": HTTPTimeoutError,
    "connection": HTTPConnectionError,
}


def error_from_info(info: ErrorInfo, *, model: str | None = None, body: str | None = None) -> HTTPProviderError:
    """The typed error for ``info``, with a message that says what happened and what to do."""
    who = f"{info.provider or 'provider'}{f' model {model!r}' if model else ''}"
    status = f"HTTP {info.status}" if info.status is not None else "no HTTP status"
    detail = info.message.strip().splitlines()[0][:300] if info.message.strip() else "(no message)"
    if info.kind == "context_overflow":
        nums = ""
        if info.requested is not None or info.limit is not None:
            nums = f" ({info.requested if info.requested is not None else '?'} tokens > limit {info.limit if info.limit is not None else '?'})"
        msg = f"{who}: context too long{nums}, {status}: {detail}. Compact the conversation and retry."
    elif info.kind == "rate_limit":
        msg = f"{who}: rate limited or overloaded ({status}) after retries: {detail}"
    elif info.kind == "timeout":
        msg = f"{who}: no answer in time ({status}) after retries: {detail}"
    elif info.kind == "connection":
        msg = f"{who}: could not connect after retries: {detail}"
    elif info.kind == "auth":
        msg = f"{who}: authentication failed ({status}): {detail}. Check the API key."
    else:
        msg = f"{who}: {info.kind.replace('_', ' ')} ({status}): {detail}"
    cls = _CLASSES.get(info.kind, HTTPStatusError)
    return cls(msg, info=info, body=body)


def with_retry_after(info: ErrorInfo, retry_after: float | None) -> ErrorInfo:
    return info if retry_after is None else replace(info, retry_after=retry_after)
