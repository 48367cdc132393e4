"""Checks the held-out ``brook`` family's ground truth against the text its generator wrote.

    python benchmarks/check_family_brook.py [--sessions 24] [--start 24000]

For every session: each planted item has its kind, its current value (the last one the user gave it)
and its superseded values in order; each value the user gave is in a user message, in the user's own
words (not inside a pasted code fence), at the message the ground truth says; each superseded value was
said before the message that replaced it and is never said after it; no planted value appears in tool
output or only there; the pair is two different subjects sharing words with disjoint values; traps
(values for a planted subject in pasted code or tool output) are only there; distractors are not a
planted value and are said once, by the user. Prints what it found and exits 1 on any problem.
This reads the generator's text only; it never runs the ledger.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from contextwindow.messages import Message
from memory_brook_values import found, order
from memory_family_brook import SEED_BASE, BrookPlant, BrookSession, generate
from memory_sessions import mentions_exact

FENCE = re.compile(r"```.*?```", re.DOTALL)
KINDS = ("goal", "safety", "constraint", "preference", "fact")
#: verbs that say which way a value went (a later date or time is "up")
UP = re.compile(r"\b(bumped|pushed|slipped)\b")
DOWN = re.compile(r"\b(cut|pulled in|lowered)\b")


def own_words(m: Message) -> str:
    """What the user wrote themselves: the message without pasted code fences."""
    return FENCE.sub("", m.text)


def is_user(m: Message) -> bool:
    return m.role == "user" and not m.is_tool_result


def problems(g: BrookSession) -> list[str]:
    """Every way ``g``'s ground truth disagrees with its text (empty when it is right)."""
    out: list[str] = []
    msgs = g.messages

    def bad(what: str) -> None:
        out.append(f"seed {g.seed}: {what}")

    if not mentions_exact(msgs, g.mentions, g.mentions, found):
        bad("a tracked value is not in exactly the messages the generator says, or stands inside another")
    owner: dict[str, str] = {}
    plants = [p for p in g.plants if isinstance(p, BrookPlant)]
    if len(plants) != len(g.plants):
        bad("a plant is not a BrookPlant")
    for p in plants:
        where = f"{p.kind} {p.subject!r}"
        if p.kind not in KINDS or not p.said or len(p.said) != len(p.said_at):
            bad(f"{where}: kind or values missing")
            continue
        if p.value != p.said[-1]:
            bad(f"{where}: current value {p.value!r} is not the last one said ({p.said[-1]!r})")
        if p.said_at != sorted(p.said_at) or len(set(p.said_at)) != len(p.said_at):
            bad(f"{where}: values not said in order")
        expect = [v for v in dict.fromkeys(p.said) if v != p.value]
        if p.stale != expect or len(p.stale_at) != len(p.stale):
            bad(f"{where}: superseded values {p.stale} != {expect}")
        for v, at in zip(p.said, p.said_at, strict=True):
            if owner.setdefault(v.lower(), p.subject) != p.subject:
                bad(f"{where}: value {v!r} also belongs to {owner[v.lower()]!r}")
            m = msgs[at]
            if not is_user(m) or not found(v, own_words(m)):
                bad(f"{where}: {v!r} is not in the user's own words at message {at}")
            elif p.kind != "goal" and p.noun.lower() not in m.text.lower():
                bad(f"{where}: message {at} gives {v!r} without naming {p.noun!r}")
        for k in range(1, len(p.said)):
            text, old, new = p.texts[k], p.said[k - 1], p.said[k]
            if p.forms[k] != "rescope" and p.noun.lower() not in text.lower():
                bad(f"{where}: update {text!r} does not name {p.noun!r}")
            way = UP.search(text.lower()), DOWN.search(text.lower())
            if (way[0] and not order(new) > order(old)) or (way[1] and not order(new) < order(old)):
                bad(f"{where}: {text!r} says the value went the other way ({old!r} → {new!r})")
        for v, at in zip(p.stale, p.stale_at, strict=True):
            last = max(k for k, x in enumerate(p.said) if x == v)
            if last + 1 >= len(p.said) or p.said_at[last + 1] != at or not at > p.said_at[last]:
                bad(f"{where}: {v!r} is not replaced at message {at}, after it was said")
            elif not found(p.said[last + 1], own_words(msgs[at])):
                bad(f"{where}: the message replacing {v!r} does not give the new value")
            if max(g.mentions.get(v, [at])) > at:
                bad(f"{where}: superseded {v!r} is said again after message {at}")
        if not any(is_user(msgs[i]) for i in g.mentions.get(p.value, [])):
            bad(f"{where}: current value {p.value!r} is in no user message")
        for v in dict.fromkeys(p.said):
            for i in g.mentions.get(v, []):
                m = msgs[i]
                if m.is_tool_result or (m.role not in ("user", "assistant")) or any(found(v, f) for f in FENCE.findall(m.text)):
                    bad(f"{where}: planted {v!r} is in tool output or pasted code (message {i})")
                before = [x for x, at in zip(p.said, p.said_at, strict=True) if at < i]
                here = [x for x, at in zip(p.said, p.said_at, strict=True) if at == i]
                if not (here or (before and before[-1] == v)):
                    bad(f"{where}: {v!r} is said at message {i} while it is not in force")
    for i, m in enumerate(msgs):
        if re.search(r"\bthe (the|a|an) ", m.text, re.IGNORECASE):
            bad(f"message {i} doubles an article: {m.text[:80]!r}")
    goal = [p for p in plants if p.kind == "goal"]
    if len(goal) != 1 or goal[0].said_at[0] != next(i for i, m in enumerate(msgs) if is_user(m)):
        bad("the goal is not the opening request")
    pair = [p for p in plants if p.pair is not None]
    if len(pair) != 2 or pair[0].pair != pair[1].pair or {p.kind for p in pair} != {"fact"}:
        bad("not one pair of facts")
    else:
        a, b = pair
        shared = set(a.noun.split()) & set(b.noun.split()) - {"the"}
        if a.noun == b.noun or not shared or set(a.said) & set(b.said):
            bad(f"the pair {a.noun!r} / {b.noun!r} is not two subjects sharing words with their own values")
    said = {v.lower() for p in plants for v in p.said}
    subjects = {p.subject: p for p in plants}
    if not len(g.traps) == len(g.trap_subject) == len(g.trap_at) == len(g.trap_how):
        bad("trap lists differ in length")
    for w, subj, at, how in zip(g.traps, g.trap_subject, g.trap_at, g.trap_how, strict=False):
        m = msgs[at]
        if w.lower() in said or g.mentions.get(w) != [at] or subj not in subjects:
            bad(f"trap {w!r}: a planted value, said elsewhere, or about no planted subject")
            continue
        if how == "tool" and not m.is_tool_result:
            bad(f"trap {w!r}: not in tool output")
        if how == "paste" and (not is_user(m) or found(w, own_words(m)) or not any(found(w, f) for f in FENCE.findall(m.text))):
            bad(f"trap {w!r}: not only inside the user's pasted code")
        if subjects[subj].said_at[0] > at:
            bad(f"trap {w!r}: before its subject was stated")
    for d, how in zip(g.distractors, g.distractor_how, strict=True):
        where_d = g.mentions.get(d, [])
        if d.lower() in said or len(where_d) != 1 or not is_user(msgs[where_d[0]]) or not found(d, own_words(msgs[where_d[0]])) or d in g.traps:
            bad(f"distractor {d!r} ({how}): a planted value, or not said once by the user")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=24)
    ap.add_argument("--start", type=int, default=SEED_BASE)
    args = ap.parse_args()
    found_any = False
    for seed in range(args.start, args.start + args.sessions):
        g = generate(seed)
        bad = problems(g)
        found_any |= bool(bad)
        updates = sum(len(p.stale) for p in g.plants)
        print(f"{seed} {g.situation:8} {g.voice:7} {'short' if g.short else 'long ':5} {len(g.plants)} planted, {updates} superseded, "
              f"{len(g.traps)} traps, {len(g.distractors)} distractors: {'ok' if not bad else f'{len(bad)} PROBLEMS'}")
        for b in bad:
            print("   ", b)
    print("ground truth ok" if not found_any else "ground truth has PROBLEMS")
    sys.exit(1 if found_any else 0)


if __name__ == "__main__":
    main()
