"""SQLite group commits (the proxy's store, store/sqlite.py): writes join one open transaction as
savepoints and become durable together when the caller commits; another connection sees nothing
before that, a failed write takes only itself back, a crash loses only what was not committed,
and a lost group is counted so that state built on it can be dropped."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from contextwindow.errors import ConfigError
from contextwindow.messages import Message, TextPart
from contextwindow.store import ConversationStore, GroupCommits, MemoryStore
from contextwindow.store.base import background_checkpoints_of, group_commits_of
from contextwindow.store.sqlite import SQLiteStore

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]


def _msg(text: str) -> Message:
    return Message("user", (TextPart(text),))


def _others_see(path: Path) -> list[str]:
    """The message texts another connection reads (committed rows only)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT b.body FROM messages m JOIN blobs b ON b.hash = m.hash ORDER BY m.conversation_id, m.seq").fetchall()
    finally:
        conn.close()
    return [json.loads(body)["parts"][0]["text"] for (body,) in rows]


def test_group_commits_are_a_capability_of_the_sqlite_store_only(store: ConversationStore) -> None:
    """The store protocol says who commits in groups (the proxy asks group_commits_of, no getattr):
    SQLite does; the memory store (nothing to commit) and PostgreSQL (a commit per write) do not."""
    commits = group_commits_of(store)
    if isinstance(store, SQLiteStore):
        assert commits is store and isinstance(store, GroupCommits)
        stop = commits.group_commits()
        cid = store.create_conversation(title="t")
        store.append(cid, [_msg("one")])
        assert commits.pending() is not None and commits.losses == 0
        stop()
        assert commits.pending() is None
    else:
        assert commits is None and not isinstance(store, GroupCommits)
    assert group_commits_of(MemoryStore()) is None and group_commits_of(object()) is None
    # the same for the WAL checkpoints moved off the committing thread
    background = background_checkpoints_of(store)
    if isinstance(store, SQLiteStore):
        assert background is store
        background.checkpoint_in_background(every_s=0.05)()  # started, then stopped after one last checkpoint
    else:
        assert background is None


def test_writes_are_seen_here_at_once_and_elsewhere_once_committed(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    stop = store.group_commits()
    with pytest.raises(ConfigError, match="already on"):
        store.group_commits()
    cid = store.create_conversation(title="t")
    store.append(cid, [_msg("one")])
    first = store.pending()
    store.append(cid, [_msg("two"), _msg("three")])
    assert store.pending() == first is not None  # one open group holds both writes
    assert [sm.message.text for sm in store.list(cid)] == ["one", "two", "three"]  # this store reads its writes
    assert [sm.seq for sm in store.list_active(cid)] == [1, 2, 3]
    assert _others_see(path) == []  # nothing committed yet
    store.commit_through(first)
    assert store.pending() is None and _others_see(path) == ["one", "two", "three"]
    store.commit_through(first)  # already durable: nothing to do
    store.append(cid, [_msg("four")])
    second = store.pending()
    assert second is not None and second > first
    stop()  # commits what is pending, then one commit per write again
    assert _others_see(path)[-1] == "four"
    store.append(cid, [_msg("five")])
    assert store.pending() is None and _others_see(path)[-1] == "five"
    store.close()


def test_a_failed_write_takes_back_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    stop = store.group_commits()
    cid = store.create_conversation(title="t")
    store.append(cid, [_msg("kept before")])
    # a write that fails half way: checkpoint() counts the fold, then finds upto_seq out of range
    with pytest.raises(ConfigError, match="out of range"):
        store.checkpoint(cid, _msg("summary"), upto_seq=5)
    store.append(cid, [_msg("kept after")])
    fold = store.checkpoint(cid, _msg("summary"), upto_seq=1)
    stop()
    assert _others_see(path) == ["kept before", "kept after"]
    assert fold.seq == 1  # the failed checkpoint's count was taken back with it
    assert [c.upto_seq for c in store.list_checkpoints(cid)] == [1] and store.get_conversation(cid).message_count == 2
    assert store.losses == 0
    store.close()


def test_a_crash_loses_only_what_was_not_committed(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    script = textwrap.dedent(f"""
        import os
        from contextwindow.messages import Message, TextPart
        from contextwindow.store.sqlite import SQLiteStore
        store = SQLiteStore({str(path)!r})
        store.group_commits()
        cid = store.create_conversation(title="t")
        store.append(cid, [Message("user", (TextPart("committed"),))])
        store.flush()
        store.append(cid, [Message("user", (TextPart("not committed"),))])
        os._exit(0)  # killed: no stop(), no close()
    """)
    subprocess.run([sys.executable, "-c", script], check=True)
    assert _others_see(path) == ["committed"]
    store = SQLiteStore(path)
    (conv,) = store.list_conversations()
    store.close()
    conn = sqlite3.connect(path)
    try:
        assert conv.message_count == 1 and conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


@pytest.mark.skipif(resource is None, reason="no resource module (RLIMIT_FSIZE) on this platform")
def test_a_lost_group_is_counted_and_said_to_whoever_waits_for_it(tmp_path: Path) -> None:
    """A real I/O error ends the open transaction: the process may not grow a file past a limit
    (RLIMIT_FSIZE, in a child process), and a write too large for the page cache spills to the WAL."""
    path = tmp_path / "s.db"
    script = textwrap.dedent(f"""
        import json, os, resource, signal
        from contextwindow.errors import StoreError
        from contextwindow.messages import Message, TextPart
        from contextwindow.store.sqlite import SQLiteStore
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing us
        path = {str(path)!r}
        store = SQLiteStore(path)
        stop = store.group_commits()
        cid = store.create_conversation(title="t")
        store.append(cid, [Message("user", (TextPart("committed"),))])
        store.flush()
        store.append(cid, [Message("user", (TextPart("lost with its group"),))])
        group = store.pending()
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(path + "-wal") + 65536, hard))
        out = {{}}
        try:
            store.append(cid, [Message("user", (TextPart("x" * 8_000_000),))])
            store.flush()
        except StoreError as exc:
            out["error"] = str(exc)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        out["losses"] = store.losses
        try:
            store.commit_through(group)
        except StoreError as exc:
            out["waiter"] = str(exc)
        store.append(cid, [Message("user", (TextPart("after the loss"),))])
        stop()
        out["here"] = [sm.message.text for sm in store.list(cid)]
        store.close()
        print(json.dumps(out))
    """)
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    out = json.loads(done.stdout)
    assert "disk I/O error" in out["error"] or "full" in out["error"], out
    assert out["losses"] == 1 and "lost" in out["waiter"]
    assert out["here"] == ["committed", "after the loss"]
    assert _others_see(path) == ["committed", "after the loss"]
