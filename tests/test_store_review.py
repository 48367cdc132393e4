"""Review of the conversation store: edge cases a fleet of agents on one store runs into.

Each test pins a defect found in review (it failed before its fix): real SQLite files and a real
PostgreSQL server (tests/conftest.py), nothing of ours monkeypatched.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from contextwindow import messages as m
from contextwindow.errors import StoreBusyError
from contextwindow.store import ConversationStore, open_store


def test_postgres_busy_timeout_zero_fails_fast_instead_of_waiting_forever(pg_url: str) -> None:
    # PostgreSQL's lock_timeout = 0 means "wait forever"; busy_timeout=0 must mean "do not wait"
    s = open_store(pg_url + "&busy_timeout=0")
    cid = s.create_conversation()
    holder = psycopg.connect(pg_url)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            s.append(cid, [m.user("blocked")])
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    try:
        holder.execute("SELECT 1 FROM conversations WHERE id = %s FOR UPDATE", (cid,))
        t0 = time.monotonic()
        th = threading.Thread(target=write)
        th.start()
        th.join(3)
        waited = time.monotonic() - t0
    finally:
        holder.rollback()
        holder.close()
    th.join()
    s.close()
    assert waited < 3, "append waited on a lock although busy_timeout=0"
    assert isinstance(outcome[0], StoreBusyError)
