"""A real local HTTP server that speaks the OpenAI and Anthropic chat protocols.

For tests and demos: it binds 127.0.0.1 on a free port, serves in a background thread, and
answers ``POST /v1/chat/completions`` (also ``/chat/completions``) and ``POST /v1/responses`` in
OpenAI's shapes and ``POST /v1/messages`` in Anthropic's, from a script, as JSON or, when the
request says ``"stream": true``, as server-sent events (:mod:`.localstream`); ``GET /v1/models``
and ``POST /v1/messages/count_tokens`` answer too (for pass-through tests)::

    with LocalProviderServer(["hello", Reply.error(429, {...}, headers={"retry-after": "2"}), "again"]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url)
        ...
        srv.requests[0].body["messages"]        # what the client sent

The script is a sequence (one entry per request, in order) or a function
``(ReceivedRequest) -> Reply | str``. A :class:`Reply` is answer text (plus tool calls), an
error (status + body + headers), raw bytes (garbage), and/or a delay; usage numbers are the
ones you set or, by default, about one token per four bytes of the request.

Bounded: request bodies over ``max_body`` bytes get 413, delays are capped at ``max_delay`` and
end early when the server closes, at most ``max_recorded`` requests are kept. A script that runs
out answers 500 with a body that says so.

Concurrency is observable without a clock: ``max_in_flight`` is the most requests the server held
at once (received, not yet answered), and :meth:`wait_idle` waits for ``in_flight`` to reach 0;
the listen backlog (``backlog``, default 128) takes a burst of that many connections without
refusing or serialising them.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, TypeAlias

WireProtocol: TypeAlias = Literal["openai", "anthropic", "openai_responses"]

OPENAI_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
ANTHROPIC_PATHS = frozenset({"/v1/messages", "/messages"})
RESPONSES_PATHS = frozenset({"/v1/responses", "/responses"})


@dataclass(frozen=True, slots=True)
class ToolCallSpec:
    """A tool call the fake model makes. ``arguments`` is a JSON object, or a string sent verbatim
    as OpenAI's ``arguments`` (to script malformed JSON; Anthropic gets ``{}`` for one that does not parse)."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """How the server answers one request.

    - success: ``text`` (and ``tool_calls``), ``finish_reason`` (default by protocol);
    - error: ``status`` != 200 with ``body`` (a dict is sent as JSON, a str as is);
    - garbage: ``raw`` bytes sent verbatim with ``status``;
    - ``delay`` seconds before answering (simulates a slow server);
    - usage: ``input_tokens`` (whole prompt; ``None`` = estimated from the request size),
      ``output_tokens`` (``None`` = estimated from the text), ``cache_read_tokens``,
      ``cache_write_tokens`` (Anthropic shape only)."""

    text: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    status: int = 200
    body: Mapping[str, Any] | str | None = None
    raw: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0  # of cache_write_tokens, written with the one-hour TTL (Anthropic's cache_creation split)
    finish_reason: str | None = None
    stream: bool = False  # answer as server-sent events (also done when the request asks "stream": true)
    chunk_delay: float = 0.0  # seconds between stream events
    end_delay: float = 0.0  # seconds between the last stream event and the end of the body (a slow close)
    end_gate: threading.Event | None = None  # the stream's body ends only once this is set (or the server closes)

    @staticmethod
    def error(status: int, body: Mapping[str, Any] | str, *, headers: Mapping[str, str] | None = None, delay: float = 0.0) -> Reply:
        return Reply(status=status, body=body, headers=dict(headers or {}), delay=delay)

    @staticmethod
    def garbage(raw: bytes, *, status: int = 200, content_type: str = "text/html") -> Reply:
        return Reply(status=status, raw=raw, headers={"content-type": content_type})


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request the server received. ``body`` is the parsed JSON (``None`` if it was not JSON)."""

    protocol: WireProtocol
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes


Handler: TypeAlias = Sequence[Reply | str] | Callable[[ReceivedRequest], Reply | str]


