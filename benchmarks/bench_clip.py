"""Clip benchmark on real outputs, counted in the model's own tokenizer.

    python benchmarks/bench_clip.py [--model gpt-4o] [--budgets 1000,4000] [--big-mb 200] [--no-big]

Outputs: every tool result of ../shared/fixtures/transcripts (split in two halves by a hash of
the text: "fit" and "held-out"; the tables report the held-out half and the fresh outputs, the
fit half is printed for comparison) plus fresh command outputs made here: ``grep -rn`` over a
tree created from a seed and over the installed site-packages, a service log with tracebacks
from a seed, a JSON document from a seed, real source files from site-packages (as ``cat`` and
as numbered Claude Code ``Read`` results) and ``git log -p`` of this repository.

Prints: the goals table (grep files with exact counts, error lines and the last traceback line,
top-level JSON keys, definition lines against a plain head+tail of the same budget, results
over budget in the model's tokenizer, budget used), a reference row for headroom-ai's
``compress()`` (when installed: ``pip install -e ".[bench]"``) and a plain head+tail, throughput
of each structured clipper on 2 MB inputs, peak memory on 200 MB inputs (a subprocess each),
and bad inputs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contextwindow.clipping import MemoryOffload, clip
from contextwindow.clipping.jsonclip import kept_key_names as kept_key_names
from contextwindow.clipping.search import listed_files, scan_search
from contextwindow.clipping.search import parse as parse_search
from contextwindow.tokens import counter_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
Count = Callable[[str], int]

__all__ = ["kept_key_names", "parse_search"]


# --- real tool results from the fixtures -----------------------------------------------------


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


def half(text: str) -> str:
    """"fit" or "held-out": a fixed split by a hash of the text."""
    return "fit" if hashlib.sha256(text.encode("utf-8", "replace")).digest()[0] % 2 == 0 else "held-out"


# --- what matters, measured independently of the clippers' own classifiers --------------------

ERROR_RE = re.compile(r"\b(?:ERROR|FATAL|CRITICAL|Error|error|Exception|FAILED|Failed|failed|panic)\b")
DEF_RE = re.compile(
    r"^\s*(?:(?:export|pub|public|private|protected|static|async|default|abstract|final)\s+)*"
    r"(?:def|class|function|fn|func|fun|defmodule|defp|defmacro|module|interface|struct|impl|trait|enum)\b"
)


def search_paths_kept(original: str, clipped: str) -> tuple[int, int]:
    """Files of the original listed in the clipped text with their exact match counts (a bare
    path list has no counts: its paths are checked)."""
    files = scan_search(original).files
    listed = listed_files(clipped)
    ok = 0
    for path, h in files.items():
        got = listed.get(path, -1)
        if got == h.count or (got is None and h.listed and not h.lines and h.count <= 1):
            ok += 1
    return ok, len(files)


def last_traceback_line(lines: list[str]) -> str | None:
    start = max((i for i, ln in enumerate(lines) if ln.lstrip().startswith("Traceback (most recent call last)")), default=-1)
    if start < 0:
        return None
    for ln in lines[start + 1 :]:
        if ln and not ln[0].isspace():
            return ln
    return None


def error_lines_kept(original: str, clipped: str) -> tuple[int, int]:
    lines = original.split("\n")
    wanted = [ln for ln in lines if ERROR_RE.search(ln) and len(ln) <= 400]
    return sum(1 for ln in wanted if ln in clipped), len(wanted)


def top_keys_kept(original: str, clipped: str) -> tuple[int, int]:
    try:
        value = json.loads(original)
    except (ValueError, RecursionError):
        return 0, 0
    if not isinstance(value, dict):
        return 0, 0
    keys = list(value)
    body = clipped.rsplit("\n[contextwindow clipped", 1)[0]
    ok = 0
    for k in keys:
        q = json.dumps(k, ensure_ascii=False)
        if f"{q}:" in body or re.search(rf"(?m)^{re.escape(k)}\??: ", body) or re.search(rf"[:,] {re.escape(k)}(?:,|$| \()", body):
            ok += 1
    return ok, len(keys)


def definitions_kept(original: str, clipped: str) -> tuple[int, int]:
    code = [re.sub(r"^\s*\d{1,7}(?:→|\t)", "", ln) for ln in original.split("\n")]
    defs = [ln for ln in code if DEF_RE.match(ln) and ln.strip()]
    return sum(1 for ln in defs if ln in clipped), len(defs)


def head_tail(text: str, budget: int, count: Count) -> str:
    """A plain head+tail by lines (60/40) of at most ``budget`` tokens."""
    lines = text.split("\n")
    lo, hi = 0, len(lines)
    best = ""
    while lo < hi:
        k = (lo + hi + 1) // 2
        h = k * 3 // 5
        out = "\n".join([*lines[:h], f"… [{len(lines) - k} lines omitted] …", *lines[len(lines) - (k - h):]])
        if count(out) <= budget:
            lo, best = k, out
        else:
            hi = k - 1
    return best


# --- fresh outputs made here -----------------------------------------------------------------


@dataclass
class Item:
    name: str
    group: str  # "fit" | "held-out" | "fresh"
    tool: str
    text: str
    role: str = ""  # what it is measured as: search | log | json | source | diff | other


WORDS = ["alpha", "beta", "gamma", "delta", "config", "server", "handler", "request", "value", "index", "module",
         "cache", "token", "buffer", "client", "worker", "queue", "retry", "timeout", "session"]


def make_tree(root: Path, rng: random.Random) -> None:
    """A project tree under a long path: 36 source files, a pattern in most of them."""
    for d in range(6):
        for f in range(6):
            path = root / f"pkg_{WORDS[d]}" / ("sub" if f % 2 else "") / f"{WORDS[(d + f) % 20]}_{f}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = []
            for i in range(rng.randint(40, 160)):
                w = rng.choice(WORDS)
                lines.append(f"    result = compute_{w}(config, {i})" if rng.random() < 0.12 else f"    {w} = {rng.randint(0, 99)}")
            path.write_text("\n".join(lines) + "\n")


def service_log(rng: random.Random, n: int = 4000) -> str:
    out: list[str] = []
    tb_at = sorted(rng.sample(range(200, n - 50), 3))
    for i in range(n):
        ts = f"2026-03-{1 + i // 2000:02d}T{(i // 60) % 24:02d}:{i % 60:02d}:{rng.randint(0, 59):02d}Z"
        r = rng.random()
        if i in tb_at:
            out += [f"{ts} ERROR worker-{rng.randint(1, 9)} request {i} failed with an unhandled exception",
                    "Traceback (most recent call last):",
                    '  File "/srv/app/handlers.py", line 88, in handle',
                    "    result = self.process(request)",
                    f'  File "/srv/app/{rng.choice(WORDS)}.py", line {rng.randint(10, 400)}, in process',
                    f"    raise {rng.choice(['ValueError', 'KeyError', 'TimeoutError'])}('{rng.choice(WORDS)} {i}')",
                    f"{rng.choice(['ValueError', 'KeyError', 'TimeoutError'])}: {rng.choice(WORDS)} {i}"]
        elif r < 0.004:
            out.append(f"{ts} ERROR db pool exhausted after {rng.randint(2, 30)}s (request {i})")
        elif r < 0.02:
            out.append(f"{ts} WARN slow {rng.choice(WORDS)} call: {rng.randint(500, 9000)}ms")
        elif r < 0.2:
            out.append(f"{ts} DEBUG {rng.choice(WORDS)} {rng.choice(WORDS)} id={rng.randint(1, 10**6)}")
        else:
            out.append(f"{ts} INFO handled GET /api/{rng.choice(WORDS)}/{rng.randint(1, 999)} 200 in {rng.randint(1, 300)}ms")
    out.append(f"{'=' * 20} shutdown: {len(tb_at)} unhandled exceptions, exit code 1 {'=' * 20}")
    return "\n".join(out)


def big_json(rng: random.Random, items: int = 2500) -> str:
    doc: dict[str, Any] = {
        "schema_version": "3.2", "generated_at": "2026-03-01T00:00:00Z",
        "summary": {"total": items, "pages": items // 100, "filters": {"status": ["open", "closed"]}},
    }
    for k in ("orders", "customers", "events"):
        doc[k] = [{"id": i, "name": f"{rng.choice(WORDS)}-{i}", "status": rng.choice(["open", "closed"]),
                   "tags": rng.sample(WORDS, rng.randint(0, 4)), "amount": round(rng.random() * 1000, 2),
                   "address": {"city": rng.choice(WORDS), "zip": f"{rng.randint(10000, 99999)}"},
                   **({"refund": {"reason": "late", "at": "2026-02-02"}} if rng.random() < 0.01 else {})}
                  for i in range(items)]
    for k in ("warnings", "errors", "debug_trace", "links", "license"):
        doc[k] = [f"{k} {i}: {' '.join(rng.choices(WORDS, k=8))}" for i in range(rng.randint(1, 40))]
    doc["readme"] = " ".join(rng.choices(WORDS, k=6000))
    doc["checksum"] = hashlib.sha256(b"seed").hexdigest()
    return json.dumps(doc, indent=2)


def site_packages() -> Path:
    import click

    return Path(click.__file__).resolve().parent.parent


def fresh_outputs(tmp: Path, seed: int = 12) -> list[Item]:
    rng = random.Random(seed)
    items: list[Item] = []
    tree = tmp / "home" / "developer" / "workspace" / "acme-platform" / "services" / "backend"
    make_tree(tree, rng)
    grep = subprocess.run(["grep", "-rn", "compute_", str(tree)], capture_output=True, text=True).stdout
    items.append(Item("grep -rn over a seeded tree", "fresh", "bash", grep, "search"))
    sp = site_packages()
    pkgs = [str(sp / p) for p in ("click", "httpx", "hypothesis") if (sp / p).is_dir()]
    grep2 = subprocess.run(["grep", "-rn", "--include=*.py", "def __init__", *pkgs], capture_output=True, text=True).stdout
    items.append(Item("grep -rn over site-packages", "fresh", "grep", grep2, "search"))
    items.append(Item("service log (seed)", "fresh", "bash", service_log(rng), "log"))
    items.append(Item("JSON document (seed)", "fresh", "bash", big_json(rng), "json"))
    sources = sorted(p for p in sp.glob("*/*.py") if 12_000 < p.stat().st_size < 400_000)
    picked = random.Random(seed).sample(sources, min(12, len(sources)))
    for i, p in enumerate(sorted(picked)):
        text = p.read_text(encoding="utf-8", errors="replace")
        if i % 2:
            text = "\n".join(f"{n + 1:>6}→{ln}" for n, ln in enumerate(text.split("\n")))
            items.append(Item(f"Read {p.parent.name}/{p.name}", "fresh", "Read", text, "source"))
        else:
            items.append(Item(f"cat {p.parent.name}/{p.name}", "fresh", "bash", text, "source"))
    log = subprocess.run(["git", "-C", str(ROOT), "log", "-p", "-n", "25", "--no-color", "--", "src"],
                         capture_output=True, text=True).stdout
    if log:
        items.append(Item("git log -p (this repository)", "fresh", "bash", log, "diff"))
    return items


def fixture_items(fixtures: Path) -> list[Item]:
    out = []
    for src, tool, text in tool_results(fixtures):
        out.append(Item(f"{src}:{tool}", half(text), tool, text))
    return out


# --- measuring ---------------------------------------------------------------------------------

MEASURES: dict[str, Callable[[str, str], tuple[int, int]]] = {
    "search": search_paths_kept, "json": top_keys_kept, "source": definitions_kept,
}


def role_of(item: Item, kind: str) -> str:
    if item.role:
        return item.role
    if kind in ("search", "log", "json", "diff"):
        return kind
    if kind in ("read", "source") and definitions_kept(item.text, "")[1] >= 5:
        return "source"
    return "other"


@dataclass
class Row:
    ok: int = 0
    total: int = 0
    results: int = 0

    def add(self, pair: tuple[int, int]) -> None:
        self.ok += pair[0]
        self.total += pair[1]
        self.results += 1

    def pct(self) -> str:
        return f"{self.ok / self.total:.1%} of {self.total:,} ({self.results} results)" if self.total else "–"


def log_goal(item: Item, clipped: str, budget: int, count: Count) -> tuple[bool, bool, bool]:
    """(errors fit, all kept, counted): errors (and the last traceback line) that fit in half
    the budget must all be there verbatim; else the output must state how many there were."""
    lines = item.text.split("\n")
    errs = [ln for ln in lines if ERROR_RE.search(ln) and len(ln) <= 400]
    tb = last_traceback_line(lines)
    want = errs + ([tb] if tb else [])
    fit = count("\n".join(want)) <= budget // 2
    kept = all(ln in clipped for ln in want)
    counted = bool(re.search(r"[\d,]+ error lines", clipped))
    return fit, kept, counted


def run_goals(items: list[Item], budgets: list[int], count: Count, label: str,
              reference: Callable[[str, int], str] | None = None) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for budget in budgets:
        rows: dict[str, Row] = defaultdict(Row)
        over = clipped_n = filled = 0
        logs = {"fit": 0, "fit_kept": 0, "nofit": 0, "nofit_counted": 0}
        defs_clip = Row()
        defs_ht = Row()
        for it in items:
            if count(it.text) <= budget:
                continue
            if reference is None:
                r = clip(it.text, budget, tool_name=it.tool or None, sink=MemoryOffload(), count=count)
                text, kind = r.text, r.report.kind
            else:
                text, kind = reference(it.text, budget), "ref"
            clipped_n += 1
            used = count(text)
            over += used > budget
            filled += used >= budget * 0.9
            role = it.role or (role_of(it, kind) if reference is None else "other")
            if role == "search" and "counts per directory" in text:
                # tier one did not fit: condensed, every file counted in a directory line
                rows["search_condensed"].add((int(bool(re.search(r"\([\d,]+ files?, [\d,]+ match", text))), 1))
            elif role in MEASURES and role != "source":
                rows[role].add(MEASURES[role](it.text, text))
            if role == "source":
                defs_clip.add(definitions_kept(it.text, text))
                defs_ht.add(definitions_kept(it.text, head_tail(it.text, budget, count)))
            if role == "log":
                fit, kept, counted = log_goal(it, text, budget, count)
                if fit:
                    logs["fit"] += 1
                    logs["fit_kept"] += kept
                else:
                    logs["nofit"] += 1
                    logs["nofit_counted"] += counted
        out[budget] = {"rows": rows, "over": over, "clipped": clipped_n, "filled": filled, "logs": logs,
                       "defs": defs_clip, "defs_ht": defs_ht}
    print(f"\n## goals — {label} ({len(items)} outputs)\n")
    print("| measure | " + " | ".join(f"{b:,} tokens" for b in budgets) + " | goal |")
    print("|---|" + "---|" * (len(budgets) + 1))

    def line(name: str, f: Callable[[dict[str, Any]], str], goal: str) -> None:
        print(f"| {name} | " + " | ".join(f(out[b]) for b in budgets) + f" | {goal} |")

    line("grep/search: files listed with their exact count, where the list fits", lambda o: o["rows"]["search"].pct(), "100%")
    line("grep/search: condensed to counts per directory (list too long for the budget)",
         lambda o: f"{o['rows']['search_condensed'].ok}/{o['rows']['search_condensed'].results} results", "all")
    line("logs: every error line + last traceback line, where they fit",
         lambda o: f"{o['logs']['fit_kept']}/{o['logs']['fit']} results", "all")
    line("logs: error lines counted, where they do not fit",
         lambda o: f"{o['logs']['nofit_counted']}/{o['logs']['nofit']} results", "all")
    line("JSON: top-level keys", lambda o: o["rows"]["json"].pct(), "100%")
    line("source reads: definition lines kept (clip)", lambda o: o["defs"].pct(), "")
    line("source reads: definition lines kept (plain head+tail)", lambda o: o["defs_ht"].pct(), "")
    line("source reads: clip ÷ head+tail", lambda o: f"{(o['defs'].ok / max(1, o['defs_ht'].ok)):.2f}×", "≥ 1.5×")
    line("results over budget (model tokenizer)", lambda o: f"{o['over']} of {o['clipped']}", "0")
    line("clipped results using ≥ 90% of the budget", lambda o: f"{o['filled']} of {o['clipped']}", "all")
    return out


def run_reference(items: list[Item], count: Count, budget: int) -> None:
    """contextwindow, headroom-ai compress() and a plain head+tail on the same outputs."""
    print(f"\n## reference — the same outputs (fresh + held-out), budget {budget:,}\n")
    print("| method | grep files with counts | error lines kept | last traceback line | JSON top-level keys | "
          "definition lines | tokens after (all) | over budget | MB/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    methods: list[tuple[str, Callable[[Item], str] | None]] = [
        ("contextwindow clip", lambda it: clip(it.text, budget, tool_name=it.tool or None, count=count).text),
        ("plain head+tail", lambda it: head_tail(it.text, budget, count)),
    ]
    hr = headroom_compress()
    methods.append(("headroom-ai compress()", (lambda it: hr(it.text, it.tool)) if hr else None))
    chosen = [it for it in items if count(it.text) > budget]
    for name, fn in methods:
        if fn is None:
            print(f"| {name} | not installed | | | | | | | |")
            continue
        rows: dict[str, Row] = defaultdict(Row)
        tb = Row()
        after = over = 0
        secs = 0.0
        size = 0
        for it in chosen:
            t0 = time.perf_counter()
            text = fn(it)
            secs += time.perf_counter() - t0
            size += len(it.text.encode("utf-8", "replace"))
            used = count(text)
            after += used
            over += used > budget
            role = it.role or role_of(it, clip(it.text, budget, tool_name=it.tool or None, count=count).report.kind)
            if role in ("search", "json"):
                rows[role].add(MEASURES[role](it.text, text))
            elif role == "source":
                rows[role].add(definitions_kept(it.text, text))
            elif role == "log":
                rows[role].add(error_lines_kept(it.text, text))
                last = last_traceback_line(it.text.split("\n"))
                if last:
                    tb.add((int(last in text), 1))
        print(f"| {name} | {rows['search'].pct()} | {rows['log'].pct()} | {tb.pct()} | {rows['json'].pct()} | "
              f"{rows['source'].pct()} | {after:,} | {over} of {len(chosen)} | {size / 1e6 / max(secs, 1e-9):.1f} |")


def headroom_compress() -> Callable[[str, str], str] | None:
    """headroom-ai's compress() on one tool result (offline: its tiktoken cache is filled from
    our bundled vocabulary), or None when the package is absent."""
    try:
        from headroom import compress
    except ImportError:
        return None
    from contextwindow.tokens.exact import vocab_bytes

    cache = Path(tempfile.mkdtemp(prefix="cw-tiktoken-"))
    for name in ("o200k_base", "cl100k_base"):
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(vocab_bytes(name))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    def run(text: str, tool: str) -> str:
        msgs = [{"role": "user", "content": "Look into it."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": tool or "bash", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}]
        res = compress(msgs, model="gpt-4o")
        content = res.messages[-1].get("content")
        return content if isinstance(content, str) else json.dumps(content)

    return run


# --- throughput, memory, bad input ---------------------------------------------------------------


def synthetic(kind: str, size: int, rng: random.Random) -> str:
    out: list[str] = []
    total = 0
    i = 0
    if kind == "json":
        return big_json(rng, items=max(10, size // 560))
    if kind == "source":
        src = (site_packages() / "click" / "core.py").read_text()
        return (src * (size // len(src) + 1))[:size]
    if kind == "html":
        row = "<tr><td><a href='/item/{i}'>item {i}</a></td><td>{w} {w} {w}</td></tr>"
        body = "".join(row.format(i=j, w=rng.choice(WORDS)) for j in range(size // 60))
        return f"<!DOCTYPE html><html><head><title>t</title><style>b{{}}</style></head><body><table>{body}</table></body></html>"
    if kind == "diff":
        while total < size:
            i += 1
            block = [f"diff --git a/src/m{i}.py b/src/m{i}.py", "index 1..2 100644", f"--- a/src/m{i}.py", f"+++ b/src/m{i}.py",
                     f"@@ -1,20 +1,22 @@ def f{i}():", *[f"-    old_{j} = {j}" for j in range(20)], *[f"+    new_{j} = {j}" for j in range(22)]]
            out += block
            total += sum(len(x) + 1 for x in block)
        return "\n".join(out)
    while total < size:
        i += 1
        if kind == "log":
            line = f"2026-05-01 12:00:{i % 60:02d} INFO worker {i} processed {rng.choice(WORDS)}"
            if i % 997 == 0:
                line = f"2026-05-01 12:00:00 ERROR worker {i} failed: connection refused"
        elif kind == "search":
            line = f"src/pkg{i % 300}/mod{i % 7}.py:{i}:    value = {rng.choice(WORDS)}({i})"
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(12))
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)


def run_throughput(count: Count) -> None:
    rng = random.Random(7)
    print("\n## throughput on 2 MB inputs (end to end: sniff, clip, count; best of 3)\n")
    print("| input | clipper | MB/s | tokens after |")
    print("|---|---|---|---|")
    for kind in ("log", "search", "json", "diff", "source", "html", "text"):
        text = synthetic(kind, 2_000_000, rng)
        best = float("inf")
        r = None
        for _ in range(3):
            t0 = time.perf_counter()
            r = clip(text, 4000, count=count)
            best = min(best, time.perf_counter() - t0)
        assert r is not None
        print(f"| {kind} | {r.report.kind} | {len(text) / 1e6 / best:.1f} | {r.report.tokens_after:,} |")


_CHILD = r"""
import json, resource, sys, time
from contextwindow.clipping import MemoryOffload, clip
from contextwindow.tokens import counter_for
kind, mb, model, store = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
count = counter_for(model).count_text
count("warm up the tokenizer")
size = mb * 1_000_000
def blocks(make, n):  # a few distinct 1 MB blocks, repeated: the input itself is the only big allocation
    return [make(j) for j in range(n)]
