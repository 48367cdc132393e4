"""``ctxw tui``: the Textual app driven by real keys (App.run_test + Pilot) over a real SQLite store."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("textual", reason="the TUI needs the tui extra (textual)")

from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TextArea

from contextwindow import messages as m
from contextwindow.budget import gauge
from contextwindow.cli.main import cli
from contextwindow.models import get_model
from contextwindow.store import ConversationStore, open_store
from contextwindow.tokens import counter_for
from contextwindow.tui import CurateApp
from contextwindow.usage import Usage

SIZE = (160, 45)


def tool_turn(i: int) -> list[m.Message]:
    call = m.ToolCallPart(id=f"call_{i}", name="read_file", arguments=f'{{"path": "src/f{i}.py"}}')
    return [
        m.user(f"question {i}: look at f{i}\nsecond line of the question"),
        m.assistant(f"reading f{i}", call),
        m.tool_result(f"call_{i}", f"def f{i}(): return [{i}]  # content of f{i}"),
        m.assistant(f"answer {i}"),
    ]


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[tuple[ConversationStore, str]]:
    """A SQLite store with an untitled-ish other conversation and 'tui demo': system + 4 tool turns
    (turns: 1 preamble, 2..5 questions 1..4), folded after question 2 (seq 9) → fold 1 = turns 1-3."""
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    other = store.create_conversation("an older conversation")
    store.append(other, [m.user("hello"), m.assistant("hi")])
    cid = store.create_conversation("tui demo", metadata={"model": "gpt-4o"})
    store.append(cid, [m.system("be brief")])
    for i in range(1, 5):
        store.append(cid, tool_turn(i))
    store.checkpoint(cid, m.text_message("user", "Goal: read f1 and f2\nState: both read", cw="fold_summary"), 9)
    store.record_usage(cid, Usage(input_tokens=1000, output_tokens=50, cache_read_tokens=600, model="gpt-4o", cost_usd=0.01))
    store.record_usage(cid, Usage(input_tokens=300, output_tokens=100, model="gpt-4o-mini", role="summarizer"))
    yield store, cid
    store.close()


def run(app: CurateApp, script: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(main())


def text_of(app: CurateApp, selector: str) -> str:
    return app.query_one(selector, Static).content.plain  # type: ignore[union-attr]


def screen_text(app: CurateApp) -> str:
    """The text on the (headless) screen as the user sees it, read from the SVG screenshot."""
    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


def prompts(app: CurateApp, selector: str) -> list[tuple[str | None, str]]:
    box = app.query_one(selector, OptionList)
    return [(o.id, o.prompt.plain) for o in box.options]  # type: ignore[union-attr]


async def open_conversation(pilot: Pilot[None], app: CurateApp, cid: str) -> None:
    """Walk the conversation list with arrow keys to ``cid``, then tab into the record."""
    box = app.query_one("#conversations", OptionList)
    target = box.get_option_index(cid)
    for _ in range(box.option_count):
        current = box.highlighted
        assert current is not None
        if current == target:
            break
        await pilot.press("down" if current < target else "up")
    await pilot.press("tab")
    await pilot.pause()
    assert app.conversation_id == cid and app.focused is app.query_one("#record")


async def go_to(pilot: Pilot[None], app: CurateApp, key: str) -> None:
    """Move the record's highlight to ``key`` ("turn:3", "fold:1") with up/down keys."""
    box = app.query_one("#record", OptionList)
    target = box.get_option_index(key)
    for _ in range(box.option_count):
        current = box.highlighted
        assert current is not None
        if current == target:
            break
        await pilot.press("down" if current < target else "up")
    await pilot.pause()
    assert box.highlighted_option is not None and box.highlighted_option.id == key