def _estimate_tokens(data: bytes | str) -> int:
    n = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    return max(1, (n + 3) // 4)


def _arguments_text(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(dict(arguments))


def _arguments_object(arguments: Mapping[str, Any] | str) -> dict[str, Any]:
    if not isinstance(arguments, str):
        return dict(arguments)
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def openai_body(reply: Reply, request: ReceivedRequest, seq: int) -> dict[str, Any]:
    """The chat completions response for ``reply`` (public so tests can build expectations)."""
    model = request.body.get("model", "local") if isinstance(request.body, dict) else "local"
    message: dict[str, Any] = {"role": "assistant", "content": reply.text if reply.text or not reply.tool_calls else None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id or f"call_{seq}_{i}", "type": "function", "function": {"name": c.name, "arguments": _arguments_text(c.arguments)}}
            for i, c in enumerate(reply.tool_calls)
        ]
    prompt = reply.input_tokens if reply.input_tokens is not None else _estimate_tokens(request.raw)
    completion = reply.output_tokens if reply.output_tokens is not None else _estimate_tokens(reply.text or "x")
    return {
        "id": f"chatcmpl-local-{seq}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens},
        },
    }


def anthropic_body(reply: Reply, request: ReceivedRequest, seq: int) -> dict[str, Any]:
    """The Messages API response for ``reply``; ``input_tokens`` excludes the cached parts."""
    model = request.body.get("model", "local") if isinstance(request.body, dict) else "local"
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [
        {"type": "tool_use", "id": c.id or f"toolu_{seq}_{i}", "name": c.name, "input": _arguments_object(c.arguments)}
        for i, c in enumerate(reply.tool_calls)
    ]
    whole = reply.input_tokens if reply.input_tokens is not None else _estimate_tokens(request.raw)
    fresh = max(whole - reply.cache_read_tokens - reply.cache_write_tokens, 0)
    return {
        "id": f"msg_local_{seq}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": fresh,
            "output_tokens": reply.output_tokens if reply.output_tokens is not None else _estimate_tokens(reply.text or "x"),
            "cache_creation_input_tokens": reply.cache_write_tokens,
            "cache_read_input_tokens": reply.cache_read_tokens,
            **({"cache_creation": {"ephemeral_5m_input_tokens": reply.cache_write_tokens - reply.cache_write_1h_tokens,
                                   "ephemeral_1h_input_tokens": reply.cache_write_1h_tokens}} if reply.cache_write_1h_tokens else {}),
        },
    }


