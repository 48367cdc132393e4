"""The prose-heavy sessions: where `default` billed more than `claude-code` (docs/replay.md).

    python benchmarks/prose_sessions.py                 # seeds 0-49 (FIT) and 100-149 (HELD OUT)
    python benchmarks/prose_sessions.py --seeds 7 8 --decisions

A seeded agent session whose history is mostly the model's own long prose (12 turns x 4 calls,
~900 words a reply, a ~300-word tool result per step): little for clearing to take, so every
saving is a summary. Per window (40k / 60k / 80k) it prints `default`'s bill above the floor (the
summaries' own calls included) as a multiple of `claude-code`'s: median and worst over the seeds,
and how many seeds lose; with ``--decisions``, each policy's folds (call, history before -> after).
Split: seeds 0-49 may be looked at while changing the policy (FIT); 100-149 are reported only.
"""

from __future__ import annotations

import argparse
import random
import statistics

from contextwindow.importers import CallRecord, ImportedSession
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from contextwindow.replay import replay

WORDS = ["the", "build", "cache", "window", "token", "policy", "store", "fold", "clip", "turn", "agent", "model", "reply", "error", "result", "file", "path", "line", "value", "check", "test"]
WINDOWS = (40_000, 60_000, 80_000)
FIT = range(0, 50)
HELD_OUT = range(100, 150)


def prose_heavy_session(seed: int, turns: int = 12, steps: int = 4) -> ImportedSession:
    """A seeded agent session whose history is mostly the model's own long prose (~900 words a
    reply), with a few mid-sized tool results: little for clearing to take."""
    rng = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    msgs: list[Message] = []
    calls = []
    for t in range(turns):
        msgs.append(user(f"step {t}: never touch the prod database. " + words(40)))
        for s in range(steps):
            calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
            if s < steps - 1:
                msgs.append(assistant(words(900), ToolCallPart(f"c{t}_{s}", "bash", '{"cmd": "ls"}')))
                msgs.append(tool_result(f"c{t}_{s}", words(300), name="bash"))
            else:
                msgs.append(assistant(words(900)))
    return ImportedSession("anthropic-messages", f"generated:{seed}", msgs, calls, model="claude-sonnet-4-5")


def ratios(seeds: range | list[int], decisions: bool = False) -> dict[int, list[float]]:
    """default's bill above the floor / claude-code's, per window, one entry per seed."""
    out: dict[int, list[float]] = {w: [] for w in WINDOWS}
    for seed in seeds:
        s = prose_heavy_session(seed)
        for w in WINDOWS:
            r = replay(s, ["claude-code", "default"], window=w)
            cc, d = r.policy("claude-code"), r.policy("default")
            assert d.over_window_calls == 0 and d.invalid_payloads == 0 and d.constraints_kept == d.constraints_total
            out[w].append((d.billed_with_summaries - d.floor_input_tokens) / (cc.billed_with_summaries - cc.floor_input_tokens))
            if decisions:
                for p in (cc, d):
                    h = p.tokens_per_call
                    folds = [f"{c} ({h[c - 1]:,} -> {h[c]:,})" for c, what in p.markers if what == "fold" and 0 < c < len(h)]
                    print(f"seed {seed} {w // 1000}k {p.policy:11} above floor {p.billed_with_summaries - p.floor_input_tokens:9,.0f}  folds at call: {', '.join(folds) or 'none'}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", help="these seeds only (default: the FIT and HELD OUT ranges)")
    ap.add_argument("--decisions", action="store_true", help="print each replay's folds")
    args = ap.parse_args()
    parts = [("seeds", list(args.seeds))] if args.seeds else [("FIT 0-49", FIT), ("HELD OUT 100-149", HELD_OUT)]
    print("| seeds | window | default / claude-code above the floor: median | worst | seeds where default bills more |")
    print("|---|---|---|---|---|")
    for name, seeds in parts:
        got = ratios(seeds, args.decisions)
        for w in WINDOWS:
            xs = got[w]
            print(f"| {name} | {w // 1000}k | {statistics.median(xs):.3f} | {max(xs):.3f} | {sum(x > 1 for x in xs)}/{len(xs)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
