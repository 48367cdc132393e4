"""The proxy's configuration and the URL and header rules it forwards by. Pure.

:class:`ProxyConfig` is what ``ctxw proxy`` is started with (checked before anything binds: a
non-loopback address needs a token); :func:`join_url` appends the path a client sent to the
upstream's base URL; :data:`HOP_BY_HOP` and :data:`OWN_HEADERS` are the request headers that are
not forwarded (the connection's own, and the proxy's).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import ConfigError

HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
    "transfer-encoding", "upgrade", "host", "content-length", "content-encoding",
})
OWN_HEADERS = ("x-ctxw-token", "x-ctxw-conversation", "x-ctxw-worker", "x-ctxw-overflowed", "x-ctxw-rid")
TOKEN_HEADER = "x-ctxw-token"
DEFAULT_MAX_BODY = 32 * 1024 * 1024  # Anthropic's own request limit
FRONT_ENV = "CTXW_PROXY_FRONT"  # the front an embedded proxy's config (and `ctxw proxy` without --front) takes


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    upstream: str
    anthropic_upstream: str | None = None
    host: str = "127.0.0.1"
    port: int = 8787
    token: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    connect_timeout: float = 10.0
    read_timeout: float = 600.0  # seconds without a byte from upstream
    #: bookkeeping deferred while requests are urgent (proxy/lane.py); off by default: no p99 gain
    #: measured, and 3-8% more CPU per request at load 9-14 (docs/proxy.md, 2026-11-24 08:50-10:30)
    lane: bool = False
    #: the HTTP layer that serves clients: "aiohttp" (ProxyServer alone) or "lean" (proxy/front.py in
    #: front of a ProxyServer worker); the environment's CTXW_PROXY_FRONT picks the default (`ctxw
    #: proxy` defaults to "lean": cli/proxy_cmd.py)
    front: str = field(default_factory=lambda: os.environ.get(FRONT_ENV, "aiohttp"))
    #: set on a ProxyServer that is a lean front's worker: its internal endpoints answer this secret only (proxy/worker.py)
    worker_secret: str | None = None

    def check(self) -> None:
        for name, url in (("--upstream", self.upstream), ("--anthropic-upstream", self.anthropic_upstream)):
            if url is not None and not url.startswith(("http://", "https://")):
                raise ConfigError(f"{name} must be an http:// or https:// base URL, got {url!r}")
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(f"binding to {self.host} (not loopback) needs a token: set --token-env VAR to a variable holding one")
        if self.front not in ("aiohttp", "lean"):
            raise ConfigError(f"--front must be 'aiohttp' or 'lean', got {self.front!r}")
        if self.max_body <= 0:
            raise ConfigError(f"max_body must be positive, got {self.max_body}")

    def upstream_for(self, path: str) -> str:
        """The base URL a request for ``path`` goes to."""
        if path.startswith("/v1/messages") and self.anthropic_upstream:
            return self.anthropic_upstream
        return self.upstream


def is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def authorized(token: str | None, given: str, proxy_authorization: str) -> bool:
    """Whether a request carries the proxy's ``token`` (none set: every request does), in
    ``x-ctxw-token`` (``given``) or as ``Proxy-Authorization: Bearer …``. Both fronts ask this."""
    if not token:
        return True
    if not given and proxy_authorization.lower().startswith("bearer "):
        given = proxy_authorization[7:].strip()
    return hmac.compare_digest(given.encode(), token.encode())


def join_url(base: str, path_qs: str) -> str:
    """``base`` + the path the client sent; a base already ending in ``/v1`` is not doubled."""
    base = base.rstrip("/")
    if base.endswith("/v1") and (path_qs.startswith("/v1/") or path_qs == "/v1"):
        base = base[:-3]
    return base + path_qs


def forward_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The client's request headers that go upstream: all but the hop-by-hop ones and the proxy's own."""
    out: dict[str, str] = {}
    for k, v in headers:
        lk = k.lower()
        if lk in HOP_BY_HOP or lk in OWN_HEADERS:
            continue
        out[k] = v
    return out
