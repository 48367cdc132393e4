"""A real agent pointed at ``ctxw proxy``: ``ctxw run`` (our own agent, both wire protocols) with
``--base-url`` at a ``ctxw proxy`` process, whose upstream is the real local provider server.

The upstream is scripted to make the agent run bash commands that print 50,000 lines over several
steps. Asserted on what the upstream received (tool results clipped by the proxy, valid request
sequences) and on the proxy's own store (the conversation, its usage and dollars, through
``ctxw sessions show``). Nothing of ours is patched."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("aiohttp")

from contextwindow import turns
from contextwindow.cli.main import cli
from contextwindow.curation import segments
from contextwindow.formats import get_format
from contextwindow.llm.localserver import LocalProviderServer, ReceivedRequest, Reply, ToolCallSpec
from contextwindow.store import open_store

MODELS = {"openai": "gpt-5.4-mini", "anthropic": "claude-sonnet-4-6"}
PROXY_CLIP = 1_000  # tokens; below the agent's own clip budget (4,000), so the proxy's clipping shows
STEPS = (  # one model response per step: the bash calls it makes
    (("b1", "seq 1 50000"), ("b2", "seq -f 'src/app/module.py:%g: retry(request)' 1 50000")),
    (("b3", "seq -f 'FAILED tests/test_app.py::test_case_%g - AssertionError' 1 50000"),),
)


@contextmanager
def proxy_process(upstream: str, store: str) -> Iterator[str]:
    """``ctxw proxy`` as a process on a free loopback port; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", upstream, "--port", "0", "--store", store,
         "--clip-budget", str(PROXY_CLIP)],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert m, line
        yield m.group(1)
        proc.terminate()  # SIGTERM: the proxy commits its open group of writes and exits cleanly
        assert proc.wait(timeout=60) == 0, proc.stderr.read()[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


def tool_results(body: dict[str, Any], provider: str) -> dict[str, str]:
    """tool call id → the result text the upstream received."""
    out: dict[str, str] = {}
    for m in body["messages"]:
        if provider == "openai" and m["role"] == "tool":
            out[m["tool_call_id"]] = m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
        if provider == "anthropic" and m["role"] == "user" and isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") == "tool_result":
                    c = b["content"]
                    out[b["tool_use_id"]] = c if isinstance(c, str) else "".join(p.get("text", "") for p in c)
    return out


def normal(m: dict[str, Any]) -> dict[str, Any]:
    """A wire message with string content written as one text block and without the client's
    cache breakpoints, which move from request to request (the same prompt to the provider)."""
    if isinstance(m.get("content"), str) and m["role"] != "tool":
        return {**m, "content": [{"type": "text", "text": m["content"]}]}
    if isinstance(m.get("content"), list):
        return {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b for b in m["content"]]}
    return m


def without_runtime(messages: list[dict[str, Any]], provider: str) -> list[dict[str, Any]]:
    """A forwarded request's messages without the runtime block `ctxw run` ends each request with."""
    out = [normal(m) for m in messages]
    last = out[-1]
    if provider == "openai":
        assert last["role"] == "user" and "# Runtime" in json.dumps(last)
        return out[:-1]
    assert last["content"][-1]["type"] == "text" and last["content"][-1]["text"].startswith("# Runtime")
    rest = last["content"][:-1]
    return out[:-1] + ([{**last, "content": rest}] if rest else [])


