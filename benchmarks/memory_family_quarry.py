"""The ``quarry`` family of the memory benchmark (seeds 20000+): HELD OUT.

Written by i11f (issue 11, 2026-11-24), who has tuned none of the ledger and has not read any
family's outputs or failures, and committed before any run of the ledger on it; only the lead runs
``python benchmarks/bench_memory.py --family quarry``, once. Its sentences
(``memory_quarry_text.py``), values (``memory_quarry_values.py``) and tool output
(``memory_quarry_tools.py``) are its own.

A session is someone using a coding agent on one team's work (a game studio, a hospital shift
scheduler, an embedded firmware team, a legal-document search product, a fintech reconciliation
job, an open-source maintainer) — every session mixes two teams; one in five is SHORT and
rule-heavy (13 statements in a handful of turns, the issue's "error instead of an answer" case at
10–20% budgets). Each person has a voice: terse lower-case without final stops, typos, long
rambling messages, or neat sentences. The opening request is the goal (a third of the sessions
put a harness ``<environment_context>`` block in the same message, a third in a message of its
own); safety rules, hard constraints, preferences and facts (people, owners, hosts, ports,
versions, paths, ticket ids, amounts, dates, times, durations, sizes, percentages, counts) follow,
plus a pair of different subjects sharing words per team. Statements are updated 0–3 times
(safety rules at most once, by a correction): a paraphrase, another name for the subject (synonym,
abbreviation, possessive), the subject named only in the sentence before, a correction (some name
the old value), a relative change with its result, a new value in another unit or format, a
return to the first value — in the same message, the next turn or up to 25 turns later, alone,
among other statements, inside a question, a bulleted list, a config snippet or a quote. Around
them: chatter, tasks, pasted snippets, questions naming a subject, a current value said again
without a change, statements about other subjects with values of the same type, an assistant
echoing values, bulky tool output. What must NOT enter the ledger: a ``<system-reminder>`` in a
user message and a CONTRIBUTING page a tool printed, each with a value of its own for a planted
subject.

Every tracked value (planted, superseded, distractor, trap) is unique in its session, and
``generate`` checks that each is found (by the benchmark's own match) in exactly the messages it
put it in (``QuarrySession.mentions``); tests/test_memory_family_quarry.py checks the generator
against its text. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field

import memory_quarry_text as T
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_quarry_text import Pair, Subj
from memory_quarry_tools import contrib_output, tool_output
from memory_quarry_values import BYSTANDERS, NUMERIC, Q, Values, found
from memory_quarry_values import FORMS as VALUE_FORMS
from memory_sessions import Generated, Plant, first_built, mentions_exact

FAMILY = "quarry"
SEED_BASE = 20_000
#: how an update is worded / where it is carried
FORMS = ("para", "alias", "implied", "correct", "correct_named", "rel", "units", "revert")
CARRIERS = ("plain", "same", "multi", "ask", "list", "code", "quote")
VOICES = ("terse", "typo", "ramble", "neat")
STRINGY = ("person", "name", "host", "port", "version", "path", "ticket", "choice")
_MARK = re.compile(r"⟦(\d+)⟧")


@dataclass
class QuarryPlant(Plant):
    subject: str = ""  # Subj.key, "pair:<noun>" or "goal"
    noun: str = ""
    vtype: str = ""
    said: list[str] = field(default_factory=list)  # each value in the order the user set it (the first, then each update)
    said_at: list[int] = field(default_factory=list)  # the message of each
    mags: list[float | None] = field(default_factory=list)  # what each means as a number (quantities)
    forms: list[str] = field(default_factory=list)  # per update (FORMS)
    carriers: list[str] = field(default_factory=list)  # per update (CARRIERS)
    moves: list[int] = field(default_factory=list)  # per update: the way its words say it moved (1 up/later, -1 down/earlier, 0 not said)
    texts: list[str] = field(default_factory=list)  # per update: its sentence, values filled, before the voice
    statement: str = ""  # the first statement, values filled, before the voice


@dataclass
class QuarrySession(Generated):
    #: value text → the messages the generator put it in (planted, superseded, distractor and trap values)
    mentions: dict[str, list[int]] = field(default_factory=dict)
    distractors: list[str] = field(default_factory=list)  # values of other subjects, never planted
    traps: list[str] = field(default_factory=list)  # values for a planted subject said only by a harness block or a tool
    trap_at: list[int] = field(default_factory=list)
    trap_subject: list[str] = field(default_factory=list)
    short: bool = False
    voice: str = ""
    domains: tuple[str, ...] = ()
    attempt: int = 0  # which draw passed the uniqueness check


@dataclass
class Thread:
    plant: QuarryPlant
    names: tuple[str, ...]  # the plain noun first, then other names
    subj: Subj | None = None
    pair: Pair | None = None
    vals: list[Q] = field(default_factory=list)


@dataclass
class Ev:
    turn: int
    thread: Thread
    step: int  # 0: the first statement; k: the k-th update
    form: str = ""
    carrier: str = ""
    val: Q | None = None
    old: Q | None = None
    delta: str = ""
    partner: Thread | None = None  # a pair said in one sentence


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Builder:
    def __init__(self, seed: int, attempt: int) -> None:
        self.r = random.Random(f"quarry:{seed}:{attempt}")
        self.seed, self.attempt = seed, attempt
        self.vals = Values(self.r)
        self.reg: list[str] = []  # marker index → value text
        self.messages: list[Message] = []
        self.threads: list[Thread] = []
        self.events: list[Ev] = []
        self.distractors: list[str] = []
        self.traps: list[tuple[str, str]] = []  # (value, subject key)
        self.trap_at: list[int] = []
        self.calls = 0

    # --- values in text ---------------------------------------------------------------------
    def mark(self, text: str) -> str:
        self.reg.append(text)
        return f"⟦{len(self.reg) - 1}⟧"

    def fill(self, template: str, **kw: str) -> str:
        """``template`` with names filled; values (already markers) keep their case under any voice."""
        if "s" in kw:
            kw.setdefault("S", _cap(kw["s"]))
        return template.format(**kw)

    def voiced(self, text: str, voice: str) -> str:
        r = self.r
        if voice == "terse":
            return text.lower().rstrip(".!")
        if voice == "typo":
            for a, b in T.TYPOS.items():
                if r.random() < 0.6:
                    text = text.replace(a, b)
            return text.rstrip(".") if r.random() < 0.5 else text
        if voice == "neat":
            text = _cap(text)
            return text if text[-1:] in ".?:!\"`" else text + "."
        return text

    # --- planning -----------------------------------------------------------------------------
    def plan(self) -> None:
        r = self.r
        self.short = self.seed % 5 == 3
        names = sorted(T.DOMAINS)
        self.domains = tuple(r.sample(names, 2))
        self.voice = r.choice(VOICES)
        self.turns = r.randint(6, 8) if self.short else r.randint(30, 38)
        pool = [s for d in self.domains for s in T.DOMAINS[d]]
        want = {"safety": 3, "constraint": 4, "preference": 2, "fact": 3} if self.short else {"safety": 2, "constraint": 3, "preference": 2, "fact": 7}
        chosen: list[Subj] = []
        for kind, n in want.items():
            of_kind = [s for s in pool if s.kind == kind]
            chosen += r.sample(of_kind, min(n, len(of_kind)))
        r.shuffle(chosen)
        # the goal
        gtext = r.choice(T.GOAL_VALUES[self.domains[0]])
        self.vals.reserve(gtext)
        gp = QuarryPlant(kind="goal", value=gtext, subject="goal", noun="the goal", vtype="goal")
        self.goal = Thread(gp, ("the goal",), vals=[Q(gtext, "goal")])
        self.threads.append(self.goal)
        last_plant = max(2, self.turns - 3) if self.short else int(self.turns * 0.55)
        for s in chosen:
            th = Thread(QuarryPlant(kind=s.kind, value="", subject=s.key, noun=s.noun, vtype=s.vtype), (s.noun, *s.others), subj=s)
            th.vals.append(self.vals.new(s.vtype, stem=s.stem, unit=s.unit, cur=s.cur, choices=s.choices, span=s.span))
            self.threads.append(th)
            self._schedule(th, r.randint(1, last_plant))
        pairs = [p for d in self.domains for p in T.PAIRS[d]]
        if self.short:
            pairs = pairs[:1] if r.random() < 0.5 else []
        for k, p in enumerate(pairs):
            a, b = (Thread(QuarryPlant(kind=p.kind, value="", subject=f"pair:{n}", noun=n, vtype=p.vtype, pair=self.seed * 10 + k), (n,), pair=p) for n in p.nouns)
            for th in (a, b):
                th.vals.append(self.vals.new(p.vtype, stem=p.stem, unit=p.unit, span=p.span))
                self.threads.append(th)
            at = r.randint(1, last_plant)
            if r.random() < 0.6:
                self.events.append(Ev(at, a, 0, partner=b))
                self._updates(a, at)
                self._updates(b, at)
            else:
                self._schedule(a, at)
                self._schedule(b, r.randint(1, last_plant))
        if not self.short and r.random() < 0.3:  # the goal changes once
            at = r.randint(self.turns // 3, self.turns - 4)
            other = [g for g in T.GOAL_VALUES[self.domains[0]] if g != gtext]
            new = r.choice(other)
            self.vals.reserve(new)
            self.events.append(Ev(at, self.goal, 1, form="goal", carrier="plain", val=Q(new, "goal"), old=self.goal.vals[0]))
            self.goal.vals.append(Q(new, "goal"))
        # traps: a harness reminder (most sessions) and a CONTRIBUTING page a tool printed (long sessions)
        cands = [th for th in self.threads if th.subj and th.subj.vtype not in ("choice",)]
        self.trap_plan: list[tuple[str, Thread, Q, int]] = []
        for where in (("reminder", "contrib") if not self.short else ("reminder",)):
            if where == "reminder" and r.random() < 0.25:
                continue
            th = r.choice(cands)
            first = min(e.turn for e in self.events if e.thread is th and e.step == 0)
            if first + 1 >= self.turns:
                continue
            s = th.subj
            assert s is not None
            tv = self.vals.new(s.vtype, stem=s.stem, unit=s.unit, cur=s.cur, choices=s.choices, span=s.span)
            self.trap_plan.append((where, th, tv, r.randint(first + 1, self.turns - 1)))
        self.events.sort(key=lambda e: (e.turn, e.step > 0))

    def _schedule(self, th: Thread, at: int) -> None:
        self.events.append(Ev(at, th, 0))
        self._updates(th, at)

    def _updates(self, th: Thread, at: int) -> None:
        r = self.r
        kind, vtype = th.plant.kind, th.plant.vtype
        n = r.choices((0, 1, 2, 3), weights=(30, 35, 23, 12))[0]
        if kind == "safety":
            n = min(n, 1)
        turn = at
        for k in range(1, n + 1):
            gap = r.choices((0, 1, 2, 12), weights=(12 if k == 1 else 0, 30, 35, 23))[0]
            gap = {0: 0, 1: 1, 2: r.randint(2, 6), 12: r.randint(10, 25)}[gap]
            if turn + gap > self.turns - 1:
                break
            turn += gap
            old = th.vals[-1]
            forms = ["correct", "correct_named"] if gap == 0 or kind == "safety" else ["para", "para", "alias", "implied", "correct", "correct_named"]
            if vtype in NUMERIC and gap and kind != "safety":
                forms += ["rel", "rel"]
            big = vtype != "count" or (old.mag or 0) >= 1000  # "1.2k" only where the numbers are that big
            if vtype in VALUE_FORMS and VALUE_FORMS[vtype] > 1 and gap and kind != "safety" and big:
                forms += ["units"]
            if k >= 2 and k == n and gap and kind != "safety" and th.vals[0].text != old.text:
                forms += ["revert", "revert"]
            form = r.choice(forms)
            ev = Ev(turn, th, k, form=form, old=old)
            unit = th.subj.unit if th.subj else th.pair.unit if th.pair else ""
            cur = th.subj.cur if th.subj else "USD"
            if form == "rel":
                got = self.vals.shifted(old, r.choice((1, -1)), unit=unit, cur=cur)
                if got is None:
                    form = ev.form = "para"
                else:
                    ev.val, ev.delta = got
            if form == "revert":
                ev.val = th.vals[0]
            elif form == "units":
                other = [f for f in range(VALUE_FORMS[vtype]) if f != old.form]
                ev.val = self.vals.new(vtype, unit=unit, cur=cur, form=r.choice(other), near=old.mag)
            elif ev.val is None:
                s = th.subj
                ev.val = self.vals.new(vtype, stem=s.stem if s else (th.pair.stem if th.pair else ""), unit=unit, cur=cur,
                                       choices=s.choices if s else (), form=old.form, near=old.mag)
            if gap == 0:
                ev.carrier = "same"
            else:
                carriers = ["plain", "plain", "multi", "list", "quote"]
                if form in ("para", "alias", "units") and kind != "safety":
                    carriers.append("ask")
                if form in ("para", "alias") and vtype in STRINGY and th.subj is not None:
                    carriers.append("code")
                ev.carrier = r.choice(carriers)
            th.vals.append(ev.val)
            self.events.append(ev)
            if form == "revert":
                break

    # --- writing --------------------------------------------------------------------------------
    def statement(self, ev: Ev) -> tuple[str, int]:
        """The sentence of one event (markers for values) and the way its words say the value moved."""
        r, th = self.r, ev.thread
        if ev.step == 0:
            if ev.partner is not None:
                assert th.pair is not None
                return self.fill(r.choice(th.pair.joint), v1=self.mark(th.vals[0].text), v2=self.mark(ev.partner.vals[0].text)), 0
            if th.pair is not None:
                return self.fill(r.choice(th.pair.one), s=th.names[0], v=self.mark(th.vals[0].text)), 0
            assert th.subj is not None
            return self.fill(r.choice(th.subj.plant), v=self.mark(th.vals[0].text)), 0
        assert ev.val is not None and ev.old is not None
        v, o = self.mark(ev.val.text), ev.old
        if ev.form == "goal":
            return self.fill(r.choice(T.GOAL_UPDATE), v=v, o=self.mark(o.text)), 0
        alias = r.choice(th.names[1:]) if len(th.names) > 1 else th.names[0]
        s = alias if ev.form == "alias" or (ev.form == "correct" and r.random() < 0.4) else th.names[0]
        move = 0 if ev.val.mag is None or o.mag is None else (1 if ev.val.mag > o.mag else -1)
        dated = th.plant.vtype == "date"
        if ev.carrier == "ask":
            return self.fill(r.choice(T.ASK), s=s, v=v), 0
        if ev.form in ("para", "alias", "units"):
            vt = th.plant.vtype
            if move and r.random() < 0.6:
                pool = (T.LATER if move > 0 else T.EARLIER) if dated else (T.UP if move > 0 else T.DOWN) if vt not in ("time",) else ()
                if pool:
                    return self.fill(r.choice(pool), s=s, v=v), move
            key = vt if vt in T.PARA else "quantity"
            return self.fill(r.choice(T.PARA[key]), s=s, v=v), 0
        if ev.form == "implied":
            team = T.TEAM[self.domains[0]]
            return self.fill(r.choice(T.IMPLIED), s=s, v=v, team=team), 0
        if ev.form == "correct":
            return self.fill(r.choice(T.CORRECT), s=s, v=v), 0
        if ev.form == "correct_named":
            return self.fill(r.choice(T.CORRECT_NAMED), s=s, v=v, o=self.mark(o.text)), 0
        if ev.form == "rel":
            pool = (T.REL_LATER if move > 0 else T.REL_EARLIER) if dated else (T.REL_UP if move > 0 else T.REL_DOWN)
            return self.fill(r.choice(pool), s=s, v=v, d=ev.delta), move
        if ev.form == "revert":
            return self.fill(r.choice(T.REVERT), s=s, v=v), 0
        raise AssertionError(ev.form)

    def carried(self, ev: Ev, text: str) -> tuple[str, bool]:
        """The statement as its carrier holds it; True when the voice must not touch it (a quote, a snippet)."""
        r, th = self.r, ev.thread
        if ev.carrier == "quote":
            return self.fill(r.choice(T.QUOTE), who=r.choice(BYSTANDERS), stmt=_cap(text)), True
        if ev.carrier == "code":
            s = th.subj
            assert s is not None and ev.val is not None
            key = s.key_in_code or re.sub(r"\W+", "_", s.noun.removeprefix("the ")).strip("_").upper()
            lead = self.fill(r.choice(T.CODE_LEAD), s=th.names[0] if ev.form == "para" else r.choice(th.names[1:]))
            return f"{lead}\n```\n{key}={self.mark(ev.val.text)}\n```", True
        return text, False

    def current(self, th: Thread, upto: int) -> Q:
        """``th``'s value after the events before index ``upto`` of the sorted event list."""
        done = [e for e in self.events[:upto] if e.thread is th or e.partner is th]
        last = max((e for e in done if e.thread is th), key=lambda e: e.step, default=None)
        return th.vals[last.step] if last else th.vals[0]

    def said(self, upto: int) -> list[Thread]:
        return [th for th in self.threads if th is not self.goal and any((e.thread is th or e.partner is th) and e.step == 0 for e in self.events[:upto])]

    def add(self, m: Message) -> int:
        self.messages.append(m)
        return len(self.messages) - 1

    def tool(self, domain: str, small: bool) -> tuple[str, str, bool]:
        tracked = self.vals.taken
        for _ in range(50):
            out = tool_output(self.r, domain, small=small)
            if not any(found(v, out[1]) for v in tracked):
                return out
        raise RuntimeError("quarry: no tool output free of the session's values")

    def write(self) -> None:
        r = self.r
        env_where = self.seed % 3  # 0: none, 1: in the goal message, 2: a message of its own
        env = T.ENV.format(repo=T.REPOS[self.domains[0]])
        if env_where == 2:
            self.add(user(env))
        gv = self.mark(self.goal.vals[0].text)
        opening = self.voiced(self.fill(r.choice(T.GOAL_OPEN), v=gv), self.voice)
        at = self.add(user(f"{env}\n{opening}" if env_where == 1 else opening))
        self.goal.plant.said_at.append(at)
        self.goal.plant.statement = opening
        self._reply(0)
        idx = 0
        for turn in range(1, self.turns):
            start = idx
            while idx < len(self.events) and self.events[idx].turn == turn:
                idx += 1
            self._turn(turn, self.events[start:idx], idx)

    def _turn(self, turn: int, evs: list[Ev], upto: int) -> None:
        r = self.r
        voice = self.voice if r.random() < 0.75 else r.choice(VOICES)
        pieces: list[tuple[str, bool]] = []  # (text, keep as is)
        texts: dict[int, str] = {}
        listy = any(e.carrier == "list" for e in evs) or (sum(1 for e in evs if e.carrier != "same") >= 3 and r.random() < 0.5)
        for k, ev in enumerate(evs):
            text, move = self.statement(ev)
            piece = self.carried(ev, text)
            texts[k] = piece[0]
            if ev.step:
                ev.thread.plant.moves.append(0 if ev.carrier == "code" else move)
            pieces.append(piece)
        said = self.said(upto)
        extras: list[str] = []
        if not evs or r.random() < 0.4:
            extras.append(r.choice(T.TASKS if r.random() < 0.6 else T.CHATTER))
        if said and r.random() < (0.15 if evs else 0.3):
            th = r.choice(said)
            if not any(e.thread is th for e in evs):
                extras.append(self.fill(r.choice(T.QUESTIONS), s=th.names[0]))
        quiet = [th for th in said if not any(e.thread is th or e.partner is th for e in evs)]
        if quiet and r.random() < 0.15:
            th = r.choice(quiet)
            extras.append(self.fill(r.choice(T.REPEAT), s=th.names[0], v=self.mark(self.current(th, upto).text)))
        if r.random() < (0.15 if evs else 0.3) or (any(e.carrier == "multi" for e in evs) and len(evs) + len(extras) < 2):
            self._other(extras)
        pieces += [(x, False) for x in extras]
        if r.random() < 0.08 and not self.short:
            cmd, out, _ = self.tool(self.domains[-1], True)
            pieces.append((f"getting this when I run {cmd}:\n```\n{out}\n```", True))
        text = self._assemble(pieces, voice, listy)
        for where, th, tv, tturn in self.trap_plan:
            if where == "reminder" and tturn == turn:
                s = th.subj
                assert s is not None
                text = T.REMINDER.format(n=s.noun, t=self.mark(tv.text)) + "\n" + text
                self.traps.append((tv.text, s.key))
                self.trap_at.append(len(self.messages))
        at = self.add(user(text))
        for k, ev in enumerate(evs):
            p = ev.thread.plant
            if ev.step == 0:
                p.said_at.append(at)
                p.statement = texts[k]
                if ev.partner is not None:
                    ev.partner.plant.said_at.append(at)
                    ev.partner.plant.statement = texts[k]
            else:
                p.said_at.append(at)
                p.forms.append(ev.form)
                p.carriers.append(ev.carrier)
                p.texts.append(texts[k])
        self._reply(turn, evs, upto)

    def _other(self, extras: list[str]) -> None:
        r = self.r
        vtypes = sorted({th.plant.vtype for th in self.threads if T.OTHER.get(th.plant.vtype)})
        vt = r.choice(vtypes)
        q = self.vals.new(vt, stem=r.choice(("nas", "printer", "homelab")), unit=T.OTHER_UNITS.get(vt, ""))
        self.distractors.append(q.text)
        extras.append(self.fill(r.choice(T.OTHER[vt]), v=self.mark(q.text)))

    def _assemble(self, pieces: list[tuple[str, bool]], voice: str, listy: bool) -> str:
        r = self.r
        plain = [p if keep else self.voiced(p, voice) for p, keep in pieces]
        if listy and len(pieces) >= 2:
            lead = self.voiced(r.choice(T.LIST_LEAD), voice)
            return lead + "\n" + "\n".join(f"- {p}" for p in plain)
        if voice == "ramble" and len(plain) >= 1:
            body = plain[0]
            for p in plain[1:]:
                join = r.choice(T.JOIN)
                body += (" " + join.lstrip(".,").strip() + " " if body[-1:] in "?.!" else join) + p
            return f"{r.choice(T.RAMBLE)} {body}"
        sep = " " if voice == "neat" else "\n"
        return sep.join(plain)

    def _reply(self, turn: int, evs: list[Ev] | None = None, upto: int = 0) -> None:
        r = self.r
        echo = ""
        said = self.said(upto) if turn else []
        if said and r.random() < 0.35:
            mine = [e.thread for e in evs or [] if e.thread is not self.goal]
            th = r.choice(mine) if mine and r.random() < 0.6 else r.choice(said)
            echo = " " + self.fill(r.choice(T.ECHO), s=th.names[0], v=self.mark(self.current(th, upto).text))
        p_tool = 0.45 if self.short else 0.8
        contrib = [(th, tv) for where, th, tv, t in self.trap_plan if where == "contrib" and t == turn]
        if contrib or r.random() < p_tool:
            self.calls += 1
            cid = f"call_{self.seed}_{self.calls}"
            if contrib:
                th, tv = contrib[0]
                s = th.subj
                assert s is not None
                cmd, out, err = contrib_output(T.CONTRIB.format(n=s.noun, t=self.mark(tv.text)))
                self.traps.append((tv.text, s.key))
                self.trap_at.append(len(self.messages) + 1)
            else:
                cmd, out, err = self.tool(r.choice(self.domains), self.short)
            self.add(assistant(r.choice(T.ACKS), ToolCallPart(cid, "shell", json.dumps({"cmd": cmd}))))
            self.add(tool_result(cid, out, name="shell", is_error=err))
        self.add(assistant(r.choice(T.DONE) + echo))

    # --- the result -------------------------------------------------------------------------------
    def finish(self) -> QuarrySession | None:
        msgs = [self._unmark(m) for m in self.messages]
        mentions: dict[str, set[int]] = {}
        for i, m in enumerate(self.messages):
            for k in _MARK.findall(m.text):
                mentions.setdefault(self.reg[int(k)], set()).add(i)
        for th in self.threads:
            p = th.plant
            p.said = [q.text for q in th.vals]
            p.mags = [q.mag for q in th.vals]
            p.value = p.said[-1]
            p.stale, p.stale_at = [], []
            for k in range(1, len(p.said)):
                old = p.said[k - 1]
                if old != p.value and old not in p.stale:
                    p.stale.append(old)
                    p.stale_at.append(p.said_at[k])
            p.statement = self._unmark_text(p.statement)
            p.texts = [self._unmark_text(t) for t in p.texts]
        g = QuarrySession(messages=msgs, plants=[th.plant for th in self.threads], family=FAMILY, seed=self.seed,
                          mentions={v: sorted(ix) for v, ix in mentions.items()}, distractors=self.distractors,
                          traps=[v for v, _ in self.traps], trap_at=self.trap_at, trap_subject=[k for _, k in self.traps],
                          short=self.short, voice=self.voice, domains=self.domains, attempt=self.attempt)
        return g if _consistent(g) else None

    def _unmark_text(self, text: str) -> str:
        return _MARK.sub(lambda m: self.reg[int(m.group(1))], text)

    def _unmark(self, m: Message) -> Message:
        if m.role == "tool":
            res = m.tool_results[0]
            return tool_result(res.call_id, self._unmark_text(res.text), name=res.name, is_error=res.is_error)
        if m.role == "assistant":
            return assistant(self._unmark_text(m.text), *m.tool_calls)
        return user(self._unmark_text(m.text))


def _consistent(g: QuarrySession) -> bool:
    """Every tracked value is found in exactly the messages the generator put it in, and none inside another."""
    values = set(g.mentions) | {v for p in g.plants for v in p.stale} | {p.value for p in g.plants}
    return mentions_exact(g.messages, g.mentions, values, found)


def generate(seed: int) -> QuarrySession:
    """The ``quarry`` session of ``seed`` (deterministic: the same seed gives the same session)."""
    g: QuarrySession = first_built(_Builder, seed, 8, "quarry")
    return g
