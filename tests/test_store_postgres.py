"""PostgreSQL specifics against a real throwaway server: busy bound, migrations, connection errors."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from contextwindow import messages as m
from contextwindow.errors import StoreBusyError, StoreError
from contextwindow.store import open_store
from contextwindow.store.migrations import MIGRATIONS
from contextwindow.store.postgres import PostgresStore, redact


def test_a_locked_conversation_waits_with_a_bound_then_raises(pg_url: str) -> None:
    s = open_store(pg_url + "&busy_timeout=0.3")
    cid = s.create_conversation()
    holder = psycopg.connect(pg_url)
    try:
        holder.execute("SELECT 1 FROM conversations WHERE id = %s FOR UPDATE", (cid,))
        with pytest.raises(StoreBusyError, match="locked"):
            s.append(cid, [m.user("blocked")])
        other = s.create_conversation()  # other conversations are not blocked
        assert s.append(other, [m.user("free")])[0].seq == 1
    finally:
        holder.rollback()
        holder.close()
    assert s.append(cid, [m.user("after")])[0].seq == 1
    s.close()


def test_a_locked_conversation_is_waited_for_not_failed_at_once(pg_url: str) -> None:
    """The holder lets go only after the append has started (it raised at once otherwise); the
    append then goes through. Behaviour, not elapsed time: a generous timeout, a signalled release."""
    s = open_store(pg_url + "&busy_timeout=60")
    cid = s.create_conversation()
    holder = psycopg.connect(pg_url)
    holder.execute("SELECT 1 FROM conversations WHERE id = %s FOR UPDATE", (cid,))
    started = threading.Event()

    def release() -> None:
        started.wait()
        time.sleep(0.2)  # let the append reach the lock
        holder.rollback()

    t = threading.Thread(target=release)
    t.start()
    try:
        started.set()
        assert s.append(cid, [m.user("waited")])[0].seq == 1
    finally:
        t.join()
        holder.close()
        s.close()


def test_a_database_with_only_the_first_migration_upgrades(pg_url: str) -> None:
    old = PostgresStore(pg_url, migrations=MIGRATIONS[:1])
    cid = old.create_conversation("v1")
    old.append(cid, [m.user("hello")])
    old.close()
    with psycopg.connect(pg_url) as raw:
        names = [r[0] for r in raw.execute("SELECT name FROM schema_migrations")]
        assert names == [MIGRATIONS[0].name]
        assert raw.execute("SELECT to_regclass('offloads')").fetchone() == (None,)
    new = open_store(pg_url)
    try:
        assert [x.message.text for x in new.list(cid)] == ["hello"]
        assert new.get_offload(new.put_offload("x")).content == "x"
    finally:
        new.close()
    with psycopg.connect(pg_url) as raw:
        assert sorted(r[0] for r in raw.execute("SELECT name FROM schema_migrations")) == [x.name for x in MIGRATIONS]


def test_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError) as info:
        open_store("postgresql://alice:s3cret@127.0.0.1:1/db")
    assert "s3cret" not in str(info.value)
    assert "postgresql://alice:***@127.0.0.1:1/db" in str(info.value)
    assert redact("postgresql://bob@h/db") == "postgresql://bob@h/db"
