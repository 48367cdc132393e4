"""PostgreSQL store (psycopg 3): many agents and hosts sharing one store.

Same schema and SQL as the SQLite store (see :mod:`.sql`). Writers on one conversation
serialize on its row lock; a lock held longer than ``busy_timeout`` seconds raises
:class:`StoreBusyError` (PostgreSQL's ``lock_timeout``). Migrations run under a transaction-
scoped advisory lock, so many processes may open a fresh database at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import ConfigError, ContextWindowError, StoreBusyError, StoreError
from .migrations import MIGRATIONS, Migration
from .sql import Q, SqlStore, apply_migrations

MIGRATION_LOCK_KEY = 0x43574E44  # "CWND"
DEFAULT_BUSY_TIMEOUT = 10.0


def redact(url: str) -> str:
    """The URL without its password (for messages)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))


class PostgresStore(SqlStore):
    """ConversationStore in a PostgreSQL database (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        connect_timeout: float = 10.0,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> None:
        super().__init__()
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - psycopg is a dev dependency here
            raise ConfigError("the PostgreSQL store needs psycopg 3: pip install 'contextwindow[postgres]'") from exc
        if busy_timeout < 0:
            raise ConfigError(f"busy_timeout must be >= 0 seconds, got {busy_timeout!r}")
        self._psycopg: Any = psycopg
        self.url = redact(url)
        self.busy_timeout = float(busy_timeout)
        self._lock = threading.RLock()
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(connect_timeout)))
        except psycopg.ProgrammingError as exc:
            raise ConfigError(f"bad PostgreSQL URL {self.url}: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL store {self.url}: {str(exc).strip()}") from exc
        try:
            # lock_timeout = 0 would mean "wait forever": the shortest bound PostgreSQL has is 1 ms
            self._conn.execute(f"SET lock_timeout = '{max(1, round(self.busy_timeout * 1000))}ms'")
            with self._transaction(True) as q:
                q.run("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK_KEY,))
                apply_migrations(q, migrations, self.url)
        except BaseException:
            self._conn.close()
            raise

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[Q]:
        pg = self._psycopg
        with self._lock:
            try:
                if not write:  # reads: single statements in autocommit; rows only ever get added, so no snapshot is needed
                    with self._conn.cursor() as cur:
                        yield Q(cur, pg=True)
                    return
                with self._conn.transaction(), self._conn.cursor() as cur:
                    yield Q(cur, pg=True)
            except ContextWindowError:
                raise
            except (pg.errors.LockNotAvailable, pg.errors.DeadlockDetected, pg.errors.SerializationFailure) as exc:
                raise StoreBusyError(
                    f"PostgreSQL store {self.url} stayed locked past {self.busy_timeout:g}s: {str(exc).strip()}"
                ) from exc
            except pg.Error as exc:
                raise StoreError(f"PostgreSQL store {self.url}: {str(exc).strip()}") from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"
