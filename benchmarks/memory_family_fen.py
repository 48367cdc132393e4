"""The ``fen`` family of the memory benchmark (seeds 25000+): HELD OUT.

Written by i11fam10 (issue 11, 2026-11-25 01:30–02:15 UTC), who has read none of the ledger's code
(src/contextwindow/folding/) and none of its scores; other families' world modules were read only to
avoid their domains. Committed before any run of the ledger on it: only the lead runs
``python benchmarks/bench_memory.py --family fen``, once. ``benchmarks/check_family_fen.py`` checks the
ground truth against the text.

A session is someone in one of five situations (a hospital pharmacy's dispensing-cabinet migration, a
university's course-enrolment cutover, a ceramics studio's kiln-controller bring-up, an observatory's
night scheduler, a food bank's volunteer rota app). One session in four is SHORT (8 user messages,
little tool output). Each plants the goal (re-scoped once in half the long sessions), safety rules,
hard constraints (some as questions: "can we keep X under V?", planted as hard constraints on purpose), preferences, facts and a pair of
subjects sharing words; the first two rules come in a bulleted list, and in long sessions a rule and a
constraint come inside a spec the user wrote and pastes. Updates use ``T.UPDATE`` ("pushed to",
"bumped up"/"taken down" by the change's direction, "swapped … for", "handed to", "we dropped", "X → V", "X: make it
V"; a constraint's update names the new limit: ``T.UPDATE_LIMIT``) and four kinds other
families under-use: two updates in one sentence (``two``), an update spread over two messages (``split``:
"not O for X" … the assistant asks … "V."), a retraction ("forget what I said about X") later followed by
a new value (``retract``: the retracted value is stale from the retraction on), and safety rules only
referred to after their first statement ("the rule about tags"). Around them: chatter, tasks, questions
naming the value in force (never a withdrawn one), ``distractors`` (hypotheticals and colleagues' rules,
never in force for us, and other subjects' values: true of those other things, just not planted), a pasted log, and what must never enter the ledger (``traps``): a rule-like line
in a tool's output and a rule in third-party docs the user pastes, each with a value for a planted subject
(worded as a limit for a quantity or an amount, as a setting otherwise). The user's pasted spec is binding
only in its requirements list; its other lines are background with no value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import memory_fen_text as T
import memory_fen_tools as X
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_fen_text import Kind, Situation, Subject, Values, found
from memory_sessions import Generated, TracedPlant, first_built, mention, mentions_exact

FAMILY = "fen"
SEED_BASE = 25_000
LONG_TURNS = 30
SHORT_TURNS = 8


@dataclass
class FenPlant(TracedPlant):
    """``subject``: "<situation>.<key>", "pair:<modifier> <noun>" or "goal"; ``retracted``: values the user
    withdrew ("forget what I said about X"); ``refs``: messages that refer to the rule without its value."""

    retracted: list[str] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)
    ref: str = ""
    ended_at: dict[str, int] = field(default_factory=dict)  # a value withdrawn before its replacement: the message that withdrew it


@dataclass
class FenSession(Generated):
    mentions: dict[str, list[int]] = field(default_factory=dict)
    distractors: list[str] = field(default_factory=list)  # other subjects' values, hypotheticals, colleagues' rules
    hypotheticals: list[str] = field(default_factory=list)  # values for a planted subject said only as "if we ever …"
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a tool or pasted third-party docs
    trap_subject: list[str] = field(default_factory=list)
    trap_at: list[int] = field(default_factory=list)
    trap_how: list[str] = field(default_factory=list)  # tool | docs
    splits: list[tuple[int, int]] = field(default_factory=list)  # (the "not O" message, the message with the new value)
    spec_at: int = -1  # the user's own pasted spec (its rules count)
    docs_at: int = -1  # pasted third-party docs (its rule does not)
    list_at: int = -1  # the message with the bulleted rules
    short: bool = False
    situation: str = ""
    attempt: int = 0


@dataclass
class Thread:
    plant: FenPlant
    subj: Subject | None
    k: Kind
    first: int = -1
    form: str = ""
    last: int = -1  # the last turn planned for this thread


@dataclass
class Act:
    what: str  # goal | rescope | first | update | two | split1 | split2 | retract | restate | refer | list | spec
    threads: tuple[Thread, ...] = ()
    form: str = ""


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        self.seed, self.attempt = seed, attempt
        self.rng = random.Random(f"fen:{seed}:{attempt}")
        n = seed - SEED_BASE
        self.short = n % 4 == 3
        self.sit: Situation = T.SITUATIONS[n % len(T.SITUATIONS)]
        self.turns = SHORT_TURNS if self.short else LONG_TURNS
        self.vals = Values(self.rng)
        self.threads: list[Thread] = []
        self.acts: dict[int, list[Act]] = {}
        self.solo: set[int] = set()  # turns that hold one act and nothing else
        self.msgs: list[Message] = []
        self.mentions: dict[str, list[int]] = {}
        self.g = FenSession(messages=self.msgs, plants=[], family=FAMILY, seed=seed, short=self.short, situation=self.sit.key, attempt=attempt)
        self.calls = 0

    # --- planning ---------------------------------------------------------------------------------
    def _thread(self, subject: str, kind: str, noun: str, k: Kind, subj: Subject | None, pair: int | None = None) -> Thread:
        p = FenPlant(kind=kind, value="", pair=pair, subject=subject, noun=noun, vtype=k.vtype, ref=subj.ref if subj else "")
        th = Thread(p, subj, k)
        self.threads.append(th)
        self.g.plants.append(p)
        return th

    def _at(self, t: int, act: Act, solo: bool = False) -> None:
        self.acts.setdefault(t, []).append(act)
        if solo:
            self.solo.add(t)
        for th in act.threads:
            th.last = max(th.last, t)

    def _free(self, lo: int, hi: int, empty: bool = False) -> int:
        """A random turn in [lo, hi] (clipped to the session) that is not solo (and, with ``empty``, holds nothing): -1 if none."""
        ts = [t for t in range(max(lo, 1), min(hi, self.turns - 1) + 1) if t not in self.solo and (not empty or t not in self.acts)]
        return self.rng.choice(ts) if ts else -1

    def plan(self) -> None:
        r = self.rng
        sit = self.sit
        goal = self._thread("goal", "goal", "goal", Kind("pick", pool=sit.goals), None)
        self._at(0, Act("goal", (goal,)), solo=True)
        counts = {"safety": 2, "constraint": 2, "preference": 1, "fact": 2} if self.short else {"safety": 3, "constraint": 3, "preference": 2, "fact": 5}
        by_kind: dict[str, list[Thread]] = {}
        for kind, n in counts.items():
            for sub in r.sample([s for s in sit.subjects if s.kind == kind], n):
                by_kind.setdefault(kind, []).append(self._thread(f"{sit.key}.{sub.key}", kind, sub.noun, sub.k, sub))
        m1, m2, shared, pk = sit.pair
        pair: list[Thread] = []
        if not self.short:
            pid = r.randrange(1, 1000)
            pair = [self._thread(f"pair:{m} {shared}", "fact", f"the {m} {shared}", pk, None, pair=pid) for m in (m1, m2)]
        last_first = 4 if self.short else 12
        # the bulleted list: one safety rule and one constraint
        lst = (by_kind["safety"][0], by_kind["constraint"][0])
        t_list = r.randint(1, 2)
        for th in lst:
            th.first, th.form = t_list, "list"
        self._at(t_list, Act("list", lst), solo=True)
        self.g.list_at = t_list  # a turn for now: the message index is set when written
        rest = [th for th in self.threads if th.first < 0 and th.plant.kind != "goal"]
        if not self.short:  # the user's own spec: one safety rule and one constraint
            spec = (by_kind["safety"][1], by_kind["constraint"][1])
            t_spec = self._free(4, 9, empty=True)
            t_spec = t_spec if t_spec > 0 else self._free(4, 9)
            for th in spec:
                th.first, th.form = t_spec, "spec"
            self._at(t_spec, Act("spec", spec), solo=True)
            rest = [th for th in rest if th not in spec]
        for th in rest:
            th.first = self._free(1, last_first)
            th.form = r.choice(tuple({"safety": T.SAFETY, "constraint": T.CONSTRAINT, "preference": T.PREFERENCE, "fact": T.FACT}[th.plant.kind]))
            self._at(th.first, Act("first", (th,)))
        self._plan_updates(by_kind, pair)
        if not self.short and r.random() < 0.5:
            t = self._free(10, 18)
            self._at(t, Act("rescope", (goal,)))

    def _room(self, th: Thread) -> int:
        """How many more changes ``th`` can take (a pick has only its pool's other values)."""
        room = len(th.k.pool) - 1 if th.k.vtype == "pick" else 3
        return room - sum(1 for acts in self.acts.values() for a in acts if th in a.threads and a.what in ("two", "split2", "restate", "update"))

    def _plan_updates(self, by_kind: dict[str, list[Thread]], pair: list[Thread]) -> None:
        r = self.rng
        gap = (1, 2) if self.short else (2, 7)
        changeable = [th for th in self.threads if th.plant.kind in ("constraint", "preference", "fact")]
        # an update over two messages: a pair member when there is a pair
        split = r.choice(pair) if pair else r.choice([th for th in changeable if th.k.vtype != "pick"])
        t = self._split_turn(split.last + 1, split.last + 3 * gap[1])
        if t > 0:
            self._at(t, Act("split1", (split,)), solo=True)
            self._at(t + 1, Act("split2", (split,)), solo=True)
        # a retraction, then a new value a few turns later
        cands = sorted((th for th in changeable if th is not split and self._room(th) >= 1), key=lambda th: th.last)
        r.shuffle(cands)
        ret = cands[0]
        for ret in cands:
            t = self._free(ret.last + 1, ret.last + gap[1] + 1)
            t2 = self._free(t + 1, t + gap[1] + 1) if t > 0 else -1
            if t2 > 0:
                self._at(t, Act("retract", (ret,)))
                self._at(t2, Act("restate", (ret,)))
                break
        # two updates in one sentence
        if not self.short or r.random() < 0.5:
            a, b = r.sample([th for th in changeable if th is not split and th.last < self.turns - 2 and self._room(th) >= 1], 2)
            t = self._free(max(a.last, b.last) + 1, max(a.last, b.last) + gap[1])
            if t > 0:
                self._at(t, Act("two", (a, b)))
        # plain updates
        for th in self.threads:
            if th.plant.kind == "goal":
                continue
            n = r.choice((0, 1)) if th.plant.kind == "safety" else r.choice((0, 1, 1, 2))
            n = min(n, self._room(th), 1 if self.short else 2)
            for _ in range(max(n, 0)):
                t = self._free(th.last + 1, th.last + gap[1])
                if t < 0:
                    break
                form = (T.SAFETY_UPDATE[0] if th.plant.kind == "safety" else r.choice(tuple(T.UPDATE_LIMIT)) if th.plant.kind == "constraint"
                        else r.choice(T.UPDATE_FOR[th.k.vtype]))
                self._at(t, Act("update", (th,), form))
        # rules referred to later, without their value
        for th in by_kind["safety"]:
            for _ in range(1 if self.short else 2):
                t = self._free(th.last + 1, th.last + (3 if self.short else 10))
                if t > 0:
                    self._at(t, Act("refer", (th,)))

    def _split_turn(self, lo: int, hi: int) -> int:
        ts = [t for t in range(max(lo, 1), min(hi, self.turns - 2) + 1) if t not in self.acts and t + 1 not in self.acts]
        return self.rng.choice(ts) if ts else -1

    # --- writing ----------------------------------------------------------------------------------
    def _m(self, v: str, at: int) -> None:
        mention(self.mentions, v, at)

    def _said(self, th: Thread, v: str, form: str, text: str, at: int) -> None:
        p = th.plant
        p.said.append(v)
        p.said_at.append(at)
        p.forms.append(form)
        p.texts.append(text)
        self._m(v, at)

    def _cur(self, th: Thread) -> str:
        return th.plant.said[-1]

    def _fresh(self, th: Thread) -> str:
        if th.k.vtype == "pick":
            left = [v for v in th.k.pool if v not in th.plant.said and v not in self.vals.used]
            v = self.rng.choice(left)
            self.vals.used.add(v)
            return v
        return self.vals.draw(th.k)

    def write(self) -> None:
        r = self.rng
        tool_trap = self._free(6, self.turns - 2) if not self.short or r.random() < 0.5 else -1
        docs_turn = -1 if self.short else (self._free(8, 20, empty=True) if self._free(8, 20, empty=True) > 0 else self._free(8, 20))
        extras = {"hypo": self._free(3, self.turns - 1), "colleague": self._free(2, self.turns - 1), "log": self._free(3, self.turns - 1)}
        echo: Thread | None = None
        skip_reply = False
        for t in range(self.turns):
            if t > 0 and not skip_reply:
                idx = len(self.msgs)
                if echo is not None and echo.plant.said and r.random() < 0.5:
                    self._m(self._cur(echo), idx)
                    self.msgs.append(assistant(T.ECHO.format(n=echo.plant.noun, v=self._cur(echo))))
                else:
                    self.msgs.append(assistant(r.choice(T.REPLIES)))
            echo, skip_reply = None, False
            idx = len(self.msgs)
            parts: list[str] = []
            for act in self.acts.get(t, []):
                parts.append(self._act(act, idx))
                if act.what in ("update", "two", "restate") and act.threads[0].plant.kind != "safety":
                    echo = act.threads[-1]
            if t not in self.solo:
                for what, at in extras.items():
                    if at == t:
                        parts.append(self._extra(what, idx))
                if t == docs_turn:
                    parts.append(self._docs(idx))
                if not parts:
                    parts.append(self._filler(idx))
            self.msgs.append(user("\n\n".join(parts)))
            if any(a.what == "split1" for a in self.acts.get(t, [])):
                th = next(a.threads[0] for a in self.acts[t] if a.what == "split1")
                self.msgs.append(assistant(f"Understood, not that one. Which should {th.plant.noun} be, then?"))
                skip_reply = True
                continue
            if any(a.what == "split2" for a in self.acts.get(t, [])):
                self.g.splits.append((len(self.msgs) - 3, len(self.msgs) - 1))
            self._tools(t, tool_trap)
        self.msgs.append(assistant(r.choice(T.REPLIES)))

    def _rule_words(self, th: Thread, v: str) -> str:
        assert th.subj is not None
        return th.subj.rule.format(v=v, n=th.plant.noun)

    def _first(self, th: Thread, idx: int) -> str:
        v = self._fresh(th)
        p = th.plant
        if p.kind == "safety":
            text = T.SAFETY[th.form].format(r=self._rule_words(th, v))
        elif p.kind == "constraint":
            text = T.CONSTRAINT[th.form].format(n=p.noun, v=v)
        elif p.kind == "preference":
            text = T.PREFERENCE[th.form].format(n=p.noun, v=v)
        else:
            text = T.FACT[th.form].format(n=p.noun, N=p.noun[0].upper() + p.noun[1:], v=v)
        self._said(th, v, th.form, text, idx)
        return text

    def _new(self, th: Thread, tpl: str, form: str, idx: int) -> str:
        """``th``'s subject given a fresh value in ``tpl`` (``{v}`` the value, ``{n}`` the noun)."""
        v = self._fresh(th)
        text = tpl.format(n=th.plant.noun, v=v)
        self._said(th, v, form, text, idx)
        return text

    def _act(self, act: Act, idx: int) -> str:
        r = self.rng
        th = act.threads[0]
        p = th.plant
        noun, cap = p.noun, p.noun[0].upper() + p.noun[1:]
        if act.what == "goal":
            return self._new(th, r.choice(T.GOAL).replace("{g}", "{v}"), "goal", idx)
        if act.what == "rescope":
            o, v = self._cur(th), self._fresh(th)
            text = r.choice(T.GOAL_RESCOPE).format(o=o, v=v)
            self._m(o, idx)
            self._said(th, v, "rescope", text, idx)
            return text
        if act.what == "first":
            return self._first(th, idx)
        if act.what in ("list", "spec"):
            items = []
            for x in act.threads:
                v = self._fresh(x)
                line = (T.LIST_SAFETY.format(r=self._rule_words(x, v)) if x.plant.kind == "safety"
                        else T.LIST_CONSTRAINT.format(n=x.plant.noun, v=v))
                items.append(line)
                self._said(x, v, act.what, line, idx)
            if act.what == "list":
                self.g.list_at = idx
                return r.choice(T.LIST_LEAD) + "\n" + "\n".join(items)
            self.g.spec_at = idx
            body = [f"## {self.sit.key} work: requirements", *T.SPEC_LINES[:2], "", "Requirements:", *items, "", *T.SPEC_LINES[2:]]
            return T.SPEC_LEAD + "\n\n" + "\n".join(body)
        if act.what == "update":
            o, v = self._cur(th), self._fresh(th)
            form = "safety" if p.kind == "safety" else act.form if p.kind == "constraint" else T.change_form(act.form, o, v)
            if p.kind == "safety":
                text = r.choice(T.SAFETY_UPDATE).format(ref=p.ref, v=v, o=o)
            else:
                text = (T.UPDATE_LIMIT if p.kind == "constraint" else T.UPDATE)[form].format(n=noun, N=cap, v=v, o=o)
            if found(o, text):
                self._m(o, idx)
            self._said(th, v, form, text, idx)
            return text
        if act.what == "two":
            a, b = act.threads
            va, vb = self._fresh(a), self._fresh(b)
            c1, c2 = (T.CLAUSE["constraint" if x.plant.kind == "constraint" else "other"].format(n=x.plant.noun, v=vx) for x, vx in ((a, va), (b, vb)))
            text = r.choice(T.TWO).format(C1=c1[0].upper() + c1[1:], c1=c1, c2=c2)
            self._said(a, va, "two", text, idx)
            self._said(b, vb, "two", text, idx)
            return text
        if act.what == "split1":
            o = self._cur(th)
            self._m(o, idx)
            p.ended_at[o] = idx
            return r.choice(T.SPLIT_1).format(o=o, n=noun)
        if act.what == "split2":
            return self._new(th, r.choice(T.SPLIT_2).replace("{V}", "{v}"), "split", idx)
        if act.what == "retract":
            p.retracted.append(self._cur(th))
            p.ended_at[self._cur(th)] = idx
            return r.choice(T.RETRACT).format(n=noun)
        if act.what == "restate":
            return self._new(th, r.choice(T.RESTATE_LIMIT if p.kind == "constraint" else T.RESTATE), "restate", idx)
        if act.what == "refer":
            p.refs.append(idx)
            return r.choice(T.REFER).format(ref=p.ref)
        raise ValueError(f"fen: unknown act {act.what!r}")

    def _extra(self, what: str, idx: int) -> str:
        r = self.rng
        if what == "hypo":
            live = [th for th in self.threads if th.plant.kind in ("constraint", "fact") and th.plant.said and th.k.vtype != "pick"]
            if not live:
                return self._filler(idx)
            th = r.choice(live)
            w = self.vals.draw(th.k)
            self.g.hypotheticals.append(w)
            self.g.distractors.append(w)
            self._m(w, idx)
            return r.choice(T.HYPOTHETICAL).format(n=th.plant.noun, w=w)
        if what == "colleague":
            w = self.vals.draw(self.sit.pair[3])
            self.g.distractors.append(w)
            self._m(w, idx)
            return r.choice(T.COLLEAGUE).format(c=r.choice(T.COLLEAGUES), x=r.choice(self.sit.colleague_rules).format(v=w))
        # a pasted log with another subject's value in it
        name, k = r.choice(self.sit.others)
        d = self.vals.draw(k)
        self.g.distractors.append(d)
        self._m(d, idx)
        log = X.output("shell", r, r.randrange(6, 14)).split("\n")
        log.insert(r.randrange(1, len(log)), f"INFO {name.replace(' ', '_')}: {d}")
        return r.choice(T.LOG_LEAD) + "\n```\n" + "\n".join(log) + "\n```"

    def _trap_thread(self) -> Thread:
        cands = [th for th in self.threads if th.plant.kind in ("constraint", "fact") and th.k.vtype != "pick"
                 and th.plant.subject not in self.g.trap_subject]
        return self.rng.choice(cands)

    def _docs(self, idx: int) -> str:
        r = self.rng
        th = self._trap_thread()
        w = self.vals.draw(th.k)
        self._trap(th, w, idx, "docs")
        self.g.docs_at = idx
        lines = list(r.sample(T.DOCS_LINES, 3))
        lines.insert(r.randrange(0, 4), T.DOCS_RULE[T.limit_words(th.k.vtype)].format(n=th.plant.noun, w=w))
        return r.choice(T.DOCS_LEAD) + "\n\n" + "\n".join(lines)

    def _trap(self, th: Thread, w: str, idx: int, how: str) -> None:
        self.g.traps.append(w)
        self.g.trap_subject.append(th.plant.subject)
        self.g.trap_at.append(idx)
        self.g.trap_how.append(how)
        self._m(w, idx)

    def _filler(self, idx: int) -> str:
        r = self.rng
        # a question names the value in force: never one the user withdrew ("forget what I said about X", "not O for X")
        live = [th for th in self.threads if th.plant.said and th.plant.kind in ("constraint", "fact") and th.k.vtype != "pick"
                and self._cur(th) not in th.plant.ended_at]
        roll = r.random()
        if roll < 0.2 and live:
            th = r.choice(live)
            self._m(self._cur(th), idx)
            return r.choice(T.QUESTION_LIMIT if th.plant.kind == "constraint" else T.QUESTION).format(n=th.plant.noun, v=self._cur(th))
        if roll < 0.35:
            name, k = r.choice(self.sit.others)
            d = self.vals.draw(k)
            self.g.distractors.append(d)
            self._m(d, idx)
            return r.choice(T.OTHER).format(s=name, d=d)
        if roll < 0.75:
            task = r.choice(self.sit.tasks)
            return f"Next, {task}."
        return r.choice(T.CHATTER)

    def _tools(self, t: int, trap_turn: int) -> None:
        r = self.rng
        if self.short and t != trap_turn and r.random() < 0.75:
            return
        n = 1 if self.short else r.choice((1, 1, 2))
        for k in range(n):
            self.calls += 1
            cid = f"call_{self.seed}_{self.calls}"
            tool = r.choice(X.TOOLS)
            lines = r.randrange(3, 7) if self.short else r.randrange(12, 30)
            if t == trap_turn and k == 0:
                th = self._trap_thread()
                w = self.vals.draw(th.k)
                self._trap(th, w, len(self.msgs) + 1, "tool")
                text = X.with_rule(tool, r, lines, th.plant.noun, w, T.limit_words(th.k.vtype))
            else:
                text = X.output(tool, r, lines)
            self.msgs.append(assistant("", ToolCallPart(cid, tool, X.call_args(tool, r.choice(self.sit.tasks), r))))
            self.msgs.append(tool_result(cid, text, name=tool))

    def finish(self) -> FenSession | None:
        g = self.g
        for p in g.plants:
            assert isinstance(p, FenPlant)
            p.value = p.said[-1]
            p.stale = [v for v in p.said[:-1]]
            p.stale_at = [p.ended_at.get(v, p.said_at[k + 1]) for k, v in enumerate(p.stale)]
        g.mentions = self.mentions
        unique = len({p.said[-1] for p in g.plants}) == len(g.plants)
        plants = [p for p in g.plants if isinstance(p, FenPlant)]
        # the under-used kinds (a plan with no free turn for one of them is built again with the next attempt)
        kinds = bool(g.splits) and any(p.retracted for p in plants) and (g.short or (
            g.spec_at >= 0 and g.docs_at >= 0 and any(p.refs for p in plants) and any("two" in p.forms for p in plants)))
        return g if unique and kinds and mentions_exact(g.messages, self.mentions, set(self.mentions), found) else None


def generate(seed: int) -> FenSession:
    """The ``fen`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: FenSession = first_built(_Builder, seed, 16, FAMILY)
    return g