def script(provider: str) -> Any:
    def reply(req: ReceivedRequest) -> Reply | str:
        body = req.body
        if not body.get("tools"):  # the agent's title request
            return Reply(text="Huge outputs", input_tokens=300, output_tokens=4)
        answered = len(tool_results(body, provider))
        done = 0
        for calls in STEPS:
            if answered == done:
                return Reply(tool_calls=tuple(ToolCallSpec("bash", {"command": cmd}, id=i) for i, cmd in calls))
            done += len(calls)
        return "The failing cases are listed; done."

    return reply


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_ctxw_run_through_ctxw_proxy_clips_huge_tool_output_and_accounts(tmp_path: Path, provider: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    proxy_store = f"sqlite:///{tmp_path / 'proxy.db'}"
    agent_store = f"sqlite:///{tmp_path / 'agent.db'}"
    model = MODELS[provider]
    with LocalProviderServer(script(provider)) as up, proxy_process(up.base_url, proxy_store) as url:
        base = f"{url}/v1" if provider == "openai" else url
        r = CliRunner().invoke(
            cli, ["run", "find the failing tests", "--model", model, "--provider", provider, "--base-url", base, "--store", agent_store,
                  "--cwd", str(work), "--json"],
            env={"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "HOME": str(tmp_path)},
        )
        assert r.exit_code == 0, r.output
        main = [q for q in up.requests if q.body.get("tools")]
        assert len(main) == len(STEPS) + 1  # two tool steps, then the answer
        fmt = get_format(provider)
        for q in main:  # every forwarded request is a valid one for its provider
            assert turns.validate(fmt.from_payload(q.body), provider=provider) == []
        last = tool_results(main[-1].body, provider)
        assert set(last) == {"b1", "b2", "b3"}
        for text in last.values():
            # 50,000 lines (≥ 290 kB) arrive as at most about PROXY_CLIP tokens, with a way back to the rest
            assert len(text) < PROXY_CLIP * 6 and "retrieve(" in text and "ofl_" in text
        # `ctxw run` ends every request with its runtime block, a different one each time: the proxy
        # stores it as the request's provisional tail and drops it from the view when the next request
        # no longer holds it, so the agent stays ONE conversation: each result is clipped once and
        # re-sent byte for byte, and each request extends the one before minus its runtime block
        for prev, cur in itertools.pairwise(main):
            kept = without_runtime(prev.body["messages"], provider)
            now = [normal(m) for m in cur.body["messages"]]
            assert now[: len(kept)] == kept
            assert "# Runtime" in json.dumps(cur.body["messages"][-1])
        for cid, text in tool_results(main[-2].body, provider).items():
            assert last[cid] == text  # the clipped text of the request before, byte for byte
        # the agent's own transcript holds its own (larger) clip: the proxy clipped further at its door
        agent_side = {m["tool_call_id"]: m["content"] for m in json.loads(r.output)["messages"] if m["role"] == "tool"}
        assert set(agent_side) == set(last)
        assert all(len(agent_side[cid]) > len(last[cid]) for cid in last), {c: (len(agent_side[c]), len(last[c])) for c in last}
    # the proxy's store, read once the proxy has stopped (a SIGTERM commits what it holds): the
    # conversation, with usage and dollars, shown by `ctxw sessions show`
    store = open_store(proxy_store)
    try:
        ours = [c for c in store.list_conversations() if "find the failing tests" in (c.title or "")]
        assert len(ours) == 1, [(c.id, c.title, c.parent_id) for c in ours]  # one conversation, not one per request
        assert "# Runtime" not in (ours[0].title or "")  # titled by the task, not the per-call block merged into it
        shown = [sm.message for seg in segments(store, ours[0].id) for t in seg.turns for sm in t.messages]
        # the whole conversation, the model's final answer included (stored from the answer: the
        # agent never sends it back); of the runtime blocks only the last request's is left
        assert shown[-1].role == "assistant" and shown[-1].text == "The failing cases are listed; done."
        assert sum("# Runtime" in m.text for m in shown) == 1
        assert sum(len(m.tool_calls) for m in shown) == 3
        calls = 0
        for conv in ours:
            show = CliRunner().invoke(cli, ["sessions", "show", conv.id, "--store", proxy_store])
            assert show.exit_code == 0, show.output
            m = re.search(r"usage\[main\]: (\d+) calls, ([\d,]+) in / ([\d,]+) out tokens, \$(\d+\.\d+)", show.output)
            assert m, show.output
            assert int(m.group(2).replace(",", "")) > 0 and float(m.group(4)) > 0
            calls += int(m.group(1))
        assert calls == len(main)  # every forwarded call recorded and priced
    finally:
        store.close()
    assert os.path.exists(tmp_path / "proxy.db")
