"""bench_relay_floor.py's relays relay: the answer through each is the upstream's own, byte for byte
(a floor measured on relays that dropped or mangled answers would be no floor)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_proxy as bp
import bench_relay_floor as floor


async def _answers(base: str, bodies: list[bytes]) -> list[tuple[int, bytes]]:
    import aiohttp

    out = []
    async with aiohttp.ClientSession() as session:
        for body in bodies:
            async with session.post(f"{base}/v1/chat/completions", data=body, headers={"content-type": "application/json"}) as r:
                out.append((r.status, await r.read()))
    return out


@pytest.mark.parametrize("kind", ["aiohttp", "lean-both"])
def test_relay_returns_the_upstream_answer(kind: str) -> None:
    up, port = bp.start([sys.executable, bp.__file__, "--serve-upstream", "0"], r"port (\d+)")
    procs = [up]
    try:
        upstream = f"http://127.0.0.1:{port}"
        relay, rport = bp.start([sys.executable, floor.__file__, "--serve", kind, upstream], r"port (\d+)")
        procs.append(relay)
        load = [body for mine in bp.bodies(1, 3, False, 5) for body in mine]
        direct = asyncio.run(_answers(upstream, load))
        relayed = asyncio.run(_answers(f"http://127.0.0.1:{rport}", load))
        assert [s for s, _ in direct] == [200, 200, 200]
        assert relayed == direct
    finally:
        for p in procs:
            p.kill()
            p.wait(timeout=30)
