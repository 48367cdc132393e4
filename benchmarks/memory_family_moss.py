"""The ``moss`` family of the memory benchmark (seeds 22000+): HELD OUT.

Written by i11y (issue 11, 2026-11-24 17:15–18:40 UTC), who has tuned none of the ledger, has not read
its cue lists, any other family's sentence templates, outputs or failures, and committed it before any
run of the ledger on it: only the lead runs ``python benchmarks/bench_memory.py --family moss``, once.
Its situations and subjects (``memory_moss_world.py``), sentences (``memory_moss_text.py``), values
(``memory_moss_values.py``) and tool output (``memory_moss_tools.py``) are its own.

A session is someone in two of six situations (a TV drama's post-production pipeline, a farm's sensor
network, a city transit dashboard, a charity's donor CRM, a genomics lab's LIMS, a hotel group's booking
engine) in one of five voices (``memory_moss_text.VOICES``): nested bullet lists, a small markdown table,
the second person about the agent, hedged then settled ("maybe U... no, let's go with V": U is
superseded in the same breath), rules quoted from someone else. One session in six is SHORT and
rule-heavy (8 of its 15 statements are safety rules and hard constraints, 7–9 user messages): the
issue's "error instead of an answer" case at 10–20% budgets.

Each session plants the goal (the opening request; a quarter of the long sessions change it once,
naming the old one), safety rules (one of them relaxed later for one case only: the rule still binds),
hard constraints, preferences, facts, and a pair of different subjects that share words. Updates (0–3
per statement, a safety rule at most one) in twelve forms (``memory_moss_text.UPDATE_FORMS``), from the
next turn to 25 turns later. Around them: chatter and tasks, a current value said again without change,
questions naming a subject, other subjects with values of the same type, the assistant echoing the
value in force or misquoting it (the user corrects it the next turn), and what must NOT enter the
ledger: an ``<environment_context>`` block and a ``<system-reminder>`` naming a value of their own for a
planted subject, and a handbook page a tool printed doing the same (``MossSession.traps``).

Every tracked value (said, floated, distractor, misquote, trap) is unique in its session and found, by
the benchmark's own match, in exactly the messages the generator says (``consistent``; a seed whose
random tool output collides is redrawn deterministically). tests/test_memory_family_moss.py checks the
generator against its text. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass, field, replace

import memory_moss_text as T
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_moss_tools import tool_output
from memory_moss_values import CURRENCIES, QUANTITIES, Q, V, Values, found
from memory_moss_world import SITUATIONS, S, Situation
from memory_sessions import Generated, Plant, first_built, mentions_exact

FAMILY = "moss"
SEED_BASE = 22_000
#: update forms a subject's value type allows (safety rules: ``SAFETY_FORMS`` only)
ANY_FORMS = ("now", "instead", "no_longer", "pointback", "correct", "hedged", "table", "quoted", "second")
MOVABLE = ("date", "host", "path", "time", "id")
SAFETY_FORMS = ("now", "instead", "quoted")


@dataclass
class MossPlant(Plant):
    subject: str = ""  # "<situation>.<key>", "pair:<modifier> <noun>" or "goal"
    noun: str = ""
    vtype: str = ""
    said: list[str] = field(default_factory=list)  # every value the user gave the subject, in order (floated ones included)
    said_at: list[int] = field(default_factory=list)  # the message of each
    forms: list[str] = field(default_factory=list)  # how each was said: "first", "floated" (dropped in the same breath) or an update form
    mags: list[float | None] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # the sentence of each statement and update, values filled
    relaxed_at: int | None = None  # a safety rule's one-off exception (the rule still binds)


@dataclass
class MossSession(Generated):
    mentions: dict[str, list[int]] = field(default_factory=dict)  # tracked value → the messages holding it
    distractors: list[str] = field(default_factory=list)  # other subjects' values and the assistant's misquotes
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a harness block or a tool
    trap_subject: list[str] = field(default_factory=list)
    trap_at: list[int] = field(default_factory=list)
    short: bool = False
    voice: str = ""
    situations: tuple[str, ...] = ()
    today: str = ""
    attempt: int = 0


@dataclass
class Thread:
    plant: MossPlant
    q: Q
    rel: str = ""
    src: str = ""
    rule: str = ""
    case: str = ""
    first: int = 0  # the turn of the first statement
    floated: V | None = None  # a value floated and dropped in the first statement
    updates: list[tuple[int, str]] = field(default_factory=list)  # (turn, form)
    vals: list[V] = field(default_factory=list)  # every value said, in order (floated included)
    cur: V | None = None


@dataclass
class Piece:
    text: str
    values: tuple[str, ...] = ()


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        self.seed, self.attempt = seed, attempt
        self.rng = random.Random(f"moss:{seed}:{attempt}")
        n = seed - SEED_BASE
        self.short = n % 6 == 3
        self.voice = T.VOICES[n % len(T.VOICES)]
        main = SITUATIONS[(n + n // len(SITUATIONS)) % len(SITUATIONS)]  # every situation leads twice in 12 seeds
        self.sits: list[Situation] = [main, self.rng.choice([s for s in SITUATIONS if s is not main])]
        self.today = dt.date(2026, 11, 16) + dt.timedelta(days=self.rng.randrange(14))
        self.vals = Values(self.rng, self.today, self.rng.choice(sorted(CURRENCIES)))
        self.turns = self.rng.randint(7, 9) if self.short else self.rng.randint(30, 34)
        self.threads: list[Thread] = []
        self.messages: list[Message] = []
        self.mentions: dict[str, list[int]] = {}
        self.distractors: list[str] = []
        self.traps: list[str] = []
        self.trap_subject: list[str] = []
        self.trap_at: list[int] = []
        self.events: dict[int, list[tuple[str, object]]] = {}  # turn → what else happens in it

    # --- planning --------------------------------------------------------------------------------

    def plan(self) -> None:
        r = self.rng
        main, other = self.sits
        counts = {"safety": (2, 2), "constraint": (2, 2), "preference": (1, 0), "fact": (2, 1)} if self.short else \
                 {"safety": (2, 1), "constraint": (3, 1), "preference": (1, 1), "fact": (4, 2)}
        g = self._thread("goal", "goal", "the goal", Q("option", pool=main.goals), first=0)
        g.cur = self.vals.draw(g.q)
        g.vals.append(g.cur)
        opening = (1, 3) if not self.short else (0, 2)
        for kind, (a, b) in counts.items():
            for sit, k in ((main, a), (other, b)):
                for s in r.sample([s for s in sit.subjects if s.kind == kind], k):
                    late = not self.short and kind in ("fact", "preference") and r.random() < 0.3
                    t = self._thread(f"{sit.key}.{s.key}", kind, s.noun, s.q, first=r.randint(4, 16) if late else r.randint(*opening), s=s, sit=sit)
                    self._first_value(t)
        mods, noun, q = main.pair
        at = r.randint(*opening)
        for k, mod in enumerate(mods):
            t = self._thread(f"pair:{mod} {noun}", "fact", f"the {mod} {noun}", q, first=at if k == 0 or r.random() < 0.6 else r.randint(at, at + 2))
            t.plant.pair = 0
            self._first_value(t, floated=False)
        for t in self.threads:
            self._plan_updates(t)
        self._plan_around()

    def _thread(self, subject: str, kind: str, noun: str, q: Q, *, first: int, s: S | None = None, sit: Situation | None = None) -> Thread:
        t = Thread(MossPlant(kind=kind, value="", subject=subject, noun=noun, vtype=q.vtype), q, first=first)
        if s is not None:
            t.rel, t.src, t.rule, t.case = s.rel, s.src, s.rule, s.case
        self.threads.append(t)
        return t

    def _first_value(self, t: Thread, floated: bool = True) -> None:
        hedge = 0.6 if self.voice == "hedged" else 0.08
        if floated and t.plant.kind != "safety" and self.rng.random() < hedge:
            t.floated = self.vals.maybe(t.q)
            if t.floated is not None:
                t.vals.append(t.floated)
        t.cur = self.vals.draw(t.q)
        t.vals.append(t.cur)

    def _plan_updates(self, t: Thread) -> None:
        r = self.rng
        kind = t.plant.kind
        if kind == "goal":
            if not self.short and r.random() < 0.25:
                t.updates.append((r.randint(8, 20), "goal"))
            return
        if kind == "safety":
            n = int(r.random() < 0.35 if not self.short else r.random() < 0.3)
        else:
            n = r.choices((0, 1, 2, 3), (0.4, 0.35, 0.18, 0.07))[0] if not self.short else r.choices((0, 1, 2), (0.45, 0.4, 0.15))[0]
        at = t.first
        for k in range(n):
            at += r.randint(1, 3) if self.short else r.randint(1, 25)
            if at >= self.turns:
                break
            t.updates.append((at, self._form(t, k)))

    def _form(self, t: Thread, k: int) -> str:
        vt = t.q.vtype
        if t.plant.kind == "safety":
            return self.rng.choice(SAFETY_FORMS + (("moved",) if vt in MOVABLE else ()))
        forms = list(ANY_FORMS)
        if vt in MOVABLE:
            forms.append("moved")
        if vt in QUANTITIES and vt != "lufs":
            forms += ["relative", "relative"]
        if k >= 1 and self.rng.random() < 0.3:
            return "revert"  # back to the first value (or "now" when that is the value in force)
        return self.rng.choice(forms)

    def _plan_around(self) -> None:
        """Echoes, misquotes, repeats, asides, questions, a relaxed rule and the traps, each on a turn
        where its subject is stated and not updated in that turn or the next."""
        r = self.rng
        quiet = [t for t in self.threads if t.plant.kind != "goal"]

        def free(t: Thread, turn: int) -> bool:
            return t.first < turn < self.turns and all(u not in (turn, turn + 1, turn - 1) for u, _ in t.updates)

        def place(what: str, n: int, pick: list[Thread] | None = None) -> None:
            for _ in range(n):
                for _ in range(300):
                    t = r.choice(pick or quiet)
                    turn = r.randint(1, self.turns - 1)
                    near = [e for d in (-1, 0, 1) for e in self.events.get(turn + d, [])]
                    if free(t, turn) and all(e[1] is not t for e in near):
                        self.events.setdefault(turn, []).append((what, t))
                        break

        short = self.short
        place("echo", 2 if short else 5)
        place("misquote", 1 if short else 3)
        place("repeat", 1 if short else 3)
        place("question", 1 if short else 3)
        place("relax", 1 if (not short or r.random() < 0.5) else 0, [t for t in quiet if t.plant.kind == "safety"])
        trappable = [t for t in quiet if t.plant.pair is None and t.plant.kind in ("constraint", "fact") and not t.q.pool]
        carriers = ["handbook", "reminder"] if short else ["handbook", "reminder", "envnote"]
        for what in carriers:
            place(what, 1, trappable)
        for sit in self.sits:
            for noun, q in r.sample(list(sit.asides), 1 if short else 2):
                turn = r.randint(1, self.turns - 1)
                self.events.setdefault(turn, []).append(("aside", (noun, q)))

    # --- writing ---------------------------------------------------------------------------------

    def _add(self, role: str, pieces: list[Piece], sep: str = " ", calls: tuple[ToolCallPart, ...] = (), call_id: str = "", is_error: bool = False) -> int:
        text = sep.join(p.text for p in pieces if p.text)
        if role == "user":
            m = user(text)
        elif role == "assistant":
            m = assistant(text, *calls)
        else:
            m = tool_result(call_id, text, name=calls[0].name if calls else None, is_error=is_error)
        self.messages.append(m)
        at = len(self.messages) - 1
        for p in pieces:
            for v in p.values:
                seen = self.mentions.setdefault(v, [])
                if not seen or seen[-1] != at:
                    seen.append(at)
        return at

    def _say(self, t: Thread, v: V, at: int, form: str, text: str) -> None:
        p = t.plant
        p.said.append(v.text)
        p.said_at.append(at)
        p.forms.append(form)
        p.mags.append(v.mag)
        if form != "floated":
            p.texts.append(text)

    def write(self) -> None:
        r = self.rng
        user_name = r.choice(("sam", "rowan", "kit", "ash", "jo", "lee"))
        main = self.sits[0]
        env_first = r.random() < 0.4
        for turn in range(self.turns):
            events = self.events.get(turn, [])
            if turn == 0 and env_first:
                self._add("user", [Piece(T.environment(user_name, main.project))])
            for what, t in events:
                if what == "envnote":
                    assert isinstance(t, Thread)
                    w = self._trap(t)
                    if w is not None:
                        self._trap_at(t, w, self._add("user", [Piece(T.environment(user_name, main.project, T.env_note(t.plant.noun, w.say)), (w.text,))]))
            at = len(self.messages)  # the index this turn's user message gets
            pieces: list[Piece] = []
            sayings: list[tuple[Thread, V, str, str]] = []  # (thread, value, form, its sentence) said in this message
            for what, t in events:
                if what == "reminder":
                    assert isinstance(t, Thread)
                    w = self._trap(t)
                    if w is not None:
                        pieces.append(Piece(T.reminder(t.plant.noun, w.say), (w.text,)))
                        self._trap_at(t, w, at)
            if turn == 0:
                g = self.threads[0]
                assert g.cur is not None
                text = T.goal(r, g.cur.say, main.who)
                pieces.append(Piece(text, (g.cur.text,)))
                sayings.append((g, g.cur, "first", text))
            for what, t in self.events.get(turn - 1, []):
                if what == "misquote_said":
                    assert isinstance(t, tuple)
                    th, w = t
                    assert th.cur is not None
                    pieces.append(Piece(T.correct_misquote(r, th.plant.noun, th.cur.say, w.say), (th.cur.text, w.text)))
            pieces += self._firsts(turn, at, sayings)
            for t in self.threads:
                for u, form in t.updates:
                    if u == turn:
                        pieces += self._update(t, form, sayings)
            for what, t in events:
                if what == "repeat":
                    assert isinstance(t, Thread) and t.cur is not None
                    pieces.append(Piece(T.repeat(r, t.plant.noun, t.cur.say), (t.cur.text,)))
                elif what == "question":
                    assert isinstance(t, Thread)
                    pieces.append(Piece(T.question(r, t.plant.noun)))
                elif what == "relax":
                    assert isinstance(t, Thread)
                    pieces.append(Piece(T.relax(r, t.plant.noun, t.case)))
                    t.plant.relaxed_at = at
                elif what == "aside":
                    noun, q = t  # type: ignore[misc]
                    v = self.vals.maybe(q)
                    if v is not None:
                        pieces.append(Piece(T.aside(r, noun, q.vtype, v.text), (v.text,)))
                        self.distractors.append(v.text)
            pieces.append(Piece(r.choice(T.TASKS) if r.random() < 0.6 or not pieces else r.choice(T.CHATTER)))
            sep = "\n\n" if any("\n" in p.text for p in pieces) else " "
            got = self._add("user", pieces, sep)
            assert got == at
            for t, v, form, text in sayings:
                self._say(t, v, at, form, text)
            self._tools(turn, events)
            self._reply(turn, events)

    def _firsts(self, turn: int, at: int, sayings: list[tuple[Thread, V, str, str]]) -> list[Piece]:
        r = self.rng
        ts = [t for t in self.threads if t.first == turn and t.plant.kind != "goal"]
        if not ts:
            return []
        pair = [t for t in ts if t.plant.pair is not None]
        out: list[Piece] = []
        if len(pair) == 2:
            a, b = pair
            assert a.cur is not None and b.cur is not None
            mods = (a.plant.subject.split(":")[1].split(" ")[0], b.plant.subject.split(":")[1].split(" ")[0])
            noun = a.plant.noun.split(" ", 2)[2]
            text = T.pair(r, mods, noun, a.cur.say, b.cur.say)
            out.append(Piece(text, (a.cur.text, b.cur.text)))
            sayings += [(a, a.cur, "first", text), (b, b.cur, "first", text)]
        elif pair:
            (a,) = pair
            assert a.cur is not None
            mod, noun = a.plant.subject.split(":")[1].split(" ", 1)
            text = T.pair_one(mod, noun, a.cur.say)
            out.append(Piece(text, (a.cur.text,)))
            sayings.append((a, a.cur, "first", text))
        rest = [t for t in ts if t.plant.pair is None]
        voice = self.voice if r.random() < 0.8 else r.choice(T.VOICES)
        if voice in ("bullets", "table") and len(rest) < 2:
            voice = "plain"  # a list or a table of one: said as a sentence
        lines: list[tuple[Thread, str]] = []
        for t in rest:
            lines.append((t, self._first_line(t, voice)))
        if voice == "bullets" and len(rest) >= 2:
            groups = [("Rules", "safety"), ("Limits", "constraint"), ("How I like things", "preference"), ("Facts", "fact")]
            block = T.bullet_block(r, [(h, [s for t, s in lines if t.plant.kind == k]) for h, k in groups])
            out.insert(0, Piece(block, self._values(rest)))
        elif voice == "table" and len(rest) >= 2:
            lines = [(t, T.table_row(t.plant.noun, s, t.plant.kind, t.rel) if t.plant.kind != "safety" and t.floated is None else s) for t, s in lines]
            rows = [s for t, s in lines if s.startswith("| ")]
            after = [s for t, s in lines if not s.startswith("| ")]
            out.insert(0, Piece(T.table_block(r, rows, after), self._values(rest)))
        else:
            out += [Piece(s, self._values([t])) for t, s in lines]
        for t, s in lines:
            assert t.cur is not None
            if t.floated is not None:
                sayings.append((t, t.floated, "floated", s))
            sayings.append((t, t.cur, "first", s))
        return out

    def _values(self, ts: list[Thread]) -> tuple[str, ...]:
        return tuple(v.text for t in ts for v in ((t.floated, t.cur) if t.floated else (t.cur,)) if v is not None)

    def _first_line(self, t: Thread, voice: str) -> str:
        """The first statement of ``t`` in ``voice`` (in a table, only its value cell)."""
        r, p = self.rng, t.plant
        assert t.cur is not None
        v, u = t.cur.say, (t.floated.say if t.floated else None)
        if p.kind == "safety":
            return T.safety(r, voice, t.rule.format(v=v), t.src)
        if voice == "table" and u is None:
            return T.bound(r, t.rel, v) if p.kind == "constraint" else v
        if voice == "bullets" and u is None:
            return T.bullet_item(p.kind, p.noun, v, t.rel, r)
        if p.kind == "constraint":
            return T.constraint(r, voice, p.noun, t.rel, v, u)
        if p.kind == "preference":
            return T.preference(r, voice, p.noun, v, u)
        return T.fact(r, voice, p.noun, p.vtype, v, u)

    def _update(self, t: Thread, form: str, sayings: list[tuple[Thread, V, str, str]]) -> list[Piece]:
        r, p = self.rng, t.plant
        old = t.cur
        assert old is not None
        if form == "goal":
            v = self.vals.maybe(t.q)
            if v is None:
                return []
            text = T.goal_update(r, old.say, v.say)
            t.cur = v
            t.vals.append(v)
            sayings.append((t, v, "goal", text))
            return [Piece(text, (old.text, v.text))]
        rel_phrase, u, new = "", None, None
        if form == "revert":
            first = next(x for x, f in zip(t.vals, self._forms_so_far(t), strict=True) if f != "floated")
            new = first if first.text != old.text else None
        elif form == "relative":
            new, rel_phrase = self._relative(t, old)
        if new is None and form in ("revert", "relative"):
            form = "now"
        if new is None:
            new = self.vals.maybe(t.q)
            if new is None:
                return []
        if form == "hedged":
            u = self.vals.maybe(t.q)
            if u is None:
                form = "now"
        text = T.update(r, form, p.noun, p.vtype, old.say, new.say, rel_phrase=rel_phrase, u=u.say if u else "", src=t.src)
        values = (old.text,) if form in T.NAMES_OLD else ()
        if u is not None:
            sayings.append((t, u, "floated", text))
            t.vals.append(u)
            values += (u.text,)
        sayings.append((t, new, form, text))
        t.vals.append(new)
        t.cur = new
        return [Piece(text, (*values, new.text))]

    def _forms_so_far(self, t: Thread) -> list[str]:
        """The form of each value in ``t.vals`` (the first statement's floated value, then "first", then updates)."""
        forms = (["floated"] if t.floated is not None else []) + ["first"]
        return forms + ["update"] * (len(t.vals) - len(forms))

    def _relative(self, t: Thread, old: V) -> tuple[V | None, str]:
        r, q = self.rng, t.q
        if old.mag is None:
            return None, ""
        if q.vtype == "date":
            for days, phrase in r.sample(T.SHIFTS, len(T.SHIFTS)):
                new = self.vals.at(replace(q, lo=1, hi=q.hi + 30), old.mag + days)
                if new is not None:
                    return new, phrase.format(n=t.plant.noun)
            return None, ""
        for factor, phrase in r.sample(T.RATIOS, len(T.RATIOS)):
            mag = old.mag * factor
            steps = (mag - q.lo) / q.step
            if abs(steps - round(steps)) > 1e-9:
                continue
            new = self.vals.at(q, mag)
            if new is not None:
                return new, phrase.format(n=t.plant.noun)
        return None, ""

    def _trap(self, t: Thread) -> V | None:
        w = self.vals.maybe(t.q)
        if w is not None:
            self.traps.append(w.text)
            self.trap_subject.append(t.plant.subject)
        return w

    def _trap_at(self, t: Thread, w: V, at: int) -> None:
        self.trap_at.append(at)

    def _tools(self, turn: int, events: list[tuple[str, object]]) -> None:
        r = self.rng
        sit = self.sits[turn % 2] if r.random() < 0.7 else self.sits[0]
        n_calls = 1 if self.short else r.choice((1, 1, 2))
        specs: list[tuple[str, dict[str, object], str, bool, tuple[str, ...]]] = []
        for _ in range(n_calls):
            shape = r.choice(sit.tools)
            name, args, text, err = tool_output(r, shape, r.randint(2, 4) if self.short else r.randint(8, 18))
            specs.append((name, args, text, err, ()))
        for what, t in events:
            if what == "handbook":
                assert isinstance(t, Thread)
                w = self._trap(t)
                if w is not None:
                    specs.append(("read_file", {"path": "docs/HANDBOOK.md"}, "\n".join(T.handbook(t.plant.noun, w.say)), False, (w.text,)))
                    self._trap_at(t, w, len(self.messages) + len(specs) + 0)
        calls = tuple(ToolCallPart(id=f"call_{turn}_{k}", name=name, arguments=json.dumps(args)) for k, (name, args, *_rest) in enumerate(specs))
        self._add("assistant", [Piece(r.choice(("Let me check.", "Running that now.", "Looking.", "")))], calls=calls)
        for k, (_name, _args, text, err, vals) in enumerate(specs):
            self._add("tool", [Piece(text, vals)], calls=(calls[k],), call_id=calls[k].id, is_error=err)

    def _reply(self, turn: int, events: list[tuple[str, object]]) -> None:
        r = self.rng
        pieces = [Piece(r.choice(T.REPLIES))]
        for what, t in events:
            if what == "echo":
                assert isinstance(t, Thread) and t.cur is not None
                pieces.append(Piece(T.echo(r, t.plant.noun, t.cur.say), (t.cur.text,)))
            elif what == "misquote" and turn + 1 < self.turns:
                assert isinstance(t, Thread)
                w = self.vals.maybe(t.q)
                if w is not None:
                    pieces.append(Piece(T.misquote(t.plant.noun, w.say), (w.text,)))
                    self.distractors.append(w.text)
                    self.events.setdefault(turn, []).append(("misquote_said", (t, w)))
        self._add("assistant", pieces)

    # --- the result ------------------------------------------------------------------------------

    def finish(self) -> MossSession | None:
        plants: list[Plant] = []
        for t in self.threads:
            p = t.plant
            if not p.said:
                return None
            p.value = p.said[-1]
            for x in dict.fromkeys(p.said):
                if x == p.value:
                    continue
                last = max(k for k, y in enumerate(p.said) if y == x)
                p.stale.append(x)
                p.stale_at.append(p.said_at[last + 1])
            plants.append(p)
        g = MossSession(messages=self.messages, plants=plants, family=FAMILY, seed=self.seed, mentions=self.mentions,
                        distractors=self.distractors, traps=self.traps, trap_subject=self.trap_subject, trap_at=self.trap_at,
                        short=self.short, voice=self.voice, situations=tuple(s.key for s in self.sits), today=self.today.isoformat(),
                        attempt=self.attempt)
        return g if consistent(g) else None


def consistent(g: MossSession) -> bool:
    """Every tracked value is found in exactly the messages the generator put it in, and none inside another."""
    return mentions_exact(g.messages, g.mentions, g.mentions, found)


def generate(seed: int) -> MossSession:
    """The ``moss`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: MossSession = first_built(_Builder, seed, 16, "moss")
    return g
