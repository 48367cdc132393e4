"""SQLite store (the default): one file, WAL journal, bounded waits, refuses foreign files.

Opening checks before it writes anything: the file must be empty/new or a SQLite database
whose ``application_id`` is contextwindow's; anything else (another program's database, a
corrupt file, a text file) raises :class:`StoreCorruptError` naming the path and leaves the
bytes alone. Writers take the lock up front (``BEGIN IMMEDIATE``) and wait at most
``busy_timeout`` seconds, then raise :class:`StoreBusyError`.

``synchronous=NORMAL`` in WAL mode: a commit survives the process being killed (it is in the
OS's page cache); pass ``?synchronous=full`` to also survive power loss.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import ConfigError, ContextWindowError, StoreBusyError, StoreCorruptError, StoreError
from .migrations import MIGRATIONS, Migration
from .sql import Q, SqlStore, apply_migrations

APPLICATION_ID = 0x43574E44  # "CWND"
SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_BUSY_TIMEOUT = 10.0


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SQLiteStore(SqlStore):
    """ConversationStore in one SQLite file (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        synchronous: str = "normal",
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> None:
        super().__init__()
        if synchronous.lower() not in ("off", "normal", "full", "extra"):
            raise ConfigError(f"synchronous must be off, normal, full or extra, got {synchronous!r}")
        if busy_timeout < 0:
            raise ConfigError(f"busy_timeout must be >= 0 seconds, got {busy_timeout!r}")
        self.path = Path(path).expanduser()
        self.url = f"sqlite:///{self.path}"
        self.busy_timeout = float(busy_timeout)
        self._lock = threading.RLock()
        self._refuse_foreign_bytes()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                str(self.path), timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc
        try:
            self._refuse_foreign_schema()
            self._conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            with self._transaction(True) as q:
                apply_migrations(q, migrations, str(self.path))
                if q.one("PRAGMA application_id") == (0,):
                    q.run(f"PRAGMA application_id = {APPLICATION_ID}")
        except BaseException:
            self._conn.close()
            raise

    # --- opening ------------------------------------------------------------------------
    def _refuse_foreign_bytes(self) -> None:
        p = self.path
        if p.is_dir():
            raise StoreCorruptError(f"{p} is a directory, not a contextwindow store")
        if not p.exists():
            return
        try:
            with p.open("rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise StoreError(f"cannot read store file {p}: {exc}") from exc
        if head and head != SQLITE_HEADER:
            raise StoreCorruptError(f"{p} is not a SQLite database (not a contextwindow store); refusing to touch it")

    def _refuse_foreign_schema(self) -> None:
        try:
            app_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
            tables = [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        except sqlite3.DatabaseError as exc:
            if _is_busy(exc):
                raise StoreBusyError(f"SQLite store {self.path} stayed locked past {self.busy_timeout:g}s") from exc
            raise StoreCorruptError(f"{self.path} is corrupt or not a SQLite database ({exc}); refusing to touch it") from exc
        if app_id not in (0, APPLICATION_ID) or (tables and app_id != APPLICATION_ID):
            raise StoreCorruptError(
                f"{self.path} is a SQLite database of another program (application_id={app_id}, "
                f"tables: {', '.join(sorted(tables)[:5]) or 'none'}); refusing to touch it"
            )

    # --- transactions -------------------------------------------------------------------
    @contextmanager
    def _transaction(self, write: bool) -> Iterator[Q]:
        with self._lock:
            try:
                cur = self._conn.cursor()
                cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield Q(cur, pg=False)
                    cur.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.rollback()
                    raise
            except ContextWindowError:
                raise
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise StoreBusyError(
                        f"SQLite store {self.path} stayed locked past {self.busy_timeout:g}s (another writer holds it)"
                    ) from exc
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc
            except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError) as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc
            except sqlite3.DatabaseError as exc:
                raise StoreCorruptError(f"SQLite store {self.path} is corrupt: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    def checkpoint_in_background(self, every_s: float = 0.5) -> Callable[[], None]:
        """Move WAL checkpoints off the committing thread: automatic checkpoints are turned off on
        this connection and a daemon thread with its own connection runs a PASSIVE checkpoint every
        ``every_s`` seconds (it never blocks a writer). An automatic checkpoint runs inside the
        commit that crosses 1,000 WAL pages and syncs the file: a stall of tens of milliseconds
        for whoever committed (the proxy's event loop). Same durability: the WAL is still synced
        before each checkpoint. Returns the function that stops the thread (after one last
        checkpoint) and turns automatic checkpoints back on."""
        stop = threading.Event()

        def run() -> None:
            try:
                conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
            except sqlite3.Error:
                return
            try:
                while not stop.wait(every_s):
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error:  # busy or closing: the next round tries again
                        continue
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                conn.close()

        with self._lock:
            self._conn.execute("PRAGMA wal_autocheckpoint = 0")
        thread = threading.Thread(target=run, name="ctxw-sqlite-checkpoint", daemon=True)
        thread.start()

        def halt() -> None:
            stop.set()
            thread.join(timeout=30)
            with self._lock, contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_autocheckpoint = 1000")

        return halt

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"
