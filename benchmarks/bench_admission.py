"""Admission of a deep tree: depth 50, 1,000 skills spread along it.

Prints the admission time (median of several runs), the prompt's token count, and how the
skills index grows (one line per skill) while skill bodies never enter the prompt.

    python benchmarks/bench_admission.py [--depth 50] [--skills 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from contextwindow.admission import admit
from contextwindow.tokens import counter_for

BODY_SENTINEL = "BODY-SENTINEL"


def build_tree(base: Path, depth: int, n_skills: int) -> tuple[Path, Path]:
    """A chain of ``depth`` folders with ``n_skills`` skills spread evenly along it."""
    levels = [base]
    for i in range(depth - 1):
        levels.append(levels[-1] / f"d{i:02d}")
    levels[-1].mkdir(parents=True)
    home = base / "home"
    home.mkdir()
    kinds = (".agents/skills", ".claude/skills", "skills")
    for k in range(n_skills):
        level = levels[k % depth]
        folder = level / kinds[k % 3] / f"skill-{k:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = f"{BODY_SENTINEL} {k}\n" + ("Step: do the thing carefully.\n" * 60)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{k:04d}\ndescription: Handles benchmark task number {k} end to end\n---\n{body}"
        )
    for i, level in enumerate(levels):
        if i % 10 == 0:
            (level / "AGENTS.md").write_text(f"Rules of level {i}: keep changes small and tested.\n")
    return levels[-1], home


def measure(depth: int, n_skills: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="cw-bench-") as tmp:
        cwd, home = build_tree(Path(tmp), depth, n_skills)
        times = []
        a = None
        for _ in range(runs):
            t0 = time.perf_counter()
            a = admit(cwd, home)
            times.append(time.perf_counter() - t0)
        assert a is not None
        index_lines = [ln for ln in a.prompt.text.splitlines() if ln.startswith("- skill-")]
        assert BODY_SENTINEL not in a.prompt.text, "a skill body entered the prompt"
        assert len(index_lines) == n_skills == len([s for s in a.skills if s.name.startswith("skill-")])
        skills_tokens = next((s.tokens for s in a.prompt.sections if s.name == "skills"), 0)
        count = counter_for(None).count_text
        body_tokens = sum(count(a.read_skill(s.name)) for s in a.skills)
        return {
            "skills": n_skills,
            "median_ms": statistics.median(times) * 1000,
            "prompt_tokens": a.prompt.tokens,
            "skills_section_tokens": skills_tokens,
            "index_lines": len(index_lines),
            "instruction_files": len(a.instruction_files),
            "body_tokens": body_tokens,
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"depth {args.depth}, median of {args.runs} runs, default token counter")
    print(f"{'skills':>7} {'admit ms':>9} {'prompt tok':>11} {'index tok':>10} {'index lines':>12} {'tok/skill':>10}")
    prev: dict[str, float] | None = None
    for n in sorted({0, args.skills // 4, args.skills // 2, args.skills}):
        r = measure(args.depth, n, args.runs)
        per = (r["skills_section_tokens"] - prev["skills_section_tokens"]) / (n - prev["skills"]) if prev and n > prev["skills"] else 0.0
        print(
            f"{n:>7} {r['median_ms']:>9.1f} {r['prompt_tokens']:>11,} {r['skills_section_tokens']:>10,} "
            f"{r['index_lines']:>12} {per:>10.1f}"
        )
        prev = r
    assert prev is not None
    print("skill bodies in the prompt: none (checked for the body sentinel in every run)")
    print(f"the {prev['skills']:.0f} bodies, had they been admitted: {prev['body_tokens']:,.0f} tokens")


if __name__ == "__main__":
    main()
