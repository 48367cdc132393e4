"""Compaction and folding on real transcripts: speed, savings per strategy, prefix stability,
summarizer calls per fold. Prints numbers; the docs quote them with this command:

    python benchmarks/bench_compaction.py [--fixtures ../shared/fixtures/transcripts]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from contextwindow.budget import BudgetConfig, Limits
from contextwindow.compaction import CompactionConfig, compact, make_items, total
from contextwindow.folding import ExtractiveSummarizer, LLMSummarizer
from contextwindow.importers import load_transcript
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.tokens import counter_for

HERE = Path(__file__).resolve().parent
DEFAULT_FIXTURES = HERE.parent.parent / "shared" / "fixtures" / "transcripts"


def sessions(root: Path) -> list[tuple[str, list[Message]]]:
    out = []
    for p in sorted(root.glob("*/*")):
        if p.suffix in (".jsonl", ".json", ".traj") and p.is_file():
            try:
                s = load_transcript(p)
            except Exception as exc:  # a benchmark reports and goes on
                print(f"skip {p.name}: {exc}", file=sys.stderr)
                continue
            if len(s.messages) >= 10:
                out.append((p.name, s.messages))
    return out


def one_million(all_sessions: list[tuple[str, list[Message]]], count) -> tuple[list[str], list[Message], list[int]]:
    keys, msgs, counts = [], [], []
    n = 0
    rounds = 0
    while n < 1_000_000:
        for name, ms in all_sessions:
            for i, m in enumerate(ms):
                c = count(m)
                keys.append(f"{rounds}:{name}:{i}")
                msgs.append(m)
                counts.append(c)
                n += c
        rounds += 1
    return keys, msgs, counts


def bench_pass(all_sessions) -> None:
    counter = counter_for("claude-sonnet-4-5")
    keys, msgs, counts = one_million(all_sessions, counter.count_message)
    items = make_items(keys, msgs, counter.count_message, counts)
    tot = total(items)
    print(f"\n## one non-LLM compaction pass on a {tot:,}-token context ({len(items):,} messages)")
    cfg = CompactionConfig(strategies=("mask", "truncate", "drop_turns", "drop_steps", "squeeze"))
    for budget in (800_000, 400_000, 200_000):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            res = compact(items, budget=budget, target=budget // 2 * 1, count=counter.count_message, config=cfg)
            times.append(time.perf_counter() - t0)
        steps = ", ".join(f"{s['method']} −{int(s['saved']):,}" for s in res.steps)  # type: ignore[call-overload]
        print(f"budget {budget:>9,}: {tot:,} → {res.tokens_after:,} tokens in {min(times) * 1000:.0f} ms (best of 3); steps: {steps}")


def bench_sessions(all_sessions, window: int) -> None:
    print(f"\n## Session replay per fixture (window {window:,}; tool results clipped at 4,000; extractive summaries)")
    print("| session | calls | compactions | folds | prefix reuse (mean) | calls with reuse = 1 | cached share (token-weighted) | saved by strategy |")
    print("|---|---|---|---|---|---|---|---|")
    shares_all: list[tuple[float, int]] = []
    reuse_all: list[float] = []
    saved_all: dict[str, int] = defaultdict(int)
    for name, msgs in all_sessions:
        store = open_store("memory:")
        cfg = SessionConfig(budget=BudgetConfig(), limits=Limits())  # a benchmark replays whole sessions: no session limits
        s = Session(store, window=window, max_output=8_000, config=cfg)
        shares: list[tuple[float, int]] = []
        reuses: list[float] = []
        comps = folds = 0
        saved: dict[str, int] = defaultdict(int)

        def on(ev, saved=saved) -> None:
            nonlocal comps, folds
            if ev.name == "compaction.applied":
                comps += 1
                for st in ev.data["steps"]:
                    saved[st["method"]] += int(st["saved"])
            elif ev.name == "fold.applied":
                folds += 1

        s.events.subscribe(on)
        calls = 0
        for i, m in enumerate(msgs):
            if m.role == "assistant" and i > 0:
                b = s.build()
                calls += 1
                if calls > 1:
                    shares.append((b.prefix_share, b.tokens))
                    reuses.append(b.prefix_reuse)
                s.record(m, _usage(b.tokens))
            else:
                s.add(m)
        mean = statistics.mean(reuses) if reuses else 1.0
        whole = sum(1 for r in reuses if r >= 0.999999)
        reuse_all.extend(reuses)
        weighted = sum(x * w for x, w in shares) / max(1, sum(w for _, w in shares))
        shares_all += shares
        for k, v in saved.items():
            saved_all[k] += v
        print(f"| {name[:48]} | {calls} | {comps} | {folds} | {mean:.3f} | {whole}/{len(reuses)} | {weighted:.3f} | {dict(saved)} |")
    weighted = sum(x * w for x, w in shares_all) / max(1, sum(w for _, w in shares_all))
    print(
        f"\nall sessions, {len(reuse_all)} calls: prefix reuse mean {statistics.mean(reuse_all):.4f}, "
        f"calls whose whole previous payload stayed a prefix {sum(1 for r in reuse_all if r >= 0.999999) / len(reuse_all):.1%}; "
        f"cached share of input (token-weighted) {weighted:.4f}; tokens saved by strategy {dict(saved_all)}"
    )


def _usage(tokens: int):
    from contextwindow.usage import Usage

    return Usage(input_tokens=tokens, output_tokens=100)


def bench_summarizer_calls(all_sessions) -> None:
    print("\n## summarizer calls per fold (LLM summarizer with a 16k window over a scripted model)")
    counter = counter_for(None)
    for name, msgs in all_sessions[:6]:
        model = ScriptedModel(lambda m, s: "## Goal\nthe task\n## Progress\nsteps done in src/app.py\n## Remaining\nnext")
        summ = LLMSummarizer(model, window=16_000, count=counter.count_text)
        from contextwindow.folding import SummaryRequest

        out = summ.summarize(SummaryRequest(messages=msgs, budget_tokens=2_000))
        print(f"{name[:48]}: {counter.count_messages(msgs):,} tokens → {out.calls} summarizer calls ({out.method})")
    ext = ExtractiveSummarizer(counter.count_text)
    t0 = time.perf_counter()
    for _, msgs in all_sessions:
        from contextwindow.folding import SummaryRequest

        ext.summarize(SummaryRequest(messages=msgs, budget_tokens=4_000))
    print(f"extractive brief over all {len(all_sessions)} sessions: {(time.perf_counter() - t0) * 1000:.0f} ms total, 0 model calls")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    ap.add_argument("--window", type=int, default=64_000)
    args = ap.parse_args()
    if not args.fixtures.is_dir():
        sys.exit(f"no fixtures at {args.fixtures}")
    all_sessions = sessions(args.fixtures)
    print(f"{len(all_sessions)} sessions loaded from {args.fixtures}")
    bench_pass(all_sessions)
    bench_sessions(all_sessions, args.window)
    bench_summarizer_calls(all_sessions)


if __name__ == "__main__":
    main()
