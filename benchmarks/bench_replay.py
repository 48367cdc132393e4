"""Replay every fixture session under every policy; print the tables docs/replay.md holds.

    python benchmarks/bench_replay.py [--room N]... [--transcripts DIR]
    python benchmarks/bench_replay.py --cost        # the held-out cost table (below)
    python benchmarks/bench_replay.py --cost --clear-rule eoq   # the same, default clearing by another rule
    python benchmarks/bench_replay.py --speed [--all-sessions] [--repeats 3]   # policy CPU times, x the fastest
    python benchmarks/bench_replay.py --save-numbers before.json   # then, after a speed-only change:
    python benchmarks/bench_replay.py --same-numbers before.json   # exit 1 if any replay's numbers moved

``--cost``: the long sessions (>= 40 calls) at 100k and 200k windows, HELD OUT from the fit of the
default policy's knobs (benchmarks/fit_cache_policy.py fits them on the shorter sessions): per
session the floor (fixed prefix read from the cache on every call + each new token written once),
claude-code's and default's billed input, each one's share above the floor, default / claude-code on
the part above the floor (goal <= 0.7) and on the whole bill (goal <= 1), dollars (input + output),
calls over the window, invalid payloads, constraints kept; then each policy's replay time as a
multiple of the fastest policy on the same session (goal <= 2).

Each session is replayed at its model's own window and at smaller windows of "fixed prefix + N"
tokens for each --room N (default 48000 and 24000, so compaction matters): the fixed prefix (system
prompt and tool definitions the log does not show, ~20-50k tokens in the Claude Code logs) is sent by
every policy alike, so a plain 32k window would leave some sessions no room at all. Sessions whose log names no model, or an unknown one, are priced as
gpt-4o (tokenizer too). The last lines compare `default` with `claude-code` on the long sessions
(≥ 40 calls): billed input ratio, the floor every policy pays for the fixed prefix (as a share of
claude-code's bill) and the ratio on the part a policy can change, calls over the window, invalid
payloads, constraints kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from contextwindow.errors import UnknownModelError
from contextwindow.importers import ImportedSession, load_all
from contextwindow.models import get_model
from contextwindow.replay import POLICIES, replay
from contextwindow.replay.engine import PolicyResult, estimate_overhead, leading_system
from contextwindow.replay.floor import above_floor_share
from contextwindow.replay.pricing import Pricing
from contextwindow.tokens import counter_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
FALLBACK_MODEL = "gpt-4o"
LONG_CALLS = 40


def _model_for(name: str | None) -> str:
    if not name:
        return FALLBACK_MODEL
    try:
        get_model(name)
        return name
    except UnknownModelError:
        return FALLBACK_MODEL


def floor(fixed: int, calls: int, model: str) -> float:
    """What every policy pays for the fixed prefix alone (input-price tokens): written or sent once,
    then read from the cache on every later call."""
    pricing = Pricing.of(get_model(model))
    first = pricing.write_weight if pricing.charges_writes else 1.0
    return fixed * first + fixed * max(0, calls - 1) * pricing.read_weight


def sessions_with_models(root: Path) -> list[tuple[ImportedSession, str, int]]:
    """Every session with calls under ``root``: (session, the model it is priced as, fixed prefix tokens)."""
    files = sorted(p for p in root.glob("*/*") if p.suffix in (".jsonl", ".json", ".traj"))
    out = []
    for f in files:
        for s in load_all(f):
            if not s.calls:
                continue
            model = _model_for(s.model)
            c = counter_for(model)
            out.append((s, model, estimate_overhead(s, c) + sum(c.count_message(m) for m in leading_system(s.messages))))
    return out


COST_WINDOWS = (100_000, 200_000)


def cost_table(root: Path, clear_rule: str | None = None) -> int:
    """The held-out goal check (module docstring); ``clear_rule``: ``default`` with that rule of
    when to clear (benchmarks/clear_rules.py) instead of its own."""
    from clear_rules import RULES
    from contextwindow.compaction.cache import CacheConfig

    cache = None if clear_rule is None else CacheConfig(clear_rule=RULES[clear_rule])
    long = [(s, m, fx) for s, m, fx in sessions_with_models(root) if len(s.calls) >= LONG_CALLS]
    print("| window | session | calls | floor | claude-code billed (with summaries) | above floor | default billed (with summaries) | above floor "
          "| default/cc above floor | default/cc billed | cc $ | default $ | over win | invalid | constraints (default, cc) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst_above = worst_total = 0.0
    bad = 0
    speed: list[tuple[str, dict[str, float]]] = []
    parts: list[tuple[str, PolicyResult, PolicyResult]] = []
    for w in COST_WINDOWS:
        for s, model, _ in long:
            rep = replay(s, list(POLICIES), model=model, window=w, cache=cache)
            cc, d = rep.policy("claude-code"), rep.policy("default")
            fl = d.floor_input_tokens
            cb, db = cc.billed_with_summaries, d.billed_with_summaries  # input + the summaries' own calls
            above = (db - fl) / (cb - fl) if cb > fl else float("nan")
            tot = db / cb
            worst_above, worst_total = max(worst_above, above), max(worst_total, tot)
            bad += d.over_window_calls + d.invalid_payloads + (d.constraints_total - d.constraints_kept)
            money = ["n/a" if p.total_cost_usd is None else f"{p.total_cost_usd:.2f}" for p in (cc, d)]
            name = Path(s.source).name[:30]
            print(
                f"| {w // 1000}k | {name} | {d.calls} | {fl:,.0f} | {cb:,.0f} | {100 * above_floor_share(cb, fl):.0f}% "
                f"| {db:,.0f} | {100 * above_floor_share(db, fl):.0f}% | {above:.2f} | {tot:.2f} | {money[0]} | {money[1]} "
                f"| {d.over_window_calls} | {d.invalid_payloads} | {d.constraints_kept}/{d.constraints_total}, {cc.constraints_kept}/{cc.constraints_total} |"
            )
            speed.append((f"{w // 1000}k {name}", {p.policy: p.seconds for p in rep.policies}))
            parts.append((f"{w // 1000}k {name}", cc, d))
    print("\ncomponents (tokens): cache reads, cache writes, uncached input; compaction passes (of them with a fold); "
          "the summaries' own calls: how many, tokens in -> out, billed (input-price tokens; replay/summaries.py)\n")
    print("| window session | cc reads | cc writes | cc uncached | cc folds | cc summaries | default reads | default writes "
          "| default uncached | default passes (folds) | default summaries |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, cc, d in parts:
        cells = [
            f"{p.cache_read_tokens:,} | {p.cache_write_tokens:,} | {p.input_tokens - p.cache_read_tokens - p.cache_write_tokens:,} | "
            + (f"{p.folds}" if p is cc else f"{p.compactions} ({p.folds})")
            + f" | {p.summary_calls}: {p.summary_input_tokens:,} -> {p.summary_output_tokens:,}, {p.summary_billed_tokens:,.0f}"
            for p in (cc, d)
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nworst default/claude-code above the floor: {worst_above:.2f} (goal <= 0.7); worst on the whole bill: {worst_total:.2f} (goal <= 1);"
          f" over-window calls + invalid payloads + constraints lost by default: {bad} (goal 0)")
    print("\n| window session | " + " | ".join(POLICIES) + " |")
    print("|---|" + "---|" * len(POLICIES))
    worst_speed = 0.0
    for name, secs in speed:
        fastest = max(min(secs.values()), 1e-9)
        worst_speed = max(worst_speed, max(secs.values()) / fastest)
        print(f"| {name} | " + " | ".join(f"{secs[p]:.2f} s ({secs[p] / fastest:.1f}x)" for p in POLICIES) + " |")
    print(f"\nslowest policy / fastest on the same session, wall time of this one replay: up to {worst_speed:.1f}x"
          " (one run, memos not emptied, load-sensitive: not the speed goal's measure, which is --speed's CPU medians)")
    return 0


def forget_memos(model: str | None = None) -> None:
    """Empty the process-wide memos of pure answers per text (the summarizer's, the ledger's updates,
    and the token counts of ``model``'s counter), so a repeated replay of a session does not find the
    answers the previous one left there (within one replay the policies share them, as they would in
    one run; the ledger's updates made by the replay's setup, which reads the user's rules once for
    its measure, are found by the Session of ``default``)."""
    from contextwindow.folding import constraints, extractive

    extractive.exit_code.cache_clear()
    extractive.condensed_line.cache_clear()
    updates = getattr(constraints, "UPDATES", None)  # (an older tree, as ab_replay.py runs, keeps none)
    if updates is not None:
        updates.clear()
    if model is not None:
        forget = getattr(counter_for(model), "forget_memos", None)
        if forget is not None:
            forget()


def speed_table(root: Path, repeats: int, every: bool) -> int:
    """Each policy's CPU time on each long session (every session with ``every``) at 100k and 200k
    windows, as a multiple of the fastest policy on that session (goal <= 2). Each session is
    replayed ``repeats`` times with the policies' order rotated, the summarizer's and the
    counter's memos emptied before each (:func:`forget_memos`); per policy the median of its own
    CPU seconds (``PolicyResult.cpu_seconds``: its policy's work plus the engine's counting,
    billing and checking of each payload it sent; not the replay's setup, which counts every
    logged message once for the floor, so no policy meets the raw texts uncounted). A replay of
    the first session runs untimed first (imports, tokenizer)."""
    import statistics

    sessions = [(s, m) for s, m, _ in sessions_with_models(root) if every or len(s.calls) >= LONG_CALLS]
    if not sessions:
        print(f"no sessions under {root}", file=sys.stderr)
        return 1
    replay(sessions[0][0], list(POLICIES), model=sessions[0][1], window=COST_WINDOWS[0])
    names = list(POLICIES)
    import os

    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min) on {os.cpu_count()} cores")
    print(f"CPU seconds per policy (median of {repeats} replays, policy order rotated) and the multiple of the fastest policy on the session")
    print("\n| window | session | calls | " + " | ".join(names) + " | slowest / fastest |")
    print("|---|---|---|" + "---|" * (len(names) + 1))
    worst: dict[str, float] = dict.fromkeys(names, 0.0)
    for w in COST_WINDOWS:
        for s, model in sessions:
            cpu: dict[str, list[float]] = {p: [] for p in names}
            for r in range(repeats):
                order = names[r % len(names):] + names[: r % len(names)]
                forget_memos(model)
                # each policy's own CPU (PolicyResult.cpu_seconds): from building the policy to its
                # last call measured, the engine's measuring of every payload included; the
                # replay's setup (the fixed prefix, the ledger, the floor) is no policy's
                replay(s, order, model=model, window=w, on_policy=lambda res, cpu=cpu: cpu[res.policy].append(res.cpu_seconds))
            med = {p: statistics.median(v) for p, v in cpu.items()}
            fastest = max(min(med.values()), 1e-9)
            for p in names:
                worst[p] = max(worst[p], med[p] / fastest)
            cells = " | ".join(f"{med[p]:.3f} ({med[p] / fastest:.1f}x)" for p in names)
            print(f"| {w // 1000}k | {Path(s.source).name[:30]} | {len(s.calls)} | {cells} | {max(med.values()) / fastest:.1f}x |")
    print("\nworst multiple of the fastest policy, per policy: " + ", ".join(f"{p} {worst[p]:.1f}x" for p in names) + " (goal <= 2 for every policy)")
    return 0


def numbers(root: Path) -> dict[str, Any]:
    """Every replay's reported numbers (all sessions x policies, own / prefix+48k / prefix+24k /
    100k / 200k windows): what a change to speed alone must leave byte-identical."""
    out: dict[str, Any] = {}
    for s, model, fixed in sessions_with_models(root):
        for w in (None, fixed + 48_000, fixed + 24_000, *COST_WINDOWS):
            out[f"{s.source}#{len(s.calls)}@{w}"] = replay(s, list(POLICIES), model=model, window=w).to_dict()
    return out


def save_or_check(root: Path, save: Path | None, check: Path | None) -> int:
    got = numbers(root)
    if save is not None:
        save.write_text(json.dumps(got, indent=0, sort_keys=True))
        print(f"{len(got)} replays' numbers written to {save}")
    if check is not None:
        want = json.loads(check.read_text())
        differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        print(f"{len(got) - len(differ)} of {len(set(got) | set(want))} replays report the same numbers as {check}")
        for k in differ[:10]:
            print(f"  differs: {k}")
        return 1 if differ else 0
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcripts", type=Path, default=FIXTURES)
    ap.add_argument("--room", type=int, action="append", default=None)
    ap.add_argument("--cost", action="store_true", help="print the held-out cost table instead")
    ap.add_argument("--clear-rule", choices=("horizon", "eoq", "balance"), help="--cost with default clearing by this rule (benchmarks/clear_rules.py)")
    ap.add_argument("--speed", action="store_true", help="print each policy's CPU time per long session and its multiple of the fastest")
    ap.add_argument("--all-sessions", action="store_true", help="--speed on every session, not only the long ones")
    ap.add_argument("--repeats", type=int, default=3, help="--speed: replays per session")
    ap.add_argument("--save-numbers", type=Path, help="write every replay's numbers (JSON) to this file")
    ap.add_argument("--same-numbers", type=Path, help="exit 1 unless every replay reports the numbers saved in this file")
    args = ap.parse_args()
    if args.clear_rule and not args.cost:
        ap.error("--clear-rule needs --cost (the other tables replay the shipped default)")
    if args.speed:
        return speed_table(args.transcripts, args.repeats, args.all_sessions)
    if args.save_numbers or args.same_numbers:
        return save_or_check(args.transcripts, args.save_numbers, args.same_numbers)
    if args.cost:
        if not args.transcripts.is_dir():
            print(f"no transcripts at {args.transcripts}", file=sys.stderr)
            return 1
        return cost_table(args.transcripts, args.clear_rule)
    windows: list[int | None] = [None, *(args.room or [48_000, 24_000])]
    if not args.transcripts.is_dir():
        print(f"no transcripts at {args.transcripts}", file=sys.stderr)
        return 1
    files = sorted(p for p in args.transcripts.glob("*/*") if p.suffix in (".jsonl", ".json", ".traj"))
    sessions = [(f, s) for f in files for s in load_all(f)]
    long_rows: dict[int | None, list[tuple[str, dict, dict]]] = {w: [] for w in windows}
    started = time.perf_counter()
    totals: dict[tuple[int | None, str], dict[str, float]] = {}
    for w in windows:
        label = "the model's own window" if w is None else f"window = fixed prefix + {w:,}"
        print(f"\n### {label}\n")
        print("| session | calls | policy | peak | over win | invalid | compactions | folds | billed input | summaries billed | cache hit | cost $ | constraints kept |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for f, s in sessions:
            if not s.calls:
                continue
            model = _model_for(s.model)
            fixed = estimate_overhead(s, counter_for(model)) + sum(counter_for(model).count_message(m) for m in leading_system(s.messages))
            win = None if w is None else w + fixed
            rep = replay(s, list(POLICIES), model=model, window=win)
            name = f"{f.parent.name}/{f.name[:38]}"
            rows = {p.policy: p.to_dict() for p in rep.policies}
            for pol, r in rows.items():
                cost = "n/a" if r["cost_usd"] is None else f"{r['cost_usd']:.3f}"
                print(
                    f"| {name} ({rep.window:,}) | {r['calls']} | {pol} | {r['peak_tokens']:,} | {r['over_window_calls']} | "
                    f"{r['invalid_payloads']} | {r['compactions']} | {r['folds']} | {r['billed_input_tokens']:,} | {r['summary_billed_tokens']:,} | "
                    f"{100 * r['cache_hit_share']:.0f}% | {cost} | {r['constraints_kept']}/{r['constraints_total']} |"
                )
                t = totals.setdefault((w, pol), {"billed": 0.0, "summaries": 0.0, "over": 0, "invalid": 0, "kept": 0, "total": 0})
                t["billed"] += r["billed_input_tokens"]
                t["summaries"] += r["summary_billed_tokens"]
                t["over"] += r["over_window_calls"]
                t["invalid"] += r["invalid_payloads"]
                t["kept"] += r["constraints_kept"]
                t["total"] += r["constraints_total"]
            if len(s.calls) >= LONG_CALLS:
                long_rows[w].append((name, rows["default"], rows["claude-code"], floor(fixed, rows["default"]["calls"], model)))
    print("\n### totals over all sessions\n")
    print("| window | policy | billed input | summaries billed | billed with summaries | calls over window | invalid payloads | constraints kept |")
    print("|---|---|---|---|---|---|---|---|")
    for (w, pol), t in totals.items():
        print(
            f"| {'own' if w is None else f'prefix+{w:,}'} | {pol} | {round(t['billed']):,} | {round(t['summaries']):,} | "
            f"{round(t['billed'] + t['summaries']):,} | {t['over']} | {t['invalid']} | {t['kept']}/{t['total']} |"
        )
    print("\n### goal check: default vs claude-code on the long sessions (≥ 40 calls)\n")
    print(
        "| window | session | default billed / claude-code billed (with summaries) | floor / claude-code | (default − floor) / (claude-code − floor) "
        "| default over window | default invalid | default constraints |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for w, rows in long_rows.items():
        for name, d, c, fl in rows:
            cc = c["billed_input_tokens"] + c["summary_billed_tokens"]
            db = d["billed_input_tokens"] + d["summary_billed_tokens"]
            ratio = db / cc if cc else float("nan")
            part = (db - fl) / (cc - fl) if cc > fl else float("nan")
            print(
                f"| {'own' if w is None else f'prefix+{w:,}'} | {name} | {ratio:.2f} | {fl / cc if cc else float('nan'):.2f} | {part:.2f} | "
                f"{d['over_window_calls']} | {d['invalid_payloads']} | {d['constraints_kept']}/{d['constraints_total']} |"
            )
    print(f"\n{len(sessions)} sessions × {len(POLICIES)} policies × {len(windows)} windows in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
