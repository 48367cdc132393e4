"""Memory that survives any budget: planted user rules, facts and preferences through 5 rounds of
compaction at 10%, 20% and 30% of a session's size, with and without a model.

    python benchmarks/bench_memory.py [--sessions 12] [--family sealed|lead|field|ridge|quarry|tarn|moss|heath|brook|fen|blind|probe|probe2|…|probe8|final|heldout|report|tune|tuning|all] [--fixtures ../shared/fixtures/transcripts]

Sessions come from ``memory_sessions.py``: the ``tune`` (seeds 0+), ``report`` (1000+),
``heldout`` (2000+), ``final`` (3000+), ``blind`` (5000+) and ``probe*`` families are what the
ledger was developed against (``--family tuning`` runs them all) (memory_sessions.py says what each run showed); the ``sealed``
family (seeds 11000+, its own templates, subjects and distractors) is held out: only its table is
printed. ``field`` (seeds 18000+, ``memory_family_field.py``, written by another engineer than the
ledger's) was held out for the lead's single run and is tuning data since (docs/memory.md); it runs
only as ``--family field``, never in ``all`` or ``tuning``; so does ``ridge`` (seeds 19000+, ``memory_family_ridge.py``, written by i11n), and ``quarry`` (seeds 20000+,
``memory_family_quarry.py``, written by i11f, held out for the lead's one run) and ``tarn`` (seeds 21000+,
``memory_family_tarn.py``, written by i11w, held out for the lead's one run) and ``moss`` (seeds 22000+,
``memory_family_moss.py``, written by i11y, held out for the lead's one run) and ``heath`` (seeds 23000+,
``memory_family_heath.py``, written by i11z, held out for the lead's one run) and ``brook`` (seeds 24000+,
``memory_family_brook.py``, written by i11fam9, held out for the lead's one run; its ground truth is checked
by ``check_family_brook.py``) and ``fen`` (seeds 25000+, ``memory_family_fen.py``, written by i11fam10, held out
for the lead's one run; its ground truth is checked by ``check_family_fen.py``). A round appends the next fifth of the session to the previous round's
output and compacts it (``replay.compact.compact_conversation``, 1 fold at most) to the budget.

Printed per family × summarizer × budget: survival per kind (current value present in the last
output), stale (a superseded value present in ANY round's output), false merges (a member of a
shared-words pair missing from the ledger), traps (values a harness block or tool output planted for a subject,
found among the ledger's active entries / planted; "-" for a family that plants none), within budget (rounds), errors. Then every real
session of at least 2x the budget (sub-agents and eval instances included) with six rules planted
early, compacted to 8,000 tokens over 5 rounds, and the share of the budget its output uses.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from contextwindow.errors import CompactionError
from contextwindow.folding import ExtractiveSummarizer, LLMSummarizer
from contextwindow.folding import ledger as L
from contextwindow.llm.base import ScriptedModel
from contextwindow.messages import Message, user
from contextwindow.replay.compact import compact_conversation, memory_ledger
from contextwindow.tokens import counter_for
from contextwindow.turns import validate
from memory_family_brook import SEED_BASE as BROOK_SEEDS
from memory_family_brook import generate as generate_brook
from memory_family_fen import SEED_BASE as FEN_SEEDS
from memory_family_fen import generate as generate_fen
from memory_family_field import SEED_BASE as FIELD_SEEDS
from memory_family_field import generate as generate_field
from memory_family_heath import SEED_BASE as HEATH_SEEDS
from memory_family_heath import generate as generate_heath
from memory_family_moss import SEED_BASE as MOSS_SEEDS
from memory_family_moss import generate as generate_moss
from memory_family_quarry import SEED_BASE as QUARRY_SEEDS
from memory_family_quarry import generate as generate_quarry
from memory_family_ridge import SEED_BASE as RIDGE_SEEDS
from memory_family_ridge import generate as generate_ridge
from memory_family_tarn import SEED_BASE as TARN_SEEDS
from memory_family_tarn import generate as generate_tarn
from memory_sessions import Generated, generate, value_pattern

HERE = Path(__file__).resolve().parent
DEFAULT_FIXTURES = HERE.parent.parent / "shared" / "fixtures" / "transcripts"
KINDS = ("safety", "constraint", "goal", "preference", "fact")
COUNTER = counter_for(None)
ROUNDS = 5
#: families the ledger was developed against (their failures were looked at), then the held-out ones
TUNING = ("tune", "report", "heldout", "final", "probe", "probe2", "probe3", "probe4", "probe5", "probe6", "probe7", "probe8", "blind")
FAMILIES = (*TUNING, "sealed", "lead", "field", "ridge", "quarry", "tarn", "moss", "heath", "brook", "fen")  # field (tuning data since its one held-out run), ridge (held out, run by the lead only): memory_family_*.py
#: held out for the lead's one run each: run only by their own name, never in ``all``
BY_NAME_ONLY = ("field", "ridge", "quarry", "tarn", "moss", "heath", "brook", "fen")


def scripted_brief(messages: list[Message], system: str | None = None) -> str:
    """A model that writes a plausible, lossy brief: the first request as the goal, the last
    tool lines as progress, and the last user lines copied verbatim (stale values included)."""
    prompt = messages[-1].text
    transcript = prompt.split("<transcript>", 1)[-1]
    users = re.findall(r"^USER: (.*)$", transcript, re.MULTILINE)
    tools = re.findall(r"^(?:ASSISTANT → .*|TOOL\(.*)$", transcript, re.MULTILINE)
    prior = re.search(r"<earlier-summary>\n(.*?)\n</earlier-summary>", prompt, re.DOTALL)
    goal = users[0] if users else (re.search(r"## Goal\n(.*)", prior.group(1)).group(1) if prior and "## Goal" in prior.group(1) else "continue")  # type: ignore[union-attr]
    return "\n".join([
        "## Goal", goal[:300], "## Progress", *(f"- {t[:100]}" for t in tools[-6:]), "## Remaining", "- continue the task",
        "## Data", *(f"- {u[:200]}" for u in users[-4:]),
    ])


def chunks(messages: list[Message], n: int) -> list[list[Message]]:
    starts = [i for i, m in enumerate(messages) if m.role == "user" and not m.is_tool_result]
    cuts = [starts[len(starts) * k // n] for k in range(n)] + [len(messages)]
    return [messages[cuts[k] : cuts[k + 1]] for k in range(n)]


def run_session(g: Generated, pct: float, with_model: bool) -> dict[str, object]:
    size = COUNTER.count_messages(g.messages)
    budget = int(size * pct)
    summ = LLMSummarizer(ScriptedModel(scripted_brief, window=16_000), count=COUNTER.count_text) if with_model else ExtractiveSummarizer(COUNTER.count_text)
    state: list[Message] = []
    seen = 0
    stale_hits = 0
    within = 0
    errors = 0
    invalid = 0
    for part in chunks(g.messages, ROUNDS):
        seen += len(part)
        try:
            state, _ = compact_conversation([*state, *part], budget=budget, counter=COUNTER, summarizer=summ, rounds=1)
        except CompactionError:
            errors += 1
            state = [*state, *part]
            continue
        within += COUNTER.count_messages(state) <= budget
        invalid += bool(validate(state, "openai"))
        text = "\n".join(m.text for m in state).lower()
        for p in g.plants:
            stale_hits += sum(1 for v, at in zip(p.stale, p.stale_at, strict=True) if at < seen and value_pattern(v).search(text))
    text = "\n".join(m.text for m in state).lower()
    kept: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in g.plants:
        kept[p.kind][1] += 1
        kept[p.kind][0] += bool(value_pattern(p.value).search(text))
    false_merges, traps = ledger_checks(g)
    return {"kept": dict(kept), "stale": stale_hits, "false_merges": false_merges, "traps": traps, "within": within, "errors": errors, "invalid": invalid}


def ledger_checks(g: Generated) -> tuple[int, int | None]:
    """On the ledger of the whole session (its active entries): false merges (a member of a shared-words
    pair whose value is not there) and traps found (values a harness block or a tool output planted for
    a subject, ``g.traps``, that must never enter it; None for a family that plants none). Both use the
    benchmark's one value match (``value_pattern``: "$5" is not found inside "$55")."""
    live = "\n".join(e.text.lower() for e in L.active(memory_ledger(g.messages)))
    false_merges = sum(1 for p in g.plants if p.pair is not None and not value_pattern(p.value).search(live))
    planted = getattr(g, "traps", None)
    traps = None if planted is None else sum(1 for w in planted if value_pattern(w).search(live))
    return false_merges, traps


