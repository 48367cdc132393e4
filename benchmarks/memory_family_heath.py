"""The ``heath`` family of the memory benchmark (seeds 23000+): HELD OUT.

Written by i11z (issue 11, 2026-11-24 20:00–21:00 UTC), who has tuned none of the ledger and read none
of its cue lists, no other family's sentence templates, outputs or failures (only the ``Plant`` /
``Generated`` types and the benchmark's checks, and ``moss``'s module layout for how a family registers);
committed before any run of the ledger on it: only the lead runs
``python benchmarks/bench_memory.py --family heath``, once. Its situations and subjects
(``memory_heath_world.py``), sentences (``memory_heath_text.py``), values (``memory_heath_values.py``)
and tool output (``memory_heath_tools.py``) are its own.

A session is someone in two of six situations (a brewery's production planner, a ferry operator's
timetable, a museum's collection database, a wedding planner's vendor tracker, a satellite ground
station's pass scheduler, a theatre's box office) in one of five voices (``VOICES``). One session in
five is SHORT and rule-heavy (8 safety rules and hard constraints among 14 statements, 8 user messages).
Each plants the goal (the opening request; a quarter of the long sessions change it once, naming the old
one), safety rules (some conditional: "if …, don't …"; some given as a correction of the assistant's
proposal), hard constraints, preferences, facts (some as one-word answers to the assistant's question,
two in one sentence) and a pair of different subjects that share words. Updates (0–3 per statement, a
safety rule at most one) in the forms of ``memory_heath_text.UPDATE`` plus ``typo`` (the subject's name
misspelled) and ``two`` (two subjects updated in one sentence), chains A → B → C and reverts to the first
value, spread over the session; some inside a long rambling message. Around them: tasks, chatter,
questions naming a subject, a value in force repeated without change, other subjects with values of the
same type, the assistant echoing the value in force or misquoting it (corrected the next turn), and what
must NOT enter the ledger (``HeathSession.traps``): an ``<environment_context>`` block and a
``<system-reminder>`` naming a value for a planted subject, a handbook page a tool printed with a
rule-like sentence doing the same, and an outdated config the user pasted in a code fence.

Every tracked value (said, distractor, misquote, trap) is unique in its session and found, by the
benchmark's own match, in exactly the messages the generator says (``consistent``; a seed whose random
text collides is redrawn deterministically). tests/test_memory_family_heath.py checks the generator
against its text. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import memory_heath_text as T
import memory_heath_tools as X
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_heath_values import MONEY, Kind, Values, found
from memory_heath_world import SITUATIONS, Subject
from memory_sessions import Generated, TracedPlant, first_built, mention, mentions_exact, say

FAMILY = "heath"
SEED_BASE = 23_000
VOICES = ("terse", "rambling", "corrective", "nonnative", "mixed")
#: first-statement forms each voice favours (any form of the kind can still occur)
FAVOURS = {"terse": ("terse", "dash"), "rambling": ("plain", "paren"), "corrective": ("correction", "plain"),
           "nonnative": ("nonnative",), "mixed": ()}
UPDATE_FAVOURS = {"terse": ("now", "negation"), "rambling": ("correction", "paren"), "corrective": ("correction", "instead", "negation"),
                  "nonnative": ("nonnative", "typo"), "mixed": ()}
UPDATE_FORMS = (*(f for f in T.UPDATE if f != "retract"), "typo")  # plus "two" (two subjects at once) and "revert"; "retract" is an additive rule's only
LONG_TURNS = 34
SHORT_TURNS = 8


@dataclass
class HeathPlant(TracedPlant):
    """``subject``: "<situation>.<key>", "pair:<modifier> <noun>" or "goal"."""


@dataclass
class HeathSession(Generated):
    mentions: dict[str, list[int]] = field(default_factory=dict)  # tracked value → the messages holding it
    distractors: list[str] = field(default_factory=list)  # other subjects' values and the assistant's misquotes
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a harness block, a tool or pasted config
    trap_subject: list[str] = field(default_factory=list)
    trap_at: list[int] = field(default_factory=list)
    trap_how: list[str] = field(default_factory=list)  # env | reminder | handbook | paste
    rambles: list[int] = field(default_factory=list)  # messages that bury their statements in a long ramble
    short: bool = False
    voice: str = ""
    situations: tuple[str, ...] = ()
    attempt: int = 0


@dataclass
class Thread:
    plant: HeathPlant
    subj: Subject | None
    k: Kind
    first_turn: int = 0
    first_form: str = ""
    updates: list[tuple[int, str]] = field(default_factory=list)  # (turn, form)


@dataclass
class Event:
    what: str  # first | update | two | goal_change
    threads: tuple[Thread, ...]
    form: str = ""


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        self.seed, self.attempt = seed, attempt
        self.rng = random.Random(f"heath:{seed}:{attempt}")
        n = seed - SEED_BASE
        self.short = n % 5 == 2
        self.voice = VOICES[(n // 5 + n) % len(VOICES)]
        main = SITUATIONS[n % len(SITUATIONS)]
        second = SITUATIONS[(n + 1 + n // len(SITUATIONS)) % len(SITUATIONS)]
        if second is main:
            second = SITUATIONS[(n + 2) % len(SITUATIONS)]
        self.sits = (main, second)
        self.vals = Values(self.rng, self.rng.choice(sorted(MONEY)))
        self.turns = SHORT_TURNS if self.short else LONG_TURNS
        self.threads: list[Thread] = []
        self.events: dict[int, list[Event]] = {}
        self.msgs: list[Message] = []
        self.mentions: dict[str, list[int]] = {}
        self.g = HeathSession(messages=self.msgs, plants=[], family=FAMILY, seed=seed, short=self.short, voice=self.voice,
                              situations=(main.key, second.key), attempt=attempt)
        self.calls = 0
        self.paras: set[str] = set()  # rambling paragraphs used

    # --- planning ---------------------------------------------------------------------------------
    def _thread(self, subject: str, kind: str, noun: str, k: Kind, subj: Subject | None, pair: int | None = None) -> Thread:
        p = HeathPlant(kind=kind, value="", pair=pair, subject=subject, noun=noun, vtype=k.vtype)
        th = Thread(p, subj, k)
        self.threads.append(th)
        self.g.plants.append(p)
        return th

    def _form(self, kind: str, favours: tuple[str, ...]) -> str:
        forms = tuple(T.FIRST[kind])
        liked = [f for f in forms if f in favours]
        return self.rng.choice(liked) if liked and self.rng.random() < 0.6 else self.rng.choice(forms)

    def plan(self) -> None:
        r = self.rng
        main = self.sits[0]
        counts = {"safety": 4, "constraint": 4, "preference": 1, "fact": 2} if self.short else {"safety": 3, "constraint": 3, "preference": 2, "fact": 5}
        goal = self._thread("goal", "goal", "goal", Kind("pick", pool=main.goal_values), None)
        goal.first_form = "goal"
        self._at(0, Event("first", (goal,)))
        pool = {kind: [(s, sub) for s in self.sits for sub in s.subjects if sub.kind == kind] for kind in counts}
        chosen: list[Thread] = []
        for kind, n in counts.items():
            for sit, sub in r.sample(pool[kind], n):
                th = self._thread(f"{sit.key}.{sub.key}", kind, sub.noun, sub.k, sub)
                th.first_form = self._form(kind, FAVOURS[self.voice])
                chosen.append(th)
        m1, m2, shared, k1, k2 = main.pair
        pid = r.randrange(1, 1000)
        pair = [self._thread(f"pair:{mod} {shared}", "fact", f"{mod} {shared}", pk, None, pair=pid) for mod, pk in ((m1, k1), (m2, k2))]
        for th in pair:
            th.first_form = self._form("fact", FAVOURS[self.voice])
        r.shuffle(chosen)
        last_first = 4 if self.short else 13
        turns = list(range(1, last_first + 1))
        # the pair: in one sentence ("two") or apart
        if r.random() < 0.5:
            t = r.choice(turns)
            for th in pair:
                th.first_form, th.first_turn = "two", t
            self._at(t, Event("two", tuple(pair)))
        else:
            chosen.extend(pair)
        for th in chosen:
            th.first_turn = r.choice([t for t in turns if not self._solo_turn(t)])
            if th.plant.kind == "fact" and th.first_form != "two" and r.random() < 0.25:
                th.first_form = "qa"
            if th.first_form in ("qa", "correction"):
                th.first_turn = self._alone(th.first_turn, last_first + 3)
                if th.first_turn < 0:
                    th.first_form = "plain"
                    th.first_turn = r.choice([t for t in turns if not self._solo_turn(t)])
            self._at(th.first_turn, Event("first", (th,)))
        self._plan_updates()
        if not self.short and r.random() < 0.3:
            self._at(self._free(10, 22), Event("goal_change", (goal,)))

    def _at(self, turn: int, ev: Event) -> None:
        self.events.setdefault(turn, []).append(ev)

    def _alone(self, lo: int, hi: int) -> int:
        """A turn in [lo, hi] with no event yet and none before it needing the assistant's reply: -1 if none."""
        for t in range(lo, min(hi, self.turns - 1) + 1):
            if t not in self.events and not self._needs_reply(t - 1) and not self._needs_reply(t + 1) and t - 1 >= 0:
                return t
        return -1

    def _solo_turn(self, t: int) -> bool:
        return any(self._solo(e) for e in self.events.get(t, ()))

    def _needs_reply(self, t: int) -> bool:
        return any(e.form in ("qa", "correction") or (e.what == "first" and e.threads[0].first_form in ("qa", "correction"))
                   for e in self.events.get(t, ()))

    def _free(self, lo: int, hi: int) -> int:
        t = self._alone(lo, hi)
        return t if t >= 0 else self._alone(lo, self.turns - 1)

    def _plan_updates(self) -> None:
        r = self.rng
        for th in self.threads:
            if th.plant.kind == "goal":
                continue
            room = (len(th.k.pool) - 1) if th.k.vtype == "pick" else 2 if th.k.vtype in ("weekday", "vessel") else 3
            n = r.choice((0, 1) if th.plant.kind == "safety" else (0, 1, 1, 2, 2, 3))
            n = min(n, room, 1 if self.short else 3)
            t = th.first_turn
            for k in range(n):
                gap = r.randrange(1, 3) if self.short else r.randrange(2, 16)
                t += gap
                while t < self.turns and self._solo_turn(t):
                    t += 1
                if t >= self.turns:
                    break
                form = self._update_form(th, k)
                if form == "qa":  # the assistant asks first: the answer is a message of its own
                    t2 = self._alone(t, t + 4)
                    if t2 < 0:
                        form = "now"
                    else:
                        t = t2
                th.updates.append((t, form))
                self._at(t, Event("update", (th,), form))
        # two updates of different subjects on the same turn: one sentence ("two")
        for t, evs in sorted(self.events.items()):
            ups = [e for e in evs if e.what == "update" and e.form in ("now", "correction", "nonnative") and e.threads[0].plant.kind != "safety"]
            if len(ups) >= 2 and r.random() < 0.7:
                a, b = ups[:2]
                evs.remove(a)
                evs.remove(b)
                for e in (a, b):
                    th = e.threads[0]
                    th.updates = [(tt, "two" if (tt == t and f == e.form) else f) for tt, f in th.updates]
                evs.append(Event("update", (a.threads[0], b.threads[0]), "two"))

    def _update_form(self, th: Thread, k: int) -> str:
        r = self.rng
        if th.plant.kind == "safety":
            return r.choice(T.ADDITIVE_UPDATES if th.subj is not None and th.subj.additive else T.SAFETY_UPDATES)
        if k >= 1 and r.random() < 0.3:
            return "revert"
        forms = [f for f in UPDATE_FORMS if f != "revert"]
        liked = [f for f in forms if f in UPDATE_FAVOURS[self.voice]]
        return r.choice(liked) if liked and r.random() < 0.5 else r.choice(forms)

    # --- writing ----------------------------------------------------------------------------------
    def _mention(self, v: str, at: int) -> None:
        mention(self.mentions, v, at)

    def _say(self, th: Thread, v: str, form: str, text: str, at: int) -> None:
        say(th.plant, self.mentions, v, form, text, at, found)

    def _cur(self, th: Thread) -> str:
        return th.plant.said[-1]

    def write(self) -> None:
        r = self.rng
        reply_next: dict[int, tuple[str, tuple[str, ...]]] = {}  # turn → (assistant text before it, values in it)
        fix_next: dict[int, tuple[Thread, str]] = {}  # turn → (thread, misquote) to correct
        env_trap = (not self.short and r.random() < 0.5) or (self.short and self.seed % 2 == 0)
        reminder_turn = (-1 if env_trap else 5) if self.short else r.randrange(14, 24)
        handbook_turn = -1 if self.short else r.randrange(16, 30)
        paste_turn = r.randrange(5, 7) if self.short else r.randrange(18, 32)
        for t in range(self.turns):
            # the assistant's reply before this turn may have to ask something
            evs = self.events.get(t, [])
            for e in evs:
                if e.what == "first" and e.threads[0].first_form == "qa":
                    ask = T.QUESTION_WHO if e.threads[0].k.vtype == "name" else T.QUESTION
                    reply_next[t] = (r.choice(ask).format(n=e.threads[0].plant.noun), ())
                elif e.what == "first" and e.threads[0].first_form == "correction":
                    reply_next[t] = (r.choice(T.PROPOSE).format(n=e.threads[0].plant.noun), ())
                elif e.what == "update" and e.form == "qa":
                    th = e.threads[0]
                    reply_next[t] = (r.choice(T.UPDATE_QUESTION).format(n=th.plant.noun, o=self._cur(th)), (self._cur(th),))
            if t > 0:
                self._reply(t, reply_next, fix_next)
            parts: list[str] = []
            idx = len(self.msgs)
            if t == 0 and env_trap:
                parts.append(self._trap("env", idx))
            if t in fix_next:
                th, d = fix_next.pop(t)
                parts.append(r.choice(T.FIX_MISQUOTE).format(n=th.plant.noun, v=self._cur(th), d=d))
                self._mention(self._cur(th), idx)
                self._mention(d, idx)
            ramble = bool(evs) and t > 0 and not any(self._solo(e) for e in evs) and (r.random() < (0.55 if self.voice == "rambling" else 0.12))
            body = [self._event(e, idx) for e in evs]
            if not evs and t > 0:
                body.append(self._filler(t, idx))
            if len(body) > 1 or ramble:  # sentences that share a paragraph each end as one
                body = [T.end(b) for b in body]
            if ramble:
                lead = r.choice(T.RAMBLE_LEAD)
                body = [self._para(T.RAMBLE_OPEN), lead + " " + " ".join(body), self._para(T.RAMBLE_CLOSE)]
                self.g.rambles.append(idx)
            parts.append(" ".join(body) if not ramble else "\n\n".join(body))
            if t >= paste_turn and "paste" not in self.g.trap_how and not any(self._solo(e) for e in evs):
                parts.append(self._trap("paste", idx))
            if 0 <= reminder_turn <= t and "reminder" not in self.g.trap_how and not any(self._solo(e) for e in evs):
                parts.append(self._trap("reminder", idx))
            text = "\n\n".join(p for p in parts if p)
            self.msgs.append(user(text))
            self._tools(t, handbook_turn)
        self._reply(self.turns, reply_next, fix_next)

    def _solo(self, e: Event) -> bool:
        return e.form == "qa" or (e.what == "first" and e.threads[0].first_form in ("qa", "correction"))

    def _event(self, e: Event, idx: int) -> str:
        r = self.rng
        if e.what == "first" and e.threads[0].plant.kind == "goal":
            th = e.threads[0]
            v = self.vals.draw(th.k)
            text = r.choice(self.sits[0].goals).format(v=v, tv=T.the(v))
            text = T.cap(text)
            self._say(th, v, "goal", text, idx)
            return text
        if e.what == "goal_change":
            th = e.threads[0]
            old, v = self._cur(th), self.vals.draw(th.k)
            text = r.choice(T.GOAL_CHANGE).format(o=old, v=v)
            self._say(th, v, "goal_change", text, idx)
            return text
        if e.what == "two":  # two facts first stated in one sentence
            a, b = e.threads
            va, vb = self.vals.draw(a.k), self.vals.draw(b.k)
            text = T.cap(r.choice(T.TWO).format(n1=a.plant.noun, v1=va, n2=b.plant.noun, v2=vb)) + "."
            self._say(a, va, "two", text, idx)
            self._say(b, vb, "two", text, idx)
            return text
        if e.what == "first":
            th = e.threads[0]
            v = self.vals.draw(th.k)
            text = self._first_text(th, v)
            self._say(th, v, th.first_form, text, idx)
            return text
        if e.form == "two":
            a, b = e.threads
            va, vb = self.vals.draw(a.k), self.vals.draw(b.k)
            text = T.cap(r.choice(T.TWO_UPDATES).format(n1=a.plant.noun, v1=va, n2=b.plant.noun, v2=vb))
            self._say(a, va, "two", text, idx)
            self._say(b, vb, "two", text, idx)
            return text
        th = e.threads[0]
        old = self._cur(th)
        form = e.form if e.form != "revert" or old != th.plant.said[0] else "now"
        if form == "typo" and T.typo(th.plant.noun, random.Random(0)) == th.plant.noun:
            form = "now"  # no word of the noun is long enough to misspell
        v = th.plant.said[0] if form == "revert" else self.vals.draw(th.k)
        noun = T.typo(th.plant.noun, r) if form == "typo" else th.plant.noun
        tpl = r.choice(T.UPDATE["now" if form == "typo" else form])
        text = tpl.format(n=noun, v=v, o=old)
        text = T.cap(text) if not tpl.startswith("{n}") or r.random() < 0.5 else text
        self._say(th, v, form, text, idx)
        return text

    def _first_text(self, th: Thread, v: str) -> str:
        r = self.rng
        form, kind, noun, s = th.first_form, th.plant.kind, th.plant.noun, th.subj
        if form == "qa":
            return r.choice(T.ANSWER).format(v=v)
        tpl = r.choice(T.FIRST[kind][form])
        rule = s.rule.format(v=v) if s is not None and s.rule else ""
        want = s.want.format(v=v) if s is not None and s.want else ""
        note, pred = T.LIMIT[s.bound] if s is not None and s.bound else ("", "")
        return tpl.format(n=noun, N=T.cap(noun), v=v, r=rule, R=T.cap(rule), b=note.format(v=v), p=pred.format(v=v), w=want)

    def _para(self, pool: tuple[str, ...]) -> str:
        """Two sentences of ``pool`` as a paragraph this session has not used yet."""
        for _ in range(50):
            text = " ".join(self.rng.sample(pool, 2))
            if text not in self.paras:
                break
        self.paras.add(text)
        return text

    def _filler(self, t: int, idx: int) -> str:
        r = self.rng
        live = [th for th in self.threads if th.plant.said and th.plant.kind not in ("goal", "safety") and not self._changes_soon(th, t)]
        roll = r.random()
        if roll < 0.25 and live:
            th = r.choice(live)
            self._mention(self._cur(th), idx)
            return r.choice(T.REPEAT).format(n=th.plant.noun, v=self._cur(th))
        if roll < 0.45:
            sit = r.choice(self.sits)
            name, k = r.choice(sit.others)
            d = self.vals.draw(k)
            self.g.distractors.append(d)
            self._mention(d, idx)
            return r.choice(T.OTHER).format(s=name, S=T.cap(name), d=d)
        if roll < 0.55 and live:
            return T.cap(r.choice(T.ASK).format(n=r.choice(live).plant.noun))
        if roll < 0.8:
            task = r.choice(r.choice(self.sits).tasks)
            return T.cap(task) + ("?" if task.split(" ", 1)[0] in T.ASKING else ".")
        return r.choice(T.CHATTER)

    def _changes_soon(self, th: Thread, t: int) -> bool:
        return any(t - 1 <= ut <= t + 2 for ut, _ in th.updates)

    def _trap(self, how: str, idx: int) -> str:
        r = self.rng
        cands = [th for th in self.threads if th.plant.kind in ("safety", "constraint", "fact") and th.k.vtype not in ("pick", "weekday", "vessel")
                 and th.plant.subject not in self.g.trap_subject and (how == "env" or th.plant.said)]
        th = r.choice(cands)
        w = self.vals.draw(th.k)
        self.g.traps.append(w)
        self.g.trap_subject.append(th.plant.subject)
        self.g.trap_at.append(idx)
        self.g.trap_how.append(how)
        self._mention(w, idx)
        n = th.plant.noun
        if how == "env":
            return T.ENV.format(u=r.choice(("ops", "deck", "studio", "desk")), sit=self.sits[0].key, n=n, t=w)
        if how == "reminder":
            return T.REMINDER.format(n=n, t=w)
        if how == "paste":
            return T.PASTE.format(key=n.replace(" ", "_").replace("'", ""), t=w)
        return X.handbook(n, w, r, r.randrange(8, 16), th.k.vtype, th.subj.bound if th.subj is not None else "")

    def _tools(self, t: int, handbook_turn: int) -> None:
        r = self.rng
        if self.short and r.random() < 0.8:
            return
        n = 1 if self.short else r.choice((1, 1, 2))
        for k in range(n):
            self.calls += 1
            cid = f"call_{self.seed}_{self.calls}"
            if t == handbook_turn and k == 0:
                tool = "read_file"
                idx = len(self.msgs) + 1
                text, err = self._trap("handbook", idx), False
            else:
                tool = r.choice(X.TOOLS)
                text, err = X.output(tool, r, r.randrange(4, 8) if self.short else r.randrange(12, 28))
            task = r.choice(r.choice(self.sits).tasks)
            self.msgs.append(assistant("", ToolCallPart(cid, tool, X.call_args(tool, task, r))))
            self.msgs.append(tool_result(cid, text, name=tool, is_error=err))

    def _reply(self, t: int, reply_next: dict[int, tuple[str, tuple[str, ...]]], fix_next: dict[int, tuple[Thread, str]]) -> None:
        """The assistant's words at the end of turn ``t - 1`` (before turn ``t``'s user message)."""
        r = self.rng
        idx = len(self.msgs)
        if t in reply_next:
            text, values = reply_next.pop(t)
            for v in values:
                self._mention(v, idx)
            self.msgs.append(assistant(text))
            return
        live = [th for th in self.threads if th.plant.said and th.plant.kind not in ("goal", "safety") and not self._changes_soon(th, t)]
        roll = r.random()
        if roll < 0.15 and live and t < self.turns and not self.events.get(t):
            th = r.choice(live)
            if th.k.vtype not in ("pick", "weekday", "vessel"):
                d = self.vals.draw(th.k)
                self.g.distractors.append(d)
                self._mention(d, idx)
                fix_next[t] = (th, d)
                self.msgs.append(assistant(r.choice(T.MISQUOTE).format(n=th.plant.noun, d=d)))
                return
        if roll < 0.35 and live:
            th = r.choice(live)
            self._mention(self._cur(th), idx)
            self.msgs.append(assistant(r.choice(T.ECHO).format(n=th.plant.noun, v=self._cur(th))))
            return
        self.msgs.append(assistant(r.choice(T.REPLIES)))

    def finish(self) -> HeathSession | None:
        g = self.g
        for p in g.plants:
            assert isinstance(p, HeathPlant)
            p.value = p.said[-1]
            p.stale = [v for v in dict.fromkeys(p.said) if v != p.value]
            p.stale_at = [p.said_at[max(k for k, x in enumerate(p.said) if x == v) + 1] for v in p.stale]
        g.mentions = self.mentions
        return g if consistent(g) else None



def consistent(g: HeathSession) -> bool:
    """Every tracked value is found in exactly the messages the generator put it in, and none inside another."""
    return mentions_exact(g.messages, g.mentions, g.mentions, found)


def generate(seed: int) -> HeathSession:
    """The ``heath`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: HeathSession = first_built(_Builder, seed, 16, "heath")
    return g
