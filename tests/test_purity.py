"""Invariant 7: budget, turn, token and compaction functions are pure — no clock, disk or network.

Checked two ways: the modules import nothing that reads a clock, the filesystem, the network or
randomness, and the same input gives the same output (no hidden state)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from contextwindow.compaction import CompactionConfig, compact, make_items
from contextwindow.folding import ExtractiveSummarizer
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, dumps

PURE = [
    "contextwindow.budget",
    "contextwindow.turns",
    "contextwindow.prefix",
    "contextwindow.compaction.view",
    "contextwindow.compaction.markers",
    "contextwindow.compaction.mask",
    "contextwindow.compaction.truncate",
    "contextwindow.compaction.summarize",
    "contextwindow.compaction.steps",
    "contextwindow.compaction.emergency",
    "contextwindow.compaction.sticky",
    "contextwindow.compaction.policy",
    "contextwindow.folding.base",
    "contextwindow.folding.constraints",
    "contextwindow.folding.clauses",
    "contextwindow.folding.ledger",
    "contextwindow.compaction.degrade",
    "contextwindow.folding.extractive",
    "contextwindow.folding.transcript",
    "contextwindow.folding.restore",
    "contextwindow.tokens.calibration",
    "contextwindow.tokens.ledger",
    "contextwindow.tokens.estimate",
    "contextwindow.tokens.textclass",
    "contextwindow.tokens.images",
]
IMPURE = {
    "time", "datetime", "os", "pathlib", "io", "socket", "ssl", "http", "urllib", "httpx", "sqlite3",
    "psycopg", "random", "secrets", "uuid", "subprocess", "shutil", "tempfile", "glob", "threading", "asyncio",
}


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_import_no_clock_disk_or_network(name: str) -> None:
    path = Path(importlib.import_module(name).__file__ or "")
    tree = ast.parse(path.read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & IMPURE, f"{name} imports {sorted(imported & IMPURE)}"


def test_compaction_is_deterministic() -> None:
    msgs = [Message("user", (TextPart("Fix it. Never touch the API."),))]
    for i in range(15):
        msgs.append(Message("assistant", (ToolCallPart(f"c{i}", "grep", '{"q": "x"}'),)))
        msgs.append(Message("tool", (ToolResultPart(f"c{i}", (TextPart(f"hit {i}\n" * 300),)),)))
    count = lambda m: len(dumps(m)) // 4 + 4  # noqa: E731
    runs = []
    for _ in range(2):
        items = make_items([f"m{i}" for i in range(len(msgs))], msgs, count)
        res = compact(items, budget=6_000, target=3_000, count=count, config=CompactionConfig(), summarizer=ExtractiveSummarizer(lambda t: len(t) // 4))
        runs.append(([i.key for i in res.items], [dumps(i.message) for i in res.items], res.report()))
    assert runs[0] == runs[1]
