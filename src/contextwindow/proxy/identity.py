"""Which conversation a stateless request belongs to. Pure.

1. ``x-ctxw-conversation: NAME`` names it outright.
2. Else the client's own session id, where it sends one — Claude Code's
   ``x-claude-code-session-id`` header, Codex's ``session_id`` header, Anthropic
   ``metadata.user_id``, OpenAI ``prompt_cache_key`` / ``user`` — joined with the hash of the
   conversation's stable head. A client sends side requests (titles, sub-agents, summaries) under
   the same session id with a different system prompt or first message; the head keeps them apart.
3. Else the hash of the stable head alone: the leading system messages (as fingerprinted, cache
   markers left out) and the parts of the first user message (so ``"text"`` and
   ``[{"type": "text", "text": "text"}]`` are one head).

A client that appends a per-call block to its last message (our ``ctxw run`` over the Anthropic
API puts its runtime block in the first request's only user message) sends a first request whose
first user message is longer than in every later request. Such a request also registers its head
without the trailing parts as an alias, so the next request finds the conversation; the stored
message is trimmed to what the client keeps (:mod:`contextwindow.sync`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..messages import Message
from ..sync import part_fingerprints

HEADER = "x-ctxw-conversation"
CLIENT_HEADERS = ("x-claude-code-session-id", "session_id", "conversation_id")
BODY_KEYS = ("prompt_cache_key", "user")
MAX_KEY = 200  # characters of a client-given id kept in the key


@dataclass(frozen=True, slots=True)
class Identity:
    key: str  # the conversation key (stable across the client's requests)
    source: str  # "header", "client:<where>", "head"
    head: str  # hash of the stable head (16 hex)
    aliases: tuple[str, ...] = ()  # further keys of the conversation a new request starts (see the module doc)


#: heads already hashed: (protocol, fingerprints up to the first user message, whether it is the
#: history's last) -> the result. Same fingerprints, same messages, same head: a client's every
#: later request finds its head here instead of converting and hashing its first messages again
_HEADS: dict[tuple[str, tuple[str, ...], bool], tuple[str, tuple[str, ...]]] = {}
HEADS_KEPT = 4096  # past this many the memo starts afresh
HEAD_LOOKUP = 8  # a first user message further in than this is hashed every time


def head_hashes(history: Sequence[Message], fingerprints: Sequence[str], protocol: str = "") -> tuple[str, tuple[str, ...]]:
    """Hash of the leading system messages and the first user message's parts; and, when that
    message is also the history's last one and has several parts, the hashes of its shorter
    leading runs of parts (the aliases)."""
    fps = tuple(fingerprints[: min(len(history), HEAD_LOOKUP)])
    for j in range(1, len(fps) + 1):
        hit = _HEADS.get((protocol, fps[:j], j == len(history)))
        if hit is not None:
            return hit
    got, n = _head_hashes(history, fingerprints, protocol)
    if n is not None and n < HEAD_LOOKUP and len(fingerprints) > n:  # (fingerprints of the head may be all the caller made yet)
        if len(_HEADS) >= HEADS_KEPT:
            _HEADS.clear()
        _HEADS[(protocol, tuple(fingerprints[: n + 1]), n == len(history) - 1)] = got
    return got


def _head_hashes(history: Sequence[Message], fingerprints: Sequence[str], protocol: str) -> tuple[tuple[str, tuple[str, ...]], int | None]:
    """:func:`head_hashes` computed, and the index of the first user message (None: there is none)."""
    h = hashlib.sha256(protocol.encode())
    for n, (m, fp) in enumerate(zip(history, fingerprints, strict=False)):
        if m.role != "user":
            h.update(fp.encode())
            continue
        parts = part_fingerprints(m)
        h.update(b"user:")
        aliases: list[str] = []
        for k, p in enumerate(parts, start=1):
            h.update(p.encode())
            if k < len(parts) and n == len(history) - 1:
                aliases.append(h.copy().hexdigest()[:16])
        return (h.hexdigest()[:16], tuple(aliases)), n
    return (h.hexdigest()[:16], ()), None


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
    head, aliases = head_hashes(history, fingerprints, protocol)
    explicit = headers.get(HEADER)
    if explicit:
        return Identity(f"x:{explicit[:MAX_KEY]}", "header", head)
    client = _client_id(headers, body)
    if client is not None:
        prefix = f"c:{client[0][:MAX_KEY]}:"
        return Identity(prefix + head, f"client:{client[1]}", head, tuple(prefix + a for a in aliases))
    return Identity(f"h:{head}", "head", head, tuple(f"h:{a}" for a in aliases))
