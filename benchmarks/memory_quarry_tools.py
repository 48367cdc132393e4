"""Tool output of the held-out ``quarry`` memory family: bulky, of many shapes, some printing "error"
or "warning" while exiting 0, one failing for real (``is_error``). Its numbers are random; the
generator re-draws any output that happens to contain a value of the session."""

from __future__ import annotations

import json
import random

FILES = {
    "game": ("Source/Emberfall/Render/ShaderCache.cpp", "Source/Emberfall/UI/RemapScreen.cpp", "Source/Emberfall/Replay/Exporter.cpp", "Config/DefaultEngine.ini"),
    "hospital": ("roster/rules/rest.py", "roster/swap/approve.py", "roster/io/csv_import.py", "reports/overtime.py"),
    "firmware": ("src/ota/resume.c", "src/power/sleep.c", "src/sensors/calib.c", "boards/rev_c/pins.h"),
    "legal": ("search/similarity.py", "privlog/export.py", "cite/checker.py", "ingest/ocr_client.py"),
    "fintech": ("recon/match/refunds.py", "recon/fx/rounding.py", "recon/report/unmatched.py", "recon/io/settlement.py"),
    "oss": ("tidyissues/dupes.py", "tidyissues/changelog.py", "tidyissues/labels.py", "tests/test_labels.py"),
}
WORDS = ("parse", "resolve", "flush", "retry", "merge", "load", "encode", "schedule", "match", "render", "check", "sync")


def _pytest(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    lines = ["============================= test session starts ==============================", f"platform linux -- Python 3.{r.randint(10, 12)}.{r.randint(0, 9)}, pytest-8.{r.randint(0, 3)}.{r.randint(0, 4)}"]
    total = 0
    for _ in range(r.randint(8, 16)):
        n = r.randint(3, 40)
        total += n
        lines.append(f"tests/test_{r.choice(WORDS)}_{r.choice(WORDS)}.py " + "." * min(n, 60) + f" [{r.randint(1, 99):3d}%]")
    warn = r.randint(1, 9)
    lines += ["=============================== warnings summary ===============================",
              f"{r.choice(files)}:{r.randint(10, 400)}: DeprecationWarning: utcnow() is deprecated",
              f"========== {total} passed, {warn} warnings in {r.randint(2, 60)}.{r.randint(10, 99)}s =========="]
    return "pytest -q", "\n".join(lines), False


def _build(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    n = r.randint(14, 30)
    lines = [f"[{k}/{n}] Building C object {r.choice(files).rsplit('.', 1)[0]}_{k}.o" for k in range(1, n + 1)]
    f = r.choice(files)
    lines.insert(r.randint(2, n - 2), f"{f}:{r.randint(20, 600)}:{r.randint(2, 40)}: warning: unused variable 'err' [-Wunused-variable]")
    lines += ["Memory region   Used Size  Region Size  %age Used", f"  FLASH: {r.randint(100, 400)} KB  {r.randint(500, 900)} KB  {r.randint(20, 70)}.{r.randint(10, 99)}%",
              "build finished: 0 errors, 1 warning"]
    return "ninja -C build", "\n".join(lines), False


def _gitlog(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    lines = []
    for _ in range(r.randint(8, 14)):
        h = "".join(r.choice("0123456789abcdef") for _ in range(9))
        lines.append(f"{h} {r.choice(('fix', 'refactor', 'test', 'chore', 'feat'))}: {r.choice(WORDS)} {r.choice(('edge case', 'retries', 'error path', 'timeouts', 'naming', 'logging'))} "
                     f"({r.randint(1, 28)} Oct 2026)")
    return "git log --oneline -n 14", "\n".join(lines), False


def _grep(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    word = r.choice(WORDS)
    lines = [f"{r.choice(files)}:{r.randint(5, 900)}:    {r.choice(('if ', 'return ', 'raise ', 'log.warning(', 'self._'))}{word}_{r.choice(WORDS)}(ctx)" for _ in range(r.randint(10, 22))]
    lines.insert(r.randint(0, 5), f"{r.choice(files)}:{r.randint(5, 900)}:    # error handling for {word} lives in the caller")
    return f"grep -rn {word} .", "\n".join(lines), False


def _table(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    rows = [" id   | status    | attempts | note", "------+-----------+----------+--------------------"]
    for _ in range(r.randint(10, 18)):
        rows.append(f" {r.randint(1000, 99999):<4} | {r.choice(('ok', 'pending', 'retry', 'failed', 'skipped')):<9} | {r.randint(0, 6):<8} | {r.choice(('', 'error: timeout (recovered)', 'manual', 'auto'))}")
    rows.append(f"({len(rows) - 2} rows)")
    return "psql -c 'select * from jobs order by id desc limit 20'", "\n".join(rows), False


def _json(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    items = [{"id": r.randint(10_000, 99_999), "name": f"{r.choice(WORDS)}-{r.choice(WORDS)}", "state": r.choice(("open", "closed", "draft")),
              "labels": r.sample(("bug", "docs", "perf", "needs-info", "good first issue"), 2), "comments": r.randint(0, 40)} for _ in range(r.randint(5, 9))]
    return "curl -s localhost/api/items | jq .", json.dumps({"items": items, "errors": []}, indent=1), False


def _trace(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    lines = ["Traceback (most recent call last):"]
    for _ in range(r.randint(5, 9)):
        lines += [f'  File "{r.choice(files)}", line {r.randint(10, 700)}, in {r.choice(WORDS)}_{r.choice(WORDS)}', f"    {r.choice(WORDS)}(state, {r.choice(WORDS)}=True)"]
    lines.append(f"ValueError: cannot {r.choice(WORDS)} record {r.randint(100000, 999999)}: unexpected state")
    return "python -m tools.run_once", "\n".join(lines), True


def _diff(r: random.Random, files: tuple[str, ...]) -> tuple[str, str, bool]:
    f = r.choice(files)
    lines = [f"diff --git a/{f} b/{f}", f"--- a/{f}", f"+++ b/{f}"]
    for _ in range(r.randint(3, 5)):
        a = r.randint(10, 500)
        lines.append(f"@@ -{a},7 +{a},8 @@ def {r.choice(WORDS)}_{r.choice(WORDS)}(")
        lines += [f" {'    ' * r.randint(1, 2)}{r.choice(WORDS)}_{r.choice(WORDS)} = None" for _ in range(3)]
        lines += [f"-{'    ' * 2}return {r.choice(WORDS)}(x)", f"+{'    ' * 2}if x is None:", f"+{'    ' * 3}return {r.choice(WORDS)}(x)"]
    return "git diff", "\n".join(lines), False


SHAPES = (_pytest, _build, _gitlog, _grep, _table, _json, _trace, _diff)


def tool_output(r: random.Random, domain: str, *, small: bool = False) -> tuple[str, str, bool]:
    """(command, output, is_error) of one tool run; ``small`` keeps a short session short."""
    cmd, out, err = r.choice(SHAPES)(r, FILES[domain])
    if small:
        out = "\n".join(out.splitlines()[:8])
    return cmd, out, err


def contrib_output(text: str) -> tuple[str, str, bool]:
    return "cat CONTRIBUTING.md", text, False
