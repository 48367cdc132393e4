"""``ctxw sessions list`` / ``show`` count a conversation's messages as its turns show them: rows a
client's later history superseded (a block it adds to every call and drops again, a reply it sends
back in its own form — contextwindow/sync.py) stay in the store but are not counted; the TUI's
conversation list says the same. A real SQLite store written through Session.sync, read by the CLI
as a user runs it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.curation import segments
from contextwindow.messages import Message, TextPart
from contextwindow.store import open_store
from test_sync import U, reply, rt, session


def _run(*args: str) -> str:
    got = CliRunner().invoke(cli, list(args))
    assert got.exit_code == 0, got.output
    return got.stdout


def test_sessions_count_the_conversation_not_the_superseded_rows(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    s = session(store)
    history: list[Message] = [U]
    for i in range(4):  # each request ends with a runtime block the next one drops; the stored reply comes back reworded
        s.sync([*history, rt(i)])
        s.add(reply(Message("assistant", (TextPart(f"answer {i}"),))))
        history += [Message("assistant", (TextPart(f"Answer {i}."),)), Message("user", (TextPart(f"and {i}?"),))]
    shown = sum(len(t.messages) for seg in segments(store, s.id) for t in seg.turns)
    stored = store.get_conversation(s.id).message_count
    store.close()
    assert stored - shown == 6  # 3 blocks and 3 replies superseded (the last request's are still provisional)

    (listed,) = json.loads(_run("sessions", "list", "--store", url, "--json"))
    assert (listed["messages"], listed["superseded"]) == (shown, stored - shown)
    assert f"{shown:>6} msgs" in _run("sessions", "list", "--store", url)
    doc = json.loads(_run("sessions", "show", s.id, "--store", url, "--json"))
    assert (doc["messages"], doc["superseded"]) == (shown, stored - shown)
    assert sum(t["messages"] for seg in doc["segments"] for t in seg["turns"]) == shown
    assert f"{shown} messages (and {stored - shown} a later history superseded, kept in the store)" in _run("sessions", "show", s.id, "--store", url)


def test_a_conversation_without_sync_counts_every_row(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    cid = store.create_conversation(title="plain")
    store.append(cid, [U, Message("assistant", (TextPart("ok"),))])
    store.close()
    (listed,) = json.loads(_run("sessions", "list", "--store", url, "--json"))
    assert (listed["messages"], listed["superseded"]) == (2, 0)
    assert "2 messages, 0 folds" in _run("sessions", "show", cid, "--store", url)


def test_the_tui_lists_the_same_count(tmp_path: Path) -> None:
    pytest.importorskip("textual", reason="the TUI needs the tui extra (textual)")
    from textual.widgets import OptionList

    from contextwindow.tui import CurateApp

    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    s = session(store)
    history: list[Message] = [U]
    for i in range(3):
        s.sync([*history, rt(i)])
        s.add(reply(Message("assistant", (TextPart(f"answer {i}"),))))
        history += [Message("assistant", (TextPart(f"Answer {i}."),)), Message("user", (TextPart(f"and {i}?"),))]
    shown = sum(len(t.messages) for seg in segments(store, s.id) for t in seg.turns)
    assert store.get_conversation(s.id).message_count > shown
    app = CurateApp(store)

    async def main() -> list[str]:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            return [o.prompt.plain for o in app.query_one("#conversations", OptionList).options]  # type: ignore[union-attr]

    try:
        (label,) = asyncio.run(main())
    finally:
        store.close()
    assert f"{shown} msgs ·" in label


def test_what_each_sync_says_it_superseded_adds_up_to_what_sessions_report(tmp_path: Path) -> None:
    # a client (ctxw run over Anthropic) that merges its runtime block into its last message and
    # keeps only the leading parts next time: those rows are *trimmed* (still shown, cut), the replies
    # it re-sends in its own words are *superseded* (not shown). The syncs' own counts, the CLI's and
    # the turns must tell one story; before, a sync counted a trimmed row as superseded
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    s = session(store)
    task = Message("user", (TextPart("Fix the flaky test."),))
    superseded = trimmed = 0
    history: list[Message] = []
    for i in range(4):
        last = Message("user", (TextPart(f"Step {i}."), TextPart(f"# Runtime {i}")))  # the block merged into the last message
        got = s.sync([task, *history, last] if i else [Message("user", (*task.parts, TextPart("# Runtime 0")))])
        superseded, trimmed = superseded + got.superseded, trimmed + got.trimmed
        s.add(reply(Message("assistant", (TextPart(f"answer {i}"),))))
        if i:
            history.append(Message("user", (TextPart(f"Step {i}."),)))  # kept without its block
        history.append(Message("assistant", (TextPart(f"Answer {i}."),)))  # the reply, in the client's words
    shown = sum(len(t.messages) for seg in segments(store, s.id) for t in seg.turns)
    stored = store.get_conversation(s.id).message_count
    store.close()
    assert (superseded, trimmed) == (3, 3)  # three replies re-sent reworded; the first message and two steps cut
    (listed,) = json.loads(_run("sessions", "list", "--store", url, "--json"))
    assert (listed["messages"], listed["superseded"]) == (shown, superseded) == (stored - superseded, superseded)
