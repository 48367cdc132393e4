"""Schema migrations shared by the SQLite and PostgreSQL stores.

Ordered and named; each applied one is a row of ``schema_migrations``. A store opens by
applying every missing migration in order, inside one transaction, so a database written by
an older version upgrades in place. Migrations only add: never drop or rewrite a user's data.

The SQL is the common subset of SQLite and PostgreSQL (TEXT, BIGINT, DOUBLE PRECISION; JSON
kept as TEXT), so one list serves both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_conversations_messages_checkpoints",
        (
            """CREATE TABLE conversations (
                id TEXT PRIMARY KEY,
                title TEXT,
                parent_id TEXT REFERENCES conversations(id),
                metadata TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                message_count BIGINT NOT NULL DEFAULT 0,
                checkpoint_count BIGINT NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX conversations_created ON conversations (created_at)",
            """CREATE TABLE blobs (
                hash TEXT PRIMARY KEY,
                body TEXT NOT NULL
            )""",
            """CREATE TABLE messages (
                id TEXT PRIMARY KEY,
                conversation_id TEXT NOT NULL REFERENCES conversations(id),
                seq BIGINT NOT NULL,
                hash TEXT NOT NULL REFERENCES blobs(hash),
                created_at DOUBLE PRECISION NOT NULL,
                UNIQUE (conversation_id, seq)
            )""",
            """CREATE TABLE checkpoints (
                id TEXT PRIMARY KEY,
                conversation_id TEXT NOT NULL REFERENCES conversations(id),
                seq BIGINT NOT NULL,
                upto_seq BIGINT NOT NULL,
                summary_hash TEXT NOT NULL REFERENCES blobs(hash),
                created_at DOUBLE PRECISION NOT NULL,
                meta TEXT NOT NULL,
                UNIQUE (conversation_id, seq)
            )""",
        ),
    ),
    Migration(
        "0002_offloads",
        (
            """CREATE TABLE offloads (
                ref TEXT PRIMARY KEY,
                content TEXT NOT NULL,
                meta TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL
            )""",
        ),
    ),
    Migration(
        "0003_usage",
        (
            """CREATE TABLE usage (
                id TEXT PRIMARY KEY,
                conversation_id TEXT REFERENCES conversations(id),
                recorded_at DOUBLE PRECISION NOT NULL,
                model TEXT,
                role TEXT NOT NULL,
                input_tokens BIGINT NOT NULL,
                output_tokens BIGINT NOT NULL,
                cache_read_tokens BIGINT NOT NULL,
                cache_write_tokens BIGINT NOT NULL,
                reasoning_tokens BIGINT NOT NULL,
                cost_usd DOUBLE PRECISION,
                latency_s DOUBLE PRECISION,
                extra TEXT NOT NULL
            )""",
            "CREATE INDEX usage_conversation ON usage (conversation_id, recorded_at)",
        ),
    ),
    Migration(
        "0004_conversation_state",
        (
            """CREATE TABLE conversation_state (
                conversation_id TEXT NOT NULL REFERENCES conversations(id),
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (conversation_id, key)
            )""",
        ),
    ),
)

MIGRATIONS += (
    # offload content that TEXT cannot hold as is (NUL characters, lone surrogates from
    # surrogateescape-decoded tool output) is kept as a JSON string; NULL means plain text
    Migration("0005_offload_encoding", ("ALTER TABLE offloads ADD COLUMN encoding TEXT",)),
    # per-message token counts kept with the rows, per counter (its name + a fingerprint of its
    # rules), so a reopened conversation reads its counts instead of recounting every message
    Migration(
        "0006_message_tokens",
        (
            """CREATE TABLE message_tokens (
                message_id TEXT NOT NULL REFERENCES messages(id),
                counter TEXT NOT NULL,
                tokens BIGINT NOT NULL,
                PRIMARY KEY (message_id, counter)
            )""",
        ),
    ),
)

MIGRATIONS += (
    # every Session event (compaction, fold, clip, gauge, limits, agent steps), kept so the decision
    # log and the compaction cards can be read after the fact (``ctxw sessions events ID``)
    Migration(
        "0007_events",
        (
            """CREATE TABLE events (
                id TEXT PRIMARY KEY,
                conversation_id TEXT NOT NULL REFERENCES conversations(id),
                at DOUBLE PRECISION NOT NULL,
                name TEXT NOT NULL,
                data TEXT NOT NULL
            )""",
            "CREATE INDEX events_conversation ON events (conversation_id, id)",
        ),
    ),
)

MIGRATIONS += (
    # a large original is kept as numbered pieces (the offloads row holds '' with encoding
    # 'chunked'): binding a 200 MB text as one parameter copied it whole (+385 MB peak during a
    # clip); each piece has its own encoding (NULL plain text, 'json' as in 0005)
    Migration(
        "0008_offload_chunks",
        (
            """CREATE TABLE offload_chunks (
                ref TEXT NOT NULL REFERENCES offloads(ref),
                seq BIGINT NOT NULL,
                content TEXT NOT NULL,
                encoding TEXT,
                PRIMARY KEY (ref, seq)
            )""",
        ),
    ),
)

CREATE_MIGRATIONS_TABLE = """CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at DOUBLE PRECISION NOT NULL
)"""
