"""Error classification over real-shaped provider error bodies (written from the providers'
documented and commonly observed shapes)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextwindow.errors import ContextOverflowError, ProviderError, ProviderTimeoutError, RateLimitError
from contextwindow.llm.overflow import (
    OVERFLOW_RULES,
    ErrorInfo,
    HTTPContextOverflowError,
    HTTPStatusError,
    classify_error,
    describe_error,
    error_from_info,
)

# (id, status, body, provider, kind, requested, limit)
CASES: list[tuple[str, int | None, object, str | None, str, int | None, int | None]] = [
    (
        "openai-context_length_exceeded",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in "
                "130412 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        "openai",
        "context_overflow",
        130412,
        128000,
    ),
    (
        "openai-code-only",
        400,
        {"error": {"message": "Please reduce the length of the messages.", "type": "invalid_request_error", "code": "context_length_exceeded"}},
        None,
        "context_overflow",
        None,
        None,
    ),
    (
        "openai-responses-input-limit",
        400,
        {
            "error": {
                "message": "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 301122 tokens. "
                "Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        },
        "openai",
        "context_overflow",
        301122,
        272000,
    ),
    (
        "azure-openai",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens "
                "(7976 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        "openai",
        "context_overflow",
        9000,
        8192,
    ),
    (
        "vllm-requested",
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens "
            "(4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        "vllm",
        "context_overflow",
        5120,
        4096,
    ),
    (
        "vllm-input-tokens",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 32768 tokens. However, your request has 40021 input tokens. "
                "Please reduce the length of the input messages.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
        },
        None,
        "context_overflow",
        40021,
        32768,
    ),
    (
        "anthropic-prompt-too-long",
        400,
        {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 208310 tokens > 200000 maximum"}},
        "anthropic",
        "context_overflow",
        208310,
        200000,
    ),
    (
        "anthropic-input-plus-max-tokens",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "input length and `max_tokens` exceed context limit: 197202 + 21333 > 200000, "
                "decrease input length or `max_tokens` and try again",
            },
        },
        "anthropic",
        "context_overflow",
        218535,
        200000,
    ),
    (
        "anthropic-413",
        413,
        {"type": "error", "error": {"type": "request_too_large", "message": "Request exceeds the maximum allowed number of bytes."}},
        "anthropic",
        "context_overflow",
        None,
        None,
    ),
    (
        "gemini",
        400,
        {
            "error": {
                "code": 400,
                "message": "The input token count (1218223) exceeds the maximum number of tokens allowed (1048576).",
                "status": "INVALID_ARGUMENT",
            }
        },
        "gemini",
        "context_overflow",
        1218223,
        1048576,
    ),
    (
        "gemini-list-wrapped",
        400,
        [{"error": {"code": 400, "message": "The input token count (40000) exceeds the maximum number of tokens allowed (32768).", "status": "INVALID_ARGUMENT"}}],
        None,
        "context_overflow",
        40000,
        32768,
    ),
    (
        "bedrock-input-too-long",
        400,
        {"message": "Input is too long for requested model."},
        "bedrock",
        "context_overflow",
        None,
        None,
    ),
    (
        "bedrock-no-status",
        None,
        {"__type": "com.amazon.coral.validate#ValidationException", "message": "The model returned the following errors: too many input tokens"},
        None,
        "context_overflow",
        None,
        None,
    ),
    (
        "bedrock-anthropic-inside",
        400,
        {"message": "The model returned the following errors: prompt is too long: 210000 tokens > 200000 maximum"},
        "bedrock",
        "context_overflow",
        210000,
        200000,
    ),
    (
        "llamacpp-new",
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5283,
                "n_ctx": 4096,
            }
        },
        "openai",
        "context_overflow",
        5283,
        4096,
    ),
    (
        "llamacpp-old-500",
        500,
        {
            "error": {
                "code": 500,
                "message": "the request exceeds the available context size. try increasing the context size or enable context shift",
                "type": "server_error",
            }
        },
        None,
        "context_overflow",
        None,
        None,
    ),
    (
        "ollama",
        500,
        {"error": "input length exceeds the context length"},
        "ollama",
        "context_overflow",
        None,
        None,
    ),
    (
        "ollama-v1",
        400,
        {"error": {"message": "context length exceeded", "type": "invalid_request_error"}},
        None,
        "context_overflow",
        None,
        None,
    ),
    (
        "mistral",
        400,
        {
            "object": "error",
            "message": "Prompt contains 40157 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
            "type": "invalid_request_message_error",
            "param": None,
            "code": "3051",
        },
        "mistral",
        "context_overflow",
        40157,
        32768,
    ),
    (
        "groq",
        400,
        {"error": {"message": "Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}},
        None,
        "context_overflow",
        None,
        None,
    ),
    (
        "openrouter",
        400,
        {
            "error": {
                "message": "This endpoint's maximum context length is 8192 tokens. However, you requested about 9011 tokens "
                "(8011 of text input, 1000 in the output). Please reduce the length of either one.",
                "code": 400,
            }
        },
        None,
        "context_overflow",
        9011,
        8192,
    ),
    (
        "xai",
        400,
        {"code": "Client specified an invalid argument", "error": "This model's maximum prompt length is 131072 but the request contains 150003 tokens."},
        None,
        "context_overflow",
        150003,
        131072,
    ),
    (
        "tgi",
        422,
        {"error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 3900 `inputs` tokens and 500 `max_new_tokens`", "error_type": "validation"},
        None,
        "context_overflow",
        4400,
        4096,
    ),
    (
        "litellm-proxy",
        400,
        {"error": {"message": "litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 201000 tokens > 200000 maximum", "type": None, "param": None, "code": "400"}},
        None,
        "context_overflow",
        201000,
        200000,
    ),
    (
        "plain-text-body",
        400,
        "This model's maximum context length is 2048 tokens. However, you requested 3000 tokens.",
        None,
        "context_overflow",
        3000,
        2048,
    ),
    # --- negative cases: not overflow -----------------------------------------------------------
    (
        "openai-bad-tool-schema",
        400,
        {
            "error": {
                "message": "Invalid schema for function 'get_weather': In context=('properties', 'unit'), 'enum' is not valid under any of the given schemas.",
                "type": "invalid_request_error",
                "param": "tools[0].function.parameters",
                "code": "invalid_function_parameters",
            }
        },
        "openai",
        "bad_request",
        None,
        None,
    ),
    (
        "anthropic-max-tokens-too-large",
        400,
        {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514"}},
        "anthropic",
        "bad_request",
        None,
        None,
    ),
    (
        "openai-429-tpm-request-too-large",
        429,
        {
            "error": {
                "message": "Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 52000. "
                "The input or output tokens must be reduced in order to run successfully.",
                "type": "tokens",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        },
        "openai",
        "rate_limit",
        None,
        None,
    ),
    (
        "groq-413-tpm",
        413,
        {"error": {"message": "Request too large for model `llama-3.3-70b-versatile` in organization `org_x` on tokens per minute (TPM): Limit 6000, Requested 7200, please reduce your message size and try again.", "type": "tokens", "code": "rate_limit_exceeded"}},
        None,
        "rate_limit",
        None,
        None,
    ),
    (
        "anthropic-429",
        429,
        {"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}},
        "anthropic",
        "rate_limit",
        None,
        None,
    ),
    (
        "anthropic-529-overloaded",
        529,
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        "anthropic",
        "rate_limit",
        None,
        None,
    ),
    (
        "openai-401",
        401,
        {"error": {"message": "Incorrect API key provided: sk-abc***.", "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}},
        "openai",
        "auth",
        None,
        None,
    ),
    (
        "gemini-403",
        403,
        {"error": {"code": 403, "message": "Permission denied", "status": "PERMISSION_DENIED"}},
        "gemini",
        "auth",
        None,
        None,
    ),
    ("openai-500", 500, {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}, None, "server", None, None),
    ("gateway-504", 504, "<html>504 Gateway Time-out</html>", None, "timeout", None, None),
    ("gemini-resource-exhausted-no-status", None, {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}, None, "rate_limit", None, None),
    ("bedrock-throttling-no-status", None, {"__type": "ThrottlingException", "message": "Too many requests, please wait before trying again."}, None, "rate_limit", None, None),
    ("model-not-found-404", 404, {"error": {"message": "The model `gpt-9` does not exist", "type": "invalid_request_error", "code": "model_not_found"}}, None, "bad_request", None, None),
    ("empty-body-502", 502, "", None, "server", None, None),
    ("nothing-known", None, None, None, "other", None, None),
    ("a-429-that-mentions-context", 429, {"error": {"message": "context length exceeded for your tier, slow down"}}, None, "rate_limit", None, None),
]


@pytest.mark.parametrize(("case", "status", "body", "provider", "kind", "requested", "limit"), CASES, ids=[c[0] for c in CASES])
def test_classification_table(case: str, status: int | None, body: object, provider: str | None, kind: str, requested: int | None, limit: int | None) -> None:
    info = describe_error(status, body, provider)  # type: ignore[arg-type]
    assert info.kind == kind, (case, info)
    assert (info.requested, info.limit) == (requested, limit), (case, info)
    assert classify_error(status, body, provider) == kind  # type: ignore[arg-type]


@pytest.mark.parametrize(("case", "status", "body", "provider", "kind", "requested", "limit"), CASES, ids=[c[0] for c in CASES])
def test_json_text_and_object_agree(case: str, status: int | None, body: object, provider: str | None, kind: str, requested: int | None, limit: int | None) -> None:
    if body is None or isinstance(body, str):
        pytest.skip("body is not JSON")
    as_text = describe_error(status, json.dumps(body), provider)
    as_bytes = describe_error(status, json.dumps(body).encode(), provider)
    assert as_text == as_bytes == describe_error(status, body, provider)  # type: ignore[arg-type]


def test_every_rule_is_exercised_by_the_table() -> None:
    overflow_texts = [json.dumps(c[2]) if not isinstance(c[2], str) else c[2] for c in CASES if c[4] == "context_overflow"]
    untested = [
        r.name
        for r in OVERFLOW_RULES
        if r.name not in ("generic.context_window", "cohere.too_many_tokens")  # tested below
        and not any(
            (r.pattern and re.search(r.pattern, t.replace("\\`", "`"), re.IGNORECASE | re.DOTALL)) or any(f'"{c}"' in t.lower() for c in r.codes)
            for t in overflow_texts
        )
    ]
    assert not untested, f"rules without a test case: {untested}"


def test_generic_and_cohere_rules() -> None:
    assert describe_error(400, {"message": "Your prompt exceeds the model's context window."}).kind == "context_overflow"
    info = describe_error(400, {"message": "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4500"})
    assert (info.kind, info.requested, info.limit) == ("context_overflow", 4500, 4081)


def test_provider_hint_orders_rules_without_changing_kind() -> None:
    body = {"error": {"message": "prompt is too long: 300 tokens > 200 maximum", "type": "invalid_request_error"}}
    assert describe_error(400, body, "anthropic").rule == "anthropic.prompt_too_long"
    assert describe_error(400, body, "gemini").kind == "context_overflow"


def test_error_from_info_builds_typed_errors_with_numbers_in_the_message() -> None:
    info = describe_error(400, CASES[0][2], "openai")  # type: ignore[arg-type]
    err = error_from_info(info, model="gpt-4o", body="raw")
    assert isinstance(err, HTTPContextOverflowError) and isinstance(err, ContextOverflowError)
    assert err.info.requested == 130412 and err.status == 400 and err.body == "raw"
    assert "130412 tokens > limit 128000" in str(err) and "gpt-4o" in str(err)
    assert isinstance(error_from_info(ErrorInfo(kind="rate_limit", status=429)), RateLimitError)
    assert isinstance(error_from_info(ErrorInfo(kind="timeout")), ProviderTimeoutError)
    auth = error_from_info(ErrorInfo(kind="auth", status=401, message="bad key"))
    assert isinstance(auth, HTTPStatusError) and isinstance(auth, ProviderError)
    assert "API key" in str(auth)


@given(st.one_of(st.none(), st.text(max_size=300), st.binary(max_size=300)), st.one_of(st.none(), st.integers(100, 599)))
def test_never_raises_on_any_body(body: str | bytes | None, status: int | None) -> None:
    info = describe_error(status, body)
    assert info.kind in {"context_overflow", "rate_limit", "timeout", "auth", "bad_request", "server", "connection", "other"}
    if status in (401, 403, 429):
        assert info.kind != "context_overflow"


def test_huge_body_is_bounded() -> None:
    body = {"error": {"message": "x" * 5_000_000 + " maximum context length is 10 tokens"}}
    info = describe_error(400, body)
    assert info.kind == "bad_request"  # the pattern sits past the scanned prefix: bounded work
    assert len(info.message) <= 16_384


def test_docs_table_names_every_rule() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parent.parent / "docs" / "llm.md"
    if not doc.is_file():
        pytest.skip(f"{doc} not found")
    text = doc.read_text(encoding="utf-8")
    missing = [r.name for r in OVERFLOW_RULES if f"`{r.name}`" not in text]
    assert not missing, f"docs/llm.md does not list: {missing}"
