"""The ledger's reading of user messages, compared between two source trees (a speed-only change must
not move one entry), and its CPU time in each.

    git archive main src | tar -x -C /tmp/before        # the tree before the change
    python benchmarks/same_ledger.py --before /tmp/before/src [--repeats 3]
    python benchmarks/same_ledger.py --before /tmp/before/src --show   # the fixtures' entries that changed, to read

Texts: every user message of the fixture transcripts as the ledger reads it (``constraints.user_words``),
plus every user message of the tuning memory families (bench_memory.py's ``tuning``: 12 sessions each
from ``memory_sessions.generate``; never a held-out family). For each text: the ledger ``constraints.update([], text)`` makes (as stored JSON), and
``find_values``/``normalize_value`` of each of its clauses. Each tree runs in its own interpreter; the
digests must be equal (exit 1 otherwise). Times are process CPU seconds, the trees interleaved, the
median of --repeats reported with the ratio after/before (same run) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"

_CHILD = r"""
import glob, hashlib, json, sys, time
sys.path.insert(0, sys.argv[2])
import contextwindow.importers as imp
from contextwindow.folding import constraints as C
from contextwindow.folding.clauses import find_values, sentences, split_environment
from memory_sessions import generate

texts = []
for f in sorted(glob.glob(sys.argv[1] + "/*/*")):
    try:
        found = imp.load_all(f)
    except Exception:
        continue
    for s in found:
        texts += [w for m in s.messages if (w := C.user_words(m))]
fixture_texts = len(texts)
# the tuning families of bench_memory.py (its seed bases; 12 sessions each), never a held-out one
bases = {"tune": 0, "report": 1000, "heldout": 2000, "final": 3000, "blind": 5000, "probe": 7000, "probe2": 8000, "probe3": 9000,
         "probe4": 12000, "probe5": 13000, "probe6": 14000, "probe7": 16000, "probe8": 17000}
for family, base in bases.items():
    for seed in range(base, base + 12):
        texts += [w for m in generate(seed, family).messages if (w := C.user_words(m))]
h = hashlib.sha256()
if len(sys.argv) > 3:  # --show: each fixture text's entries, one line each, for the parent to diff
    with open(sys.argv[3], "w") as out:
        for i, w in enumerate(texts[:fixture_texts]):
            for e in C.update([], w):
                out.write(f"{i}\t{e.kind}\t{e.subject}\t{e.text[:160]!r}\n")
t0 = time.process_time()
for i, w in enumerate(texts):
    h.update(json.dumps(C.to_json(C.update([], w)), sort_keys=True).encode())
    if i + 1 == fixture_texts:
        fixtures_cpu = time.process_time() - t0
spent = time.process_time() - t0
for w in texts:
    for clause in sentences(split_environment(w)[0]):
        h.update(repr([(v.kind, v.text, v.start, v.end, v.norm) for v in find_values(clause)]).encode())
print(json.dumps({"digest": h.hexdigest(), "texts": len(texts), "fixture_texts": fixture_texts, "cpu": spent, "fixtures_cpu": fixtures_cpu}))
"""


def _run(src: Path, fixtures: Path, show: str = "") -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT / 'benchmarks'}"}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(fixtures), str(src), *([show] if show else [])], env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _show(before: Path, after: Path, fixtures: Path) -> int:
    """Print the fixture texts' entries only one tree makes ("-" before, "+" after)."""
    import difflib
    import tempfile

    lines = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in (("before", before), ("after", after)):
            _run(src, fixtures, str(Path(tmp) / name))
            lines[name] = (Path(tmp) / name).read_text().splitlines()
    changed = [ln for ln in difflib.unified_diff(lines["before"], lines["after"], lineterm="", n=0) if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    print("\n".join(changed) or "no entry of the fixtures' user texts changed")
    print(f"{sum(ln[0] == '-' for ln in changed)} entries only before, {sum(ln[0] == '+' for ln in changed)} only after")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="the src/ directory of the tree before the change")
    ap.add_argument("--after", type=Path, default=ROOT / "src", help="the src/ directory after (this tree's by default)")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--show", action="store_true", help="print the entries of the fixtures' user texts that differ (kind, subject, text)")
    a = ap.parse_args()
    if a.show:
        return _show(a.before, a.after, a.fixtures)
    times: dict[str, list[float]] = {"before": [], "after": []}
    fixture_times: dict[str, list[float]] = {"before": [], "after": []}
    digests: dict[str, set[object]] = {"before": set(), "after": set()}
    last: dict[str, object] = {}
    for _ in range(a.repeats):
        for name, src in (("before", a.before), ("after", a.after)):
            r = _run(src, a.fixtures)
            times[name].append(float(str(r["cpu"])))
            fixture_times[name].append(float(str(r["fixtures_cpu"])))
            digests[name].add(r["digest"])
            last = r
    print(f"load average {os.getloadavg()[0]:.2f}; {last['texts']} user texts ({last['fixture_texts']} from the fixtures, the rest tuning memory families)")
    for name in ("before", "after"):
        print(f"{name:6s} digest {sorted(map(str, digests[name]))} ledger CPU median {statistics.median(times[name]):.3f}s"
              f" (fixture texts {statistics.median(fixture_times[name]):.3f}s)")
    ratio = statistics.median(times["after"]) / statistics.median(times["before"])
    fixtures_ratio = statistics.median(fixture_times["after"]) / statistics.median(fixture_times["before"])
    print(f"after / before: {ratio:.2f}x all texts, {fixtures_ratio:.2f}x the fixture texts")
    same = digests["before"] == digests["after"] and len(digests["after"]) == 1
    print("identical ledgers and values" if same else "LEDGERS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
