"""bench_proxy_floor.py's cheapest proxy still decides what ours must before it forwards."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
pytest.importorskip("orjson")

import bench_proxy as bp
import bench_proxy_floor as floor


def body(client: int, turn: int, tool_text: str | None = None) -> bytes:
    messages = bp.history(client, turn)
    if tool_text is not None:
        messages[-1] = {**messages[-1], "content": tool_text}
    return json.dumps({"model": "gpt-4o-mini", "messages": messages, "tools": bp.TOOLS}).encode()


def test_the_minimum_finds_each_conversation_and_sees_nothing_to_change_in_the_benchmark_load() -> None:
    m = floor.Minimum()
    for turn in range(4):
        for client in range(3):
            m.decide(body(client, turn))
    assert m.changed == 0 and len(m.seen) == 3 and all(n == 2 + 2 * 3 for n in m.seen.values())


def test_the_minimum_sees_a_tool_result_over_the_clip_budget_and_a_history_over_the_trigger() -> None:
    m = floor.Minimum()
    m.decide(body(0, 1))
    m.decide(body(0, 2, tool_text="x" * (floor.CLIP_BYTES + 1)))
    assert m.changed == 1
    m.decide(body(1, 1, tool_text="y" * (4 * floor.TRIGGER_TOKENS)))
    assert m.changed == 2