if kind == "log":
    base = blocks(lambda j: "".join(f"2026-05-01 12:{j:02d}:{i % 60:02d} INFO worker {i} processed request {i * 7}\n" for i in range(14000)), 4)
    err = "2026-05-01 12:00:00 ERROR db pool exhausted after 30s\n"
    tb = 'Traceback (most recent call last):\n  File "/srv/app.py", line 9, in run\n    main()\nValueError: last one\n'
    parts = []
    for k in range(size // len(base[0])):
        parts.append(base[k % 4])
        if k % 20 == 0:
            parts.append(err)
    parts.append(tb)
    parts.append("shutdown: exit code 1\n")
    text = "".join(parts)
elif kind == "search":
    base = blocks(lambda j: "".join(f"/srv/repo/src/pkg{j}/mod{i % 50}.py:{i}:    value = compute({i})\n" for i in range(16000)), 4)
    text = "".join(base[k % 4] for k in range(size // len(base[0])))
elif kind == "json":
    rec = ", ".join(json.dumps({"id": i, "name": "n%d" % i, "tags": ["a", "b"], "score": i * 0.5}) for i in range(12000))
    text = '{"meta": {"v": 1}, "items": [' + ", ".join([rec] * (size // len(rec))) + '], "done": true}'
elif kind == "line":
    text = "x" * size
elif kind == "deepjson":
    text = "[" * (size // 2) + "]" * (size // 2)
else:
    raise SystemExit("unknown kind " + kind)
import gc
gc.collect()
def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])  # kB
    return 0
try:  # reset the peak (VmHWM): what follows measures the clip alone, the input already resident
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
base_rss = status("VmRSS")
sink = None
if store == "memory":
    sink = MemoryOffload()
elif store == "sqlite":
    import os, tempfile
    from contextwindow.store import open_store
    sink = open_store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "bench.db"))
t0 = time.perf_counter()
r = clip(text, 4000, count=count, sink=sink)
dt = time.perf_counter() - t0
peak = status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"mb": len(text) / 1e6, "secs": dt, "base_mb": base_rss / 1024, "peak_mb": peak / 1024,
                  "kind": r.report.kind, "tokens_after": r.report.tokens_after, "ref": bool(r.report.ref),
                  "notes": list(r.report.notes)}))
