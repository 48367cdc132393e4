"""The store logic shared by SQLite and PostgreSQL: one SQL dialect subset, two drivers.

A subclass supplies ``_transaction(write)``: a context manager that yields a :class:`Q`
inside one database transaction (a write transaction takes the write lock up front) and turns
driver errors into the store's typed errors. Sequence numbers are allocated by
``UPDATE conversations SET message_count = message_count + n ... RETURNING``: the row lock
serializes writers on one conversation, so a batch gets a contiguous range and two batches
never interleave.
"""

from __future__ import annotations

import builtins
import json
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ..errors import ConfigError, NotFoundError, StoreError
from ..messages import Message, loads
from ..usage import Usage
from .base import (
    USAGE_FIELDS,
    Checkpoint,
    ConversationInfo,
    Offload,
    Selection,
    StoredEvent,
    StoredMessage,
    TokenCounts,
    check_conversation_id,
    check_count,
    check_dict,
    check_limit,
    check_offload_ref,
    check_selection,
    check_text,
    check_token_counts,
    check_upto,
    decode_offload,
    dump_json,
    encode_message,
    encode_offload,
    event_data_json,
    inherited,
    new_id,
    new_offload_ref,
    totals_by_role,
    usage_to_row,
)
from .migrations import CREATE_MIGRATIONS_TABLE, MIGRATIONS, Migration

_CHUNK = 500
OFFLOAD_CHUNK_CHARS = 1_000_000  # an original over this is stored as pieces of this size
CHUNKED = "chunked"  # offloads.encoding of an original kept in offload_chunks
_CACHE_MAX = 50_000  # decoded messages kept by content hash ...
_CACHE_MAX_BYTES = 32_000_000  # ... up to this much JSON in total
_CACHE_MAX_BODY = 256_000  # a bigger message is decoded on every read instead of pinned in memory


