"""The ``tarn`` family of the memory benchmark (seeds 21000+): HELD OUT.

Written by i11w (issue 11, 2026-11-24 14:20–15:30 UTC), who has tuned none of the ledger, has not read
its cue lists, any other family's sentence templates, outputs or failures, and committed before any
run of the ledger on it: only the lead runs ``python benchmarks/bench_memory.py --family tarn``, once.
Its sentences (``memory_tarn_text.py``), values (``memory_tarn_values.py``) and tool output
(``memory_tarn_tools.py``) are its own.

A session is someone in two of seven situations (a data-science notebook user, a mobile app release
manager, a warehouse's pick-and-ship system, a school's timetable tool, a small e-shop's owner, a
devops on-call handover, a translator's tooling) in one of five voices: long paragraphs with several
statements per message; config-like lines (``lesson_length: 50 minutes``); answers to the assistant's
questions, the subject only in the question ("use 5433"); negations ("not Friday — Thursday"); rules
as plain policies ("Store builds come from release/stable and from no other branch."). One session in
five is SHORT and rule-heavy (the issue's "error instead of an answer" case at 10–20% budgets).

Each session plants the goal (the opening request; some sessions change it once), safety rules, hard
constraints, preferences, facts, a pair of different subjects that share words, and a list of values
of which one item is swapped later (each item tracked on its own). Updates (0–3 per statement, safety
rules at most one correction) are worded as a paraphrase, another name for the subject, "no longer"
or "instead of" naming the old value, a negation naming it, a correction, the subject only in the
sentence before, a relative change with its result, a return to the first value, the assistant's
question answered, a config line, or a fix in the same message; from the same message to 25 turns
later. Around them: chatter, tasks, a current value said again without change, other subjects with
values of the same type, the assistant echoing a value or misquoting one (the user corrects it), and
what must NOT enter the ledger: environment blocks, a ``<system-reminder>`` in a user message and a
handbook page a tool printed, each naming a value of its own for a planted subject.

Every tracked value (planted, superseded, distractor, trap) is unique in its session and found, by the
benchmark's own match, in exactly the messages the generator says (checked here; a seed whose random
tool output collides is redrawn deterministically). tests/test_memory_family_tarn.py checks the
generator against its text. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import memory_tarn_text as T
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_sessions import Generated, Plant, first_built, mentions_exact
from memory_tarn_tools import HANDBOOK, SHAPES, tool_output
from memory_tarn_values import V, Values, found

FAMILY = "tarn"
SEED_BASE = 21_000
VOICES = ("paragraph", "config", "answers", "negating", "policy")
#: how an update is worded
FORMS = ("para", "alias", "no_longer", "negate", "correct", "implied", "rel", "revert", "answer", "config", "same", "swap", "goal")
#: forms whose text names the value they replace
NAMES_OLD = ("no_longer", "negate", "goal", "swap")
QUANTITIES = ("date", "time", "duration", "money", "pct", "count", "size", "range")


@dataclass
class TarnPlant(Plant):
    subject: str = ""  # S.key, "pair:<mod> <noun>", "list:<key>:<n>" or "goal"
    name: str = ""
    vtype: str = ""
    said: list[str] = field(default_factory=list)  # each value in the order the user set it
    said_at: list[int] = field(default_factory=list)  # the message of each
    mags: list[float | None] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)  # per update (FORMS)
    moves: list[int] = field(default_factory=list)  # per update: +1 later/more, -1 earlier/less, 0 not said
    texts: list[str] = field(default_factory=list)  # the first statement, then each update, values filled


@dataclass
class TarnSession(Generated):
    mentions: dict[str, list[int]] = field(default_factory=dict)  # tracked value → the messages holding it
    distractors: list[str] = field(default_factory=list)  # other subjects' values, misquotes, negated non-values
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a harness block or a tool
    trap_subject: list[str] = field(default_factory=list)
    trap_at: list[int] = field(default_factory=list)
    short: bool = False
    voice: str = ""
    domains: tuple[str, ...] = ()
    attempt: int = 0


@dataclass
class Thread:
    plant: TarnPlant
    subj: T.S | None
    alias: str
    cfg: str
    vals: list[V] = field(default_factory=list)
    options: tuple[str, ...] = ()
    unit: str = ""
    span: tuple[int, int] | None = None


@dataclass
class Piece:
    """A sentence of a message and the tracked values it holds."""

    text: str
    values: tuple[str, ...] = ()


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        self.r = random.Random(f"tarn:{seed}:{attempt}")
        self.seed, self.attempt = seed, attempt
        k = seed - SEED_BASE
        self.short = k % 5 == 2
        self.voice = VOICES[(k + k // 5) % len(VOICES)] if k >= 0 else self.r.choice(VOICES)  # short ones get every voice too
        names = sorted(T.DOMAINS)
        first = names[k % len(names)] if k >= 0 else self.r.choice(names)
        self.domains = (first, self.r.choice([d for d in names if d != first]))
        self.vals = Values(self.r)
        self.msgs: list[list] = []  # [role, text, calls, call_id, is_error]
        self.mentions: dict[str, list[int]] = {}
        self.threads: list[Thread] = []
        self.distractors: list[str] = []
        self.traps: list[str] = []
        self.trap_subject: list[str] = []
        self.trap_at: list[int] = []
        self.calls = 0
        self._pending: tuple[Thread, tuple[V, str, int]] | None = None  # an update the assistant's question draws out

    # --- bookkeeping -------------------------------------------------------------------------
    def _mention(self, value: str, at: int) -> None:
        where = self.mentions.setdefault(value, [])
        if at not in where:
            where.append(at)

    def _add(self, role: str, pieces: list[Piece], sep: str = " ", calls: tuple[ToolCallPart, ...] = (), call_id: str = "", is_error: bool = False) -> int:
        at = len(self.msgs)
        self.msgs.append([role, sep.join(p.text for p in pieces if p.text), calls, call_id, is_error])
        for p in pieces:
            for v in p.values:
                self._mention(v, at)
        return at

    def _append_to_last(self, piece: Piece) -> int:
        at = len(self.msgs) - 1
        self.msgs[at][1] = (self.msgs[at][1] + " " + piece.text).strip()
        for v in piece.values:
            self._mention(v, at)
        return at

    # --- planning ----------------------------------------------------------------------------
    def plan(self) -> None:
        r = self.r
        d0, d1 = (T.DOMAINS[d] for d in self.domains)
        goal_text = r.choice(d0.goals)
        self.vals.used.add(goal_text.lower())
        g = TarnPlant(kind="goal", value=goal_text, subject="goal", name="the goal", vtype="goal", said=[goal_text], mags=[None])
        self.goal = Thread(g, None, "", "")
        self.goal_open = r.choice(d0.goal)
        self.goal_change = None if self.short or r.random() < 0.7 else r.choice(d1.goals)
        if self.goal_change:
            self.vals.used.add(self.goal_change.lower())
        pool = [s for d in (d0, d1) for s in d.subjects]
        r.shuffle(pool)
        want = {"safety": 3, "constraint": 4, "preference": 1, "fact": 3} if self.short else \
               {"safety": r.choice((2, 3)), "constraint": r.choice((3, 4)), "preference": 2, "fact": r.choice((6, 7))}
        for kind, n in want.items():
            for s in [s for s in pool if s.kind == kind][:n]:
                v = self.vals.choice(s.options) if s.vtype == "choice" else self.vals.draw(s.vtype, s.unit, s.span)
                p = TarnPlant(kind=s.kind, value=v.text, subject=s.key, name=s.name, vtype=s.vtype, said=[v.text], mags=[v.mag])
                self.threads.append(Thread(p, s, s.alias, s.cfg, [v], s.options, s.unit, s.span))
        pair = r.choice((d0, d1)).pair
        self.pair_joint = r.random() < 0.5
        self.pair_threads: list[Thread] = []
        for m in pair.mods:
            v = self.vals.draw(pair.vtype, pair.unit, pair.span)
            name = f"the {m} {pair.noun}"
            p = TarnPlant(kind=pair.kind, value=v.text, subject=f"pair:{m} {pair.noun}", name=name, vtype=pair.vtype, said=[v.text], mags=[v.mag], pair=0)
            t = Thread(p, None, f"the {pair.noun} on the {m} side", f"{m}_{pair.noun.replace(' ', '_')}", [v], (), pair.unit, pair.span)
            self.pair_threads.append(t)
        self.pair = pair
        self.lst = None if self.short else r.choice((d0, d1)).lst
        self.list_threads: list[Thread] = []
        if self.lst:
            for k in range(r.choice((3, 4))):
                v = self.vals.choice(self.lst.options)
                p = TarnPlant(kind=self.lst.kind, value=v.text, subject=f"list:{self.lst.key}:{k}", name=self.lst.name, vtype="item", said=[v.text], mags=[None])
                self.list_threads.append(Thread(p, None, self.lst.name, self.lst.key, [v], self.lst.options))

    # --- wording -----------------------------------------------------------------------------
    def _first(self, t: Thread, plain: bool = False) -> tuple[Piece, bool]:
        """The first statement of ``t`` (and whether it is a config line); ``plain``: its own sentence."""
        r, s, v = self.r, t.subj, t.vals[0].text
        assert s is not None
        if plain:
            pass
        elif self.voice == "config" and s.kind != "safety" and r.random() < 0.75:
            text = f"{t.cfg}: {v}"
            t.plant.texts.append(text)
            return Piece(text, (v,)), True
        elif self.voice == "negating" and r.random() < 0.4 and (w := self._same_type(t)) is not None:
            x = w.text
            self.distractors.append(x)
            text = T.NEG_FIRST.format(N=_cap(s.name), x=x, v=v)
            t.plant.texts.append(text)
            return Piece(text, (x, v)), False
        text = s.say.format(v=v)
        t.plant.texts.append(text)
        return Piece(text, (v,)), False

    def _update(self, t: Thread, form: str, new: V, old: V, step: str = "", up: bool = True) -> Piece:
        r = self.r
        n = t.alias if form == "alias" else t.plant.name
        kw = {"n": n, "N": _cap(n), "v": new.text, "o": old.text, "d": step}
        if form in ("para", "alias"):
            text = r.choice(T.PARA).format(**kw)
        elif form == "no_longer":
            text = r.choice(T.NO_LONGER).format(**kw)
        elif form == "negate":
            text = r.choice(T.NEGATE).format(**kw)
        elif form == "correct":
            text = r.choice(T.CORRECT).format(**kw)
        elif form == "implied":
            text = r.choice(T.IMPLIED).format(**kw)
        elif form == "rel":
            text = (T.REL_UP if up else T.REL_DOWN)[t.plant.vtype].format(**kw)
        elif form == "revert":
            text = r.choice(T.REVERT).format(**kw)
        elif form == "config":
            text = f"\n{r.choice(T.CFG_UPDATE)}\n{t.cfg}: {new.text}\n"
        elif form == "same":
            text = r.choice(T.SAME_MSG).format(**kw)
        else:
            raise KeyError(form)
        t.plant.texts.append(text)
        return Piece(text, (new.text, old.text) if form in NAMES_OLD else (new.text,))

    # --- values of a thread ---------------------------------------------------------------------
    def _same_type(self, t: Thread) -> V | None:
        """A fresh value of ``t``'s type (None when its options are used up)."""
        try:
            if t.options:
                return self.vals.choice(t.options)
            return self.vals.draw(t.plant.vtype, t.unit, t.span)
        except RuntimeError:
            return None

    def _next_value(self, t: Thread, form: str) -> tuple[V, str, int] | None:
        """The value an update of ``form`` sets, the step in words (relative changes) and the way it moves."""
        if form == "revert":
            return self._origin(t), "", 0
        if form == "rel":
            first = self.r.random() < 0.5
            for up in (first, not first):
                try:
                    new, step = self.vals.moved(t.vals[-1], up, t.unit, t.span)
                except RuntimeError:  # no room that way (a floor, a used value)
                    continue
                return new, step, 1 if up else -1
            return None
        new = self._same_type(t)
        return (new, "", 0) if new is not None else None

    def _origin(self, t: Thread) -> V:
        """The value a return to "the way it was at the start" means: the first value, or the one its
        same-message fix set (the first was called a typo in the message that said it)."""
        return t.vals[1] if t.plant.forms[:1] == ["same"] else t.vals[0]

    def _record(self, t: Thread, form: str, new: V, move: int, at: int) -> None:
        p = t.plant
        t.vals.append(new)
        p.said.append(new.text)
        p.said_at.append(at)
        p.mags.append(new.mag)
        p.forms.append(form)
        p.moves.append(move)

    def _pick_form(self, t: Thread, k: int) -> str:
        r = self.r
        if t.plant.kind == "safety":
            return "negate" if self.voice == "negating" else "correct"
        if k >= 1 and r.random() < 0.2:
            return "revert"
        if t.plant.vtype in QUANTITIES and r.random() < 0.3:
            return "rel"
        if self.voice == "answers" and r.random() < 0.45:
            return "answer"
        if self.voice == "config" and r.random() < 0.5:
            return "config"
        if self.voice == "negating" and r.random() < 0.4:
            return "negate"
        return r.choice(("para", "para", "alias", "no_longer", "correct", "implied", "negate"))

    def _move(self, t: Thread, form: str) -> Piece | None:
        """An update of ``t`` written in the user message about to be added (None: no fresh value left)."""
        if form == "revert" and (len(t.vals) < 2 or t.vals[-1] == self._origin(t)):
            form = "para"
        nxt = self._next_value(t, form)
        if nxt is None and form == "rel":
            form = "para"
            nxt = self._next_value(t, form)
        if nxt is None:
            return None
        new, step, move = nxt
        old = t.vals[-1]
        piece = self._update(t, form, new, old, step, move > 0)
        self._record(t, form, new, move, len(self.msgs))
        return piece

    def _swap(self) -> Piece | None:
        t = self.r.choice(self.list_threads)
        assert self.lst is not None
        new = self._same_type(t)
        if new is None:
            return None
        old = t.vals[-1]
        text = self.r.choice(self.lst.swap).format(o=old.text, v=new.text)
        t.plant.texts.append(text)
        self._record(t, "swap", new, 0, len(self.msgs))
        return Piece(text, (new.text, old.text))

    def _trap_for(self, cands: list[Thread]) -> tuple[Thread | None, V | None]:
        """A planted subject and a value of its type that only a harness block or a tool will say."""
        for t in self.r.sample(cands, len(cands)):
            w = self._same_type(t)
            if w is not None:
                return t, w
        return None, None

    def _active(self, n: int) -> list[Thread]:
        """Threads whose first statement is in one of the first ``n`` messages."""
        return [t for t in [*self.threads, *self.pair_threads] if t.plant.said_at and t.plant.said_at[0] < n]

    def _distractor(self) -> Piece | None:
        r = self.r
        active = self._active(len(self.msgs))
        what = r.choice(("repeat", "other", "other", "question"))
        if what == "other" or not active:
            d = T.DOMAINS[r.choice(self.domains)]
            vtype, text = r.choice(d.others)
            try:
                x = self.vals.draw(vtype, "things" if vtype == "count" else "")
            except RuntimeError:
                return None
            self.distractors.append(x.text)
            return Piece(text.format(x=x.text), (x.text,))
        t = r.choice(active)
        if what == "repeat":
            return Piece(r.choice(T.REPEAT).format(N=_cap(t.plant.name), n=t.plant.name, v=t.vals[-1].text), (t.vals[-1].text,))
        return Piece(r.choice(T.QUESTIONS).format(n=t.plant.name))

    # --- the session ---------------------------------------------------------------------------
    def write(self) -> None:
        r = self.r
        n_turns = r.randint(7, 8) if self.short else r.randint(30, 36)
        plant_until = 2 if self.short else 11
        # the paragraph voice says its statements in a few long messages, several to a message
        slots = sorted(r.sample(range(1, plant_until + 1), 3)) if self.voice == "paragraph" and not self.short else list(range(0 if self.short else 1, plant_until + 1))
        first_turn = {id(t): r.choice(slots) for t in self.threads}
        pair_turn = r.randint(1, plant_until)
        for t in self.pair_threads:
            first_turn[id(t)] = pair_turn
        list_turn = r.randint(1, plant_until) if self.list_threads else -1
        asked_first = {id(t) for t in self.threads if self.voice == "answers" and t.plant.kind != "safety" and first_turn[id(t)] > 0 and r.random() < 0.4}
        upd: dict[int, list[tuple[Thread, str]]] = {}
        same_msg: set[int] = set()
        for t in [*self.threads, *self.pair_threads]:
            count = (1 if r.random() < 0.35 else 0) if t.plant.kind == "safety" else \
                r.choices((0, 1, 2, 3), weights=(50, 40, 10, 0) if self.short else (35, 35, 20, 10))[0]
            turn = first_turn[id(t)]
            for k in range(count):
                if k == 0 and t.plant.kind != "safety" and t.plant.pair is None and id(t) not in asked_first and r.random() < 0.12:
                    same_msg.add(id(t))
                    continue
                turn += r.choice((1, 1, 2, 3, 5, 8, 12, 16, 20, 25))
                if turn >= n_turns - 1:
                    break
                upd.setdefault(turn, []).append((t, self._pick_form(t, k)))
        swap_turn = min(list_turn + r.randint(3, 20), n_turns - 2) if self.list_threads else -1
        goal_turn = r.randint(n_turns // 3, 2 * n_turns // 3) if self.goal_change else -1
        env = ("inline", "own", "none")[(self.seed // 5) % 3]
        remind_turn = n_turns // 2 if self.short or r.random() < 0.75 else -1
        handbook_turn = -1 if self.short else n_turns // 2 + 2
        fixes: list[tuple[Thread, V]] = []  # the assistant misquoted: the user corrects it next turn
        ask: tuple[Thread, str] | None = None  # the assistant asked: the user answers next turn
        shapes: list[str] = []
        for turn in range(n_turns):
            pieces: list[Piece | None] = []
            if turn == 0:
                if env == "own":
                    self._add("user", [Piece(T.ENV.format(proj=self.domains[0]))])
                    self._add("assistant", [Piece("Thanks, I have the environment details.")])
                if env == "inline":
                    pieces.append(Piece(T.ENV.format(proj=self.domains[0]) + "\n"))
                opening = self.goal_open.format(g=self.goal.plant.value)
                self.goal.plant.texts.append(opening)
                self.goal.plant.said_at.append(len(self.msgs))
                pieces.append(Piece(opening, (self.goal.plant.value,)))
            if turn == remind_turn:
                t, w = self._trap_for([t for t in self._active(len(self.msgs)) if t.plant.pair is None])
                if t is not None and w is not None:
                    self.traps.append(w.text)
                    self.trap_subject.append(t.plant.subject)
                    self.trap_at.append(len(self.msgs))
                    pieces.insert(0, Piece(T.REMINDER.format(n=t.plant.name, w=w.text) + "\n", (w.text,)))
            for t, w in fixes:
                pieces.append(Piece(r.choice(T.FIX_MISQUOTE).format(n=t.plant.name, v=t.vals[-1].text, w=w.text), (t.vals[-1].text, w.text)))
            fixes = []
            if ask is not None:
                t, how = ask
                if how == "same":
                    pieces.append(Piece(r.choice(T.ANSWER_SAME)))
                else:
                    v = t.vals[-1].text
                    tpl = r.choice(T.ANSWER_FIRST if how == "first" else T.ANSWER_CHANGE)
                    t.plant.texts.append(tpl.format(v=v))
                    pieces.append(Piece(tpl.format(v=v), (v,)))
                ask = None
            # first statements: prose, then config lines, then same-message fixes
            prose: list[Piece | None] = []
            lines: list[Piece] = []
            for t in self.threads:
                if first_turn[id(t)] == turn and not t.plant.said_at:
                    p, cfg = self._first(t, plain=id(t) in same_msg)
                    t.plant.said_at.append(len(self.msgs))
                    (lines if cfg else prose).append(p)
                    if id(t) in same_msg:  # "wait, no, make that V" right after it
                        prose.append(self._move(t, "same"))
            if turn == pair_turn:
                a, b = self.pair_threads
                if self.pair_joint:
                    text = self.pair.joint.format(m1=self.pair.mods[0], v1=a.vals[0].text, m2=self.pair.mods[1], v2=b.vals[0].text)
                    prose.append(Piece(text, (a.vals[0].text, b.vals[0].text)))
                    for pt in self.pair_threads:
                        pt.plant.texts.append(text)
                else:
                    for pt, m in zip(self.pair_threads, self.pair.mods, strict=True):
                        text = self.pair.one.format(m=m, v=pt.vals[0].text)
                        pt.plant.texts.append(text)
                        prose.append(Piece(text, (pt.vals[0].text,)))
                for pt in self.pair_threads:
                    pt.plant.said_at.append(len(self.msgs))
            if turn == list_turn and self.lst is not None:
                items = [t.vals[0].text for t in self.list_threads]
                text = self.lst.say.format(items=", ".join(items[:-1]) + " and " + items[-1])
                prose.append(Piece(text, tuple(items)))
                for t in self.list_threads:
                    t.plant.texts.append(text)
                    t.plant.said_at.append(len(self.msgs))
            pieces.extend(p for p in prose if p is not None)
            if lines:
                pieces.append(Piece("\n" + r.choice(T.CFG_LEAD) + "\n" + "\n".join(p.text for p in lines) + "\n", tuple(v for p in lines for v in p.values)))
            # updates
            for t, form in upd.get(turn, []):
                if t.plant.said_at[-1] >= len(self.msgs):  # said in this message already (an answer): the next turn
                    if turn + 1 < n_turns - 1:
                        upd.setdefault(turn + 1, []).append((t, form))
                    continue
                if form == "answer":
                    if ask is None and (nxt := self._next_value(t, "para")) is not None:
                        ask = (t, "answer")
                        self._pending = (t, nxt)
                    continue
                pieces.append(self._move(t, form))
            if turn == swap_turn:
                pieces.append(self._swap())
            if turn == goal_turn and self.goal_change:
                old = self.goal.plant.value
                text = r.choice(T.GOAL_CHANGE).format(o=old, g=self.goal_change)
                self.goal.plant.texts.append(text)
                self.goal.vals = [V(old), V(self.goal_change)]
                self.goal.plant.said.append(self.goal_change)
                self.goal.plant.said_at.append(len(self.msgs))
                self.goal.plant.mags.append(None)
                self.goal.plant.forms.append("goal")
                self.goal.plant.moves.append(0)
                pieces.append(Piece(text, (self.goal_change, old)))
            if turn > 1 and r.random() < 0.45:
                pieces.append(self._distractor())
            if r.random() < 0.3:  # chatter, after a harness block that opens the message
                top = 1 if turn == remind_turn or (turn == 0 and env == "inline") else 0
                pieces.insert(r.choice((top, len(pieces))), Piece(r.choice(T.DOMAINS[r.choice(self.domains)].chatter)))
            real = [p for p in pieces if p is not None]
            if self.voice == "paragraph" and len(real) > 2:
                for _ in range(2):
                    real.insert(r.randrange(1, len(real) + 1), Piece(r.choice(T.FILLER)))
            real.append(Piece(r.choice(T.DOMAINS[r.choice(self.domains)].tasks)))
            self._add("user", real)
            # the assistant works: tool calls, then a reply
            for _ in range(1 if self.short else r.choice((1, 1, 2))):
                if not shapes:
                    shapes = list(SHAPES)
                shape = shapes.pop(r.randrange(len(shapes)))
                cmd, out, err = tool_output(r, shape, r.randint(2, 5) if self.short else r.randint(12, 34))
                trap: tuple[str, ...] = ()
                if turn == handbook_turn:
                    t, w = self._trap_for([t for t in self._active(len(self.msgs)) if t.plant.subject not in self.trap_subject and t.plant.pair is None])
                    if t is not None and w is not None:
                        self.traps.append(w.text)
                        self.trap_subject.append(t.plant.subject)
                        self.trap_at.append(len(self.msgs) + 1)
                        cmd, out, err, trap = "cat docs/HANDBOOK.md", HANDBOOK.format(n=t.plant.name, w=w.text), False, (w.text,)
                    handbook_turn = -1
                self.calls += 1
                cid = f"call_{self.calls}"
                self._add("assistant", [], calls=(ToolCallPart(cid, "shell", json.dumps({"cmd": cmd})),))
                self._add("tool", [Piece(out, trap)], call_id=cid, is_error=err)
            reply = [Piece(r.choice(T.ACKS))]
            asked = ask[0] if ask is not None else None
            if ask is None and turn + 1 < n_turns:  # an asked first statement: the question now, the answer next turn
                nxt_first = [t for t in self.threads if id(t) in asked_first and first_turn[id(t)] == turn + 1]
                if nxt_first:
                    t = nxt_first[0]
                    reply.append(Piece(r.choice(T.ASK_FIRST).format(n=T.you(t.plant.name))))
                    t.plant.said_at.append(len(self.msgs) + 1)
                    ask = (t, "first")
                    for other in nxt_first[1:]:
                        asked_first.discard(id(other))
                        first_turn[id(other)] = turn + 1
            busy = {id(t) for t, _ in upd.get(turn + 1, [])}  # a fix of a misquote never shares a message with an update
            active = [t for t in self._active(len(self.msgs)) if t is not asked and id(t) not in busy]
            if active and r.random() < 0.35:
                t = r.choice(active)
                # a misquote only where the user's next message can correct it on its own: not on the last
                # turn, and not in a reply that asks a question (its answer would also carry the fix)
                w = self._same_type(t) if r.random() < 0.3 and ask is None and turn + 1 < n_turns else None
                if w is not None:
                    self.distractors.append(w.text)
                    reply.append(Piece(r.choice(T.MISQUOTE).format(n=T.you(t.plant.name), w=w.text), (w.text,)))
                    fixes.append((t, w))
                else:
                    reply.append(Piece(r.choice(T.ECHO).format(n=T.you(t.plant.name), v=t.vals[-1].text), (t.vals[-1].text,)))
            if asked is not None and self._pending is not None:
                t, (new, _step, move) = self._pending
                old = t.vals[-1]
                reply.append(Piece(r.choice(T.ASK_AGAIN).format(n=T.you(t.plant.name), o=old.text), (old.text,)))
                self._record(t, "answer", new, move, len(self.msgs) + 1)
            self._add("assistant", reply)
        if ask is not None:
            raise AssertionError("tarn: a question left unanswered")

    # --- the result ---------------------------------------------------------------------------
    def finish(self) -> TarnSession | None:
        messages: list[Message] = []
        for role, text, calls, cid, err in self.msgs:
            if role == "user":
                messages.append(user(text))
            elif role == "assistant":
                messages.append(assistant(text, *calls))
            else:
                messages.append(tool_result(cid, text, name="shell", is_error=err))
        plants: list[Plant] = []
        for t in [self.goal, *self.threads, *self.pair_threads, *self.list_threads]:
            p = t.plant
            p.value = p.said[-1]
            p.stale, p.stale_at = [], []
            for v in dict.fromkeys(p.said[:-1]):
                if v == p.value:
                    continue
                last = max(k for k, s in enumerate(p.said) if s == v)
                p.stale.append(v)
                p.stale_at.append(p.said_at[last + 1])
            plants.append(p)
        g = TarnSession(messages=messages, plants=plants, family=FAMILY, seed=self.seed, mentions=self.mentions,
                        distractors=self.distractors, traps=self.traps, trap_subject=self.trap_subject, trap_at=self.trap_at,
                        short=self.short, voice=self.voice, domains=self.domains, attempt=self.attempt)
        return g if consistent(g) else None


def consistent(g: TarnSession) -> bool:
    """Every tracked value is found in exactly the messages the generator put it in, and none inside another."""
    return mentions_exact(g.messages, g.mentions, g.mentions, found)


def generate(seed: int) -> TarnSession:
    """The ``tarn`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: TarnSession = first_built(_Builder, seed, 12, "tarn")
    return g
