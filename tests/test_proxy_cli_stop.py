"""``ctxw proxy`` stopped by Ctrl-C in a terminal (SIGINT to its whole process group) keeps every
usage row of the answers its clients had: through ``--front lean`` the worker process must not stop
before its front has handed over the answers it holds (up to ``handover.HOLD_S``) and it has
committed them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("aiohttp")
pytest.importorskip("httptools")

from contextwindow.llm.localserver import LocalProviderServer  # noqa: E402
from contextwindow.store import open_store  # noqa: E402
from proxy_helpers import TOOLS, script  # noqa: E402  (the upstream's scripted tool calls, 50 input tokens a message)

STOP_BOUND_S = 300


def _conversation(c: Any, name: str, rounds: int) -> None:
    history: list[Any] = [{"role": "system", "content": "You are a careful coding agent."},
                          {"role": "user", "content": f"Find the retry logic in {name}."}]
    for i in range(rounds):
        call = c.chat.completions.create(model="gpt-4o-mini", messages=history, max_tokens=256, tools=TOOLS).choices[0].message.tool_calls[0]
        history += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": call.id, "type": "function", "function": {"name": "grep", "arguments": call.function.arguments}}]},
            {"role": "tool", "tool_call_id": call.id, "content": f"{name}/http.py:{i}: retry()"}]


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="sends SIGINT to a process group (POSIX)")
@pytest.mark.parametrize("front", ["lean", "aiohttp"])
def test_ctrl_c_keeps_every_usage_row(tmp_path: Path, front: str) -> None:
    db = tmp_path / "proxy.db"
    conversations, rounds = 4, 4
    with LocalProviderServer(script) as up:
        # its own process group, as a shell gives a foreground job: Ctrl-C signals the whole group
        proc = subprocess.Popen(
            [sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", up.base_url, "--port", "0",
             "--store", f"sqlite:///{db}", "--front", front],
            stderr=subprocess.PIPE, text=True, start_new_session=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if m := re.search(r"ctxw proxy: listening on (http://127\.0\.0\.1:\d+)", line):
                    break
            else:
                raise AssertionError("ctxw proxy exited before it listened")
            c = openai.OpenAI(base_url=f"{m.group(1)}/v1", api_key="sk-test", max_retries=0)
            for k in range(conversations):
                _conversation(c, f"pkg{k}", rounds)
            os.killpg(proc.pid, signal.SIGINT)  # at once: the last answers are still held by the front
            try:
                # a liveness bound, not a speed one: it stops in 0.09-0.27 s (20 runs of --front aiohttp at load 9-11)
                _, err = proc.communicate(timeout=STOP_BOUND_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGABRT)  # faulthandler writes where each thread is
                _, err = proc.communicate(timeout=30)
                raise AssertionError(f"ctxw proxy --front {front} did not stop within {STOP_BOUND_S} s of Ctrl-C:\n{err[-8000:]}") from None
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
    assert len(up.requests) == conversations * rounds
    store = open_store(f"sqlite:///{db}")
    try:
        convs = store.list_conversations()
        assert len(convs) == conversations
        rows = [u.input_tokens for conv in convs for u in store.list_usage(conv.id)]
    finally:
        store.close()
    assert sorted(rows) == sorted(50 * (2 + 2 * i) for _ in range(conversations) for i in range(rounds)), err
    assert "records lost 0" in err or front == "aiohttp", err


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the worker process through /proc (Linux)")
def test_the_worker_is_out_of_ctrl_c_but_in_its_fronts_session(tmp_path: Path) -> None:
    """The worker is in a process group of its own (a terminal's Ctrl-C reaches the front alone) and
    in its front's session: on Linux a session is the scheduling group (autogroup) among whose
    members the worker's niceness counts; in a session of its own it took its full share of the
    cores beside its front at every burst."""
    with LocalProviderServer(script) as up:
        proc = subprocess.Popen(
            [sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", up.base_url, "--port", "0",
             "--store", f"sqlite:///{tmp_path / 'proxy.db'}", "--front", "lean"],
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if "ctxw proxy: listening on" in line:
                    break
            else:
                raise AssertionError("ctxw proxy exited before it listened")
            kids = [int(k) for task in Path(f"/proc/{proc.pid}/task").iterdir() for k in (task / "children").read_text().split()]
            assert len(kids) == 1, kids
            worker = kids[0]
            assert os.getsid(worker) == os.getsid(proc.pid)
            assert os.getpgid(worker) == worker != os.getpgid(proc.pid)
        finally:
            proc.terminate()
            proc.wait(60)
