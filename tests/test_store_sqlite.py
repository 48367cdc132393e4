"""SQLite specifics: WAL, foreign/corrupt files refused untouched, migrations, busy bound, URLs."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from contextwindow import messages as m
from contextwindow.errors import ConfigError, StoreBusyError, StoreCorruptError, StoreError
from contextwindow.store import Selection, SQLiteStore, open_store
from contextwindow.store.migrations import MIGRATIONS
from contextwindow.store.sqlite import APPLICATION_ID


def _url(p: Path) -> str:
    return f"sqlite:///{p}"


def test_new_store_uses_wal_and_marks_the_file_as_ours(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "dir" / "s.db"
    open_store(_url(db)).close()
    raw = sqlite3.connect(db)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        names = [r[0] for r in raw.execute("SELECT name FROM schema_migrations ORDER BY name")]
        assert names == [mig.name for mig in MIGRATIONS]
    finally:
        raw.close()


def _foreign_sqlite(p: Path) -> None:
    raw = sqlite3.connect(p)
    raw.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    raw.execute("INSERT INTO notes (body) VALUES ('keep me')")
    raw.commit()
    raw.close()


def _real_store_with_damage(p: Path) -> None:
    s = open_store(_url(p))
    cid = s.create_conversation()
    s.append(cid, [m.user("x" * 3000) for _ in range(200)])
    s.close()
    data = bytearray(p.read_bytes())
    page = 4096
    for off in range(2 * page, min(len(data), 12 * page)):
        data[off] = (off * 7) % 256
    p.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.write_text("# my notes\nnot a database\n"),
        lambda p: p.write_bytes(bytes(range(256)) * 40),
        lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000),
        _foreign_sqlite,
        _real_store_with_damage,
    ],
    ids=["text", "binary", "bad-header-pages", "other-programs-db", "damaged-store"],
)
def test_foreign_or_corrupt_files_are_refused_untouched(tmp_path: Path, make: object) -> None:
    db = tmp_path / "victim.db"
    make(db)  # type: ignore[operator]
    before = db.read_bytes()
    with pytest.raises(StoreCorruptError) as info:
        s = open_store(_url(db))
        try:  # a damaged page may only show when it is read
            for c in s.list_conversations():
                s.list(c.id)
        finally:
            s.close()
    assert str(db) in str(info.value)
    assert db.read_bytes() == before


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreCorruptError, match="directory"):
        open_store(_url(tmp_path))


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    s = open_store(_url(db))
    cid = s.create_conversation()
    assert s.append(cid, [m.user("hi")])[0].seq == 1
    s.close()


def test_a_store_with_only_the_first_migration_opens_and_upgrades(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    old = SQLiteStore(db, migrations=MIGRATIONS[:1])
    cid = old.create_conversation("from v1")
    old.append(cid, [m.user("hello"), m.assistant("hi")])
    old.checkpoint(cid, m.user("sum"), 1)
    old.close()
    raw = sqlite3.connect(db)
    assert [r[0] for r in raw.execute("SELECT name FROM schema_migrations")] == [MIGRATIONS[0].name]
    assert raw.execute("SELECT count(*) FROM sqlite_master WHERE name = 'offloads'").fetchone()[0] == 0
    raw.close()

    new = open_store(_url(db))
    try:
        assert [s.message.text for s in new.list(cid)] == ["hello", "hi"]
        assert [s.seq for s in new.list_active(cid)] == [2]
        assert new.get_conversation(cid).title == "from v1"
        ref = new.put_offload("now there is an offload table")
        assert new.get_offload(ref).content == "now there is an offload table"
        new.set_state(cid, "k", 1)
    finally:
        new.close()
    raw = sqlite3.connect(db)
    assert [r[0] for r in raw.execute("SELECT name FROM schema_migrations ORDER BY name")] == [x.name for x in MIGRATIONS]
    raw.close()


def test_a_store_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "future.db"
    open_store(_url(db)).close()
    raw = sqlite3.connect(db)
    raw.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future', 0)")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match=r"newer contextwindow.*9999_from_the_future"):
        open_store(_url(db))


def test_a_busy_database_waits_with_a_bound_then_raises(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    s = open_store(_url(db) + "?busy_timeout=0.3")
    cid = s.create_conversation()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusyError, match="locked"):
            s.append(cid, [m.user("blocked")])
        assert [x.seq for x in s.list(cid)] == []  # readers are not blocked in WAL mode
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert s.append(cid, [m.user("after")])[0].seq == 1
    s.close()


def test_a_busy_database_is_waited_for_not_failed_at_once(tmp_path: Path) -> None:
    """A writer that finds the lock taken waits for it: the holder lets go only once the append is
    already running (it raised at once otherwise), and the append then goes through. Behaviour,
    not elapsed time: a generous timeout, and the release is signalled, not timed."""
    db = tmp_path / "busy.db"
    s = open_store(_url(db) + "?busy_timeout=60")
    cid = s.create_conversation()
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    started = threading.Event()

    def release() -> None:
        started.wait()
        time.sleep(0.2)  # let the append reach the lock
        holder.execute("ROLLBACK")

    t = threading.Thread(target=release)
    t.start()
    try:
        started.set()
        assert s.append(cid, [m.user("waited")])[0].seq == 1
    finally:
        t.join()
        holder.close()
        s.close()


def test_a_writer_waits_for_a_short_lock_instead_of_failing(tmp_path: Path) -> None:
    db = tmp_path / "wait.db"
    s = open_store(_url(db) + "?busy_timeout=5")
    cid = s.create_conversation()
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    releaser.start()
    try:
        assert s.append(cid, [m.user("eventually")])[0].seq == 1
    finally:
        releaser.join()
        holder.close()
        s.close()


def test_forks_share_content_rows(tmp_path: Path) -> None:
    db = tmp_path / "share.db"
    s = open_store(_url(db))
    cid = s.create_conversation()
    s.append(cid, [m.user(f"message {i} " + "x" * 500) for i in range(50)])
    other = s.create_conversation()
    s.append(other, [m.user("message 3 " + "x" * 500)])  # same content as seq 4 of cid
    raw = sqlite3.connect(db)
    count = lambda table: raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
    assert count("blobs") == 50
    s.fork(cid, Selection(seqs=tuple(range(1, 51))))
    assert (count("blobs"), count("messages")) == (50, 101)
    raw.close()
    s.close()


def test_list_active_uses_the_conversation_seq_index(tmp_path: Path) -> None:
    db = tmp_path / "plan.db"
    open_store(_url(db)).close()
    raw = sqlite3.connect(db)
    plan = " ".join(
        str(r)
        for r in raw.execute(
            "EXPLAIN QUERY PLAN SELECT m.id FROM messages m WHERE m.conversation_id = 'c' AND m.seq > 5 ORDER BY m.seq"
        )
    )
    raw.close()
    assert "INDEX" in plan and "conversation_id=? AND seq>?" in plan


@pytest.mark.parametrize(
    "url",
    ["mysql://localhost/x", "sqlite://rel.db", "sqlite:///", "sqlite:///x.db?bogus=1", "sqlite:///x.db?busy_timeout=soon",
     "sqlite:///x.db?busy_timeout=-1", "", "   ", "file.db"],
)
def test_bad_store_urls_are_config_errors(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        open_store(url)
    assert "URL" in str(info.value)
    assert list(tmp_path.iterdir()) == []  # nothing created


def test_relative_urls_and_the_default_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    open_store("sqlite:///rel.db").close()
    assert (tmp_path / "rel.db").is_file()
    monkeypatch.delenv("CONTEXTWINDOW_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    s = open_store(None)
    assert s.url == f"sqlite:///{tmp_path / 'xdg' / 'contextwindow' / 'store.db'}"
    s.close()
    monkeypatch.setenv("CONTEXTWINDOW_STORE", "memory:")
    assert open_store(None).url == "memory:"
