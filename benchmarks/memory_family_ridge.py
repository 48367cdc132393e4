"""The ``ridge`` family of the memory benchmark (seeds 19000+): HELD OUT.

Written by i11n (issue 11, 2026-11-24), who has tuned none of the ledger, and committed before any
run of the ledger on it; only the lead runs ``python benchmarks/bench_memory.py --family ridge``,
once. Its sentences (``memory_ridge_text.py``), values (``memory_ridge_values.py``) and tool output
(``memory_ridge_tools.py``) are its own.

A session is a demanding user talking to a coding agent across data pipelines, mobile apps,
infrastructure, docs, ML training and a support bot: an opening request (the goal; in two thirds
of the sessions with an agent harness's environment block in the same message or in a message of
its own before it), safety rules, hard constraints, preferences, facts (people, owners, teams,
hosts, ports, versions, paths, ticket ids, amounts, dates, durations, sizes, percentages, counts)
and two pairs of different subjects that share words. Statements are updated 0–3 times (safety
rules at most once, by a correction) from the same message to twenty-odd turns later, in other
words: a paraphrase, another name for the subject (synonym, abbreviation, possessive), the subject
only in the sentence before ("it" / "that one"), a correction ("Scratch that.", "I misspoke",
"Actually"; some name the old value), a relative change that states its result, another unit or
format, a return to the first value; carried alone, among other statements, inside a question, a
bulleted list, a code block or quoted text. Around them: chatter, tasks, questions naming a
subject, a current value said again without a change, statements about other subjects with values
of the same type (another pin of the same library, a home-lab host …), an assistant echoing a
value, and tool output of many shapes. What must NOT enter the ledger is planted too: a harness's
``<system-reminder>`` in a user message and a README a tool printed, both with rule-like sentences
("You must …") and a value of their own for a subject the user planted (if either were read as
the user's, the user's value would be lost).

Every value is unique in its session (none found inside another with the benchmark's own match),
and ``generate`` checks that each is exactly in the messages it put it in
(``RidgeSession.mentions``); tests/test_memory_family_ridge.py checks the generator against its
text. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import memory_ridge_text as T
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_ridge_text import SLOTS, Slot
from memory_ridge_tools import tool_output
from memory_ridge_values import FORMATS, Val, ValueMaker, found, pattern
from memory_sessions import Generated, Plant

FAMILY = "ridge"
SEED_BASE = 19_000
#: how an update is worded / where it is carried
FORMS = ("para", "alias", "implied", "correct", "correct_named", "rel", "units", "revert", "same")
CARRIERS = ("plain", "ask", "code", "quote", "list")


@dataclass
class RidgePlant(Plant):
    slot: str = ""  # the Slot key ("goal" for the goal)
    subject: str = ""  # the plain name of what the value is of
    statement: str = ""  # the sentence that first states it
    said_at: int = -1  # index of the message that first states it
    said: list[str] = field(default_factory=list)  # every value in the order the user set it (the first, then each update)
    meanings: list[float | None] = field(default_factory=list)  # what each of those means as a number
    formats: list[str] = field(default_factory=list)  # how each of those is written (memory_ridge_values.FORMATS)
    forms: list[str] = field(default_factory=list)  # how each update was worded (FORMS)
    carriers: list[str] = field(default_factory=list)  # where each update was carried (CARRIERS)
    update_at: list[int] = field(default_factory=list)  # index of the message of each update
    update_texts: list[str] = field(default_factory=list)  # each update as written


@dataclass
class RidgeSession(Generated):
    #: value text → indices of the messages the generator put it in (planted, superseded, distractor and trap values)
    mentions: dict[str, list[int]] = field(default_factory=dict)
    distractors: list[str] = field(default_factory=list)  # values of other subjects, never planted
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a harness block or a tool
    trap_at: list[int] = field(default_factory=list)  # the message of each trap value
    trap_slots: list[str] = field(default_factory=list)  # the planted subject (Slot key) each trap value is about


def direction(text: str) -> int:
    """Which way an update's words say its value moved: 1 up/later, -1 down/earlier, 0 not said."""
    low = text.lower()
    if any(w in low for w in T.HIGHER):
        return 1
    return -1 if any(w in low for w in T.LOWER) else 0


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _fill(template: str, **kw: str) -> str:
    if "n" in kw:
        kw["N"] = _cap(kw["n"])
    return template.format(**kw)


