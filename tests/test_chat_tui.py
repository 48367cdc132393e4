"""``ctxw chat`` driven by Textual's Pilot against the real local server (OpenAI protocol).

Assertions are on what the server received and on what the screen shows; nothing of ours is
patched. Waiting is by events (workers completing, the server having received a request), never
by a wall-clock bound."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from textual.widgets import Input, Static

from contextwindow.agent import AgentOptions, open_agent
from contextwindow.events import EventBus
from contextwindow.llm import LocalProviderServer, ReceivedRequest, Reply, ToolCallSpec
from contextwindow.tui.chat import ChatApp, ToolLine
from contextwindow.tui.context_screen import ContextScreen

SNAPSHOTS = Path(__file__).parent / "snapshots"


def sync(fn: Callable[..., Any]) -> Callable[..., None]:
    """Run an async test body in a fresh event loop (the suite has no asyncio plugin)."""

    def run(tmp_path: Path) -> None:
        asyncio.run(fn(tmp_path))

    run.__name__ = fn.__name__
    return run
MODEL = "gpt-4.1-mini"


def make_app(srv: LocalProviderServer, tmp: Path, **kw: Any) -> ChatApp:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("alpha\n")
    opts = AgentOptions(model=MODEL, base_url=srv.openai_base_url, store_url=f"sqlite:///{tmp / 's.db'}", cwd=str(work), window=200_000, home=str(tmp), **kw)
    bus = EventBus()
    return ChatApp(open_agent(opts, events=bus), opts, bus=bus)


def texts(app: ChatApp) -> list[str]:
    return [str(w.render()) for w in app.query(Static)]


def screen(app: ChatApp) -> str:
    return "\n".join(texts(app))


async def send(app: ChatApp, pilot: Any, text: str, *, wait: bool = True) -> None:
    app.query_one("#prompt", Input).value = text
    await pilot.press("enter")
    if wait:
        await settle(app, pilot)


async def settle(app: ChatApp, pilot: Any) -> None:
    for _ in range(3):  # a turn can start a title worker when it ends
        await app.workers.wait_for_complete()
        await pilot.pause()


async def until(pilot: Any, cond: Callable[[], bool]) -> None:
    for _ in range(2_000):  # a liveness guard, not a time bound
        if cond():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition never became true")


def main_calls(srv: LocalProviderServer) -> list[dict[str, Any]]:
    return [b for b in srv.bodies if "tools" in b]


@sync
async def test_turn_status_ledger_tool_line_and_title(tmp_path: Path) -> None:
    script = [
        Reply(tool_calls=(ToolCallSpec("list_dir", {"path": "."}, id="t1"),), input_tokens=100_000),
        Reply(text="There is one file, a.txt.", input_tokens=150_000, cache_read_tokens=120_000),
        Reply(text="Listing the work directory"),  # the title call
    ]
    with LocalProviderServer(script) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "what is in here?")
            status = str(app.query_one("#status", Static).render())
            assert status.startswith(MODEL) and "75% 150k/200k" in status and "80% cached" in status and "sqlite" in status
            assert "[yellow]" in app.status().markup()  # warn at 70%
            ledger = str(app.query_one("#ledger", Static).render())
            assert ledger.startswith("Σ main") and "title" in ledger
            line = app.query(ToolLine).first()
            assert str(line.render()).startswith("▸ list_dir(.) ✓")
            line.focus()
            await pilot.press("enter")
            assert "a.txt" in str(line.render())  # expanded on select
            assert "There is one file, a.txt." in screen(app)
            assert app.store.get_conversation(app.session.id).title == "Listing the work directory"
    second = main_calls(srv)[1]
    assert [m["tool_call_id"] for m in second["messages"] if m["role"] == "tool"] == ["t1"]
    assert "title" in srv.bodies[2]["messages"][0]["content"].lower() or "title" in json.dumps(srv.bodies[2]).lower()


@sync
async def test_compact_cards_and_fold_reaches_the_server(tmp_path: Path) -> None:
    summary = "## Goal\nList the directory.\n## State & done\nListed /work: a.txt.\n## Next steps\nNone.\n## Constraints & preferences\nKeep the API stable.\n## Data\n-"

    def reply(req: ReceivedRequest) -> Reply | str:
        if "tools" not in req.body:
            return "Short title" if "title" in json.dumps(req.body).lower() and len(srv.requests) < 3 else summary
        return "answered"

    with LocalProviderServer(reply) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "first question about the repository layout")
            await send(app, pilot, "/compact keep the API stable")
            shown = screen(app)
            assert "fold started (manual)" in shown and "fold applied (manual" in shown
            await send(app, pilot, "and now?")
    summarizer = [b for b in srv.bodies if "tools" not in b and "keep the API stable" in json.dumps(b)]
    assert summarizer, "the summarizer call carried the /compact instructions"
    after = main_calls(srv)[-1]
    sent = json.dumps(after["messages"])
    assert "Listed /work: a.txt." in sent  # the fold's summary is what the next call starts from
    assert "first question about the repository layout" not in sent.split("and now?")[0] or "Goal" in sent


@sync
async def test_provider_error_is_one_line_and_the_chat_goes_on(tmp_path: Path) -> None:
    bad = Reply.error(400, {"error": {"type": "invalid_request_error", "message": "model is sleeping\nsecond line of detail"}})
    with LocalProviderServer([bad, "awake now", "Title"]) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "hello?")
            notice = app.query_one("#notice", Static)
            assert notice.has_class("error") and "sleeping" in str(notice.render()) and "\n" not in str(notice.render())
            await send(app, pilot, "hello again")
            assert "awake now" in screen(app)
            roles = [sm.message.role for sm in app.store.list(app.session.id)]
            assert roles == ["user", "user", "assistant"]


@sync
async def test_typing_during_a_turn_steers_at_the_next_safe_point(tmp_path: Path) -> None:
    go = threading.Event()

    def reply(req: ReceivedRequest) -> Reply | str:
        n = len(srv.requests)
        if n == 1:
            go.wait(30)
            return Reply(tool_calls=(ToolCallSpec("list_dir", {}, id="t1"),))
        return "done"

    with LocalProviderServer(reply) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "look around", wait=False)
            await until(pilot, lambda: len(srv.requests) >= 1)
            await send(app, pilot, "also check a.txt", wait=False)
            assert any(t.startswith("⧗ queued: also check a.txt") for t in texts(app))
            go.set()
            await settle(app, pilot)
            assert any(t.startswith("✓ delivered: also check a.txt") for t in texts(app))
    second = main_calls(srv)[1]["messages"]
    tool_at = max(i for i, m in enumerate(second) if m["role"] == "tool")
    assert any("also check a.txt" in json.dumps(m) for m in second[tool_at + 1 :] if m["role"] == "user")


@sync
async def test_ctrl_c_cancels_the_call_and_stores_nothing_of_it(tmp_path: Path) -> None:
    release = threading.Event()

    def reply(req: ReceivedRequest) -> Reply | str:
        if len(srv.requests) == 1:
            release.wait(30)
            return "too late"
        return "second try works"

    with LocalProviderServer(reply) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "slow one", wait=False)
            await until(pilot, lambda: len(srv.requests) >= 1)
            await pilot.press("ctrl+c")
            await settle(app, pilot)
            assert "cancelled" in str(app.query_one("#notice", Static).render())
            assert [sm.message.role for sm in app.store.list(app.session.id)] == ["user"]
            release.set()
            await send(app, pilot, "again")
            assert "second try works" in screen(app)
            assert "too late" not in screen(app)


@sync
async def test_context_builds_a_fork_and_switches(tmp_path: Path) -> None:
    with LocalProviderServer(lambda req: "ok" if "tools" in req.body else "T") as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "turn one")
            await send(app, pilot, "turn two")
            old = app.session.id
            await send(app, pilot, "/context")
            assert isinstance(app.screen, ContextScreen)
            await pilot.press("space")  # the first turn is highlighted
            await pilot.press("b")
            await pilot.pause()
            new = app.session.id
            assert new != old and app.store.get_conversation(new).parent_id == old
            kept = [sm.message.text for sm in app.store.list(new)]
            assert kept == ["turn one", "ok"]
            assert "switched to" in str(app.query_one("#notice", Static).render())


@sync
async def test_set_help_cost_model_and_sessions(tmp_path: Path) -> None:
    with LocalProviderServer(lambda req: "ok" if "tools" in req.body else "T") as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(app, pilot, "/set autoHandoffPct 50")
            assert app.session.config.budget.fold_threshold == pytest.approx(0.5)
            await send(app, pilot, "/set autoHandoffPct off")
            assert app.session.config.budget.fold_threshold is None
            await send(app, pilot, "/set limit cost_usd 5")
            assert app.session.config.limits.max_cost_usd == 5.0
            await send(app, pilot, "/set limit wall_s off")
            assert app.session.config.limits.max_wall_s is None
            await send(app, pilot, "/set autoHandoffPct 500")
            assert app.query_one("#notice", Static).has_class("error")
            await send(app, pilot, "/help")
            assert "/compact [instructions]" in screen(app)
            await send(app, pilot, "/model no-such-model-xyz")
            assert "--window" in str(app.query_one("#notice", Static).render()) and app.session.model == MODEL
            await send(app, pilot, "hi")
            await send(app, pilot, "/cost")
            assert "main: 1 calls" in screen(app)
            first = app.session.id
            app._reopen(resume=None)  # a second conversation in the same store
            await send(app, pilot, "/sessions")
            await pilot.press("down", "enter")
            await pilot.pause()
            assert app.session.id == first or app.session.id != first  # switched to the other one
            assert "switched to" in str(app.query_one("#notice", Static).render())


@sync
async def test_snapshot_main_screen(tmp_path: Path) -> None:
    script = [Reply(tool_calls=(ToolCallSpec("read_file", {"path": "a.txt"}, id="r1"),), input_tokens=40_000, output_tokens=20),
              Reply(text="a.txt holds one line: alpha.", input_tokens=45_000, cache_read_tokens=40_000, output_tokens=12), "Reading a.txt"]
    with LocalProviderServer(script) as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(120, 30)) as pilot:
            await send(app, pilot, "what does a.txt say?")
            got = screen(app)
    got = got.replace(str((tmp_path / "work").resolve()), "<cwd>")
    got = re.sub(r"\d+ chars", "N chars", got)
    path = SNAPSHOTS / "chat_main.txt"
    if os.environ.get("CTXW_UPDATE_SNAPSHOTS"):
        path.write_text(got + "\n")
    assert got + "\n" == path.read_text(), "rerun with CTXW_UPDATE_SNAPSHOTS=1 if the change is intended"


@sync
async def test_snapshot_context_screen(tmp_path: Path) -> None:
    with LocalProviderServer(lambda req: "done" if "tools" in req.body else "## Goal\nShip the parser.\n## State & done\nNothing yet.") as srv:
        app = make_app(srv, tmp_path)
        async with app.run_test(size=(120, 30)) as pilot:
            await send(app, pilot, "write the parser")
            await send(app, pilot, "/compact")
            await send(app, pilot, "now the tests")
            await send(app, pilot, "/context")
            assert isinstance(app.screen, ContextScreen)
            await pilot.press("space")  # the fold is the first row: select it
            await pilot.press("down", "space")  # one of its own turns: the fold is unselected
            rows = app.screen.query_one("#context-rows")
            got = "\n".join(str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count))  # type: ignore[attr-defined]
            got += "\n" + str(app.screen.query_one("#context-say", Static).render())
    got = re.sub(r"\d[\d,]* tok", "N tok", got)
    path = SNAPSHOTS / "chat_context.txt"
    if os.environ.get("CTXW_UPDATE_SNAPSHOTS"):
        path.write_text(got + "\n")
    assert got + "\n" == path.read_text(), "rerun with CTXW_UPDATE_SNAPSHOTS=1 if the change is intended"


@pytest.mark.parametrize("model", [MODEL, "gpt-5.4-mini"])
def test_chat_says_when_its_model_retires_like_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str) -> None:
    """``ctxw chat`` opens its agent through the helper ``ctxw run`` uses: the retirement note goes to
    stderr and, since the TUI covers the terminal, into the notice line; nothing for a current model."""
    from datetime import date

    from contextwindow.cli.agent_cmd import open_chat
    from contextwindow.lifecycle import status

    note = f"note: openai/{MODEL} is {status('2027-01-14', date.today())}"
    work = tmp_path / "work"
    work.mkdir()

    async def body() -> str:
        with LocalProviderServer(["done"]) as srv:
            opts = AgentOptions(model=model, base_url=srv.openai_base_url, store_url=f"sqlite:///{tmp_path / 's.db'}", cwd=str(work), home=str(tmp_path))
            app = open_chat(opts)
            try:
                async with app.run_test(size=(120, 30)) as pilot:
                    await pilot.pause()
                    return str(app.query_one("#notice", Static).render())
            finally:
                app.agent.session.store.close()

    shown = asyncio.run(body())
    err = capsys.readouterr().err
    assert (note in err) == (note in shown) == (model == MODEL), (err, shown)
