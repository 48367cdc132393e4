"""What the HTTP model clients share: one POST with retries, errors turned into typed errors.

A subclass says where to POST (:meth:`HTTPChatModel._url`), with which headers, how to build
the payload from messages and how to read a response into a :class:`Completion`. Everything
else (timeouts, retries with Retry-After, overflow classification, garbage responses, latency)
lives here once. Tests hand in a real local server (:mod:`.localserver`) or an httpx transport.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Self

import httpx

from ..errors import ConfigError, InputError
from ..messages import Message
from ..tools import ToolSpec
from .base import Completion
from .overflow import ErrorInfo, HTTPProviderError, describe_error, error_from_info, with_retry_after
from .retry import CONNECT_FAILED, RetryPolicy, parse_retry_after
from .sse import looks_like_sse, payloads

MAX_ERROR_BODY = 65_536  # characters of an error body kept on the raised error
_SECRET_HEADER = re.compile(r"auth|key|token|secret|password|cookie", re.IGNORECASE)
_USERINFO = re.compile(r"(?<=//)[^/@?#]*@")
REDACTED = "[redacted]"


class HTTPChatModel:
    """Base of the HTTP clients. Not used directly."""

    provider: str = "provider"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None,
        timeout: float,
        retry: RetryPolicy | None,
        transport: httpx.BaseTransport | None,
        async_transport: httpx.AsyncBaseTransport | None,
        window: int | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        if not model:
            raise ConfigError(f"{type(self).__name__}: model name is empty")
        if timeout <= 0:
            raise ConfigError(f"{type(self).__name__}: timeout must be > 0 seconds, got {timeout}")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{type(self).__name__}: base_url must start with http:// or https://, got {base_url!r}")
        self.name = model
        self.window = window
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self.extra_headers = dict(headers or {})
        self._transport = transport
        self._async_transport = async_transport
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    # --- to be provided by a subclass -----------------------------------------------------
    def _url(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _payload(
        self, messages: Sequence[Message], system: str | None, max_tokens: int, tools: Sequence[ToolSpec] | None
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _parse(self, data: dict[str, Any]) -> Completion:
        raise NotImplementedError

    def _assemble_stream(self, events: list[Any]) -> dict[str, Any]:
        """The events of a streamed answer (SSE ``data:`` JSON, in order) → the JSON the
        non-streaming API would have sent (an error event → its error object)."""
        raise InputError(f"{self.provider} answered with an event stream, which this client does not read")

    # --- the calls --------------------------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        """One model call, retried per :attr:`retry`. Raises the typed errors of :mod:`.overflow`."""
        body = self._body(messages, system, max_tokens, tools)
        return self.retry.run(lambda: self._attempt(body))

    async def acomplete(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        """:meth:`complete` for async code (a fresh ``httpx.AsyncClient`` per call, so it works
        from any event loop)."""
        body = self._body(messages, system, max_tokens, tools)
        async with httpx.AsyncClient(transport=self._async_transport, timeout=self.timeout) as client:

            async def attempt() -> Completion:
                started = time.monotonic()
                try:
                    resp = await client.post(self._url(), content=body, headers=self._all_headers())
                except httpx.TimeoutException as exc:
                    raise self._timeout_error(exc) from exc
                except httpx.TransportError as exc:
                    raise self._connection_error(exc) from exc
                return self._handle(resp, time.monotonic() - started)

            return await self.retry.arun(attempt)

    def close(self) -> None:
        """Close the pooled sync connection (also done by ``with model: ...``)."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, base_url={_USERINFO.sub('', self.base_url)!r})"

    # --- internals ----------------------------------------------------------------------------
    def _body(
        self, messages: Sequence[Message], system: str | None, max_tokens: int, tools: Sequence[ToolSpec] | None
    ) -> bytes:
        if max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {max_tokens}")
        payload = self._payload(messages, system, max_tokens, tools)
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def _all_headers(self) -> dict[str, str]:
        return {"content-type": "application/json", "accept": "application/json", **self._headers(), **self.extra_headers}

    def _attempt(self, body: bytes) -> Completion:
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(transport=self._transport, timeout=self.timeout)
            client = self._client
        started = time.monotonic()
        try:
            resp = client.post(self._url(), content=body, headers=self._all_headers())
        except httpx.TimeoutException as exc:
            raise self._timeout_error(exc) from exc
        except httpx.TransportError as exc:
            raise self._connection_error(exc) from exc
        return self._handle(resp, time.monotonic() - started)

    def _secrets(self) -> list[str]:
        """What must never be shown: the key, secret-looking header values (and the credential
        after a scheme such as ``Bearer``), URL credentials (and their password part)."""
        found = [self.api_key or ""]
        for name, value in self._all_headers().items():
            if _SECRET_HEADER.search(name):
                found += [value, value.split(" ", 1)[-1]]
        for m in _USERINFO.finditer(self.base_url):
            found += [m.group(0)[:-1], m.group(0)[:-1].split(":", 1)[-1]]
        return sorted({v for v in found if len(v) >= 6}, key=len, reverse=True)

    def _redact(self, text: str) -> str:
        for secret in self._secrets():
            text = text.replace(secret, REDACTED)
        return text

    def _shown_url(self) -> str:
        return _USERINFO.sub("", self._url())

    def _fail(self, info: ErrorInfo, body: str | None = None) -> HTTPProviderError:
        """The typed error, with every secret taken out of its message and body."""
        info = replace(info, message=self._redact(info.message))
        return error_from_info(info, model=self.name, body=self._redact(body) if body is not None else None)

    def _timeout_error(self, exc: Exception) -> HTTPProviderError:
        what = type(exc).__name__
        info = ErrorInfo(kind="timeout", message=f"{what} after {self.timeout:g}s calling {self._shown_url()}", provider=self.provider)
        return self._fail(info)

    def _connection_error(self, exc: Exception) -> HTTPProviderError:
        if isinstance(exc, httpx.ConnectError):  # never reached the server: say where we looked
            message = f"{type(exc).__name__} calling {self._shown_url()}: {exc}; is the server running at that address?"
            info = ErrorInfo(kind="connection", code=CONNECT_FAILED, message=message, provider=self.provider)
        else:
            info = ErrorInfo(kind="connection", message=f"{type(exc).__name__} calling {self._shown_url()}: {exc}", provider=self.provider)
        return self._fail(info)

    def _garbage(self, resp: httpx.Response, what: str) -> HTTPProviderError:
        snippet = self._redact(resp.text[:MAX_ERROR_BODY])[:200].replace("\n", " ")
        info = ErrorInfo(
            kind="other",
            status=resp.status_code,
            message=f"{what} from {self._shown_url()} (first 200 characters: {snippet!r})",
            provider=self.provider,
        )
        return self._fail(info, resp.text[:MAX_ERROR_BODY])

    def _handle(self, resp: httpx.Response, latency: float) -> Completion:
        text = resp.text
        if not resp.is_success:
            info = describe_error(resp.status_code, text, self.provider)
            info = with_retry_after(info, parse_retry_after(resp.headers))
            if info.provider is None:
                info = replace(info, provider=self.provider)
            raise self._fail(info, text[:MAX_ERROR_BODY])
        if not text.strip():
            raise self._garbage(resp, "empty response body")
        try:
            data = json.loads(text)
        except ValueError:
            if not looks_like_sse(text):
                raise self._garbage(resp, "response is not JSON") from None
            try:  # a server that streams although the request did not ask for it
                data = self._assemble_stream(parse_sse(text))
            except (InputError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                raise self._garbage(resp, f"unreadable event stream ({exc})") from exc
        if not isinstance(data, dict):
            raise self._garbage(resp, f"response is a JSON {type(data).__name__}, not an object")
        if "error" in data and not any(k in data for k in ("choices", "content")):
            # gateways (OpenRouter, LiteLLM) answer 200 with the upstream's HTTP status as the code
            err = data["error"]
            code = err.get("code") if isinstance(err, dict) else None
            embedded = isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600
            info = describe_error(code if embedded else resp.status_code, data, self.provider)
            if info.kind == "other":
                info = replace(info, kind="server")
            raise self._fail(replace(info, provider=info.provider or self.provider), text[:MAX_ERROR_BODY])
        try:
            completion = self._parse(data)
        except (InputError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise self._garbage(resp, f"unexpected response shape ({exc})") from exc
        usage = replace(completion.usage, latency_s=latency, model=completion.usage.model or self.name)
        return replace(completion, usage=usage)


def parse_sse(text: str) -> list[Any]:
    """The JSON ``data:`` payloads of a server-sent-events body, in order (read by :mod:`.sse`;
    ``[DONE]`` and comments skipped). A payload that is not JSON raises ValueError."""
    return [json.loads(p) for p in payloads(text.encode("utf-8", "surrogatepass"))]


def as_int(v: Any) -> int:
    """A provider's token count, or 0 when it is missing, negative or not an integer."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0
