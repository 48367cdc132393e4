"""Tool output of the ``tarn`` memory family (benchmarks/memory_family_tarn.py): HELD OUT, written by i11w.

Bulky output of several shapes (a notebook run, pytest, git log, grep, kubectl, a CSV head, a job log
that prints "error"/"warning" and exits 0, a JSON response, a real failure with ``is_error``), and a
team handbook page a tool printed whose rule-like lines name a value of its own for a planted subject
(a trap: tool output never enters the user's ledger). No output holds a planted value (the generator
checks it).
"""

from __future__ import annotations

import random

SHAPES = ("notebook", "pytest", "gitlog", "grep", "kubectl", "csv", "joblog", "json", "failure")
_WORDS = ("sync", "wave", "label", "cohort", "render", "build", "export", "parse", "retry", "queue", "merge", "align")


def _hex(r: random.Random, n: int = 7) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(n))


def tool_output(r: random.Random, shape: str, lines: int) -> tuple[str, str, bool]:
    """(command, output, is_error) for one call of ``shape`` with about ``lines`` lines."""
    w = r.choice(_WORDS)
    if shape == "notebook":
        body = [f"[{i}] {r.choice(_WORDS)}_frame.shape -> ({r.randint(10, 99)}{r.randint(100, 999)}, {r.randint(3, 40)})" for i in range(lines)]
        return f"jupyter nbconvert --execute {w}.ipynb --to notebook", "\n".join(body), False
    if shape == "pytest":
        body = [f"tests/test_{r.choice(_WORDS)}.py::test_{r.choice(_WORDS)}_{i} PASSED" for i in range(lines)]
        return "pytest -q", "\n".join([*body, f"== {lines} passed, 1 warning in {r.randint(2, 40)}.{r.randint(10, 99)}s =="]), False
    if shape == "gitlog":
        body = [f"{_hex(r)} {r.choice(('fix', 'tidy', 'add', 'rework'))} {r.choice(_WORDS)} {r.choice(('helper', 'check', 'step', 'docs'))}" for _ in range(lines)]
        return "git log --oneline -n 40", "\n".join(body), False
    if shape == "grep":
        body = [f"src/{r.choice(_WORDS)}/{r.choice(_WORDS)}.py:{r.randint(10, 99)}:    {r.choice(_WORDS)}_{r.choice(_WORDS)}(ctx)" for _ in range(lines)]
        return f"grep -rn {w}_ src", "\n".join(body), False
    if shape == "kubectl":
        body = [f"{w}-{_hex(r, 5)}-{_hex(r, 4)}   1/1   Running   {r.randint(0, 3)}   {r.randint(2, 59)}h" for _ in range(lines)]
        return f"kubectl get pods -l app={w}", "NAME   READY   STATUS   RESTARTS   AGE\n" + "\n".join(body), False
    if shape == "csv":
        body = [f"{_hex(r, 6)},{r.choice(_WORDS)},{r.randint(1, 9)}.{r.randint(10, 99)},{r.choice(('ok', 'late', 'held'))}" for _ in range(lines)]
        return f"head -n {lines} out/{w}.csv", "id,step,score,status\n" + "\n".join(body), False
    if shape == "joblog":
        body = [f"{r.choice(('INFO', 'INFO', 'WARNING', 'ERROR'))} {w}: step {i} {r.choice(('ok', 'retried once', 'no error reported', 'skipped'))}" for i in range(lines)]
        return f"./run_{w}.sh", "\n".join([*body, "job finished, exit code 0"]), False
    if shape == "json":
        body = [f'  {{"id": "{_hex(r, 8)}", "step": "{r.choice(_WORDS)}", "ok": {r.choice(("true", "false"))}}},' for _ in range(lines)]
        return f"curl -s localhost/api/{w}", "[\n" + "\n".join(body) + "\n]", False
    if shape == "failure":
        frames = [f'  File "src/{r.choice(_WORDS)}.py", line {r.randint(10, 99)}, in {r.choice(_WORDS)}' for _ in range(min(lines, 6))]
        return f"python -m {w}", "\n".join(["Traceback (most recent call last):", *frames, f"KeyError: '{r.choice(_WORDS)}_id'"]), True
    raise KeyError(shape)


#: a team handbook page a tool printed: policy-like lines, and one naming a value for a planted subject
HANDBOOK = ("# Team handbook (excerpt)\n"
            "Changes go through review before merge.\n"
            "Everyone on the rota reads the handover notes at the start of a shift.\n"
            "Per the handbook, {n} is set to {w}; changing it needs the handbook owner's sign-off.\n"
            "Questions go to the team channel.")