"""


def run_memory(mb: int, model: str) -> None:
    print(f"\n## {mb} MB inputs (a subprocess each; RSS from /proc/self/status: the peak is reset after the input "
          "is built and the tokenizer loaded, so it is the peak during the clip, the resident input included)\n")
    print("| input | model | offload store | clipper | RSS before the clip | peak RSS during the clip | added by the clip | clip time | MB/s | tokens after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    cases = [("log", "none", model), ("log", "none", "claude-sonnet-4-5"), ("log", "memory", model),
             ("log", "sqlite", model), ("search", "none", model), ("json", "none", model), ("line", "none", model),
             ("deepjson", "none", model)]
    for kind, store, who in cases:
        size = mb if kind not in ("deepjson",) else max(1, mb // 100)
        proc = subprocess.run([sys.executable, "-c", _CHILD, kind, str(size), who, store], capture_output=True,
                              text=True, env=env)
        if proc.returncode != 0:
            print(f"| {kind} | {who} | {store} | failed: {proc.stderr.strip().splitlines()[-1:]} | | | | | | |")
            continue
        d = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"| {kind} {d['mb']:.0f} MB | {who} | {store} | {d['kind']} | {d['base_mb']:.0f} MB | {d['peak_mb']:.0f} MB | "
              f"{d['peak_mb'] - d['base_mb']:+.0f} MB | {d['secs']:.1f} s | {d['mb'] / d['secs']:.1f} | {d['tokens_after']:,} |")


def run_bad_input(count: Count) -> None:
    print("\n## bad input (4,000-token budget)\n")
    print("| input | clipper | tokens after | notes |")
    print("|---|---|---|---|")
    cases: list[tuple[str, str | bytes]] = [
        ("binary (random bytes, 2 MB)", random.Random(1).randbytes(2_000_000)),
        ("invalid UTF-8 in a log", ("ok line\n" * 40000).encode() + b"\xff\xfe bad \xc3\x28\n" + ("ERROR tail\n" * 3000).encode()),
        ("NUL bytes inside text", "text line\x00 with nul\n" * 50000),
        ("JSON nested 100,000 deep", "[" * 100_000 + "]" * 100_000),
        ("single line, 20 MB", "y" * 20_000_000),
    ]
    for name, data in cases:
        r = clip(data, 4000, count=count, sink=MemoryOffload())
        print(f"| {name} | {r.report.kind} | {r.report.tokens_after:,} | {'; '.join(r.report.notes)[:120]} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    ap.add_argument("--budgets", default="1000,4000")
    ap.add_argument("--model", default="gpt-4o", help="whose tokenizer counts the budget (default gpt-4o: o200k)")
    ap.add_argument("--big-mb", type=int, default=200)
    ap.add_argument("--no-big", action="store_true", help="skip the big-input memory runs")
    ap.add_argument("--only-big", action="store_true", help="only the big-input memory runs")
    args = ap.parse_args()
    count = counter_for(args.model).count_text
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.only_big:
        run_memory(args.big_mb, args.model)
        return
    print(f"counter: {counter_for(args.model)!r} (model {args.model})")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = fresh_outputs(Path(tmp))
    fixtures = fixture_items(args.fixtures) if args.fixtures.is_dir() else []
    held = [it for it in fixtures if it.group == "held-out"]
    fit = [it for it in fixtures if it.group == "fit"]
    print(f"outputs: {len(fresh)} fresh, {len(held)} held-out fixture results, {len(fit)} fit-half fixture results")
    run_goals(fresh + held, budgets, count, "fresh outputs + held-out half of the fixtures")
    run_goals(fresh, budgets, count, "fresh outputs only")
    if fit:
        run_goals(fit, budgets, count, "fit half of the fixtures (the half heuristics were checked on)")
    for b in budgets:
        run_reference(fresh + held, count, b)
    run_throughput(count)
    run_bad_input(count)
    if not args.no_big:
        run_memory(args.big_mb, args.model)


if __name__ == "__main__":
    main()
