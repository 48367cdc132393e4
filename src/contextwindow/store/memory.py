"""In-process store (``memory:``): the reference behaviour, for tests and throwaway sessions."""

from __future__ import annotations

import builtins
import hashlib
import itertools
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, NotFoundError
from ..messages import Message, loads
from ..usage import Usage
from .base import (
    Checkpoint,
    ConversationInfo,
    Offload,
    Selection,
    StoredEvent,
    StoredMessage,
    TokenCounts,
    check_count,
    check_dict,
    check_limit,
    check_offload_ref,
    check_selection,
    check_text,
    check_token_counts,
    check_upto,
    dump_json,
    encode_message,
    event_data_json,
    inherited,
    new_id,
    new_offload_ref,
    totals_by_role,
    usage_to_row,
)
from .plain import round_trips


@dataclass(slots=True)
class _Conv:
    id: str
    title: str | None
    parent_id: str | None
    metadata: dict[str, Any]
    created_at: float
    rows: list[tuple[str, str, float]] = field(default_factory=list)  # (id, hash, created_at)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    state: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)  # counter -> message id -> count
    stored: list[StoredMessage] = field(default_factory=list)  # one per row, made once (decoded content)
    shared_state: dict[str, tuple[str, Any]] = field(default_factory=dict)  # key -> (the raw state, its decoded value)


