"""``ctxw proxy`` as a process: it starts, serves, refuses a 100 MB body in bounded memory."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("aiohttp")

from contextwindow.llm.localserver import LocalProviderServer, Reply


def _hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc (Linux)")
def test_cli_proxy_serves_and_refuses_a_100_mb_body_in_bounded_memory(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'proxy.db'}"
    with LocalProviderServer(lambda r: Reply(text="pong")) as up:
        env = {**os.environ, "CTXW_TEST_TOKEN": "tok"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", up.base_url, "--port", "0", "--store", store,
             "--max-body", str(8 << 20), "--token-env", "CTXW_TEST_TOKEN"],
            stderr=subprocess.PIPE, text=True, env=env,
        )
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            assert m, line
            # ctxw proxy's default front, or the one $CTXW_PROXY_FRONT names (.ci/run's aiohttp leg)
            assert ("(lean front; worker at" in line) == (os.environ.get("CTXW_PROXY_FRONT", "lean") == "lean"), line
            url = m.group(1)
            auth = {"x-ctxw-token": "tok"}
            ok = httpx.post(f"{url}/v1/chat/completions", json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "ping"}]},
                            headers=auth, timeout=60)
            assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"] == "pong"
            assert httpx.get(f"{url}/v1/models", timeout=60).status_code == 401  # the proxy's own token first
            before = _hwm_kib(proc.pid)

            def body() -> Iterator[bytes]:
                block = b"x" * (1 << 20)
                for _ in range(100):
                    yield block

            for headers in ({**auth}, {**auth, "content-length": str(100 << 20)}):
                try:
                    r = httpx.post(f"{url}/v1/messages", content=body(), headers=headers, timeout=120)
                    assert r.status_code == 413
                except (httpx.WriteError, httpx.RemoteProtocolError, httpx.ReadError):
                    pass  # the proxy answered 413 and closed while the client was still sending
            grown_mib = (_hwm_kib(proc.pid) - before) / 1024
            assert grown_mib < 40, f"peak memory grew by {grown_mib:.0f} MiB for a 100 MiB body (limit 8 MiB)"
            assert len(up.requests) == 1
            again = httpx.post(f"{url}/v1/chat/completions", json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "ping"}]},
                               headers=auth, timeout=60)
            assert again.status_code == 200  # still serving
            proc.terminate()  # as a service manager stops it: the open group is committed, the status said
            _, err = proc.communicate(timeout=60)
            said = re.search(r"stopped; (\d+) requests \((\d+) managed.*, (\d+) locks held, 0 jobs queued", err)
            assert said, err
            # every request is counted by what served the client: ctxw proxy, or under --front lean the
            # front (its own stop line, after the worker's, which counts only what reached it)
            served = max(int(n) for n in re.findall(r"stopped; (\d+) requests", err))
            assert int(said.group(2)) == 2 and served >= 4 and said.group(3) == "0"
        finally:
            proc.terminate()
            proc.wait(timeout=30)
