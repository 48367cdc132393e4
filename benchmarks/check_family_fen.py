"""Checks the ground truth of the held-out ``fen`` family against the text it writes.

    python benchmarks/check_family_fen.py [--sessions 40]

No ledger runs here and no score is printed: only whether each planted item's kind, current value and
superseded values agree with the messages (``problems``). The text is read on its own
(``check_fen_reading.py``): a plant's kind from the template its first sentence is written in, each change
from the form its kind allows, every line the user typed a recorded plant, a bare reference or a known
non-binding line, no line after a subject's last recorded value giving it another, and no stale value in a
user message after it went stale (but in the message replacing it). tests/test_memory_family_fen.py runs it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import check_fen_reading as R
import memory_fen_text as T
from contextwindow.messages import Message
from memory_family_fen import SEED_BASE, SHORT_TURNS, FenPlant, FenSession, generate
from memory_fen_text import found

KINDS = ("safety", "constraint", "goal", "preference", "fact")


def _own(m: Message) -> bool:
    """A message the user typed (not a tool's result, not the assistant)."""
    return m.role == "user" and not m.is_tool_result


def _where(g: FenSession, v: str) -> list[int]:
    return [i for i, m in enumerate(g.messages) if found(v, m.text)]


def problems(g: FenSession) -> list[str]:
    """Every way ``g``'s ground truth disagrees with its messages (empty when it is right)."""
    out: list[str] = []
    msgs = g.messages
    plants = [p for p in g.plants if isinstance(p, FenPlant)]
    if len(plants) != len(g.plants):
        return ["a plant is not a FenPlant"]
    said_all = {v for p in plants for v in p.said}
    for p in plants:
        tag = f"{g.seed} {p.subject}"
        if p.kind not in KINDS:
            out.append(f"{tag}: kind {p.kind!r}")
        if not p.said or p.value != p.said[-1] or p.stale != p.said[:-1] or len(p.stale_at) != len(p.stale):
            out.append(f"{tag}: value/stale do not follow what was said")
            continue
        if len(set(p.said)) != len(p.said):
            out.append(f"{tag}: a value said twice")
        # the current value: said by the user, at the message the plant says, and never superseded after
        if not _own(msgs[p.said_at[-1]]) or not found(p.value, msgs[p.said_at[-1]].text):
            out.append(f"{tag}: current value {p.value!r} not in the user's message {p.said_at[-1]}")
        if p.value in p.retracted:
            out.append(f"{tag}: the current value was retracted")
        for k, (v, at) in enumerate(zip(p.stale, p.stale_at, strict=True)):
            first = _where(g, v)[0] if _where(g, v) else -1
            nxt = p.said_at[k + 1]
            if not (0 <= first < at <= nxt):
                out.append(f"{tag}: stale {v!r} first at {first}, superseded at {at}, replaced at {nxt}")
            if not _own(msgs[at]) or not _own(msgs[nxt]) or not found(p.said[k + 1], msgs[nxt].text):
                out.append(f"{tag}: the supersession of {v!r} is not in the user's messages")
        for v in p.said:  # no planted value only in tool output
            if not any(_own(msgs[i]) for i in _where(g, v)):
                out.append(f"{tag}: {v!r} only outside the user's messages")
        for v in p.retracted:
            at = p.stale_at[p.stale.index(v)] if v in p.stale else -1
            if at < 0 or not any(w.format(n=p.noun).rstrip(".") in msgs[at].text for w in T.RETRACT) or found(v, msgs[at].text):
                out.append(f"{tag}: retraction of {v!r} not where it is recorded")
        for i in p.refs:
            if p.kind != "safety" or f"the rule about {p.ref}" not in msgs[i].text or any(found(v, msgs[i].text) for v in p.said) or i <= p.said_at[0]:
                out.append(f"{tag}: reference {i} is not a bare reference after the rule")
        for form, at, text in zip(p.forms, p.said_at, p.texts, strict=True):
            if text not in msgs[at].text:
                out.append(f"{tag}: sentence {text!r} not in message {at}")
            if (form == "arrow" and "→" not in text) or (form == "makeit" and ": make it" not in text):
                out.append(f"{tag}: {form} sentence {text!r}")
            if form == "two" and sum(1 for q in plants for t2, a2 in zip(q.texts, q.said_at, strict=True) if a2 == at and t2 == text) != 2:
                out.append(f"{tag}: 'two' sentence holds not exactly two updates")
            if form == "spec" and (at != g.spec_at or not msgs[at].text.startswith(T.SPEC_LEAD)):
                out.append(f"{tag}: spec statement outside the spec")
            if form == "list" and (at != g.list_at or not text.startswith("- ")):
                out.append(f"{tag}: list statement outside the list")
    out += _read(g, plants)
    for a, b in g.splits:
        hit = [p for p in plants if any(x == a for x in p.stale_at)]
        if len(hit) != 1 or b != a + 2 or msgs[a + 1].role != "assistant" or not _own(msgs[b]):
            out.append(f"{g.seed}: split {a}→{b} malformed")
            continue
        p = hit[0]
        k = p.stale_at.index(a)
        if not found(p.stale[k], msgs[a].text) or p.said_at[k + 1] != b or found(p.said[k + 1], msgs[a].text):
            out.append(f"{g.seed}: split {a}→{b} does not carry {p.subject}'s change")
    for w, at, how in zip(g.traps, g.trap_at, g.trap_how, strict=True):
        if w in said_all or _where(g, w) != [at]:
            out.append(f"{g.seed}: trap {w!r} said elsewhere")
        elif how == "tool" and not msgs[at].is_tool_result:
            out.append(f"{g.seed}: tool trap {w!r} not in a tool result")
        elif how == "docs" and (at != g.docs_at or not any(line.startswith("> ") and found(w, line) for line in msgs[at].text.split("\n"))):
            out.append(f"{g.seed}: docs trap {w!r} not in the quoted docs")
    for w in g.distractors:
        if w in said_all or not all(_own(msgs[i]) for i in _where(g, w)) or not _where(g, w):
            out.append(f"{g.seed}: distractor {w!r} is a planted value or not the user's")
    quoted = "\n".join(line for line in msgs[g.docs_at].text.split("\n") if line.startswith("> ")) if g.docs_at >= 0 else ""
    if any(found(v, quoted) for v in said_all):
        out.append(f"{g.seed}: the pasted docs hold a planted value")
    pairs: dict[int, list[FenPlant]] = {}
    for p in plants:
        if p.pair is not None:
            pairs.setdefault(p.pair, []).append(p)
    for members in pairs.values():
        nouns = [set(m.noun.split()) for m in members]
        if len(members) != 2 or len(nouns[0] & nouns[1]) < 2 or members[0].value == members[1].value or members[0].noun == members[1].noun:
            out.append(f"{g.seed}: pair {[m.subject for m in members]} malformed")
    users = sum(1 for m in msgs if _own(m))
    if g.short != (users == SHORT_TURNS):
        out.append(f"{g.seed}: {users} user messages for a {'short' if g.short else 'long'} session")
    have = {f for p in plants for f in p.forms} | ({"retract"} if any(p.retracted for p in plants) else set())
    need = {"split", "retract", "list"} | (set() if g.short else {"two", "spec"})
    if need - have or (not g.short and (g.docs_at < 0 or not pairs or not any(p.refs for p in plants))):
        out.append(f"{g.seed}: missing kinds {sorted(need - have)} (or docs/pair/refs)")
    return out


def _read(g: FenSession, plants: list[FenPlant]) -> list[str]:
    """What the text says on its own against the ground truth: kinds, change forms, coverage, late values, stale values."""
    out: list[str] = []
    msgs = g.messages
    for p in plants:
        tag = f"{g.seed} {p.subject}"
        if R.first_kinds(g, p) != {p.kind}:
            out.append(f"{tag}: first sentence {p.texts[0]!r} reads as {sorted(R.first_kinds(g, p))}, recorded {p.kind!r}")
        for k in range(1, len(p.said)):
            partner = next(((q, j) for q in plants if q is not p for j, (t, a) in enumerate(zip(q.texts, q.said_at, strict=True))
                            if a == p.said_at[k] and t == p.texts[k]), (None, -1))
            if p.texts[k] not in R.change_texts(p, k, *partner):
                out.append(f"{tag}: change {p.texts[k]!r} is not a {p.kind} {p.forms[k]!r} change from {p.said[k - 1]!r} to {p.said[k]!r}")
        for k, (v, at) in enumerate(zip(p.stale, p.stale_at, strict=True)):
            late = [i for i in _where(g, v) if _own(msgs[i]) and i > at and i != p.said_at[k + 1]]
            if late:
                out.append(f"{tag}: stale {v!r} said by the user at {late} after it went stale at {at}")
        withdrawn = R.withdrawal(p)
        for i, m in enumerate(msgs):
            if p.kind != "goal" and _own(m) and any(withdrawn.match(ln) for ln in m.text.split("\n")):
                before = [v for v, a in zip(p.said, p.said_at, strict=True) if a < i]
                if not before or before[-1] not in p.stale or p.stale_at[p.stale.index(before[-1])] != i:
                    out.append(f"{tag}: message {i} withdraws {before[-1:]} but the truth does not make it stale there")
        for i in range(p.said_at[-1] + 1, len(msgs)):
            if _own(msgs[i]) and (line := next((ln for ln in msgs[i].text.split("\n") if R.gives_value(g, p, ln)), None)):
                out.append(f"{tag}: message {i} gives it a value after its last recorded one: {line!r}")
    free = R.non_binding(g, plants)
    docs = R.docs_rule(g, plants)
    for i, m in enumerate(msgs):
        if not _own(m):
            continue
        text = m.text
        for t in sorted({t for p in plants for t, a in zip(p.texts, p.said_at, strict=True) if a == i}, key=len, reverse=True):
            text = text.replace(t, "\0")
        fence, lead = False, ""
        for line in text.split("\n"):
            if line == "```":
                fence = not fence
                if fence and lead not in T.LOG_LEAD:
                    out.append(f"{g.seed}: message {i} has a code block that is not a pasted log")
                continue
            if not fence:
                lead = line
            if fence or line in ("", "\0") or free.match(line) or (i == g.docs_at and (line in T.DOCS_LINES or docs.match(line))):
                continue
            out.append(f"{g.seed}: message {i}: line {line!r} is no recorded plant, bare reference or known non-binding line")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=40)
    args = ap.parse_args()
    bad = 0
    for seed in range(SEED_BASE, SEED_BASE + args.sessions):
        for line in problems(generate(seed)):
            bad += 1
            print(line)
    print(f"fen: {args.sessions} sessions (seeds {SEED_BASE}..{SEED_BASE + args.sessions - 1}), {bad} ground-truth problems")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
