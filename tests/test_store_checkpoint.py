"""SQLite checkpoints in a background thread (the proxy's store): the committing thread no longer
checkpoints, the WAL still reaches the database file, and stopping restores the default."""

from __future__ import annotations

import threading
from pathlib import Path

from contextwindow.messages import Message, TextPart
from contextwindow.store.sqlite import SQLiteStore


def test_background_checkpoints_copy_the_wal_into_the_database(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    cid = store.create_conversation(title="t")
    stop = store.checkpoint_in_background(every_s=0.02)
    try:
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)  # commits no longer checkpoint
        size = (tmp_path / "s.db").stat().st_size
        for i in range(40):
            store.append(cid, [Message("user", (TextPart(f"message {i} " + "x" * 4000),))])
        grown = threading.Event()
        for _ in range(500):  # bounded wait on the file, not on a clock
            if (tmp_path / "s.db").stat().st_size > size + 100_000:
                grown.set()
                break
            threading.Event().wait(0.02)
        assert grown.is_set()  # the thread copied the WAL's pages into the database file
    finally:
        stop()
    assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
    assert len(store.list(cid)) == 40
    store.close()
    again = SQLiteStore(tmp_path / "s.db")
    assert [sm.message.text[:10] for sm in again.list(cid)][:2] == ["message 0 ", "message 1 "]