def test_lists_conversations_and_shows_folds_turns_detail_and_account(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        titles = [p for _, p in prompts(app, "#conversations")]
        assert any(p.startswith("tui demo") for p in titles) and any(p.startswith("an older conversation") for p in titles)
        # arrow keys over the list load each conversation's record
        other = next(c.id for c in store.list_conversations() if c.id != cid)
        await open_conversation(pilot, app, other)
        assert [p.split("·")[0].strip() for _, p in prompts(app, "#record")] == ["── loaded (1 turns) ──", "○   1  hello"]
        await pilot.press("shift+tab")
        await open_conversation(pilot, app, cid)
        rows = dict(prompts(app, "#record"))
        assert list(rows) == ["fold:1", "turn:1", "turn:2", "turn:3", "header:2", "turn:4", "turn:5"]
        assert "fold 1 · Goal: read f1 and f2" in rows["fold:1"] and "[turns 1–3]" in rows["fold:1"]
        counter = counter_for("gpt-4o")
        turn3 = store.list(cid)[5:9]  # question 2: seq 6..9
        assert "question 2: look at f2" in rows["turn:3"] and "second line" not in rows["turn:3"]
        assert f"4 msgs · {sum(counter.count_message(s.message) for s in turn3):,} tok" in rows["turn:3"]
        # the highlighted fold, then a turn, in full in the detail panel
        detail = app.query_one("#detail", TextArea)
        assert "State: both read" in detail.text
        await go_to(pilot, app, "turn:4")
        assert "question 3: look at f3" in detail.text and "second line of the question" in detail.text
        assert "turn 4 · seq 10–13 · 4 messages" in screen_text(app)  # repainted, not only loaded
        assert "def f3(): return [3]" in detail.text and "answer 3" in detail.text

    run(app, script)


def test_account_panel_shows_spend_checkpoints_and_gauge(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    app = CurateApp(store)
    # what the model sees now, counted independently of the app: latest summary + active messages
    counter = counter_for("gpt-4o")
    latest = store.latest_checkpoint(cid)
    assert latest is not None
    used = counter.count_message(latest.summary) + sum(counter.count_message(s.message) for s in store.list_active(cid))
    expected = gauge(used, get_model("gpt-4o").context_window)

    async def script(pilot: Pilot[None]) -> None:
        await open_conversation(pilot, app, cid)
        account = text_of(app, "#account")
        assert expected.describe() in account and expected.severity == "ok"
        assert "checkpoints 1" in account and "window 128,000" in account
        assert "main: 1 calls, in 1,000 (60% cache hit), out 50, $0.0100" in account
        assert "summarizer: 1 calls" in account and "out 100, unpriced" in account  # never "$0.0000"
        # the severity is shown as color on the gauge line
        content = app.query_one("#account", Static).content
        styles = {str(span.style) for span in content.spans}  # type: ignore[union-attr]
        assert "bold green" in styles

    run(app, script)


def test_selecting_two_turns_and_pressing_f_forks_them(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    before = store.list(cid)
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        await open_conversation(pilot, app, cid)
        await go_to(pilot, app, "turn:3")
        await pilot.press("space")
        await go_to(pilot, app, "turn:5")
        await pilot.press("space")
        assert app.selected_turns == {3, 5}
        assert dict(prompts(app, "#record"))["turn:5"].lstrip().startswith("●")
        shown = screen_text(app)
        assert "●   3  question 2" in shown and "●   5  question 4" in shown and "○   4  question 3" in shown
        await pilot.press("f")
        await pilot.pause()
        assert "forked into new conversation" in text_of(app, "#status")

    run(app, script)
    convs = store.list_conversations()
    assert len(convs) == 3
    new = app.conversation_id
    assert new is not None and new != cid
    # the fork holds exactly the two turns' messages, in order; the source is untouched
    assert [s.message for s in store.list(new)] == [s.message for s in before[5:9] + before[13:17]]
    assert store.list(cid) == before


def test_fork_shows_the_new_conversation_selected_in_the_list(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        await open_conversation(pilot, app, cid)
        await go_to(pilot, app, "turn:4")
        await pilot.press("space", "f")
        await pilot.pause()
        box = app.query_one("#conversations", OptionList)
        assert box.highlighted_option is not None and box.highlighted_option.id == app.conversation_id != cid
        assert box.highlighted_option.prompt.plain.startswith("fork of tui demo")  # type: ignore[union-attr]
        assert [k for k, _ in prompts(app, "#record")] == ["header:1", "turn:1"]

    run(app, script)


def test_a_fold_with_one_of_its_own_turns_is_refused_with_the_error(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        await open_conversation(pilot, app, cid)
        await go_to(pilot, app, "fold:1")
        await pilot.press("space")
        await go_to(pilot, app, "turn:2")
        await pilot.press("space", "f")
        await pilot.pause()
        status = app.query_one("#status", Static)
        assert "SelectionError" in text_of(app, "#status") and "cannot both be selected" in text_of(app, "#status")
        assert status.has_class("error")
        assert app.conversation_id == cid and app.selected_folds == {1} and app.selected_turns == {2}

    run(app, script)
    assert len(store.list_conversations()) == 2


def test_fork_with_nothing_selected_says_so_and_q_quits(filled: tuple[ConversationStore, str]) -> None:
    store, cid = filled
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        await open_conversation(pilot, app, cid)
        await pilot.press("f")
        assert "nothing selected" in text_of(app, "#status")
        # keys still reach the app from the read-only detail panel
        await pilot.press("tab")
        assert app.focused is app.query_one("#detail")
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    run(app, script)
    assert len(store.list_conversations()) == 2


def test_an_empty_store_says_it_has_no_conversations(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'empty.db'}")
    app = CurateApp(store)

    async def script(pilot: Pilot[None]) -> None:
        assert "no conversations" in text_of(app, "#status")
        await pilot.press("space", "f")
        assert "no conversation selected" in text_of(app, "#status")

    run(app, script)
    store.close()


def test_cli_missing_store_fails_with_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["tui", "--store", "sqlite:///missing/x.db"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxw: error:") and "missing/x.db" in lines[0]


@pytest.mark.parametrize("url_kind", ["garbage", "bad-url"])
def test_cli_unreadable_store_or_bad_url_fails_with_one_line(tmp_path: Path, url_kind: str) -> None:
    if url_kind == "garbage":
        path = tmp_path / "x.db"
        path.write_bytes(b"this is not a database" * 100)
        url = f"sqlite:///{path}"
    else:
        url = "mysql://nowhere/db"
    result = CliRunner().invoke(cli, ["tui", "--store", url])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxw: error:"), result.stderr
