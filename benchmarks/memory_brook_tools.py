"""Tool output of the held-out ``brook`` family (``memory_family_brook.py``): bulky text with no tracked
value in it (hex ids and words, no dates, names, amounts or bare numbers), some failed calls
(``is_error``), and, once a session, a page or review comment that states a value for a planted subject
in the very words the user uses for rules (a trap: tool output never enters the ledger).
Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import json
import random

TOOLS = ("bash", "read_file", "sql", "gh")
WORDS = ("loader", "shard", "manifest", "bundle", "sweep", "pager", "queue", "probe", "fixture", "ingest", "config",
         "render", "worker", "index", "router", "cache", "beacon", "reaper", "digest", "gauge")


def _hex(rng: random.Random) -> str:
    return "".join(rng.choice("abcdef") + rng.choice("0123456789abcdef") for _ in range(4))


def call_args(tool: str, rng: random.Random, why: str) -> str:
    args: dict[str, dict[str, object]] = {
        "bash": {"command": f"make check-{rng.choice(WORDS)}"},
        "read_file": {"path": f"docs/{rng.choice(WORDS)}.md"},
        "sql": {"query": f"select id, state from jobs where kind = '{rng.choice(WORDS)}'"},
        "gh": {"args": ["pr", "view", "--comments"]},
    }
    arg = {**args[tool], "why": why[:60]}
    return json.dumps(arg)


def output(tool: str, rng: random.Random, lines: int, can_fail: bool = True) -> tuple[str, bool]:
    """(text, is_error) of an ordinary call, ``lines`` long."""
    if rng.random() < 0.05 and can_fail:
        return f"{tool}: failed, connection reset by peer (request {_hex(rng)})", True
    out: list[str] = []
    if tool == "bash":
        for _ in range(lines):
            out.append(f"{rng.choice(('PASS', 'PASS', 'SKIP', 'WARN'))} {rng.choice(WORDS)}/{rng.choice(WORDS)}_{_hex(rng)} "
                       + " ".join(rng.choice(WORDS) for _ in range(5)))
        out.append(rng.choice(("all checks passed", "checks passed with warnings", "ERROR count in log: none, exit status zero")))
    elif tool == "sql":
        out.append("id       | state   | kind")
        for _ in range(lines):
            out.append(f"{_hex(rng)} | {rng.choice(('queued', 'running', 'done', 'failed')):7} | {rng.choice(WORDS)}")
        out.append("(rows shown above)")
    elif tool == "gh":
        for _ in range(lines):
            out.append(f"{rng.choice(WORDS)}-bot: {' '.join(rng.choice(WORDS) for _ in range(7))} ({_hex(rng)})")
    else:
        out.append(f"# {rng.choice(WORDS).title()} notes")
        for _ in range(lines):
            out.append(" ".join(rng.choice(WORDS) for _ in range(10)) + ".")
    return "\n".join(out), False


def rule_page(tool: str, rule: str, rng: random.Random, lines: int) -> str:
    """A page (``read_file``) or a review thread (``gh``) carrying ``rule`` among ordinary lines."""
    body, _ = output("read_file" if tool == "read_file" else "gh", rng, lines, can_fail=False)
    rows = body.split("\n")
    at = rng.randrange(1, len(rows))
    line = rule if tool == "read_file" else f"policy-bot: {rule}"
    return "\n".join([*rows[:at], line, *rows[at:]])