class LocalProviderServer:
    """The server; use as a context manager (or :meth:`start` / :meth:`close`)."""

    def __init__(
        self,
        handler: Handler,
        *,
        max_body: int = 64 * 1024 * 1024,
        max_delay: float = 30.0,
        max_recorded: int = 10_000,
        backlog: int = 128,
    ) -> None:
        if isinstance(handler, (str, bytes)):
            raise TypeError("LocalProviderServer takes a list of replies or a function, not a single string")
        self._fn = handler if callable(handler) else None
        self._script: tuple[Reply | str, ...] = () if callable(handler) else tuple(handler)
        self.max_body = max_body
        self.max_delay = max_delay
        self.max_recorded = max_recorded
        self.backlog = backlog
        self.requests: list[ReceivedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.aborted_streams = 0  # streams the client closed before their end
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when a request leaves
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> LocalProviderServer:
        if self._httpd is not None:
            return self
        server = self

        class _Handler(_RequestHandler):
            owner = server

        class _Server(ThreadingHTTPServer):
            request_queue_size = server.backlog  # socketserver's default of 5 refuses a burst of clients

        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True, name="LocalProviderServer")
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LocalProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("LocalProviderServer is not started; use it in a with-block or call start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (what :class:`AnthropicModel` takes)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (what :class:`OpenAICompatibleModel` takes)."""
        return f"{self.base_url}/v1"

    @property
    def bodies(self) -> list[Any]:
        """The parsed JSON bodies received, in order."""
        return [r.body for r in self.requests]

    # --- answering -----------------------------------------------------------------------------
    def _reply_for(self, request: ReceivedRequest) -> tuple[int, Reply]:
        with self._lock:
            seq = next(self._seq)
            if len(self.requests) < self.max_recorded:
                self.requests.append(request)
        if self._fn is not None:
            try:
                reply = self._fn(request)
            except Exception as exc:  # the handler's bug, reported to the client as a 500
                return seq, Reply.error(500, {"error": {"type": "local_handler_error", "message": f"handler raised {exc!r}"}})
        elif seq < len(self._script):
            reply = self._script[seq]
        else:
            msg = f"LocalProviderServer script exhausted: {len(self._script)} replies, request #{seq + 1}"
            return seq, Reply.error(500, {"error": {"type": "script_exhausted", "message": msg}})
        return seq, Reply(text=reply) if isinstance(reply, str) else reply

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait until no request is held (a handler thread leaves just after its last byte went
        out, so a client can have its answer first); False if ``timeout`` passed (a liveness
        guard, not a measure)."""
        with self._idle:
            return self._idle.wait_for(lambda: self.in_flight == 0, timeout)

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._closing.wait(min(seconds, self.max_delay))


class _RequestHandler(BaseHTTPRequestHandler):
    owner: LocalProviderServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, payload: bytes, headers: Mapping[str, str]) -> None:
        try:
            self.send_response(status)
            sent = {k.lower() for k in headers}
            if "content-type" not in sent:
                self.send_header("content-type", "application/json")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            self.close_connection = True

    def _json(self, status: int, obj: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), headers or {})

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": [{"id": "local", "object": "model", "created": 0, "owned_by": "local"}]})
            return
        self._json(405, {"error": {"type": "method_not_allowed", "message": "use POST"}})

    def _stream(self, events: Sequence[bytes], delay: float, headers: Mapping[str, str], end_delay: float = 0.0,
                end_gate: threading.Event | None = None) -> None:
        """Send ``events`` as one SSE response (chunked), ``delay`` seconds apart; the body ends
        ``end_delay`` seconds after the last one, and not before ``end_gate`` is set."""
        owner = self.owner
        try:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            for n, ev in enumerate(events):
                if n and delay:
                    owner._wait(delay)
                    if owner._closing.is_set():
                        break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
                self.wfile.flush()
            owner._wait(end_delay)
            while end_gate is not None and not end_gate.is_set() and not owner._closing.is_set():
                end_gate.wait(0.05)  # polled so that the server's close ends the wait too
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with owner._lock:
                owner.aborted_streams += 1
            self.close_connection = True

    def do_POST(self) -> None:
        owner = self.owner
        path = self.path.split("?", 1)[0]
        protocol: WireProtocol
        if path in OPENAI_PATHS:
            protocol = "openai"
        elif path in ANTHROPIC_PATHS or path in ("/v1/messages/count_tokens", "/messages/count_tokens"):
            protocol = "anthropic"
        elif path in RESPONSES_PATHS:
            protocol = "openai_responses"
        else:
            self._json(404, {"error": {"type": "not_found", "message": f"no route {path}"}})
            return
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > owner.max_body:
            self.close_connection = True
            self._json(413, {"error": {"type": "request_too_large", "message": f"body of {length} bytes over {owner.max_body}"}})
            return
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = ReceivedRequest(protocol, path, {k.lower(): v for k, v in self.headers.items()}, body, raw)
        if path.endswith("/count_tokens"):
            self._json(200, {"input_tokens": max(1, (len(raw) + 3) // 4)})
            return
        owner._enter()
        try:
            self._answer(owner, protocol, request)
        finally:
            owner._leave()

    def _answer(self, owner: LocalProviderServer, protocol: WireProtocol, request: ReceivedRequest) -> None:
        from . import localstream  # imported here: the llm package's namespace stays its public surface

        seq, reply = owner._reply_for(request)
        owner._wait(reply.delay)
        if owner._closing.is_set():
            self.close_connection = True
            return
        if reply.raw is not None:
            self._send(reply.status, reply.raw, reply.headers)
        elif reply.status != 200 or reply.body is not None:
            data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body if reply.body is not None else {})
            self._send(reply.status, data.encode("utf-8"), reply.headers)
        else:
            if protocol == "openai_responses":
                answer = localstream.responses_body(reply, request, seq)
            else:
                answer = (openai_body if protocol == "openai" else anthropic_body)(reply, request, seq)
            if reply.stream or localstream.wants_stream(request):
                from .sse import anthropic_stream, openai_stream

                if protocol == "openai_responses":
                    events = localstream.responses_events(reply, request, seq)
                else:
                    blob = openai_stream(answer) if protocol == "openai" else anthropic_stream(answer)
                    events = [e + b"\n\n" for e in blob.split(b"\n\n") if e]
                    if protocol == "anthropic":  # a keep-alive after message_start, as Anthropic sends
                        events.insert(1, localstream.sse({"type": "ping"}, "ping"))
                self._stream(events, min(reply.chunk_delay, owner.max_delay), reply.headers, reply.end_delay, reply.end_gate)
            else:
                self._json(200, answer, reply.headers)
