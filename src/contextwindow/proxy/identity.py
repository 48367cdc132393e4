"""Which conversation a stateless request belongs to. Pure.

1. ``x-ctxw-conversation: NAME`` names it outright.
2. Else the client's own session id, where it sends one — Claude Code's
   ``x-claude-code-session-id`` header, Codex's ``session_id`` header, Anthropic
   ``metadata.user_id``, OpenAI ``prompt_cache_key`` / ``user`` — joined with the hash of the
   conversation's stable head. A client sends side requests (titles, sub-agents, summaries) under
   the same session id with a different system prompt or first message; the head keeps them apart.
3. Else the hash of the stable head alone: the leading system messages and the first user
   message, as fingerprinted (cache markers left out).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..messages import Message

HEADER = "x-ctxw-conversation"
CLIENT_HEADERS = ("x-claude-code-session-id", "session_id", "conversation_id")
BODY_KEYS = ("prompt_cache_key", "user")
MAX_KEY = 200  # characters of a client-given id kept in the key


@dataclass(frozen=True, slots=True)
class Identity:
    key: str  # the conversation key (stable across the client's requests)
    source: str  # "header", "client:<where>", "head"
    head: str  # hash of the stable head (16 hex)


def head_hash(history: Sequence[Message], fingerprints: Sequence[str], protocol: str = "") -> str:
    """Hash of the leading system messages and the first user message (their fingerprints)."""
    h = hashlib.sha256(protocol.encode())
    for m, fp in zip(history, fingerprints, strict=False):
        h.update(fp.encode())
        if m.role == "user":
            break
    return h.hexdigest()[:16]


def _client_id(headers: Mapping[str, str], body: Mapping[str, Any]) -> tuple[str, str] | None:
    for name in CLIENT_HEADERS:
        v = headers.get(name)
        if v:
            return v, f"header {name}"
    meta = body.get("metadata")
    if isinstance(meta, Mapping) and isinstance(meta.get("user_id"), str) and meta["user_id"]:
        return meta["user_id"], "metadata.user_id"
    for k in BODY_KEYS:
        v = body.get(k)
        if isinstance(v, str) and v:
            return v, k
    return None


def identify(
    headers: Mapping[str, str], body: Mapping[str, Any], history: Sequence[Message], fingerprints: Sequence[str], protocol: str = ""
) -> Identity:
    """The conversation of one request (``headers`` with lower-case names); the same head spoken
    in two protocols is two conversations."""
    head = head_hash(history, fingerprints, protocol)
    explicit = headers.get(HEADER)
    if explicit:
        return Identity(f"x:{explicit[:MAX_KEY]}", "header", head)
    client = _client_id(headers, body)
    if client is not None:
        return Identity(f"c:{client[0][:MAX_KEY]}:{head}", f"client:{client[1]}", head)
    return Identity(f"h:{head}", "head", head)
