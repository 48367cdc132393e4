"""The ledger's misses by KIND, on the ledger alone (no compaction; seconds, not minutes).

    python benchmarks/memory_misses.py [--family ridge|field|tuning|<name>] [--sessions 12] [--skip 0] [--show]

For every planted statement of every session: its current value not in force (a miss), each
superseded value still in force (stale: present in the active entries' texts, scrubbed as an
output would be), and a member of a shared-words pair missing (a false merge). ``ridge`` and ``quarry`` record
how each update was worded (paraphrase, another name, the subject only in the sentence before, a
correction, a relative change, other units, a return to the first value, the same message) and
where it was carried (alone, in a question, a list, code, quoted text): its misses are counted by
those kinds. ``--show`` prints each miss with the sentence and the entry that kept the old value.

Only tuning data runs here (the tuning families, ``field``, ``ridge`` and ``quarry``, spent since
their one held-out run); ``sealed``, ``lead`` and any newer held-out family are not accepted.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from contextwindow.folding import ledger as L
from contextwindow.replay.compact import memory_ledger
from memory_family_field import SEED_BASE as FIELD_SEEDS
from memory_family_field import generate as generate_field
from memory_family_quarry import SEED_BASE as QUARRY_SEEDS
from memory_family_quarry import generate as generate_quarry
from memory_family_ridge import SEED_BASE as RIDGE_SEEDS
from memory_family_ridge import generate as generate_ridge
from memory_sessions import Generated, generate, value_pattern

TUNING = {"tune": 0, "report": 1000, "heldout": 2000, "final": 3000, "blind": 5000, "probe": 7000, "probe2": 8000, "probe3": 9000,
          "probe4": 12000, "probe5": 13000, "probe6": 14000, "probe7": 16000, "probe8": 17000, "field": FIELD_SEEDS, "ridge": RIDGE_SEEDS,
          "quarry": QUARRY_SEEDS}


def session(family: str, seed: int) -> Generated:
    own = {"field": generate_field, "ridge": generate_ridge, "quarry": generate_quarry}.get(family)
    return own(seed) if own else generate(seed, family)


def misses(g: Generated, show: bool = False) -> tuple[Counter[str], Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """(totals, stale updates by (form, carrier), updates by (form, carrier)) of one session."""
    led = memory_ledger(g.messages)
    live = L.scrub("\n".join(e.text for e in L.active(led)), led).lower()
    tot: Counter[str] = Counter()
    stale_by: Counter[tuple[str, str]] = Counter()
    upd_by: Counter[tuple[str, str]] = Counter()
    for p in g.plants:
        tot["plants"] += 1
        if not value_pattern(p.value).search(live):
            tot["missing"] += 1
            if show:
                print(f"  MISS  {g.seed} {p.kind:10} {p.value!r}: {getattr(p, 'update_texts', [''])[-1:] or getattr(p, 'statement', '')}")
        tot["pair_lost"] += p.pair is not None and p.value.lower() not in live
        forms = getattr(p, "forms", [""] * len(p.stale))
        carriers = getattr(p, "carriers", [""] * len(p.stale))
        for k, v in enumerate(p.stale):
            key = (forms[k] if k < len(forms) else "", carriers[k] if k < len(carriers) else "")
            upd_by[key] += 1
            tot["updates"] += 1
            if v.lower() != p.value.lower() and value_pattern(v).search(live):
                stale_by[key] += 1
                tot["stale"] += 1
                if show:
                    held = next((e.text for e in L.active(led) if value_pattern(v).search(e.text.lower())), "")
                    print(f"  STALE {g.seed} {p.kind:10} {v!r} ({key[0]}/{key[1]}) still in: {held[:120]!r}")
    return tot, stale_by, upd_by


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="ridge", choices=(*TUNING, "tuning"))
    ap.add_argument("--sessions", type=int, default=12)
    ap.add_argument("--skip", type=int, default=0, help="start this many seeds after the family's first (e.g. ridge --skip 12: seeds 19012+)")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    fams = [f for f in TUNING if f not in ("field", "ridge", "quarry")] if args.family == "tuning" else [args.family]
    for fam in fams:
        tot: Counter[str] = Counter()
        stale_by: Counter[tuple[str, str]] = Counter()
        upd_by: Counter[tuple[str, str]] = Counter()
        for seed in range(TUNING[fam] + args.skip, TUNING[fam] + args.skip + args.sessions):
            t, s, u = misses(session(fam, seed), args.show)
            tot += t
            stale_by += s
            upd_by += u
        print(f"{fam:8} seeds {TUNING[fam] + args.skip}-{TUNING[fam] + args.skip + args.sessions - 1}: current value not in force {tot['missing']}/{tot['plants']}, "
              f"superseded value still in force {tot['stale']}/{tot['updates']}, pair member lost {tot['pair_lost']}")
        if fam in ("ridge", "quarry"):
            for axis, name in ((0, "worded as"), (1, "carried")):
                keys = sorted({k[axis] for k in upd_by})
                cells = [f"{k} {sum(v for kk, v in stale_by.items() if kk[axis] == k)}/{sum(v for kk, v in upd_by.items() if kk[axis] == k)}" for k in keys]
                print(f"  stale by how the update was {name}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
