"""A client that gives up mid-request: the request sent over a raw socket, which is closed once the
upstream holds it (an event the test's upstream sets, not a timeout: a loaded machine may take
longer than any fixed wait to forward it)."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any


def send_then_hang_up(px: Any, body: dict[str, Any], arrived: threading.Event, path: str = "/v1/chat/completions") -> None:
    """POST ``body`` to the proxy ``px`` (a BackgroundProxy), wait for ``arrived``, close the socket."""
    raw = json.dumps(body).encode()
    host, port = px.server.config.host, px.server.port
    head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n"
    with socket.create_connection((host, port)) as sock:
        sock.sendall(head.encode() + raw)
        assert arrived.wait(30), "the upstream never received the request"
