"""``ctxw sessions list/show`` and ``ctxw tui`` on a conversation ``ctxw proxy`` is still serving:
a real SQLite file written by the running proxy (the official OpenAI SDK as its client, a real
local upstream), read through a second connection as the CLI and the TUI open it. The gauge is the
provider-reported prompt of the last call in the window the proxy managed it with (not the
registry's, not our count of the uncompacted record); the dollars are the recorded answers'."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")

from contextwindow.cli.main import cli  # noqa: E402
from contextwindow.llm.localserver import Reply, ToolCallSpec  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from test_proxy import oai, stack  # noqa: E402

WINDOW = 50_000


def grep(req: Any) -> Reply:
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": "retry", "n": n}, id=f"call_{n}"),), input_tokens=1_000 * n, output_tokens=12)


def turns(c: Any, history: list[dict[str, Any]], k: int) -> None:
    for _ in range(k):
        r = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256)
        msg = r.choices[0].message.model_dump(exclude_none=True, exclude={"refusal", "annotations", "audio", "function_call"})
        history += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": f"src/retry.py:{len(history)}: def retry()"}]


def show(url: str, cid: str) -> dict[str, Any]:
    got = CliRunner().invoke(cli, ["sessions", "show", cid, "--store", url, "--json"])
    assert got.exit_code == 0, got.output
    doc: dict[str, Any] = json.loads(got.stdout)
    return doc


def test_sessions_show_and_the_tui_follow_a_conversation_the_proxy_is_serving(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'proxy.db'}"
    with stack(grep, store=open_store(url), window=WINDOW) as (up, px, _store):
        c = oai(px)
        history: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful agent."}, {"role": "user", "content": "Find the retry logic."}]
        turns(c, history, 3)
        px.wait_idle()
        listed = json.loads(CliRunner().invoke(cli, ["sessions", "list", "--store", url, "--json"]).stdout)
        (conv,) = listed
        doc = show(url, conv["id"])
        assert (doc["window"], doc["window_source"]) == (WINDOW, "proxy --window")
        # the last answer's reported prompt: 1,000 tokens per message the upstream received
        assert doc["gauge"] == {"used": 1_000 * len(up.requests[-1].body["messages"]), "window": WINDOW,
                                "percent": round(100 * 1_000 * len(up.requests[-1].body["messages"]) / WINDOW, 1)}
        assert doc["usage_by_role"]["main"]["calls"] == 3 and doc["cost_by_role"]["main"]["cost_usd"] > 0
        shown = [t for s in doc["segments"] for t in s["turns"]]
        human = CliRunner().invoke(cli, ["sessions", "show", conv["id"], "--store", url]).stdout
        assert f"window {WINDOW:,} (given to ctxw proxy), at the end 6,000 = 12.0% of it" in human
        # the list says the same gauge and dollars per conversation, without opening each one
        assert conv["gauge"] == doc["gauge"] and conv["window_source"] == "proxy --window" and conv["calls"] == 3
        assert conv["cost_usd"] == doc["cost_by_role"]["main"]["cost_usd"]
        line = CliRunner().invoke(cli, ["sessions", "list", "--store", url]).stdout
        assert f"6,000 / {WINDOW:,} ( 12.0%)" in line and f"${conv['cost_usd']:,.4f}" in line

        # the proxy keeps serving; the TUI, open on the same file, shows the new calls on reload
        from textual.widgets import Static

        from contextwindow.tui import CurateApp

        reader = open_store(url)
        app = CurateApp(reader)

        async def main() -> None:
            async with app.run_test(size=(160, 45)) as pilot:
                await pilot.pause()
                app.show_conversation(conv["id"])
                before = app.query_one("#account", Static).content.plain  # type: ignore[union-attr]
                assert "main: 3 calls" in before and "6,000" in before and "50,000" in before
                await asyncio.to_thread(turns, c, history, 2)
                await asyncio.to_thread(px.wait_idle)
                await pilot.press("r")
                await pilot.pause()
                after = app.query_one("#account", Static).content.plain  # type: ignore[union-attr]
                assert "main: 5 calls" in after and "10,000" in after

        asyncio.run(main())
        reader.close()
        again = show(url, conv["id"])
        assert again["usage_by_role"]["main"]["calls"] == 5 and again["gauge"]["used"] == 10_000
        assert len([t for s in again["segments"] for t in s["turns"]]) >= len(shown)