def bench_generated(family: str, n: int) -> bool:
    base = {"tune": 0, "report": 1000, "heldout": 2000, "final": 3000, "blind": 5000, "probe": 7000, "probe2": 8000, "probe3": 9000, "sealed": 11000, "probe4": 12000, "probe5": 13000, "probe6": 14000, "lead": 15000, "probe7": 16000, "probe8": 17000, "field": FIELD_SEEDS, "ridge": RIDGE_SEEDS, "quarry": QUARRY_SEEDS, "tarn": TARN_SEEDS, "moss": MOSS_SEEDS, "heath": HEATH_SEEDS, "brook": BROOK_SEEDS, "fen": FEN_SEEDS}[family]
    seeds = range(base, base + n)
    own = {"field": generate_field, "ridge": generate_ridge, "quarry": generate_quarry, "tarn": generate_tarn, "moss": generate_moss, "heath": generate_heath, "brook": generate_brook, "fen": generate_fen}.get(family)
    sessions = [own(s) if own else generate(s, family) for s in seeds]
    sizes = [COUNTER.count_messages(g.messages) for g in sessions]
    plants = sum(len(g.plants) for g in sessions)
    updates = sum(len(p.stale) for g in sessions for p in g.plants)
    n_traps = sum(len(getattr(g, "traps", ())) for g in sessions)
    print(f"\n{family} family: {n} sessions (seeds {seeds.start}..{seeds.stop - 1}), {min(sizes):,}-{max(sizes):,} tokens, {plants} planted statements, {updates} paraphrased updates")
    head = f"{'summarizer':11} {'budget':>6} " + " ".join(f"{k:>10}" for k in KINDS) + f" {'stale':>6} {'f.merge':>7} {'traps':>7} {'within':>7} {'errors':>6} {'invalid':>7}"
    print(head)
    ok = True
    goals = {0.1: 0.6, 0.2: 0.9, 0.3: 1.0}
    for with_model in (False, True):
        for pct in (0.1, 0.2, 0.3):
            agg: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            stale = merges = within = errors = invalid = 0
            traps: int | None = None
            for g in sessions:
                r = run_session(g, pct, with_model)
                for k, (a, b) in r["kept"].items():  # type: ignore[attr-defined]
                    agg[k][0] += a
                    agg[k][1] += b
                stale += r["stale"]  # type: ignore[operator]
                merges += r["false_merges"]  # type: ignore[operator]
                if r["traps"] is not None:
                    traps = (traps or 0) + r["traps"]  # type: ignore[operator]
                within += r["within"]  # type: ignore[operator]
                errors += r["errors"]  # type: ignore[operator]
                invalid += r["invalid"]  # type: ignore[operator]
            cells = []
            for k in KINDS:
                a, b = agg[k]
                share = a / b if b else 1.0
                cells.append(f"{a}/{b}={share:4.0%}".rjust(10))
                need = 1.0 if k in ("safety", "constraint") else goals[pct]
                ok &= share >= need
            ok &= stale == 0 and merges == 0 and not traps and errors == 0 and invalid == 0
            trap_cell = "-" if traps is None else f"{traps}/{n_traps}"
            print(f"{'model' if with_model else 'extractive':11} {pct:>6.0%} " + " ".join(cells) + f" {stale:>6} {merges:>7} {trap_cell:>7} {within:>3}/{len(sessions) * ROUNDS:<3} {errors:>6} {invalid:>7}")
    return ok


