"""Clip benchmark on the real tool results in ../shared/fixtures/transcripts.

    python benchmarks/bench_clip.py [--fixtures DIR] [--budgets 4000,500]

Prints, per budget and clipper kind: results, how many were clipped, tokens before/after, what
was kept that matters (file paths of search results, error/traceback lines of logs, JSON key
names), and throughput in MB/s on the fixtures and on large synthetic outputs.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from contextwindow.clipping import MemoryOffload, clip
from contextwindow.clipping.jsonclip import kept_key_names, key_names
from contextwindow.clipping.logs import error_lines
from contextwindow.clipping.search import RELATIVE_HEADER, TREE_HEADER, expand_tree
from contextwindow.clipping.search import parse as parse_search
from contextwindow.tokens import counter_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return json.dumps(content, ensure_ascii=False) if content is not None else ""


def _json_records(path: Path) -> Iterator[Any]:
    if path.suffix == ".jsonl":
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError:
                    continue
    else:
        yield json.loads(path.read_text(encoding="utf-8"))


def tool_results(fixtures: Path = FIXTURES) -> list[tuple[str, str, str]]:
    """(source, tool name or '', text) of every tool result in the fixture transcripts."""
    out: list[tuple[str, str, str]] = []
    for path in sorted(fixtures.glob("claude_code/*.jsonl")):
        names: dict[str, str] = {}
        for rec in _json_records(path):
            content = (rec.get("message") or {}).get("content") if isinstance(rec, dict) else None
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    names[block.get("id", "")] = block.get("name", "")
                elif block.get("type") == "tool_result":
                    out.append(("claude_code", names.get(block.get("tool_use_id", ""), ""), _text_of(block.get("content"))))
    for path in sorted(fixtures.glob("codex/*.jsonl")):
        names = {}
        for rec in _json_records(path):
            p = rec.get("payload") or {}
            if p.get("type") in ("function_call", "custom_tool_call"):
                names[p.get("call_id", "")] = p.get("name", "")
            elif p.get("type") in ("function_call_output", "custom_tool_call_output"):
                out.append(("codex", names.get(p.get("call_id", ""), ""), _text_of(p.get("output"))))
    for path in sorted(fixtures.glob("swe_agent/*.traj")):
        for rec in _json_records(path):
            for step in rec.get("trajectory") or []:
                if isinstance(step, dict) and isinstance(step.get("observation"), str):
                    action = str(step.get("action") or "").split(" ", 1)[0]
                    out.append(("swe_agent", action, step["observation"]))
    for path in sorted(fixtures.glob("openhands/*")):
        for rec in _json_records(path):
            events = rec.get("history") if isinstance(rec, dict) else rec
            for ev in events if isinstance(events, list) else []:
                if isinstance(ev, dict) and ev.get("observation") and isinstance(ev.get("content"), str):
                    out.append(("openhands", str(ev.get("observation")), ev["content"]))
    return [r for r in out if r[2]]


# --- what was kept that matters ------------------------------------------------------------


def search_paths_kept(original: str, clipped: str) -> tuple[int, int]:
    files = parse_search(original.split("\n")).files
    if clipped.startswith(TREE_HEADER):  # a path list written as a tree: expand it back
        lines = clipped.split("\n")
        end = next((i for i, ln in enumerate(lines) if ln.startswith("[search: ")), len(lines))
        listed = set(expand_tree(lines[1:end]))
        return sum(1 for p in files if p.rstrip("/") in listed), len(files)
    prefix = ""
    if clipped.startswith(RELATIVE_HEADER):
        prefix = clipped[len(RELATIVE_HEADER) : clipped.index("]\n")]
    kept = sum(1 for p in files if p in clipped or (prefix and p.startswith(prefix) and p[len(prefix):] in clipped))
    return kept, len(files)


def error_lines_kept(original: str, clipped: str) -> tuple[int, int]:
    lines = original.split("\n")
    wanted = [lines[i] for i in error_lines(original) if lines[i].strip()]
    return sum(1 for ln in wanted if ln in clipped), len(wanted)


def json_keys_kept(original: str, clipped: str) -> tuple[int, int]:
    try:
        keys = key_names(json.loads(original))
    except (ValueError, RecursionError):
        return 0, 0
    body = clipped[: clipped.rfind("\n[contextwindow clipped")]
    try:
        kept = kept_key_names(body)
    except ValueError:  # the shape itself was too big and was cut by lines
        return sum(1 for k in keys if json.dumps(k, ensure_ascii=False) in clipped), len(keys)
    return len(keys & kept), len(keys)


KEPT = {"search": search_paths_kept, "log": error_lines_kept, "json": json_keys_kept}


def run_budget(results: list[tuple[str, str, str]], budget: int) -> None:
    count = counter_for(None).count_text
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for _src, name, text in results:
        dt = float("inf")
        for _ in range(3):  # best of 3: the machine is shared
            sink = MemoryOffload()
            t0 = time.perf_counter()
            r = clip(text, budget, tool_name=name or None, sink=sink, count=count)
            dt = min(dt, time.perf_counter() - t0)
        kind = r.report.kind if r.report.clipped else "(under budget)"
        row = rows[kind]
        row["n"] += 1
        row["before"] += r.report.tokens_before
        row["after"] += r.report.tokens_after
        row["bytes"] += len(text.encode("utf-8"))
        row["secs"] += dt
        row["max_over"] = max(row["max_over"], r.report.tokens_after - budget)
        if r.report.clipped and r.report.kind in KEPT:
            kept, total = KEPT[r.report.kind](text, r.text)
            row["kept"] += kept
            row["wanted"] += total
    print(f"\n## budget {budget:,} tokens ({len(results)} real tool results)\n")
    print("| kind | results | tokens before | tokens after | saved | kept that matters | worst over budget | MB/s |")
    print("|---|---|---|---|---|---|---|---|")
    for kind in sorted(rows):
        row = rows[kind]
        saved = 1 - row["after"] / row["before"] if row["before"] else 0.0
        kept = f"{row['kept'] / row['wanted']:.1%} of {int(row['wanted'])}" if row["wanted"] else "–"
        mbs = row["bytes"] / 1e6 / row["secs"] if row["secs"] else 0.0
        print(f"| {kind} | {int(row['n'])} | {int(row['before']):,} | {int(row['after']):,} | {saved:.0%} | {kept} | "
              f"{int(row['max_over'])} | {mbs:.1f} |")


def synthetic(kind: str, size: int, rng: random.Random) -> str:
    words = ["alpha", "beta", "gamma", "delta", "config", "server", "handler", "request", "value", "index", "module"]
    out: list[str] = []
    total = 0
    i = 0
    while total < size:
        i += 1
        if kind == "text":
            line = " ".join(rng.choice(words) for _ in range(12))
        elif kind == "log":
            line = f"2024-05-01 12:00:{i % 60:02d} INFO worker {i} processed {rng.choice(words)}"
            if i % 997 == 0:
                line = f"2024-05-01 12:00:00 ERROR worker {i} failed: connection refused"
        elif kind == "search":
            line = f"src/pkg{i % 300}/mod{i % 7}.py:{i}:    value = {rng.choice(words)}({i})"
        else:  # json array of records
            line = ""
        out.append(line)
        total += len(line) + 1
    if kind == "json":
        n = size // 80
        return json.dumps([{"id": j, "name": rng.choice(words), "tags": [rng.choice(words)], "score": j * 0.5}
                           for j in range(n)])
    return "\n".join(out)


def run_throughput() -> None:
    rng = random.Random(7)
    count = counter_for(None).count_text
    print("\n## throughput on synthetic outputs\n")
    print("| input | size | path | MB/s |")
    print("|---|---|---|---|")
    cases = [
        ("text", 50_000_000, 40_000, "head+tail preview (over hard cap)"),
        ("log", 50_000_000, 40_000, "head+tail preview (over hard cap)"),
        ("text", 2_000_000, 10**9, "head+tail by lines"),
        ("log", 2_000_000, 10**9, "log clipper (structured)"),
        ("search", 2_000_000, 10**9, "search clipper (structured)"),
        ("json", 2_000_000, 10**9, "JSON clipper (structured)"),
    ]
    for kind, size, cap, label in cases:
        text = synthetic(kind, size, rng)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            clip(text, 4000, hard_cap_tokens=cap, count=count)
            best = min(best, time.perf_counter() - t0)
        print(f"| {kind} | {len(text) / 1e6:.0f} MB | {label} | {len(text) / 1e6 / best:.1f} |")
    one = "x" * 200_000_000
    t0 = time.perf_counter()
    r = clip(one, 4000, count=count)
    dt = time.perf_counter() - t0
    print(f"| single line | 200 MB | giant line → preview | {200 / dt:.0f} (tokens after {r.report.tokens_after}) |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    ap.add_argument("--budgets", default="4000,500")
    ap.add_argument("--no-synthetic", action="store_true")
    args = ap.parse_args()
    results = tool_results(args.fixtures)
    for b in args.budgets.split(","):
        run_budget(results, int(b))
    if not args.no_synthetic:
        run_throughput()


if __name__ == "__main__":
    main()