class MemoryStore:
    """Everything in dicts; content is still stored once per hash, like the SQL stores."""

    def __init__(self, *, deterministic: bool = False) -> None:
        """``deterministic``: ids follow a counter and offload refs derive from the content, so the
        same appends give the same ids every run (replays, tests); otherwise ids are random."""
        self.url = "memory:"
        self._deterministic = deterministic
        self._counter = itertools.count(1)
        self._lock = threading.RLock()
        self._convs: dict[str, _Conv] = {}
        self._blobs: dict[str, str] = {}
        self._decoded: dict[str, Message] = {}  # hash -> message, decoded once (values never change)
        self._offloads: dict[str, tuple[str, str]] = {}
        self._usage: list[tuple[str | None, Usage]] = []
        self._events: list[tuple[str, str, str, float]] = []  # (conversation, name, data as JSON, at): decoded when listed

    # --- conversations ------------------------------------------------------------------
    def _conv(self, conversation_id: str) -> _Conv:
        c = self._convs.get(conversation_id) if isinstance(conversation_id, str) else None
        if c is None:
            raise NotFoundError(f"unknown conversation {conversation_id!r}")
        return c

    def _info(self, c: _Conv) -> ConversationInfo:
        return ConversationInfo(c.id, c.title, c.parent_id, json.loads(json.dumps(c.metadata)), c.created_at, len(c.rows))

    def create_conversation(
        self, title: str | None = None, metadata: dict[str, Any] | None = None, parent_id: str | None = None
    ) -> str:
        md = check_dict(metadata, "metadata")
        check_text(title, "title", optional=True)
        with self._lock:
            if parent_id is not None:
                self._conv(parent_id)
            cid = self._id("c")
            self._convs[cid] = _Conv(cid, title, parent_id, md, time.time())
            return cid

    def get_conversation(self, conversation_id: str) -> ConversationInfo:
        with self._lock:
            return self._info(self._conv(conversation_id))

    def list_conversations(self, limit: int | None = None) -> builtins.list[ConversationInfo]:
        limit = check_limit(limit)
        with self._lock:
            infos = sorted((self._info(c) for c in self._convs.values()), key=lambda i: i.created_at, reverse=True)
        return infos[:limit] if limit is not None else infos

    def set_title(self, conversation_id: str, title: str) -> None:
        check_text(title, "title")
        with self._lock:
            self._conv(conversation_id).title = title

    # --- messages -----------------------------------------------------------------------
    def _push(self, c: _Conv, mid: str, h: str, at: float, given: Message | None = None) -> StoredMessage:
        """Add a row and its StoredMessage (the content decoded once per hash: listing is a slice).
        ``given``: the message appended, kept as it is when its decoded copy would be identical
        (store/plain.py), instead of decoding the JSON just made of it."""
        m = self._decoded.get(h)
        if m is None:
            m = self._decoded[h] = given if given is not None and round_trips(given) else loads(self._blobs[h])
        c.rows.append((mid, h, at))
        sm = StoredMessage(mid, c.id, len(c.rows), m, at)
        c.stored.append(sm)
        return sm

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, token_counts: TokenCounts | None = None
    ) -> builtins.list[StoredMessage]:
        msgs = builtins.list(messages)
        encoded = [encode_message(m) for m in msgs]
        counts = check_token_counts(token_counts, len(msgs))
        with self._lock:
            c = self._conv(conversation_id)
            now = time.time()
            out = []
            for m, (h, body) in zip(msgs, encoded, strict=True):
                self._blobs.setdefault(h, body)
                mid = self._id("m")
                self._push(c, mid, h, now, m)
                out.append(StoredMessage(mid, c.id, len(c.rows), m, now))
            if counts is not None:
                c.tokens.setdefault(counts.counter, {}).update(zip((s.id for s in out), counts.tokens, strict=True))
            return out

    def list(self, conversation_id: str) -> builtins.list[StoredMessage]:
        with self._lock:
            c = self._conv(conversation_id)
            return builtins.list(c.stored)

    def list_active(self, conversation_id: str) -> builtins.list[StoredMessage]:
        with self._lock:
            c = self._conv(conversation_id)
            start = c.checkpoints[-1].upto_seq if c.checkpoints else 0
            return c.stored[start:]

    # --- checkpoints --------------------------------------------------------------------
    def checkpoint(
        self, conversation_id: str, summary: Message, upto_seq: int, meta: dict[str, Any] | None = None
    ) -> Checkpoint:
        h, body = encode_message(summary)
        md = check_dict(meta, "checkpoint meta")
        with self._lock:
            c = self._conv(conversation_id)
            check_upto(upto_seq, len(c.rows), c.checkpoints[-1] if c.checkpoints else None)
            self._blobs.setdefault(h, body)
            cp = Checkpoint(self._id("k"), c.id, len(c.checkpoints) + 1, upto_seq, loads(body), time.time(), md)
            c.checkpoints.append(cp)
            return cp

    def latest_checkpoint(self, conversation_id: str) -> Checkpoint | None:
        with self._lock:
            c = self._conv(conversation_id)
            return c.checkpoints[-1] if c.checkpoints else None

    def list_checkpoints(self, conversation_id: str) -> builtins.list[Checkpoint]:
        with self._lock:
            return builtins.list(self._conv(conversation_id).checkpoints)

    def fork(self, conversation_id: str, selection: Selection, title: str | None = None) -> str:
        with self._lock:
            src = self._conv(conversation_id)
            plan = check_selection(selection, src.checkpoints, len(src.rows))
            cid = self.create_conversation(
                title, {**inherited(src.metadata), "forked_from": src.id,
                        "selection": {"seqs": [s for k, s in plan if k == "message"], "folds": [s for k, s in plan if k == "fold"]}}, src.id
            )
            dst = self._convs[cid]
            now = time.time()
            for kind, n in plan:
                if kind == "message":
                    h = src.rows[n - 1][1]
                else:
                    h, body = encode_message(src.checkpoints[n - 1].summary)
                    self._blobs.setdefault(h, body)
                self._push(dst, self._id("m"), h, now)
            return cid

    def _id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._counter):016x}" if self._deterministic else new_id(prefix)

    # --- offloads, usage, state ---------------------------------------------------------
    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str:
        if not isinstance(content, str):
            raise ConfigError(f"offload content must be a string, got {type(content).__name__}")
        md = dump_json(check_dict(meta, "offload meta"), "offload meta")
        with self._lock:
            if self._deterministic:
                ref = "ofl_" + hashlib.sha256(content.encode("utf-8", "surrogatepass") + md.encode()).hexdigest()[:16]
            else:
                ref = new_offload_ref()
                while ref in self._offloads:  # pragma: no cover - 64-bit collision
                    ref = new_offload_ref()
            self._offloads[ref] = (content, md)
            return ref

    def get_offload(self, ref: str) -> Offload:
        check_offload_ref(ref)
        with self._lock:
            if ref not in self._offloads:
                raise NotFoundError(f"unknown offload ref {ref!r}")
            content, md = self._offloads[ref]
            return Offload(ref, content, json.loads(md))

    def record_usage(self, conversation_id: str | None, usage: Usage) -> None:
        row = usage_to_row(usage)
        with self._lock:
            if conversation_id is not None:
                self._conv(conversation_id)
            self._usage.append((conversation_id, Usage(**{**row, "extra": json.loads(row["extra"])})))

    def list_usage(self, conversation_id: str | None = None) -> builtins.list[Usage]:
        with self._lock:
            if conversation_id is not None:
                self._conv(conversation_id)
            return [u for cid, u in self._usage if conversation_id is None or cid == conversation_id]

    def usage_by_role(self, conversation_id: str | None = None) -> dict[str, dict[str, Any]]:
        return totals_by_role(self.list_usage(conversation_id))

    def record_event(self, conversation_id: str, name: str, data: dict[str, Any], at: float) -> None:
        check_text(name, "event name", empty=False)
        row = (conversation_id, name, event_data_json(data), float(at))
        with self._lock:
            self._conv(conversation_id)
            self._events.append(row)

    def list_events(self, conversation_id: str, limit: int | None = None) -> builtins.list[StoredEvent]:
        limit = check_limit(limit)
        with self._lock:
            self._conv(conversation_id)
            rows = [e for e in self._events if e[0] == conversation_id]
        rows = rows if limit is None else rows[:limit]
        return [StoredEvent(cid, name, json.loads(raw), at) for cid, name, raw, at in rows]

    def put_token_counts(self, conversation_id: str, counter: str, counts: dict[str, int]) -> None:
        check_text(counter, "token counter name", empty=False)
        for n in counts.values():
            check_count(n)
        with self._lock:
            c = self._conv(conversation_id)
            ids = {r[0] for r in c.rows} if counts else set()
            unknown = [mid for mid in counts if mid not in ids]
            if unknown:
                raise NotFoundError(f"conversation {conversation_id!r} has no message {unknown[0]!r}")
            c.tokens.setdefault(counter, {}).update(counts)

    def active_token_counts(self, conversation_id: str, counter: str) -> dict[str, int]:
        check_text(counter, "token counter name", empty=False)
        with self._lock:
            c = self._conv(conversation_id)
            kept = c.tokens.get(counter, {})
            start = c.checkpoints[-1].upto_seq if c.checkpoints else 0
            return {mid: kept[mid] for mid, _, _ in c.rows[start:] if mid in kept}

    def get_state(self, conversation_id: str, key: str) -> Any | None:
        check_text(key, "state key", empty=False)
        with self._lock:
            raw = self._conv(conversation_id).state.get(key)
        return None if raw is None else json.loads(raw)

    def get_state_shared(self, conversation_id: str, key: str) -> Any | None:
        """:meth:`get_state`'s value, decoded once and handed to every read until the state is set
        again: read-only (the Session's sticky view reads the compaction state on every build; a
        caller that changes it would change what the next reader gets)."""
        check_text(key, "state key", empty=False)
        with self._lock:
            c = self._conv(conversation_id)
            raw = c.state.get(key)
            if raw is None:
                return None
            hit = c.shared_state.get(key)
            if hit is not None and hit[0] is raw:
                return hit[1]
        value = json.loads(raw)
        with self._lock:
            c.shared_state[key] = (raw, value)
        return value

    def set_state(self, conversation_id: str, key: str, value: Any) -> None:
        check_text(key, "state key", empty=False)
        raw = dump_json(value, f"state {key!r}")
        with self._lock:
            self._conv(conversation_id).state[key] = raw

    def close(self) -> None:
        """Nothing to release; the data goes with the object."""