@dataclass
class Event:
    turn: int
    form: str
    carrier: str
    val: Val
    old: Val
    delta: str = ""
    text: str = ""


@dataclass
class Thread:
    slot: Slot | None  # None: the goal
    vals: list[Val]
    turn: int
    events: list[Event] = field(default_factory=list)
    pair: int | None = None

    @property
    def key(self) -> str:
        return self.slot.key if self.slot else "goal"

    def current(self, turn: int) -> Val:
        """The value in force while ``turn`` is written (before its own events)."""
        said = [self.vals[0], *(e.val for e in self.events if e.turn < turn)]
        return said[-1]


@dataclass
class Piece:
    text: str
    values: list[str]
    multiline: bool = False


class _Builder:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 19)
        self.vm = ValueMaker(self.rng)
        self.turns = self.rng.randint(30, 36)
        self.threads: list[Thread] = []
        self.pieces: dict[int, list[Piece]] = {t: [] for t in range(self.turns)}
        self.echo: dict[int, list[tuple[str, Val]]] = {}
        self.readme: dict[int, Piece] = {}
        self.reminder: dict[int, Piece] = {}
        self.distractors: list[str] = []
        self.traps: list[tuple[str, str]] = []  # (value, slot key)

    # --- planning -------------------------------------------------------------------------------
    def _value(self, slot: Slot, **kw: object) -> Val:
        v = self.vm.draw(slot.vtype, slot.spec, **kw)  # type: ignore[arg-type]
        if v is None:
            raise RuntimeError(f"ridge seed {self.seed}: no value left for {slot.key}")
        return v

    def plan(self) -> None:
        r = self.rng
        goal = Val(next(g for g in r.sample(T.GOAL_VALUES, len(T.GOAL_VALUES)) if self.vm.take(g, "goal:" + g)))
        self.threads.append(Thread(None, [goal], 0))
        by_kind: dict[str, list[Slot]] = {}
        for s in SLOTS:
            if not s.pair:
                by_kind.setdefault(s.kind, []).append(s)
        chosen = [*r.sample(by_kind["safety"], r.randint(2, 3)), *r.sample(by_kind["constraint"], r.randint(3, 4)),
                  *r.sample(by_kind["preference"], r.randint(2, 3)), *r.sample(by_kind["fact"], r.randint(6, 8))]
        late = int(self.turns * 0.55)
        for s in chosen:
            self.threads.append(Thread(s, [self._value(s)], r.choice([0, *range(1, late)]) if s.kind != "safety" else r.randint(0, late)))
        heads = sorted({s.key for s in SLOTS if s.pair and s.key < s.pair})
        for k, key in enumerate(r.sample(heads, 2)):
            a, b = T.SLOT[key], T.SLOT[T.SLOT[key].pair]
            ta = r.randint(1, late)
            tb = ta if r.random() < 0.5 else r.randint(1, late)
            for s, t in r.sample([(a, ta), (b, tb)], 2):
                self.threads.append(Thread(s, [self._value(s)], t, pair=k))
        for th in self.threads:
            self._plan_updates(th)

    def _plan_updates(self, th: Thread) -> None:
        r = self.rng
        if th.slot is None:
            if r.random() < 0.35:
                t = r.randint(8, self.turns - 4)
                new = Val(next(g for g in r.sample(T.GOAL_VALUES, len(T.GOAL_VALUES)) if self.vm.take(g, "goal:" + g)))
                th.events.append(Event(t, "para", "plain", new, th.vals[0]))
                th.vals.append(new)
            return
        s = th.slot
        n = r.choices([0, 1], [0.75, 0.25])[0] if s.kind == "safety" else r.choices([0, 1, 2, 3], [0.4, 0.33, 0.18, 0.09])[0]
        turn = th.turn
        for k in range(n):
            gap = r.choices(["same", "next", "near", "far"], [0.1 if k == 0 and s.kind != "safety" else 0, 0.25, 0.35, 0.3])[0]
            t = turn + {"same": 0, "next": 1, "near": r.randint(2, 6), "far": r.randint(10, 25)}[gap]
            if t >= self.turns:
                t = turn + 1 if turn + 1 < self.turns else -1
            if t < 0:
                return
            old = th.vals[-1]
            form, val, delta = self._pick_form(th, k, gap == "same", old)
            carrier = self._pick_carrier(s, form)
            th.events.append(Event(t, form, carrier, val, old, delta))
            th.vals.append(val)
            turn = t
            if form == "revert":
                return

    def _pick_form(self, th: Thread, k: int, same: bool, old: Val) -> tuple[str, Val, str]:
        r, s = self.rng, th.slot
        assert s is not None
        if same:
            return "same", self._value(s), ""
        if s.kind == "safety":
            return r.choice(["correct", "correct_named"]), self._value(s), ""
        forms = ["para", "implied", "correct", "correct_named"] + (["alias"] if len(s.names) > 1 else [])
        if s.vtype in FORMATS:
            forms += ["rel", "rel", "units"]
        if k > 0 and th.vals[0].text != old.text:
            forms += ["revert", "revert"]
        form = r.choice(forms)
        if form == "revert":
            return form, th.vals[0], ""
        if form == "rel":
            sign = r.choice([1, -1])
            got = self.vm.shifted(s.vtype, s.spec, old, sign) or self.vm.shifted(s.vtype, s.spec, old, -sign)
            if got is not None:
                return form, got[0], got[1]
            form = "para"
        if form == "units":
            v = self.vm.draw(s.vtype, s.spec, not_fmt=old.fmt)
            if v is not None:
                return form, v, ""
            form = "para"
        return form, self._value(s), ""

    def _pick_carrier(self, s: Slot, form: str) -> str:
        r = self.rng
        options = ["plain", "plain", "plain", "list"]
        if form in ("para", "alias", "units"):
            options += ["ask"] + (["code"] * 4 if s.conf else [])
        if form in ("para", "alias", "rel", "units", "implied"):
            options += ["quote"]
        return r.choice(options)

    def plan_noise(self) -> None:
        """Distractors, repeats, questions, traps, echoes; chatter and tasks."""
        r = self.rng
        stated = [th for th in self.threads if th.slot is not None]
        for th in r.sample(stated, min(len(stated), r.randint(5, 8))):  # other subjects, same type of value
            s = th.slot
            assert s is not None
            spec = s.spec if s.vtype in ("version", "choice") else T.OTHER_SPEC.get(s.vtype, s.spec)
            x = self.vm.draw(s.vtype, spec)
            if x is None:
                continue
            t = r.randrange(self.turns)
            self.pieces[t].append(Piece(_fill(r.choice(T.OTHER[s.vtype]), x=x.text, lib=T.LIBS.get(s.key, "")), [x.text]))
            self.distractors.append(x.text)
        for th in r.sample(stated, min(len(stated), r.randint(3, 5))):  # a current value said again
            busy = {e.turn for e in th.events} | {th.turn}
            free = [t for t in range(th.turn + 1, self.turns) if t not in busy]
            if free and th.slot is not None and th.slot.kind != "safety":
                t = r.choice(free)
                v = th.current(t)
                self.pieces[t].append(Piece(_fill(r.choice(T.REPEAT), n=th.slot.names[0], v=v.text), [v.text]))
        for th in r.sample([th for th in stated if th.slot is not None and th.slot.kind == "fact"], 3):  # questions naming a subject
            assert th.slot is not None
            self.pieces[r.randrange(self.turns)].append(Piece(r.choice(T.QUESTIONS).format(t=th.slot.thing or th.slot.names[0]), []))
        trappable = [th for th in stated if th.slot is not None and th.slot.kind in ("fact", "constraint") and th.turn < self.turns - 3]
        for k, th in enumerate(r.sample(trappable, 2)):
            s = th.slot
            assert s is not None
            x = self.vm.draw(s.vtype, s.spec)
            if x is None:
                continue
            busy = {e.turn for e in th.events}
            free = [t for t in range(th.turn + 1, self.turns) if t not in busy]
            if not free:
                continue
            t = r.choice(free)
            piece = Piece(_fill(T.README_TRAP if k == 0 else T.REMINDER, n=s.names[0], x=x.text), [x.text], True)
            (self.readme if k == 0 else self.reminder)[t] = piece
            self.traps.append((x.text, s.key))
        for t in range(self.turns):
            if r.random() < 0.6:
                self.pieces[t].append(Piece(r.choice(T.TASKS), []))
            if r.random() < 0.35:
                self.pieces[t].insert(0, Piece(r.choice(T.CHATTER), []))
            if r.random() < 0.15:
                self.pieces[t].insert(0, Piece(r.choice(T.NARRATIVE), []))

    # --- writing --------------------------------------------------------------------------------
    def _update(self, th: Thread, ev: Event) -> Piece:
        r, s = self.rng, th.slot
        v, old = ev.val.text, ev.old.text
        if s is None:
            return Piece(r.choice(T.GOAL_UPDATE).format(v=v), [v])
        sign = 0 if ev.val.n is None or ev.old.n is None else (1 if ev.val.n > ev.old.n else -1)
        name = r.choice(s.names[1:]) if ev.form == "alias" else s.names[0]

        def para(own: bool = True) -> str:
            if s.kind == "safety":
                return _fill("{N} is actually {v}.", n=name, v=v)
            cands = [c for c in (*(s.upd if own else ()), *T.PARA[s.vtype]) if direction(c) in (0, sign)]
            return _fill(r.choice(cands), n=name, v=v)

        values = [v]
        if ev.form == "same":
            text = r.choice(T.SAME).format(v=v)
        elif ev.form in ("para", "units"):
            text = para()
        elif ev.form == "alias":
            text = para(own=False)
        elif ev.form == "implied":
            it = T.IT.get(s.vtype, T.IT_NUMBER) if s.vtype not in FORMATS else T.IT_NUMBER
            text = r.choice(T.INTRO).format(t=s.thing or s.names[0]) + " " + r.choice(it).format(v=v)
        elif ev.form == "correct":
            text = r.choice(T.CORRECT).format(u=para())
        elif ev.form == "correct_named":
            text = _fill(r.choice(T.CORRECT_NAMED), n=name, v=v, old=old)
            values.append(old)
        elif ev.form == "rel":
            group = (T.REL_LATER if sign > 0 else T.REL_EARLIER) if s.vtype == "date" else (T.REL_UP if sign > 0 else T.REL_DOWN)
            text = _fill(r.choice(group), n=name, v=v, d=ev.delta)
        else:  # revert
            text = _fill(r.choice(T.REVERT), n=name, v=v)
        if ev.carrier == "ask":
            text = _fill(r.choice(T.ASK), n=name, v=v)
        elif ev.carrier == "code":
            lead = _fill(r.choice(T.CODE_LEAD), n=name)
            return Piece(f"{lead}\n```\n{s.conf}: {v}\n```", values, True)
        elif ev.carrier == "quote":
            return Piece(r.choice(T.QUOTE).format(u=text), values, True)
        return Piece(text, values)

    def _statements(self, t: int) -> tuple[list[Piece], list[tuple[Thread, Event | None, Piece]]]:
        r = self.rng
        out: list[Piece] = []
        said: list[tuple[Thread, Event | None, Piece]] = []
        for th in self.threads:
            if th.turn == t:
                s = th.slot
                if s is None:
                    piece = Piece(r.choice(T.GOAL_OPEN).format(v=th.vals[0].text), [th.vals[0].text])
                else:
                    piece = Piece(r.choice(s.plant).format(v=th.vals[0].text), [th.vals[0].text])
                same = [e for e in th.events if e.turn == t]
                said.append((th, None, piece))
                if same:
                    up = self._update(th, same[0])
                    said.append((th, same[0], up))
                    piece = Piece(piece.text + " " + up.text, piece.values + up.values)
                out.append(piece)
        for th in self.threads:
            for ev in th.events:
                if ev.turn == t and ev.form != "same":
                    piece = self._update(th, ev)
                    said.append((th, ev, piece))
                    out.append(piece)
        return out, said

    def write(self) -> RidgeSession:
        r = self.rng
        messages: list[Message] = []
        mentions: dict[str, list[int]] = {}
        plant_at: dict[str, tuple[int, str]] = {}
        event_at: dict[int, tuple[int, str]] = {}  # id(event) → (message index, text)
        every = list(self.vm.texts)

        def clean(text: str) -> bool:
            low = text.lower()
            return not any(v.lower() in low and pattern(v).search(low) for v in every)

        def add(m: Message, values: list[str]) -> None:
            for v in values:
                mentions.setdefault(v, []).append(len(messages))
            messages.append(m)

        env = r.choice(["none", "same", "own"])
        if env == "own":
            add(user(T.ENV_BLOCK), [])
        calls = 0
        for t in range(self.turns):
            stmts, said = self._statements(t)
            noise = self.pieces[t]
            pieces = list(noise)
            at = 0
            for p in stmts:
                at = r.randint(at, len(pieces)) if t else 0
                pieces.insert(at, p)
                at += 1
            if not pieces:
                pieces.append(Piece(r.choice(T.CHATTER), []))
            values = [v for p in pieces for v in p.values]
            lst = any(ev is not None and ev.carrier == "list" for _, ev, _ in said) or (len(pieces) >= 3 and r.random() < 0.25)
            if lst and not any(p.multiline for p in pieces) and t:
                aside = [p.text for p in pieces if p.text in T.CHATTER or p.text in T.NARRATIVE]  # said before the list
                items = [f"- {p.text}" for p in pieces if p.text not in aside]
                text = " ".join([*aside, r.choice(T.LIST_LEADS)]) + "\n" + "\n".join(items)
            else:
                text, prev = "", False
                for p in pieces:
                    text += ("" if not text else "\n\n" if p.multiline or prev else " ") + p.text
                    prev = p.multiline
            if t == 0 and env == "same":
                text = T.ENV_BLOCK + "\n\n" + text
            if t in self.reminder:
                text = self.reminder[t].text + "\n" + text
                values += self.reminder[t].values
            idx = len(messages)
            add(user(text), values)
            for th, ev, p in said:
                if ev is None:
                    plant_at[th.key] = (idx, p.text)
                else:
                    event_at[id(ev)] = (idx, p.text)
            for k in range(1 + (r.random() < 0.3) + (t in self.readme)):
                calls += 1
                cid = f"call_{self.seed}_{calls}"
                if k == 0 and t in self.readme:
                    cmd, out = "cat CONTRIBUTING.md", "# Contributing\n\n" + self.readme[t].text
                    vals = self.readme[t].values
                else:
                    cmd, out = tool_output(r, clean)
                    vals = []
                add(assistant("Running it now." if k == 0 else "One more check.", ToolCallPart(cid, "shell", json.dumps({"cmd": cmd}))), [])
                add(tool_result(cid, out, name="shell"), vals)
            reply, echoed = r.choice(T.ACKS), []
            for th in [x for k, (x, _, _) in enumerate(said) if all(y is not x for y, _, _ in said[:k])]:  # echoes what is in force
                if th.slot is not None and th.slot.kind != "safety" and r.random() < 0.3:
                    v = th.current(t + 1).text
                    reply += " " + _fill(r.choice(T.ECHO), n=th.slot.names[0], v=v)
                    echoed.append(v)
            add(assistant(reply), echoed)
        return self._finish(messages, mentions, plant_at, event_at)

    def _finish(self, messages: list[Message], mentions: dict[str, list[int]], plant_at: dict[str, tuple[int, str]],
                event_at: dict[int, tuple[int, str]]) -> RidgeSession:
        plants: list[Plant] = []
        for th in self.threads:
            s = th.slot
            said_at, statement = plant_at[th.key]
            at = [event_at[id(e)][0] for e in th.events]
            current = th.vals[-1].text
            stale: list[str] = []
            stale_at: list[int] = []
            for i, v in enumerate(th.vals[:-1]):
                if v.text != current and v.text not in stale:
                    stale.append(v.text)
                    stale_at.append(at[i])
            plants.append(RidgePlant(
                kind=s.kind if s else "goal", value=current, stale=stale, pair=th.pair, stale_at=stale_at, slot=th.key,
                subject=s.names[0] if s else "the goal", statement=statement, said_at=said_at, said=[v.text for v in th.vals],
                meanings=[v.n for v in th.vals], formats=[v.fmt for v in th.vals], forms=[e.form for e in th.events], carriers=[e.carrier for e in th.events],
                update_at=at, update_texts=[event_at[id(e)][1] for e in th.events]))
        lowered = [m.text.lower() for m in messages]
        for v in {*mentions, *(x for th in self.threads for x in (w.text for w in th.vals))}:
            where = [i for i, text in enumerate(lowered) if found(v, text)]
            if where != sorted(set(mentions.get(v, []))):
                raise RuntimeError(f"ridge seed {self.seed}: {v!r} found in messages {where}, put in {mentions.get(v)}")
        return RidgeSession(messages, plants, FAMILY, self.seed, mentions=mentions, distractors=self.distractors,
                            traps=[v for v, _ in self.traps], trap_at=[mentions[v][0] for v, _ in self.traps],
                            trap_slots=[k for _, k in self.traps])


def generate(seed: int) -> RidgeSession:
    """One ``ridge`` session from ``seed`` (19000+ for the benchmark)."""
    b = _Builder(seed)
    b.plan()
    b.plan_noise()
    return b.write()
