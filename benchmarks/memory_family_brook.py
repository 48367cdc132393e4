"""The ``brook`` family of the memory benchmark (seeds 24000+): HELD OUT.

Written by i11fam9 (issue 11, 2026-11-24 22:50–23:50 UTC), who has tuned none of the ledger and read
none of its code in ``src/contextwindow/folding/``, no other family's sentences, outputs or failures
(only the ``Plant`` / ``Generated`` contract, ``mentions_exact``, ``first_built`` and ``value_pattern``
in ``memory_sessions.py``, the checks in ``bench_memory.py``, and ``heath``'s module layout for how a
family registers); committed before any run of the ledger on it: only the lead runs
``python benchmarks/bench_memory.py --family brook``, once. Its situations (``memory_brook_world.py``),
sentences (``memory_brook_text.py``), values (``memory_brook_values.py``) and tool output
(``memory_brook_tools.py``) are its own.

A session is one of four teams — a data-pipeline team, a mobile app release, a research lab, an ops
on-call week — in one of four voices (``VOICES``: rules in bulleted lists, formal "hard requirement:" /
"non-negotiable", casual "please make sure …" / "going forward …", limits asked as questions "can we
keep X under Y?"). One session in six is SHORT and rule-heavy. Planted: the goal (the opening request;
re-scoped once, naming the dropped one, in some long sessions), three safety rules, hard limits (max,
min, a deadline), preferences, facts (names, numbers with units, dates, ids, paths, hosts, versions,
owners; some said in passing inside a request, some two in one sentence) and a pair of different
subjects sharing words. Updates in new verbs per value type ("got pushed to", "bumped", "swapped U
for V", "took over as", "we dropped U; …"), chains A → B → C, a safety rule's place moved. Around them:
tasks, chatter, questions naming a subject, a value in force repeated, other teams' subjects with
values of the same type, other people's rules quoted and rejected, hypotheticals ("if we ever …"), the
assistant echoing the value in force, and what must NOT enter the ledger (``BrookSession.traps``): a
log or config the user pasted in a code fence and a page or review comment a tool printed that states
a value for a planted subject in the user's own rule wording.

Every tracked value is unique in its session and found, by the benchmark's own match, in exactly the
messages the generator says (``mentions_exact``; a seed whose text collides is redrawn
deterministically). ``check_family_brook.py`` verifies the ground truth against the text. Nothing here
reads a session with the ledger.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import memory_brook_text as T
import memory_brook_tools as X
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_brook_values import Kind, Values, found, order
from memory_brook_world import OTHERS_WHO, SITUATIONS, Situation, Subject
from memory_sessions import Generated, TracedPlant, first_built, mention, mentions_exact, say

FAMILY = "brook"
SEED_BASE = 24_000
VOICES = ("lists", "formal", "casual", "asking")
FAVOURS = {"lists": ("hard", "please"), "formal": ("hard", "nonneg"), "casual": ("please", "going"), "asking": ("question", "please")}
LONG_TURNS = 34
SHORT_TURNS = 8
NUMERIC = ("qty", "money", "pct", "num")
#: update templates by value type
CATEGORY = {"date": "date", "clock": "date", "qty": "number", "money": "number", "pct": "number", "num": "number", "person": "person",
            "version": "thing", "ticket": "thing", "path": "place", "host": "place"}


def is_short(seed: int) -> bool:
    """Whether ``seed``'s session is a short one (about one in six), drawn from the seed alone so that short sessions
    fall on every team and voice (``n % 6 == 5`` made them odd seeds, hence two teams only); 24005 and 24006 are short."""
    return random.Random(f"brook:short:{seed}").random() < 1 / 6


@dataclass
class BrookPlant(TracedPlant):
    """``subject``: "<situation>.<key>", "pair:<modifier>" or "goal"."""


@dataclass
class BrookSession(Generated):
    mentions: dict[str, list[int]] = field(default_factory=dict)  # tracked value → the messages holding it
    distractors: list[str] = field(default_factory=list)  # values the user said that bind nothing (quoted, hypothetical, other teams')
    distractor_how: list[str] = field(default_factory=list)  # quoted | hypothetical | other
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only in pasted code or tool output
    trap_subject: list[str] = field(default_factory=list)
    trap_at: list[int] = field(default_factory=list)
    trap_how: list[str] = field(default_factory=list)  # paste | tool
    situation: str = ""
    voice: str = ""
    short: bool = False
    attempt: int = 0


@dataclass
class Thread:
    plant: BrookPlant
    subj: Subject | None
    k: Kind
    first_turn: int = 0
    form: str = ""
    updates: list[int] = field(default_factory=list)  # turns


@dataclass
class Event:
    what: str  # first | list | two | update | rescope
    threads: tuple[Thread, ...]


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        n = seed - SEED_BASE
        self.seed, self.rng = seed, random.Random(f"brook:{seed}:{attempt}")
        self.sit: Situation = SITUATIONS[n % len(SITUATIONS)]
        self.voice = VOICES[(n + n // len(SITUATIONS)) % len(VOICES)]
        self.short = is_short(seed)
        self.turns = SHORT_TURNS if self.short else LONG_TURNS
        self.vals = Values(self.rng)
        self.threads: list[Thread] = []
        self.events: dict[int, list[Event]] = {}
        self.msgs: list[Message] = []
        self.mentions: dict[str, list[int]] = {}
        self.g = BrookSession(messages=self.msgs, plants=[], family=FAMILY, seed=seed, situation=self.sit.key, voice=self.voice,
                              short=self.short, attempt=attempt)
        self.calls = 0

    # --- planning ---------------------------------------------------------------------------------
    def _thread(self, subject: str, kind: str, noun: str, k: Kind, subj: Subject | None, pair: int | None = None) -> Thread:
        p = BrookPlant(kind=kind, value="", pair=pair, subject=subject, noun=noun, vtype=k.vtype)
        th = Thread(p, subj, k)
        self.threads.append(th)
        self.g.plants.append(p)
        return th

    def _at(self, turn: int, ev: Event) -> None:
        self.events.setdefault(turn, []).append(ev)

    def plan(self) -> None:
        r, sit = self.rng, self.sit
        counts = {"safety": 3, "constraint": 4, "preference": 1, "fact": 2} if self.short else {"safety": 3, "constraint": 3, "preference": 2, "fact": 5}
        goal = self._thread("goal", "goal", "the goal", Kind("pick", pool=sit.goal_values), None)
        self._at(0, Event("first", (goal,)))
        goal.form = "goal"
        chosen: list[Thread] = []
        for kind, count in counts.items():
            for sub in r.sample([s for s in sit.subjects if s.kind == kind], count):
                chosen.append(self._thread(f"{sit.key}.{sub.key}", kind, sub.noun, sub.k, sub))
        m1, m2, shared, k1, k2 = sit.pair
        pid = r.randrange(1, 1000)
        pair = [self._thread(f"pair:{m}", "fact", f"the {m} {shared}", k, None, pair=pid) for m, k in ((m1, k1), (m2, k2))]
        last = 3 if self.short else 12
        firsts = list(range(0 if self.short else 1, last + 1))
        rules = [th for th in chosen if th.plant.kind in ("safety", "constraint")]
        n_lists = 2 if self.voice == "lists" and not self.short else int(self.voice == "lists" or r.random() < 0.4)
        for _ in range(n_lists):
            items = [th for th in rules if not th.form][: r.choice((2, 3))]
            if len(items) < 2:
                break
            t = r.choice([f for f in firsts if all(e.what != "list" for e in self.events.get(f, []))])  # one list a message
            for th in items:
                th.form, th.first_turn = "list", t
            self._at(t, Event("list", tuple(items)))
        facts = [th for th in chosen if th.plant.kind == "fact"]
        if len(facts) >= 2 and r.random() < 0.4:
            a, b = facts[:2]
            a.form = b.form = "two"
            a.first_turn = b.first_turn = r.choice(firsts)
            self._at(a.first_turn, Event("two", (a, b)))
        if r.random() < 0.5:
            for th in pair:
                th.form, th.first_turn = "two", r.choice(firsts)
            pair[1].first_turn = pair[0].first_turn
            self._at(pair[0].first_turn, Event("two", tuple(pair)))
        else:
            chosen += pair
        for th in chosen:
            if th.form:
                continue
            th.form = self._form(th)
            th.first_turn = r.choice(firsts)
            self._at(th.first_turn, Event("first", (th,)))
        for th in self.threads:
            self._plan_updates(th)
        if not self.short and r.random() < 0.4:
            self._at(r.randrange(10, 21), Event("rescope", (goal,)))

    def _form(self, th: Thread) -> str:
        r, kind = self.rng, th.plant.kind
        if kind == "constraint" and th.subj is not None:
            forms: tuple[str, ...] = tuple(T.BOUND[th.subj.bound])
        else:
            forms = {"safety": tuple(T.SAFETY), "preference": tuple(T.PREFERENCE)}.get(kind, (*T.FACT, "passing"))
        liked = [f for f in forms if f in FAVOURS[self.voice]]
        return r.choice(liked) if liked and r.random() < 0.6 else r.choice(forms)

    def _plan_updates(self, th: Thread) -> None:
        r, p = self.rng, th.plant
        if p.kind == "goal":
            return
        if p.kind == "safety":
            n = int(th.subj is not None and th.subj.movable and r.random() < 0.3)
        else:
            n = r.choice((0, 1, 1, 2, 2, 3))
        if th.k.vtype == "pick":
            n = min(n, len(th.k.pool) - 1)
        n = min(n, 1 if self.short else 3)
        t = th.first_turn
        for _ in range(n):
            t += r.randrange(1, 3) if self.short else r.randrange(3, 12)
            if t >= self.turns:
                break
            th.updates.append(t)
            self._at(t, Event("update", (th,)))

    # --- writing ----------------------------------------------------------------------------------
    def _mention(self, v: str, at: int) -> None:
        mention(self.mentions, v, at)

    def _say(self, th: Thread, v: str, form: str, text: str, at: int) -> None:
        say(th.plant, self.mentions, v, form, text, at, found)

    def _draw(self, th: Thread) -> str:
        if th.k.vtype == "pick":
            free = [v for v in th.k.pool if v not in self.vals.used]
            v = self.rng.choice(free)
            self.vals.used.append(v)
            return v
        return self.vals.draw(th.k)

    def write(self) -> None:
        r = self.rng
        paste_turn = r.randrange(5, 8) if self.short else r.randrange(14, 29)
        tool_turn = -1 if self.short and r.random() < 0.5 else (r.randrange(3, 8) if self.short else r.randrange(15, 31))
        for t in range(self.turns):
            idx = len(self.msgs)
            evs = self.events.get(t, [])
            body = [self._event(e, idx) for e in evs]
            if not evs and t > 0:
                body.append(self._filler(t, idx))
            elif r.random() < 0.4:
                body.append(r.choice(self.sit.tasks))
            if r.random() < 0.2 and t > 0:
                body.insert(0, r.choice(T.CHATTER))
            text = "\n\n".join(b if "\n" in b else T.end(b) for b in body) if any("\n" in b for b in body) else " ".join(T.end(b) for b in body)
            if t == paste_turn:
                text += "\n\n" + self._trap("paste", idx)
            self.msgs.append(user(text))
            self._tools(t, tool_turn)
            self._reply(t)

    def _event(self, e: Event, idx: int) -> str:
        r = self.rng
        if e.what == "list":
            return r.choice(T.LIST_LEAD) + "\n" + "\n".join(self._first(th, idx, "list") for th in e.threads)
        if e.what == "two":
            a, b = e.threads
            va, vb = self._draw(a), self._draw(b)
            text = r.choice(T.TWO).format(N1=T.cap(a.plant.noun), n1=a.plant.noun, v1=va, n2=b.plant.noun, v2=vb)
            self._say(a, va, "two", text, idx)
            self._say(b, vb, "two", text, idx)
            return text
        th = e.threads[0]
        if e.what == "first":
            return self._first(th, idx, th.form)
        old = th.plant.said[-1]
        v = self._draw(th)
        if e.what == "rescope":
            text = r.choice(T.GOAL_RESCOPE).format(o=old, v=v)
            self._say(th, v, "rescope", text, idx)
            return text
        if th.plant.kind == "safety":
            form, tpl = "moved", r.choice(T.SAFETY_MOVED)
        elif th.plant.kind == "preference":
            form, tpl = "pick", r.choice(T.UPDATE["pick"])
        elif th.plant.kind == "constraint" and th.subj is not None:
            form = f"bound_{th.subj.bound}"
            tpl = self._move(form, old, v)
        elif r.random() < 0.25:
            form, tpl = "generic", r.choice(T.GENERIC_UPDATE)
        else:
            form = "fact_pick" if th.k.vtype == "pick" else CATEGORY[th.k.vtype]
            tpl = self._move(form, old, v) if form in T.MOVES else r.choice(T.UPDATE[form])
        act = th.subj.act.format(v=v) if th.subj is not None else ""
        text = T.cap(tpl.format(n=th.plant.noun, N=T.cap(th.plant.noun), v=v, o=old, a=act))
        self._say(th, v, form, text, idx)
        return text

    def _move(self, form: str, old: str, new: str) -> str:
        """A template of ``form`` whose verb goes the way ``old`` → ``new`` went (bumped up, cut down)."""
        way = "up" if order(new) > order(old) else "down"
        return self.rng.choice([tpl for d, tpl in T.MOVES[form] if d in (way, "any")])

    def _first(self, th: Thread, idx: int, form: str) -> str:
        r, p, s = self.rng, th.plant, th.subj
        v = self._draw(th)
        if p.kind == "goal":
            text = r.choice(self.sit.goals).format(v=v)
        elif form == "list":
            assert s is not None
            text = r.choice(T.LIST_SAFETY).format(a=s.act.format(v=v)) if p.kind == "safety" else r.choice(T.LIST_BOUND[s.bound]).format(n=p.noun, v=v)
        elif p.kind == "safety":
            assert s is not None
            text = r.choice(T.SAFETY[form]).format(a=s.act.format(v=v))
        elif p.kind == "constraint":
            assert s is not None
            text = r.choice(T.BOUND[s.bound][form]).format(n=p.noun, v=v)
        elif p.kind == "preference":
            text = r.choice(T.PREFERENCE[form]).format(n=p.noun, v=v)
        elif form == "passing":
            text = r.choice(self.sit.tasks) + " " + r.choice(T.PASSING).format(n=p.noun, v=v)
        else:
            text = r.choice(T.FACT[form]).format(n=p.noun, N=T.cap(p.noun), v=v)
        self._say(th, v, form, text, idx)
        return text

    @staticmethod
    def _named(th: Thread) -> str:
        """How a restatement names ``th``: a limit by the limit ("the cap on the download size is still 167 MB"), since
        "the download size is still 167 MB" misstates the rule "under 167 MB" as the measure."""
        if th.plant.kind == "constraint" and th.subj is not None:
            return T.LIMIT[th.subj.bound].format(n=th.plant.noun)
        return th.plant.noun

    def _live(self, t: int, rules: bool = True) -> list[Thread]:
        """Threads said before turn ``t`` whose value does not change around it (safety rules only if ``rules``:
        "the staged rollout is 6.4%" misstates the rule "never widen it past 6.4%")."""
        return [th for th in self.threads if th.plant.said and th.plant.kind != "goal" and (rules or th.plant.kind != "safety")
                and not any(t - 1 <= u <= t + 1 for u in th.updates)]

    def _filler(self, t: int, idx: int) -> str:
        r = self.rng
        live = self._live(t)
        roll = r.random()
        facts = self._live(t, rules=False)
        if roll < 0.2 and facts:
            th = r.choice(facts)
            self._mention(th.plant.said[-1], idx)
            return r.choice(T.REPEAT).format(n=self._named(th), v=th.plant.said[-1])
        others = [th for th in live if th.k.vtype != "pick"]
        if roll < 0.5 and others:
            th = r.choice(others)
            w = self.vals.draw(th.k)
            how = "quoted" if roll < 0.3 else "hypothetical" if roll < 0.4 else "other"
            if how == "quoted":
                tpls = T.QUOTED if th.k.vtype in NUMERIC else T.QUOTED[2:]
                who = r.choice(OTHERS_WHO)
                text = r.choice(tpls).format(P=T.cap(who), p=who, n=th.plant.noun, w=w)
            elif how == "hypothetical":
                text = r.choice(T.HYPOTHETICAL).format(n=th.plant.noun, w=w)
            else:
                s = next((o for o, key in self.sit.others if key == th.plant.subject.split(".")[-1]), None)
                if s is None:
                    text, how = r.choice(T.HYPOTHETICAL).format(n=th.plant.noun, w=w), "hypothetical"
                else:
                    text = r.choice(T.OTHER_TEAM).format(s=s, S=T.cap(s), w=w)
            self.g.distractors.append(w)
            self.g.distractor_how.append(how)
            self._mention(w, idx)
            return text
        if roll < 0.6 and facts:
            th = r.choice(facts)
            tpl = r.choice(T.ASK)
            if "{v}" in tpl:
                self._mention(th.plant.said[-1], idx)
            return tpl.format(n=self._named(th), v=th.plant.said[-1])
        if roll < 0.85:
            return r.choice(self.sit.tasks)
        return r.choice(T.CHATTER)

    def _trap(self, how: str, idx: int) -> str:
        r = self.rng
        cands = [th for th in self.threads if th.plant.said and th.k.vtype != "pick" and th.plant.subject not in self.g.trap_subject
                 and th.plant.kind in ("safety", "constraint", "fact")]
        th = r.choice(cands)
        w = self.vals.draw(th.k)
        self.g.traps.append(w)
        self.g.trap_subject.append(th.plant.subject)
        self.g.trap_at.append(idx)
        self.g.trap_how.append(how)
        self._mention(w, idx)
        if how == "paste":
            key = th.plant.noun.removeprefix("the ").replace(" ", "_").replace("'", "").replace("-", "_")
            return r.choice(T.PASTE).format(key=key, w=w, file=self.sit.log_key)
        return r.choice(T.TOOL_RULE if th.k.vtype in NUMERIC else T.TOOL_RULE[1:]).format(n=th.plant.noun, w=w)

    def _tools(self, t: int, tool_turn: int) -> None:
        r = self.rng
        if self.short and t != tool_turn and r.random() < 0.7:
            return
        n = 1 if self.short else r.choice((1, 1, 2))
        for k in range(n):
            self.calls += 1
            cid = f"call_{self.seed}_{self.calls}"
            lines = r.randrange(4, 8) if self.short else r.randrange(14, 27)
            if t == tool_turn and k == 0:
                tool = r.choice(("read_file", "gh"))
                idx = len(self.msgs) + 1
                text, err = X.rule_page(tool, self._trap("tool", idx), r, lines), False
            else:
                tool = r.choice(X.TOOLS)
                text, err = X.output(tool, r, lines)
            self.msgs.append(assistant("", ToolCallPart(cid, tool, X.call_args(tool, r, r.choice(self.sit.tasks)))))
            self.msgs.append(tool_result(cid, text, name=tool, is_error=err))

    def _reply(self, t: int) -> None:
        r = self.rng
        idx = len(self.msgs)
        live = self._live(t + 1, rules=False)
        if live and r.random() < 0.2:
            th = r.choice(live)
            self._mention(th.plant.said[-1], idx)
            self.msgs.append(assistant(r.choice(T.ECHO).format(n=self._named(th), v=th.plant.said[-1])))
            return
        self.msgs.append(assistant(r.choice(T.REPLIES)))

    def finish(self) -> BrookSession | None:
        g = self.g
        for p in g.plants:
            assert isinstance(p, BrookPlant)
            p.value = p.said[-1]
            p.stale = list(p.said[:-1])
            p.stale_at = list(p.said_at[1:])
        g.mentions = self.mentions
        return g if mentions_exact(g.messages, g.mentions, g.mentions, found) else None


def generate(seed: int) -> BrookSession:
    """The ``brook`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: BrookSession = first_built(_Builder, seed, 16, FAMILY)
    return g