class Q:
    """A thin cursor wrapper: SQL is written with ``?`` placeholders and translated once."""

    __slots__ = ("_cur", "_pg")

    def __init__(self, cur: Any, pg: bool) -> None:
        self._cur = cur
        self._pg = pg

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self._pg else sql

    def all(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[tuple[Any, ...]]:
        self._cur.execute(self._sql(sql), tuple(params))
        return builtins.list(self._cur.fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        self._cur.execute(self._sql(sql), tuple(params))
        row = self._cur.fetchone()
        return None if row is None else tuple(row)

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._cur.execute(self._sql(sql), tuple(params))

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._cur.executemany(self._sql(sql), [tuple(r) for r in rows])


def apply_migrations(q: Q, migrations: Sequence[Migration], where: str) -> builtins.list[str]:
    """Apply the missing migrations in order (caller holds a write transaction); return their names."""
    q.run(CREATE_MIGRATIONS_TABLE)
    done = {r[0] for r in q.all("SELECT name FROM schema_migrations")}
    known = {m.name for m in MIGRATIONS}
    unknown = sorted(done - known)
    if unknown:
        raise StoreError(
            f"{where} was written by a newer contextwindow (unknown migrations: {', '.join(unknown)}); upgrade to open it"
        )
    applied = []
    for m in migrations:
        if m.name in done:
            continue
        for stmt in m.statements:
            q.run(stmt)
        q.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (m.name, time.time()))
        applied.append(m.name)
    return applied


def _usage_id() -> str:
    # time-ordered so ORDER BY id is insertion order across processes (to the nanosecond)
    return f"u_{time.time_ns():020d}_{secrets.token_hex(4)}"


class SqlStore(ABC):
    """ConversationStore over a SQL database (see the module docstring)."""

    url: str

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Message, int]] = {}  # hash -> (message, size of its JSON)
        self._cache_bytes = 0

    @abstractmethod
    def _transaction(self, write: bool) -> AbstractContextManager[Q]: ...

    # --- helpers ------------------------------------------------------------------------
    def _remember(self, h: str, m: Message, size: int) -> None:
        """Keep a decoded message by content hash (values never change; oldest entries go first),
        bounded by count and by total JSON size; big messages are not kept."""
        if h in self._cache or size > _CACHE_MAX_BODY:
            return
        while self._cache and (len(self._cache) >= _CACHE_MAX or self._cache_bytes + size > _CACHE_MAX_BYTES):
            self._cache_bytes -= self._cache.pop(next(iter(self._cache)))[1]
        self._cache[h] = (m, size)
        self._cache_bytes += size

    def _cached(self, h: str) -> Message | None:
        hit = self._cache.get(h)
        return None if hit is None else hit[0]

    def _decode(self, h: str, body: str) -> Message:
        m = self._cached(h)
        if m is None:
            m = loads(body)
            self._remember(h, m, len(body))
        return m

    def _require(self, q: Q, conversation_id: str) -> tuple[Any, ...]:
        check_conversation_id(conversation_id)
        row = q.one("SELECT message_count, checkpoint_count FROM conversations WHERE id = ?", (conversation_id,))
        if row is None:
            raise NotFoundError(f"unknown conversation {conversation_id!r}")
        return row

    def _stored(self, cid: str, rows: Sequence[tuple[Any, ...]]) -> builtins.list[StoredMessage]:
        return [StoredMessage(mid, cid, int(seq), self._decode(h, body), float(at)) for mid, seq, h, body, at in rows]

    def _checkpoint(self, row: tuple[Any, ...]) -> Checkpoint:
        kid, cid, seq, upto, h, body, at, meta = row
        return Checkpoint(kid, cid, int(seq), int(upto), self._decode(h, body), float(at), json.loads(meta))

    _CP_COLS = "c.id, c.conversation_id, c.seq, c.upto_seq, c.summary_hash, b.body, c.created_at, c.meta"
    _MSG_COLS = "m.id, m.seq, m.hash, b.body, m.created_at"

    @staticmethod
    def _put_blobs(q: Q, encoded: Sequence[tuple[str, str]]) -> None:
        # in hash order: two writers inserting the same new blobs then wait on each other in one
        # direction only (PostgreSQL would otherwise see a deadlock and abort one of the appends)
        unique = dict(encoded)
        q.many("INSERT INTO blobs (hash, body) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING", sorted(unique.items()))

    # --- conversations ------------------------------------------------------------------
    def _create(self, q: Q, title: str | None, md: dict[str, Any], parent_id: str | None) -> str:
        check_text(title, "title", optional=True)
        if parent_id is not None:
            self._require(q, parent_id)
        cid = new_id("c")
        q.run(
            "INSERT INTO conversations (id, title, parent_id, metadata, created_at) VALUES (?, ?, ?, ?, ?)",
            (cid, title, parent_id, dump_json(md, "metadata"), time.time()),
        )
        return cid

    def create_conversation(
        self, title: str | None = None, metadata: dict[str, Any] | None = None, parent_id: str | None = None
    ) -> str:
        md = check_dict(metadata, "metadata")
        with self._transaction(True) as q:
            return self._create(q, title, md, parent_id)

    _INFO_COLS = "id, title, parent_id, metadata, created_at, message_count"

    @staticmethod
    def _info(row: tuple[Any, ...]) -> ConversationInfo:
        cid, title, parent, md, at, n = row
        return ConversationInfo(cid, title, parent, json.loads(md), float(at), int(n))

    def get_conversation(self, conversation_id: str) -> ConversationInfo:
        check_conversation_id(conversation_id)
        with self._transaction(False) as q:
            row = q.one(f"SELECT {self._INFO_COLS} FROM conversations WHERE id = ?", (conversation_id,))
        if row is None:
            raise NotFoundError(f"unknown conversation {conversation_id!r}")
        return self._info(row)

    def list_conversations(self, limit: int | None = None) -> builtins.list[ConversationInfo]:
        sql = f"SELECT {self._INFO_COLS} FROM conversations ORDER BY created_at DESC, id"
        params: tuple[Any, ...] = ()
        limit = check_limit(limit)
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        with self._transaction(False) as q:
            return [self._info(r) for r in q.all(sql, params)]

    def set_title(self, conversation_id: str, title: str) -> None:
        check_text(title, "title")
        with self._transaction(True) as q:
            self._require(q, conversation_id)
            q.run("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id))

    # --- messages -----------------------------------------------------------------------
    def append(
        self, conversation_id: str, messages: Sequence[Message], *, token_counts: TokenCounts | None = None
    ) -> builtins.list[StoredMessage]:
        check_conversation_id(conversation_id)
        msgs = builtins.list(messages)
        encoded = [encode_message(m) for m in msgs]
        counts = check_token_counts(token_counts, len(msgs))
        with self._transaction(True) as q:
            if not msgs:
                self._require(q, conversation_id)
                return []
            row = q.one(
                "UPDATE conversations SET message_count = message_count + ? WHERE id = ? RETURNING message_count",
                (len(msgs), conversation_id),
            )
            if row is None:
                raise NotFoundError(f"unknown conversation {conversation_id!r}")
            first = int(row[0]) - len(msgs) + 1
            self._put_blobs(q, encoded)
            now = time.time()
            out = [StoredMessage(new_id("m"), conversation_id, first + i, m, now) for i, m in enumerate(msgs)]
            q.many(
                "INSERT INTO messages (id, conversation_id, seq, hash, created_at) VALUES (?, ?, ?, ?, ?)",
                [(s.id, conversation_id, s.seq, h, now) for s, (h, _) in zip(out, encoded, strict=True)],
            )
            if counts is not None:
                q.many(
                    "INSERT INTO message_tokens (message_id, counter, tokens) VALUES (?, ?, ?)",
                    [(s.id, counts.counter, n) for s, n in zip(out, counts.tokens, strict=True)],
                )
        return out

    def list(self, conversation_id: str) -> builtins.list[StoredMessage]:
        with self._transaction(False) as q:
            self._require(q, conversation_id)
            rows = q.all(
                f"SELECT {self._MSG_COLS} FROM messages m JOIN blobs b ON b.hash = m.hash "
                "WHERE m.conversation_id = ? ORDER BY m.seq",
                (conversation_id,),
            )
            return self._stored(conversation_id, rows)

    def list_active(self, conversation_id: str) -> builtins.list[StoredMessage]:
        check_conversation_id(conversation_id)
        with self._transaction(False) as q:
            rows = q.all(
                "SELECT m.id, m.seq, m.hash, m.created_at FROM messages m "
                "WHERE m.conversation_id = ? AND m.seq > COALESCE((SELECT k.upto_seq FROM checkpoints k "
                "WHERE k.conversation_id = ? ORDER BY k.seq DESC LIMIT 1), 0) ORDER BY m.seq",
                (conversation_id, conversation_id),
            )
            if not rows:
                self._require(q, conversation_id)
            found = self._bodies(q, {h for _, _, h, _ in rows})
        return [StoredMessage(mid, conversation_id, int(seq), found[h], float(at)) for mid, seq, h, at in rows]

    def _bodies(self, q: Q, hashes: set[str]) -> dict[str, Message]:
        """Decoded messages for ``hashes``: from the cache, else read and decoded once."""
        found = {h: m for h in hashes if (m := self._cached(h)) is not None}
        missing = builtins.list(hashes - found.keys())
        for i in range(0, len(missing), _CHUNK):
            chunk = missing[i : i + _CHUNK]
            for h, body in q.all(f"SELECT hash, body FROM blobs WHERE hash IN ({', '.join('?' * len(chunk))})", chunk):
                found[h] = self._decode(h, body)
        return found

    # --- checkpoints --------------------------------------------------------------------
    def checkpoint(
        self, conversation_id: str, summary: Message, upto_seq: int, meta: dict[str, Any] | None = None
    ) -> Checkpoint:
        check_conversation_id(conversation_id)
        h, body = encode_message(summary)
        md = check_dict(meta, "checkpoint meta")
        with self._transaction(True) as q:
            row = q.one(
                "UPDATE conversations SET checkpoint_count = checkpoint_count + 1 WHERE id = ? "
                "RETURNING checkpoint_count, message_count",
                (conversation_id,),
            )
            if row is None:
                raise NotFoundError(f"unknown conversation {conversation_id!r}")
            ordinal, last = int(row[0]), int(row[1])
            prev = self._latest(q, conversation_id)
            check_upto(upto_seq, last, prev)
            self._put_blobs(q, [(h, body)])
            cp = Checkpoint(new_id("k"), conversation_id, ordinal, upto_seq, summary, time.time(), md)
            q.run(
                "INSERT INTO checkpoints (id, conversation_id, seq, upto_seq, summary_hash, created_at, meta) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (cp.id, conversation_id, ordinal, upto_seq, h, cp.created_at, dump_json(md, "checkpoint meta")),
            )
        return cp

    def _latest(self, q: Q, conversation_id: str) -> Checkpoint | None:
        row = q.one(
            f"SELECT {self._CP_COLS} FROM checkpoints c JOIN blobs b ON b.hash = c.summary_hash "
            "WHERE c.conversation_id = ? ORDER BY c.seq DESC LIMIT 1",
            (conversation_id,),
        )
        return None if row is None else self._checkpoint(row)

    def latest_checkpoint(self, conversation_id: str) -> Checkpoint | None:
        check_conversation_id(conversation_id)
        with self._transaction(False) as q:
            cp = self._latest(q, conversation_id)
            if cp is None:
                self._require(q, conversation_id)
        return cp

    def _checkpoints(self, q: Q, conversation_id: str) -> builtins.list[Checkpoint]:
        rows = q.all(
            f"SELECT {self._CP_COLS} FROM checkpoints c JOIN blobs b ON b.hash = c.summary_hash "
            "WHERE c.conversation_id = ? ORDER BY c.seq",
            (conversation_id,),
        )
        return [self._checkpoint(r) for r in rows]

    def list_checkpoints(self, conversation_id: str) -> builtins.list[Checkpoint]:
        with self._transaction(False) as q:
            self._require(q, conversation_id)
            return self._checkpoints(q, conversation_id)

    def fork(self, conversation_id: str, selection: Selection, title: str | None = None) -> str:
        source_md = inherited(self.get_conversation(conversation_id).metadata)
        with self._transaction(True) as q:
            last = int(self._require(q, conversation_id)[0])
            cps = self._checkpoints(q, conversation_id)
            plan = check_selection(selection, cps, last)
            seqs = [n for kind, n in plan if kind == "message"]
            folds = [n for kind, n in plan if kind == "fold"]
            hashes: dict[int, str] = {}
            for i in range(0, len(seqs), _CHUNK):
                chunk = seqs[i : i + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                for seq, h in q.all(
                    f"SELECT seq, hash FROM messages WHERE conversation_id = ? AND seq IN ({marks})",
                    (conversation_id, *chunk),
                ):
                    hashes[int(seq)] = h
            summary_hash = {c.seq: encode_message(c.summary)[0] for c in cps}
            md = {**source_md, "forked_from": conversation_id, "selection": {"seqs": seqs, "folds": folds}}
            cid = self._create(q, title, md, conversation_id)
            now = time.time()
            rows = [
                (new_id("m"), cid, i, hashes[n] if kind == "message" else summary_hash[n], now)
                for i, (kind, n) in enumerate(plan, start=1)
            ]
            q.many("INSERT INTO messages (id, conversation_id, seq, hash, created_at) VALUES (?, ?, ?, ?, ?)", rows)
            q.run("UPDATE conversations SET message_count = ? WHERE id = ?", (len(rows), cid))
        return cid

    # --- offloads, usage, state ---------------------------------------------------------
    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str:
        if not isinstance(content, str):
            raise ConfigError(f"offload content must be a string, got {type(content).__name__}")
        md = dump_json(check_dict(meta, "offload meta"), "offload meta")
        ref = new_offload_ref()
        with self._transaction(True) as q:
            if len(content) <= OFFLOAD_CHUNK_CHARS:
                stored, encoding = encode_offload(content)
                q.run(
                    "INSERT INTO offloads (ref, content, meta, created_at, encoding) VALUES (?, ?, ?, ?, ?)",
                    (ref, stored, md, time.time(), encoding),
                )
                return ref
            # piece by piece: the driver copies one piece at a time, never the whole original
            q.run(
                "INSERT INTO offloads (ref, content, meta, created_at, encoding) VALUES (?, '', ?, ?, ?)",
                (ref, md, time.time(), CHUNKED),
            )
            for seq, start in enumerate(range(0, len(content), OFFLOAD_CHUNK_CHARS)):
                stored, encoding = encode_offload(content[start : start + OFFLOAD_CHUNK_CHARS])
                q.run(
                    "INSERT INTO offload_chunks (ref, seq, content, encoding) VALUES (?, ?, ?, ?)",
                    (ref, seq, stored, encoding),
                )
                del stored
        return ref

    def get_offload(self, ref: str) -> Offload:
        check_offload_ref(ref)
        with self._transaction(False) as q:
            row = q.one("SELECT content, meta, encoding FROM offloads WHERE ref = ?", (ref,))
            if row is None:
                raise NotFoundError(f"unknown offload ref {ref!r}")
            if row[2] != CHUNKED:
                return Offload(ref, decode_offload(row[0], row[2]), json.loads(row[1]))
            pieces = self._offload_pieces(q, ref)
        return Offload(ref, "".join(pieces), json.loads(row[1]))

    def iter_offload(self, ref: str) -> Iterator[str]:
        """The original under ``ref`` piece by piece (at most ``OFFLOAD_CHUNK_CHARS`` characters
        each, in order), read one piece at a time: ``retrieve`` scans a large original this way."""
        check_offload_ref(ref)
        with self._transaction(False) as q:
            row = q.one("SELECT content, encoding FROM offloads WHERE ref = ?", (ref,))
            if row is None:
                raise NotFoundError(f"unknown offload ref {ref!r}")
            n = None
            if row[1] == CHUNKED:
                got = q.one("SELECT COUNT(*) FROM offload_chunks WHERE ref = ?", (ref,))
                n = int(got[0]) if got else 0
        if n is None:
            yield decode_offload(row[0], row[1])
            return
        for seq in range(n):
            with self._transaction(False) as q:
                piece = q.one("SELECT content, encoding FROM offload_chunks WHERE ref = ? AND seq = ?", (ref, seq))
            if piece is None:
                raise StoreError(f"offload {ref!r} lost its piece {seq} of {n}")
            yield decode_offload(piece[0], piece[1])

    def _offload_pieces(self, q: Q, ref: str) -> builtins.list[str]:
        rows = q.all("SELECT seq, content, encoding FROM offload_chunks WHERE ref = ? ORDER BY seq", (ref,))
        for i, r in enumerate(rows):
            if int(r[0]) != i:
                raise StoreError(f"offload {ref!r} lost its piece {i} of {len(rows)}")
        return [decode_offload(r[1], r[2]) for r in rows]

    def record_usage(self, conversation_id: str | None, usage: Usage) -> None:
        r = usage_to_row(usage)
        with self._transaction(True) as q:
            if conversation_id is not None:
                self._require(q, conversation_id)
            q.run(
                "INSERT INTO usage (id, conversation_id, recorded_at, model, role, input_tokens, output_tokens, "
                "cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, latency_s, extra) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    _usage_id(), conversation_id, time.time(), r["model"], r["role"],
                    *(r[k] for k in USAGE_FIELDS), r["cost_usd"], r["latency_s"], r["extra"],
                ),
            )

    def list_usage(self, conversation_id: str | None = None) -> builtins.list[Usage]:
        cols = f"model, role, {', '.join(USAGE_FIELDS)}, cost_usd, latency_s, extra"
        with self._transaction(False) as q:
            if conversation_id is None:
                rows = q.all(f"SELECT {cols} FROM usage ORDER BY id")
            else:
                self._require(q, conversation_id)
                rows = q.all(f"SELECT {cols} FROM usage WHERE conversation_id = ? ORDER BY id", (conversation_id,))
        out = []
        for model, role, *rest in rows:
            tokens, (cost, latency, extra) = rest[: len(USAGE_FIELDS)], rest[len(USAGE_FIELDS) :]
            out.append(
                Usage(
                    **{k: int(v) for k, v in zip(USAGE_FIELDS, tokens, strict=True)},
                    model=model, role=role, cost_usd=cost, latency_s=latency, extra=json.loads(extra),
                )
            )
        return out

    def usage_by_role(self, conversation_id: str | None = None) -> dict[str, dict[str, Any]]:
        return totals_by_role(self.list_usage(conversation_id))

    def record_event(self, conversation_id: str, name: str, data: dict[str, Any], at: float) -> None:
        check_text(name, "event name", empty=False)
        with self._transaction(True) as q:
            self._require(q, conversation_id)
            q.run(
                "INSERT INTO events (id, conversation_id, at, name, data) VALUES (?, ?, ?, ?, ?)",
                (f"e_{time.time_ns():020d}_{secrets.token_hex(4)}", conversation_id, float(at), name, event_data_json(data)),
            )

    def list_events(self, conversation_id: str, limit: int | None = None) -> builtins.list[StoredEvent]:
        limit = check_limit(limit)
        with self._transaction(False) as q:
            self._require(q, conversation_id)
            sql = "SELECT name, data, at FROM events WHERE conversation_id = ? ORDER BY id"
            rows = q.all(sql + (" LIMIT ?" if limit is not None else ""), (conversation_id, limit) if limit is not None else (conversation_id,))
        return [StoredEvent(conversation_id, name, json.loads(data), float(at)) for name, data, at in rows]

    def put_token_counts(self, conversation_id: str, counter: str, counts: dict[str, int]) -> None:
        check_conversation_id(conversation_id)
        check_text(counter, "token counter name", empty=False)
        rows = [(mid, counter, check_count(n)) for mid, n in counts.items()]
        with self._transaction(True) as q:
            self._require(q, conversation_id)
            ids = builtins.list(counts)
            found: set[str] = set()
            for i in range(0, len(ids), _CHUNK):
                chunk = ids[i : i + _CHUNK]
                found.update(r[0] for r in q.all(
                    f"SELECT id FROM messages WHERE conversation_id = ? AND id IN ({', '.join('?' * len(chunk))})",
                    (conversation_id, *chunk),
                ))
            unknown = [mid for mid in ids if mid not in found]
            if unknown:
                raise NotFoundError(f"conversation {conversation_id!r} has no message {unknown[0]!r}")
            q.many(
                "INSERT INTO message_tokens (message_id, counter, tokens) VALUES (?, ?, ?) "
                "ON CONFLICT (message_id, counter) DO UPDATE SET tokens = excluded.tokens",
                rows,
            )

    def active_token_counts(self, conversation_id: str, counter: str) -> dict[str, int]:
        check_conversation_id(conversation_id)
        check_text(counter, "token counter name", empty=False)
        with self._transaction(False) as q:
            self._require(q, conversation_id)
            rows = q.all(
                "SELECT t.message_id, t.tokens FROM messages m JOIN message_tokens t ON t.message_id = m.id AND t.counter = ? "
                "WHERE m.conversation_id = ? AND m.seq > COALESCE((SELECT k.upto_seq FROM checkpoints k "
                "WHERE k.conversation_id = ? ORDER BY k.seq DESC LIMIT 1), 0)",
                (counter, conversation_id, conversation_id),
            )
        return {mid: int(n) for mid, n in rows}

    def get_state(self, conversation_id: str, key: str) -> Any | None:
        check_conversation_id(conversation_id)
        check_text(key, "state key", empty=False)
        with self._transaction(False) as q:
            row = q.one("SELECT value FROM conversation_state WHERE conversation_id = ? AND key = ?", (conversation_id, key))
            if row is None:
                self._require(q, conversation_id)
                return None
        return json.loads(row[0])

    def set_state(self, conversation_id: str, key: str, value: Any) -> None:
        check_text(key, "state key", empty=False)
        raw = dump_json(value, f"state {key!r}")
        with self._transaction(True) as q:
            self._require(q, conversation_id)
            q.run(
                "INSERT INTO conversation_state (conversation_id, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (conversation_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (conversation_id, key, raw, time.time()),
            )
