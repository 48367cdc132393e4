"""Tool output for the ``field`` memory family (``memory_family_field.py``): shell results of several
shapes and sizes — pytest runs, git log, grep hits, kubectl tables, service logs that print "error"
while the command exits 0, source files. None holds a value the session plants (re-drawn when one
would), so a value found in an output came from the user's words."""

from __future__ import annotations

import random
import re

MODULES = ["handlers", "models", "queue", "retry", "client", "config", "schema", "views", "tasks", "auth"]
FUNCS = ["parse_row", "enqueue", "flush", "reconnect", "render", "validate", "apply_patch", "load_settings", "resolve", "to_dict"]
SUBJECTS = ["Fix flaky retry test", "Split worker into two queues", "Drop unused settings", "Handle empty cursor", "Log job ids",
            "Bump test timeouts", "Move helpers to utils", "Rename queue arguments"]


def _pytest(r: random.Random, svc: str) -> tuple[str, str, int]:
    n = r.randint(6, 60)
    failed = r.sample(range(n), r.choice([0, 0, 1, 2]))
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0", f"rootdir: /home/dev/{svc}", f"collected {n} items", ""]
    for i in range(n):
        mod, fn = r.choice(MODULES), r.choice(FUNCS)
        lines.append(f"tests/test_{mod}.py::test_{fn}_{i} {'FAILED' if i in failed else 'PASSED'}")
    for i in failed:
        lines += ["", f"___________________________ test_{r.choice(FUNCS)}_{i} ___________________________",
                  f"    def test_{r.choice(FUNCS)}_{i}():", f">       assert result.count == {r.randint(2, 9)}",
                  f"E       AssertionError: assert {r.randint(10, 19)} == {r.randint(2, 9)}", f"src/{svc}/{r.choice(MODULES)}.py:{r.randint(10, 400)}: AssertionError"]
    lines.append(f"========== {len(failed)} failed, {n - len(failed)} passed in {r.randint(1, 40)}.{r.randint(10, 99)}s ==========")
    return f"pytest -q tests/{svc}", "\n".join(lines), 1 if failed else 0


def _git_log(r: random.Random, svc: str) -> tuple[str, str, int]:
    lines: list[str] = []
    for _ in range(r.randint(2, 8)):
        lines += [f"commit {r.getrandbits(160):040x}", f"Author: dev <dev@{svc}.example>", "",
                  f"    {r.choice(SUBJECTS)}", ""]
    return "git log -n 8", "\n".join(lines), 0


def _grep(r: random.Random, svc: str) -> tuple[str, str, int]:
    word = r.choice(FUNCS)
    lines = [f"src/{svc}/{r.choice(MODULES)}.py:{r.randint(3, 600)}:    result = {word}(item, retries=retries)" for _ in range(r.randint(3, 40))]
    return f"grep -rn {word} src/{svc}", "\n".join(lines), 0


def _kubectl(r: random.Random, svc: str) -> tuple[str, str, int]:
    lines = ["NAME                                READY   STATUS    RESTARTS   AGE"]
    for _ in range(r.randint(2, 12)):
        status = r.choice(["Running", "Running", "Running", "CrashLoopBackOff", "Pending"])
        lines.append(f"{svc}-worker-{r.getrandbits(24):06x}-{r.getrandbits(20):05x}   {int(status == 'Running')}/1     {status:<9} {r.randint(0, 9):<10} {r.randint(1, 9)}d")
    return f"kubectl get pods -l app={svc}", "\n".join(lines), 0


def _logs(r: random.Random, svc: str) -> tuple[str, str, int]:
    lines = []
    for _ in range(r.randint(5, 60)):
        level = r.choice(["INFO", "INFO", "INFO", "WARN", "ERROR"])
        msg = {"INFO": f"job {r.randint(100, 999)} done in 0.{r.randint(10, 99)}s", "WARN": "slow consumer, backing off",
               "ERROR": "error: connection reset by peer (will retry)"}[level]
        lines.append(f"[{svc}] {level:<5} {msg}")
    return f"tail -n 60 /var/log/{svc}/worker.log", "\n".join(lines), 0


def _cat(r: random.Random, svc: str) -> tuple[str, str, int]:
    mod = r.choice(MODULES)
    lines = ["from __future__ import annotations", "", "import logging", "", "log = logging.getLogger(__name__)", ""]
    for fn in r.sample(FUNCS, r.randint(2, 6)):
        lines += [f"def {fn}(item, retries=3):", f'    """{fn.replace("_", " ").capitalize()} one item."""', "    for attempt in range(retries):",
                  "        try:", "            return item.process()", "        except TimeoutError:", '            log.warning("attempt %d timed out", attempt)',
                  "    raise RuntimeError(\"gave up\")", ""]
    return f"cat src/{svc}/{mod}.py", "\n".join(lines), 0


SHAPES = [_pytest, _pytest, _git_log, _grep, _kubectl, _logs, _logs, _cat]


class Avoid:
    """Finds any of ``values`` in a text, as the benchmark matches a value."""

    def __init__(self, values: list[str]) -> None:
        self.values = [(v.lower(), re.compile(rf"(?<![\w$]){re.escape(v.lower())}(?!\w)")) for v in values]

    def found(self, text: str) -> bool:
        low = text.lower()
        return any(v in low and p.search(low) for v, p in self.values)


def tool_output(r: random.Random, svc: str, avoid: Avoid) -> tuple[str, str, int]:
    """(command, output, exit code) of one shell call; never holds a value ``avoid`` finds."""
    for _ in range(50):
        cmd, body, code = r.choice(SHAPES)(r, svc)
        if r.random() < 0.08:
            code = r.choice([1, 2, 127])
            body += f"\n{cmd.split()[0]}: command failed"
        if not avoid.found(body) and not avoid.found(cmd):
            return cmd, body, code
    raise RuntimeError("could not draw a tool output free of the session's values")
