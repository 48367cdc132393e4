"""The append-only conversation store: memory, SQLite (default) and PostgreSQL.

>>> from contextwindow.messages import assistant, user
>>> store = open_store("memory:")
>>> cid = store.create_conversation("demo")
>>> [s.seq for s in store.append(cid, [user("hi"), assistant("hello")])]
[1, 2]

URLs: ``memory:``, ``sqlite:///relative.db`` / ``sqlite:////abs/path.db`` (query options
``busy_timeout`` seconds and ``synchronous``), ``postgresql://user@host:port/db`` (query
option ``busy_timeout``; the rest goes to libpq). ``None`` means the default: the
``CONTEXTWINDOW_STORE`` environment variable, else a SQLite file in the user's data dir.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import ConfigError
from .base import (
    BackgroundCheckpoints,
    Checkpoint,
    ConversationInfo,
    ConversationStore,
    GroupCommits,
    Offload,
    Selection,
    StoredEvent,
    StoredMessage,
)
from .memory import MemoryStore
from .sqlite import SQLiteStore

__all__ = [
    "BackgroundCheckpoints",
    "Checkpoint",
    "ConversationInfo",
    "ConversationStore",
    "GroupCommits",
    "MemoryStore",
    "Offload",
    "SQLiteStore",
    "Selection",
    "StoredEvent",
    "StoredMessage",
    "default_url",
    "open_store",
]

_FORMS = "memory:, sqlite:///path/to/file.db or postgresql://user@host:port/dbname"


def default_url() -> str:
    """``$CONTEXTWINDOW_STORE``, else ``sqlite:///`` + ``$XDG_DATA_HOME``/contextwindow/store.db."""
    env = os.environ.get("CONTEXTWINDOW_STORE")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'contextwindow' / 'store.db'}"


def _seconds(value: str, name: str, url: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise ConfigError(f"store URL {url!r}: {name} must be a number of seconds, got {value!r}") from None
    if v < 0:
        raise ConfigError(f"store URL {url!r}: {name} must be >= 0, got {value!r}")
    return v


def open_store(url: str | None = None) -> ConversationStore:
    """Open (creating and migrating as needed) the store at ``url``. A bad URL is a ConfigError."""
    if url is None:
        url = default_url()
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"store URL must be a non-empty string ({_FORMS}), got {url!r}")
    url = url.strip()
    if url in ("memory:", "memory://"):
        return MemoryStore()
    if url.startswith("sqlite:"):
        if not url.startswith("sqlite:///"):
            raise ConfigError(f"bad SQLite store URL {url!r}: write sqlite:///relative.db or sqlite:////absolute/path.db")
        rest = url[len("sqlite:///") :]
        path, _, query = rest.partition("?")
        if not path:
            raise ConfigError(f"bad SQLite store URL {url!r}: no file path after sqlite:///")
        opts = dict(parse_qsl(query, keep_blank_values=True))
        unknown = set(opts) - {"busy_timeout", "synchronous"}
        if unknown:
            raise ConfigError(f"SQLite store URL {url!r}: unknown option(s) {', '.join(sorted(unknown))} (known: busy_timeout, synchronous)")
        busy = _seconds(opts["busy_timeout"], "busy_timeout", url) if "busy_timeout" in opts else 10.0
        return SQLiteStore(path, busy_timeout=busy, synchronous=opts.get("synchronous", "normal"))
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        try:
            parts = urlsplit(url)
        except ValueError as exc:
            raise ConfigError(f"bad PostgreSQL store URL: {exc}") from exc
        opts_list = parse_qsl(parts.query, keep_blank_values=True)
        busy = 10.0
        kept = []
        for k, v in opts_list:
            if k == "busy_timeout":
                busy = _seconds(v, k, url)
            else:
                kept.append((k, v))
        return PostgresStore(urlunsplit(parts._replace(query=urlencode(kept))), busy_timeout=busy)
    raise ConfigError(f"unsupported store URL {url!r}: expected {_FORMS}")