PLANTED = [
    "From now on write every commit message in the imperative mood, under 60 characters.",
    "Never delete anything under /srv/exports.",
    "I'd rather have terse answers in metric units.",
    "The cloud budget is $400 per month.",
    "Priya owns the release checklist.",
    "Do not push to the main branch without a review.",
]
PLANTED_KEYS = ["60 characters", "/srv/exports", "metric units", "$400", "Priya", "without a review"]


def _real_sessions(root: Path) -> list[tuple[str, list[Message]]]:
    """Every session of every fixture file (a file may hold several: sub-agents, eval instances)."""
    from contextwindow.importers import load_all

    out = []
    for p in sorted(root.glob("*/*")):
        if p.suffix not in (".jsonl", ".json", ".traj"):
            continue
        try:
            sessions = load_all(p)
        except Exception as exc:  # a benchmark reports and goes on
            print(f"  skip {p.name}: {exc}", file=sys.stderr)
            continue
        for k, s in enumerate(sessions):
            out.append((f"{p.parent.name}/{p.name[:40]}" + (f" #{k + 1}" if len(sessions) > 1 else ""), s.messages))
    return out


def bench_real(root: Path, budget: int = 8_000, at_least: int = 2) -> bool:
    print(f"\nreal transcripts ({root}): every session of at least {at_least}x the budget, six rules planted after the first"
          f" user message, {ROUNDS} rounds to {budget:,} tokens (share of the budget used: the output's size / the budget)")
    ok = True
    rows = 0
    for label, msgs in _real_sessions(root):
        size = COUNTER.count_messages(msgs)
        if size < at_least * budget or not any(m.role == "user" and not m.is_tool_result for m in msgs):
            continue
        first = next(i for i, m in enumerate(msgs) if m.role == "user" and not m.is_tool_result)
        # planted early: a user message of their own right after the first exchange
        at = next((i for i in range(first + 1, len(msgs)) if msgs[i].role == "user" and not msgs[i].is_tool_result), first + 1)
        planted = [*msgs[:at], user(" ".join(PLANTED)), *msgs[at:]]
        state: list[Message] = []
        err = ""
        for part in chunks(planted, ROUNDS):
            try:
                state, _ = compact_conversation([*state, *part], budget=budget, counter=COUNTER, summarizer=ExtractiveSummarizer(COUNTER.count_text), rounds=1)
            except CompactionError as exc:
                err = str(exc)[:80]
                break
        text = "\n".join(m.text for m in state)
        kept = sum(k in text for k in PLANTED_KEYS)
        imperative = PLANTED[0] in text or "imperative mood, under 60 characters" in text
        tokens = COUNTER.count_messages(state)
        pairs = validate(state, "openai")
        rows += 1
        ok &= kept == 6 and not pairs and tokens <= budget and not err
        print(f"  {label:48} {size:>8,} → {tokens:>6,} tokens ({tokens / budget:4.0%})  rules {kept}/6 (imperative rule {'kept' if imperative else 'LOST'})"
              f"  tool pairs {'valid' if not pairs else 'INVALID'}  {'within' if tokens <= budget else 'OVER'}{'  error: ' + err if err else ''}")
    print(f"  {rows} sessions of at least {at_least * budget:,} tokens")
    return ok


def family_names(arg: str) -> tuple[str, ...]:
    """The families ``--family arg`` runs: ``field``, ``ridge`` and ``quarry`` are held out for the lead's
    one run each, so they run only by their own name, never in ``all``."""
    return {"all": tuple(f for f in FAMILIES if f not in BY_NAME_ONLY), "tuning": TUNING}.get(arg, (arg,))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=12)
    ap.add_argument("--family", default="sealed", choices=(*FAMILIES, "tuning", "all"))
    ap.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    args = ap.parse_args()
    ok = True
    for fam in family_names(args.family):
        ok &= bench_generated(fam, args.sessions)
    if args.fixtures.exists():
        ok &= bench_real(args.fixtures)
    else:
        print(f"\n(no fixtures at {args.fixtures}: the real-transcript part is skipped)")
    print("\ngoals met" if ok else "\ngoals NOT met")


if __name__ == "__main__":
    main()
