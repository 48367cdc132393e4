"""Tool output for the ``ridge`` memory family (``memory_family_ridge.py``): what a coding agent's
shell calls print in its domains — a trainer's step log, a Gradle build, a docs build, a DAG
listing, a Terraform plan, kubectl tables, a support bot's conversation log, ``du`` and ``pip
list``, source files. Some print the word "error" or "warning" while the command exits 0. None
holds a value the session plants or mentions: an output is drawn again while ``clean`` rejects it.
(The README a tool prints with rule-like sentences is written by the generator: it is a trap.)"""

from __future__ import annotations

import random
from collections.abc import Callable

Shape = Callable[[random.Random], tuple[str, str]]

WORDS = ["ingest", "dedupe", "sessionize", "enrich", "publish", "compact", "validate", "score", "embed", "rank", "route", "render"]
FILES = ["pipeline.py", "sinks.py", "schema.py", "trainer.py", "dataset.py", "router.py", "handoff.py", "LoginView.kt",
         "SignupScreen.swift", "conf.py", "index.md", "values.yaml"]
AUTHORS = ["dev-bot", "ci-runner", "release-train", "docs-sync", "renovate"]  # never a planted person's name
MSGS = ["tighten schema checks", "split the enrich step", "retry publish on 503", "drop the legacy sink", "cache embeddings per shard",
        "fix signup focus order", "add alt text to hero images", "route refunds to a human", "pin the base image", "rename the handoff state"]


def _train_log(r: random.Random) -> tuple[str, str]:
    steps = r.randint(8, 70)
    lines = [f"[trainer] epoch {r.randint(1, 9)} step {k * r.randint(10, 40)} loss={r.uniform(0.2, 2.5):.4f} "
             f"lr={r.uniform(1e-5, 3e-4):.2e} tok/s={r.randint(1000, 90000)}" for k in range(steps)]
    if r.random() < 0.4:
        lines.insert(r.randrange(len(lines)), "[trainer] warning: grad norm clipped; error budget for NaNs unchanged")
    return "tail -n 200 logs/trainer.out", "\n".join(lines)


def _gradle(r: random.Random) -> tuple[str, str]:
    tasks = [f"> Task :app:{t}" for t in r.sample(["compileDebugKotlin", "mergeDebugResources", "lintDebug", "testDebugUnitTest",
                                                    "assembleDebug", "bundleRelease", "kaptDebugKotlin", "processDebugManifest"], r.randint(3, 8))]
    warn = [f"w: file:///src/app/{r.choice(FILES)}:{r.randint(2, 400)}:{r.randint(1, 80)} 'onBackPressed' is deprecated"
            for _ in range(r.randint(0, 12))]
    return "./gradlew assembleDebug", "\n".join([*tasks, *warn, "", "BUILD SUCCESSFUL", f"{r.randint(12, 140)} actionable tasks: executed"])


def _docs_build(r: random.Random) -> tuple[str, str]:
    pages = [f"reading sources... [{k * 100 // 40:3d}%] guides/{r.choice(WORDS)}-{k}" for k in range(r.randint(5, 40))]
    warns = [f"docs/guides/{r.choice(WORDS)}.md: WARNING: undefined label: {r.choice(WORDS)}-section" for _ in range(r.randint(0, 6))]
    return "make -C docs html", "\n".join([*pages, *warns, "build succeeded, see _build/html (no error pages)"])


def _dag_list(r: random.Random) -> tuple[str, str]:
    rows = [f"{w}_{r.choice(['daily', 'hourly', 'adhoc'])} | {r.choice(['ok', 'ok', 'running', 'queued'])} | owner=data-eng | last={r.randint(1, 59)}m ago"
            for w in r.sample(WORDS, r.randint(3, 10))]
    return "orchestrator jobs list", "job | state | owner | last run\n" + "\n".join(rows)


def _tf_plan(r: random.Random) -> tuple[str, str]:
    res = [f"  # module.{r.choice(WORDS)}.aws_{r.choice(['s3_bucket', 'iam_role', 'lb_listener', 'route53_record'])}.this will be updated in-place\n"
           f"  ~ resource {{\n      ~ tags = {{ \"team\" = \"platform\" }}\n    }}" for _ in range(r.randint(1, 7))]
    return "terraform plan -no-color", "\n".join([*res, f"Plan: 0 to add, {len(res)} to change, 0 to destroy."])


def _kubectl(r: random.Random) -> tuple[str, str]:
    rows = [f"{r.choice(WORDS)}-{r.randint(10000, 99999):x}-{''.join(r.choices('abcdefghjkmnpqrstvwxz', k=5))}   "
            f"{r.choice(['Running', 'Running', 'CrashLoopBackOff', 'Completed'])}   {r.randint(0, 30)}   {r.randint(1, 70)}h"
            for _ in range(r.randint(4, 25))]
    return "kubectl get pods -n workloads", "NAME   STATUS   RESTARTS   AGE\n" + "\n".join(rows)


def _bot_log(r: random.Random) -> tuple[str, str]:
    lines = []
    for k in range(r.randint(4, 30)):
        lines.append(f"conv={r.randint(100000, 999999)} turn={k} intent={r.choice(['refund', 'login', 'shipping', 'other'])} "
                     f"confidence={r.uniform(0.1, 0.99):.3f} action={r.choice(['answer', 'answer', 'clarify', 'handoff'])}")
    lines.append("summary: no error responses returned to customers")
    return "botctl logs --since 1h", "\n".join(lines)


def _git_log(r: random.Random) -> tuple[str, str]:
    rows = [f"{r.getrandbits(40):010x} {r.choice(AUTHORS)} {r.choice(MSGS)}" for _ in range(r.randint(4, 25))]
    return "git log --oneline --format='%h %an %s' -n 25", "\n".join(rows)


def _grep(r: random.Random) -> tuple[str, str]:
    rows = [f"src/{r.choice(WORDS)}/{r.choice(FILES)}:{r.randint(3, 900)}:    # TODO({r.choice(AUTHORS)}): {r.choice(MSGS)}"
            for _ in range(r.randint(3, 30))]
    return "grep -rn TODO src", "\n".join(rows)


def _du(r: random.Random) -> tuple[str, str]:
    rows = [f"{r.randint(2, 900)}K\t./{r.choice(WORDS)}/{r.choice(['cache', 'tmp', 'out', 'fixtures'])}" for _ in range(r.randint(3, 14))]
    return "du -sh ./*/*", "\n".join(rows)


def _source(r: random.Random) -> tuple[str, str]:
    name = r.choice(WORDS)
    funcs = []
    for k in range(r.randint(3, 28)):
        funcs.append("\n".join([
            f"def {name}_{k}(rows, ctx):", f'    """{r.choice(MSGS).capitalize()}."""', "    out = []", "    for row in rows:",
            f"        if row.get('{r.choice(WORDS)}') is None:", "            continue", "        out.append(ctx.apply(row))", "    return out", ""]))
    return f"cat src/{name}/{r.choice(FILES[:6])}", "\n".join(funcs)


SHAPES: list[Shape] = [_train_log, _gradle, _docs_build, _dag_list, _tf_plan, _kubectl, _bot_log, _git_log, _grep, _du, _source]


def tool_output(r: random.Random, clean: Callable[[str], bool]) -> tuple[str, str]:
    """(command, output) of one shell call that ``clean`` accepts (drawn again until it does)."""
    for _ in range(60):
        cmd, out = r.choice(SHAPES)(r)
        if clean(cmd) and clean(out):
            return cmd, out
    raise RuntimeError("ridge: could not draw a tool output free of the session's values")
