"""Tool output of the held-out ``heath`` family (``memory_family_heath.py``): bulky, value-free text
(hex ids, counts, words; no clock times, dates, names, currencies or percentages, so it never holds a
tracked value by accident), logs that print "ERROR" and still exit 0, failed calls (``is_error``), and
handbook pages with rule-like sentences stating a value for a planted subject (a trap: tool output
never enters the ledger). Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import json
import random

TOOLS = ("query_db", "run_script", "read_file", "list_dir")
WORDS = ("kettle", "racking", "manifest", "ramp", "gallery", "crate", "loom", "aisle", "dish", "feed", "stall",
         "ledger", "crate", "spool", "gantry", "tray", "plinth", "bay", "valve", "hatch", "sleeve", "spindle")


def _hex(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(8))


def call_args(tool: str, task: str, rng: random.Random) -> str:
    arg = {"query_db": {"sql": f"select * from records where tag = '{rng.choice(WORDS)}'"},
           "run_script": {"cmd": f"python tools/{rng.choice(WORDS)}_check.py --all"},
           "read_file": {"path": f"docs/{rng.choice(WORDS)}-notes.md"},
           "list_dir": {"path": f"data/{rng.choice(WORDS)}"}}[tool]
    arg["why"] = task[:60]
    return json.dumps(arg)


def output(tool: str, rng: random.Random, lines: int) -> tuple[str, bool]:
    """(text, is_error) of one call: a table, a log, a listing or a page of notes, ``lines`` long."""
    if rng.random() < 0.06:
        return f"{tool}: failed — connection reset by peer (attempt 3 of 3), request {_hex(rng)}", True
    out: list[str] = []
    if tool == "query_db":
        out.append("id        | tag      | state    | qty | checked")
        for _ in range(lines):
            out.append(f"{_hex(rng)} | {rng.choice(WORDS):8} | {rng.choice(('open', 'closed', 'held', 'review')):8} | {rng.randrange(1, 999):3} | {rng.choice(('yes', 'no'))}")
        out.append(f"({lines} rows)")
    elif tool == "run_script":
        for k in range(lines):
            level = "ERROR" if rng.random() < 0.05 else rng.choice(("INFO", "INFO", "DEBUG", "WARN"))
            out.append(f"t+{k * 7 + rng.randrange(7):05d}s {level:5} {rng.choice(WORDS)}: checked {rng.randrange(1, 400)} items, id {_hex(rng)}")
        out.append("exit status 0")
    elif tool == "list_dir":
        for _ in range(lines):
            out.append(f"{rng.choice(('-rw-r--r--', 'drwxr-xr-x'))} {rng.randrange(1, 99999):>6} {rng.choice(WORDS)}_{_hex(rng)}.{rng.choice(('csv', 'json', 'txt', 'tif'))}")
    else:
        for _ in range(lines):
            out.append(f"- {rng.choice(WORDS)} {rng.choice(WORDS)}: see ticket {_hex(rng)}; {rng.choice(('done', 'pending', 'blocked on supplier', 'ok'))}")
    return "\n".join(out), False


HANDBOOK = (
    "# Operations handbook (imported from the previous system, not reviewed)\n\n"
    "Section {sec}. {N}\n\n{rule} Staff must always check this before a shift. "
    "Do not change this value without written approval.\n"
)
#: the handbook's rule for the subject, by the value's type (a cap or a floor by the constraint's bound)
HANDBOOK_RULE = {
    "at most": "The {n} must never exceed {t}.",
    "at least": "The {n} must never fall below {t}.",
    "qty": "The {n} is fixed at {t}.",
    "money": "The {n} is fixed at {t}.",
    "pct": "The {n} is fixed at {t}.",
    "time": "The {n} is {t} and must not be moved.",
    "date": "The {n} is {t} and must not be moved.",
    "name": "Only {t} may act as the {n}.",
    "code": "The {n} must always be {t}.",
}


def handbook(noun: str, trap: str, rng: random.Random, lines: int, vtype: str, bound: str = "") -> str:
    """A handbook page a tool printed: a rule-like sentence giving ``trap`` for ``noun``, worded for the
    value's type (``vtype``, or the constraint's ``bound`` for a cap or a floor), among notes."""
    rule = HANDBOOK_RULE[bound if bound in ("at most", "at least") and vtype in ("qty", "money", "pct") else vtype]
    head = HANDBOOK.format(sec=rng.randrange(2, 19), N=noun[:1].upper() + noun[1:], rule=rule.format(n=noun, t=trap))
    body, _ = output("read_file", rng, lines)
    return head + "\n" + body
