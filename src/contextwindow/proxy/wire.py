"""HTTP/1.1 bytes for the lean front (:mod:`.front`): which headers cross the proxy, a response's
head, chunked framing, and one message's head as read. Pure.

The parsing of the byte stream itself is llhttp's (the ``httptools`` package, as uvicorn uses it):
Content-Length and chunked bodies, keep-alive, pipelining. What is here is what the proxy writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus

from yarl import URL

from .config import HOP_BY_HOP, OWN_HEADERS
from .worker import ROOM_HEADER

#: headers of a response that are the connection's own, not the answer's (the front frames its own)
RESPONSE_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "te", "trailer", "trailers", "transfer-encoding", "upgrade",
                          "content-length"})
#: the worker's answer to the front (proxy/worker.py) carries these; they never reach a client
INTERNAL = (ROOM_HEADER,)
#: a client's request headers that go no further than the front: the connection's own, as for
#: ``ctxw proxy`` (config.HOP_BY_HOP), but not ``content-encoding`` (the worker's aiohttp decodes the
#: body by it; the front never forwards an encoded body itself), and ``expect`` (the front answers
#: ``100 Continue`` itself)
LEAN_HOP = (HOP_BY_HOP - {"content-encoding"}) | {"expect"}
#: the ``x-ctxw-*`` headers a client may send (the rest are the front's and the worker's own)
CLIENT_OWN = frozenset({"x-ctxw-token", "x-ctxw-conversation"})


@dataclass(slots=True)
class Head:
    """A request's or a response's head as read: lower-case names, values as sent."""

    status: int = 0  # a response's
    method: str = ""  # a request's
    target: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    length: int | None = None  # Content-Length, when given
    chunked: bool = False
    http10: bool = False  # a request's: sent as HTTP/1.0 (no chunked framing back)

    def get(self, name: str, default: str = "") -> str:
        for k, v in self.headers:
            if k == name:
                return v
        return default


def request_headers(headers: Iterable[tuple[str, str]], *, drop_own: bool = True) -> list[tuple[str, str]]:
    """A client's request headers that go on: all but the hop-by-hop ones (:data:`LEAN_HOP`), and
    the proxy's own (``drop_own``: upstream) or, to the worker, every ``x-ctxw-*`` header but the
    two a client may send (:data:`CLIENT_OWN`): an internal one from a client would be believed."""
    if drop_own:
        return [(k, v) for k, v in headers if k not in LEAN_HOP and k not in OWN_HEADERS]
    return [(k, v) for k, v in headers if k not in LEAN_HOP and (not k.startswith("x-ctxw-") or k in CLIENT_OWN)]


def path_of(target: str) -> str:
    """The path a request's target names, as the worker's aiohttp reads it (``request.path``:
    percent-escapes decoded, an absolute-form target's own path): what the front decides by, so
    that it and the worker never disagree on which endpoint a request is for (``/%5Fctxw/idle`` is
    ``/_ctxw/idle`` to both). A plain target (no escape, origin form) costs a split."""
    path = target.split("?", 1)[0]
    if path.startswith("/") and "%" not in path:
        return path
    try:
        url = URL(target) if "://" in path else URL.build(path=path, encoded=True)
        return url.path
    except ValueError:  # the worker's aiohttp refuses it too
        return path


def encoded(headers: Iterable[tuple[str, str]]) -> bool:
    """The body is content-encoded (gzip, …): the front does not read it."""
    return any(k == "content-encoding" and v.strip().lower() not in ("", "identity") for k, v in headers)


def request_bytes(method: str, target: str, host: str, headers: Iterable[tuple[str, str]], body: bytes | None) -> bytes:
    """One request with a Content-Length body (or none), keep-alive."""
    out = [f"{method} {target} HTTP/1.1\r\nhost: {host}\r\n".encode("latin-1")]
    out += [f"{k}: {v}\r\n".encode("latin-1") for k, v in headers]
    if body is not None:
        out.append(b"content-length: %d\r\n" % len(body))
    out.append(b"\r\n")
    if body:
        out.append(body)
    return b"".join(out)


def request_head(method: str, target: str, host: str, headers: Iterable[tuple[str, str]], length: int | None) -> bytes:
    """The head of a request whose body follows: ``length`` bytes, or (None) chunked."""
    framing = b"content-length: %d\r\n" % length if length is not None else b"transfer-encoding: chunked\r\n"
    return request_bytes(method, target, host, headers, None)[:-2] + framing + b"\r\n"


def response_head(status: int, headers: Iterable[tuple[str, str]], *, length: int | None, close: bool, framed: bool = True) -> bytes:
    """A response's head: its own headers (the hop-by-hop ones left out), then the framing: the
    given Content-Length, else chunked (``framed=False``: neither, for an answer to HEAD without a
    length or one framed by the connection's end)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    out = [f"HTTP/1.1 {status} {reason}\r\n".encode("latin-1")]
    out += [f"{k}: {v}\r\n".encode("latin-1") for k, v in headers if k.lower() not in RESPONSE_HOP and k.lower() not in INTERNAL]
    if length is not None:
        out.append(b"content-length: %d\r\n" % length)
    elif framed:
        out.append(b"transfer-encoding: chunked\r\n")
    if close:
        out.append(b"connection: close\r\n")
    out.append(b"\r\n")
    return b"".join(out)


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a chunked body (empty data writes nothing: that is the end's)."""
    return b"%x\r\n%b\r\n" % (len(data), data) if data else b""


LAST_CHUNK = b"0\r\n\r\n"


def whole_response(status: int, body: bytes, content_type: str = "application/json", *, close: bool = False,
                   extra: Iterable[tuple[str, str]] = ()) -> bytes:
    return response_head(status, [("content-type", content_type), *extra], length=len(body), close=close) + body
