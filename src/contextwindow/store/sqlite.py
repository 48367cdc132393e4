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


class _Group:
    """The state of :meth:`SQLiteStore.group_commits`: groups are numbered as they open."""

    __slots__ = ("committed", "lost", "number")

    def __init__(self) -> None:
        self.number = 0  # the newest group opened
        self.committed = 0  # the newest group committed
        self.lost: set[int] = set()  # groups a failed commit (or an error that ended the transaction) lost

    @contextmanager
    def step(self, conn: sqlite3.Connection, cur: sqlite3.Cursor, write: bool) -> Iterator[None]:
        """One operation inside the open group (opened here if none is): a write is a savepoint."""
        if not conn.in_transaction:
            cur.execute("BEGIN IMMEDIATE")
            self.number += 1
        if not write:
            yield
            return
        cur.execute("SAVEPOINT ctxw_write")
        try:
            yield
            cur.execute("RELEASE ctxw_write")
        except BaseException:
            if conn.in_transaction:
                cur.execute("ROLLBACK TO ctxw_write")
                cur.execute("RELEASE ctxw_write")
            else:  # the error ended the whole transaction (SQLite does on some I/O errors): the group is gone
                self.lost.add(self.number)
            raise


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
        self._group: _Group | None = None  # group commits (group_commits), off by default
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
                group = self._group
                if group is not None and (write or self._conn.in_transaction):
                    with group.step(self._conn, cur, write):
                        yield Q(cur, pg=False)
                    return
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

    # --- group commits (the proxy's store) -----------------------------------------------
    def group_commits(self) -> Callable[[], None]:
        """Commit writes in groups: from now on a write transaction is a savepoint inside one
        open transaction, which stays open until the caller commits it (:meth:`flush`, or
        :meth:`commit_through` for the writes it must not acknowledge before they are durable).
        One commit (its WAL pages written once) then carries the writes of many requests instead
        of each paying its own; a write that fails rolls back to its own savepoint, the others
        stay. Reads on this store see every write at once; other connections (another process's
        ``ctxw sessions``) see them once committed, and wait for the write lock while a group is
        open, so the caller commits soon (``ctxw proxy``: within 10 ms, on its event loop). A
        crash loses what is not committed yet. Should a commit fail, the whole group is lost:
        :attr:`losses` counts it, so callers holding state derived from those writes can drop
        it. Returns the function that stops: it commits what is pending, then writes commit one
        by one again."""
        with self._lock:
            if self._group is not None:
                raise ConfigError(f"group commits are already on for {self.path}")
            self._group = _Group()

        def halt() -> None:
            try:
                self.flush()
            finally:
                with self._lock:
                    self._group = None

        return halt

    @property
    def losses(self) -> int:
        """Groups of writes lost to a failed commit since group commits were turned on."""
        group = self._group
        return len(group.lost) if group is not None else 0

    def pending(self) -> int | None:
        """The open group's number (its writes are not committed yet), or None when nothing waits."""
        with self._lock:
            group = self._group
            return group.number if group is not None and self._conn.in_transaction else None

    def commit_through(self, number: int | None) -> None:
        """Make the writes of group ``number`` (from :meth:`pending`) durable: commit now unless
        they already are; a :class:`StoreError` when that group was lost."""
        group = self._group
        if number is None or group is None:
            return
        if group.committed < number:
            self.flush()
        if number in group.lost:
            raise StoreError(f"SQLite store {self.path}: a group commit failed and its writes are lost")

    def flush(self) -> None:
        """Commit the open group of writes now (nothing when there is none, or no group commits)."""
        with self._lock:
            group = self._group
            if group is None or not self._conn.in_transaction:
                return
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.rollback()
                group.lost.add(group.number)
                raise StoreError(f"SQLite store {self.path}: a group commit failed and its writes are lost: {exc}") from exc
            group.committed = group.number

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
