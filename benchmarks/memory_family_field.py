"""The ``field`` family of the memory benchmark (seeds 18000+): HELD OUT.

Written by i11h (issue 11, 2026-11-24), who has tuned none of the ledger, and committed before any
run of the ledger on it; only the lead runs ``python benchmarks/bench_memory.py --family field``,
once. Its sentences (``memory_field_text.py``) are its own.

A session reads like a coding agent's: an opening request (sometimes after an agent harness's
``<environment_context>`` block), then rules, preferences, facts (people, owners, hosts, ports,
versions, paths, ticket ids, amounts, dates, durations, sizes, counts) and pairs of different
subjects that share words, said alone, in long messages among prose, two to a sentence, or as a
bulleted list; later updated 0–3 times each, at varying distances (the same message, the next
turn, far later), in other words: a paraphrase, a correction (some name the old value: "…, not
X"), an implied subject (the subject only in the clause before), a relative change that states
its result, a value in other units or another format. Around them: chatter, tasks, questions
naming a subject, statements that repeat a current value without changing it, statements about
other subjects with values of the same type, an assistant that sometimes echoes a value, and tool
output of several shapes and sizes (pytest, git log, grep, kubectl, logs printing "error" with exit
0, source files).

Every value is unique in its session (no value is found inside another with the benchmark's own
match), and the generator checks that each value appears exactly in the messages it put it in
(``FieldSession.mentions``); tests/test_memory_family_field.py checks the same from the text.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from memory_field_text import (
    ACKS,
    CHATTER,
    CODENAMES,
    CONSTRAINTS,
    ENV_BLOCK,
    FACTS,
    GOAL_OPEN,
    GOAL_SERVICES,
    GOAL_UPDATE,
    HIGHER,
    JOINS,
    JS_MANAGERS,
    LANGUAGES,
    LIBS,
    LIST_LEADS,
    LOWER,
    LOWERABLE,
    MOCKERS,
    NARRATIVE,
    PAIR_BOTH,
    PAIR_PLANT,
    PAIR_UPDATE,
    PAIRS,
    PEOPLE,
    PREFERENCES,
    QUESTIONS,
    SAFETY,
    SAME_MESSAGE,
    SERVICES,
    TASKS,
    TOPICS,
    Slot,
)
from memory_field_tools import Avoid, tool_output
from memory_sessions import Generated, Plant, value_pattern

FAMILY = "field"
SEED_BASE = 18_000
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
#: a relative change that lowers the value (every other relative template raises it)
LOWERS = ("gained", "trimmed")
DAY_DELTAS = [(7, "a week"), (3, "three days"), (14, "two weeks"), (5, "five days")]


def pattern(value: str) -> re.Pattern[str]:
    """The benchmark's own test for "``value`` is in a text" (bench_memory.py), for lower-case text."""
    return value_pattern(value)


def hit(value: str, text: str) -> bool:
    low, v = text.lower(), value.lower()
    return v in low and pattern(value).search(low) is not None


def found_in(value: str, lowered: list[str]) -> list[int]:
    """Indices of the (lower-cased) texts that hold ``value``."""
    p, low = pattern(value), value.lower()
    return [i for i, t in enumerate(lowered) if low in t and p.search(t)]


@dataclass(frozen=True)
class Val:
    text: str
    n: float | None = None  # what a number means (seconds, MB, ms, dollars, a day, a count)
    unit: str = ""  # the unit the text is written in ("minutes", "GB", "iso", "k" …)


@dataclass
class FieldPlant(Plant):
    subject: str = ""
    statement: str = ""  # the sentence that first states it
    said_at: int = -1  # index of the message that first states it
    forms: list[str] = field(default_factory=list)  # how each update was said
    meanings: list[float | None] = field(default_factory=list)  # what each value in turn means as a number (stale…, current)


@dataclass
class FieldSession(Generated):
    #: value text → indices of the messages the generator put it in (planted, superseded and distractor values)
    mentions: dict[str, list[int]] = field(default_factory=dict)
    distractors: list[str] = field(default_factory=list)  # values of other subjects, never planted


class FieldValues:
    """Unique values of each kind for one session: unique in what they mean and in how they read."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.texts: list[str] = []
        self.meant: set[str] = set()

    def _free(self, text: str, key: str) -> bool:
        return key not in self.meant and not any(hit(text, u) or hit(u, text) for u in self.texts)

    def take(self, text: str, key: str) -> bool:
        if not self._free(text, key):
            return False
        self.texts.append(text)
        self.meant.add(key)
        return True

    # --- numbers and their forms -----------------------------------------------------------------
    def _draw(self, vkind: str) -> float:
        r = self.rng
        if vkind == "date":
            return r.randrange(12) * 100 + r.randint(2, 27)
        if vkind == "money":
            return r.randint(4, 60) * 100
        if vkind == "seconds":
            return r.choice([30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800])
        if vkind == "ms":
            return r.randint(2, 9) * 50
        if vkind == "mb":
            return r.choice([256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096])
        if vkind == "percent":
            return r.randint(60, 95)
        unit = vkind.split(":", 1)[1]
        lo, hi, step = {"lines": (150, 900, 50), "characters": (50, 100, 1), "columns": (79, 120, 1), "rows": (100, 5000, 100),
                        "connections": (8, 64, 1), "replicas": (2, 12, 1), "attempts": (2, 6, 1), "lines of context": (2, 12, 1)}[unit]
        return r.randrange(lo, hi + 1, step)

    def forms(self, vkind: str, n: float) -> list[Val]:
        """Every way to write ``n`` of ``vkind``."""
        k = int(n)
        if vkind == "date":
            m, d = divmod(k, 100)
            return [Val(f"{MONTHS[m]} {d}", n, "md"), Val(f"{d} {MONTHS[m]}", n, "dm"), Val(f"{MONTHS[m][:3]} {d}", n, "short"),
                    Val(f"2026-{m + 1:02d}-{d:02d}", n, "iso")]
        if vkind == "money":
            out = [Val(f"${k:,}", n, "$"), Val(f"{k:,} dollars", n, "dollars")]
            return out + ([Val(f"{k / 1000:g}k dollars", n, "k")] if k >= 1000 else [])
        if vkind == "seconds":
            out = [Val(f"{k} seconds", n, "seconds")] if k <= 300 else []
            return out + ([Val(f"{k // 60} minutes", n, "minutes")] if k % 60 == 0 and k >= 120 else [])
        if vkind == "ms":
            return [Val(f"{k} ms", n, "ms"), Val(f"{k / 1000:g} seconds", n, "seconds")]
        if vkind == "mb":
            out = [Val(f"{k} MB", n, "MB")] if k <= 2048 else []
            return out + ([Val(f"{k / 1024:g} GB", n, "GB")] if k % 512 == 0 and k >= 1024 else [])
        if vkind == "percent":
            return [Val(f"{k}%", n, "%")]
        return [Val(f"{k:,} {vkind.split(':', 1)[1]}", n, vkind)]

    def _word(self, vkind: str, svc: str) -> str:
        r = self.rng
        return {
            "name": lambda: r.choice(PEOPLE),
            "host": lambda: f"{r.choice(['pg', 'kv', 'mq', 'edge', 'build', 'vault', 'search'])}{r.randint(2, 60)}."
                            f"{r.choice(['ams', 'fra', 'iad', 'sin', 'gru'])}.{r.choice(['corp.test', 'infra.test', 'ops.test'])}",
            "port": lambda: str(r.randint(20000, 32999)),
            "version": lambda: f"{r.randint(1, 6)}.{r.randint(20, 89)}.{r.randint(0, 15)}",
            "path": lambda: f"/{r.choice(['etc', 'opt', 'srv'])}/{svc}/{r.choice(['conf.d', 'settings.toml', 'config.yaml', 'app.ini', 'env'])}",
            "datapath": lambda: f"/{r.choice(['srv', 'data', 'mnt/vol1'])}/{svc}/{r.choice(['exports', 'uploads', 'invoices', 'archive'])}",
            "ticket": lambda: f"{r.choice(['FLD', 'MIG', 'PLAT', 'OPS'])}-{r.randint(100, 4999)}",
            "codename": lambda: r.choice(CODENAMES),
            "lang": lambda: r.choice(LANGUAGES),
            "jspm": lambda: r.choice(JS_MANAGERS),
            "mock": lambda: r.choice(MOCKERS),
            "branch": lambda: f"release/{r.randint(2, 9)}.{r.randint(0, 30)}",
            "db": lambda: f"{svc.replace('-', '_')}_prod",
            "bucket": lambda: f"s3://{svc}-tfstate-{r.choice(['eu', 'us', 'ap'])}",
        }[vkind]()

    def new(self, vkind: str, svc: str = "", avoid_unit: str | None = None, beyond: tuple[float, int] | None = None) -> Val:
        """A fresh value of ``vkind`` (written in another unit/format than ``avoid_unit``; above or below
        ``beyond = (n, +1 | -1)`` when given); RuntimeError when none is left."""
        for _ in range(3000):
            if vkind in ("date", "money", "seconds", "ms", "mb", "percent") or vkind.startswith("count:"):
                n = self._draw(vkind)
                if beyond is not None and (n - beyond[0]) * beyond[1] <= 0:
                    continue
                options = [f for f in self.forms(vkind, n) if avoid_unit is None or f.unit != avoid_unit]
                if not options:
                    continue
                v = self.rng.choice(options)
                if self.take(v.text, f"{vkind} {n}"):
                    return v
            else:
                text = self._word(vkind, svc or self.rng.choice(SERVICES))
                if self.take(text, f"{vkind} {text}"):
                    return Val(text)
        raise RuntimeError(f"ran out of unique {vkind} values")

    def relative(self, vkind: str, old: Val, sign: int) -> tuple[Val, str] | None:
        """A value ``old`` changed by a delta (raised or lowered by ``sign``) and the delta said in words."""
        assert old.n is not None
        for _ in range(200):
            if vkind == "date":
                days, said = self.rng.choice(DAY_DELTAS)
                m, d = divmod(int(old.n), 100)
                if not 2 <= d + sign * days <= 28:
                    continue
                n = m * 100 + d + sign * days
            else:
                base = self._draw(vkind)
                delta = max(abs(base - old.n) // 2, 1)
                if vkind in ("money", "mb") or vkind.startswith("count:lines") or vkind == "count:rows":
                    delta = max(round(delta / 100) * 100, 100) if vkind != "mb" else self.rng.choice([256, 512, 1024])
                n = old.n + sign * delta
                if n <= 0:
                    continue
                forms = self.forms(vkind, delta)
                if not forms:
                    continue
                said = self.rng.choice(forms).text
                if any(hit(said, u) or hit(u, said) for u in self.texts):
                    continue
            options = self.forms(vkind, n)
            if not options:
                continue
            v = self.rng.choice(options)
            if self.take(v.text, f"{vkind} {n}"):
                if vkind != "date":
                    self.texts.append(said)  # the delta is no value, but nothing may read as one inside it
                return v, said
        return None


@dataclass(eq=False)
class Thread:
    """One planted subject and the life of its value."""

    kind: str
    subject: str
    chain: list[Val]  # the values in order: first statement, then each update
    lines: list[str]  # the sentence of each step (the first states it, the others update it)
    turns: list[int]  # the turn of each step
    forms: list[str]
    slot: Slot | None = None
    pair: int | None = None
    said: list[int] = field(default_factory=list)  # message index of each step


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _fill(t: str, subject: str, ctx: dict[str, str], **kw: str) -> str:
    out = t.replace("{S}", _cap(subject)).replace("{s}", subject)
    for k, v in {**ctx, **kw}.items():
        out = out.replace("{" + k + "}", v)
    if "{" in out:
        raise ValueError(f"unfilled placeholder in {out!r}")
    return _cap(out) if out[:1].islower() and not any(out.startswith(c) for c in ctx.values()) else out


class _Builder:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.vals = FieldValues(self.rng)
        self.turns = self.rng.randint(28, 38)
        self.last_plant = int(self.turns * self.rng.uniform(0.45, 0.65))
        self.threads: list[Thread] = []
        #: per turn: units of text to say (each unit: its text, the values it holds, the thread step it makes or None)
        self.said: list[list[tuple[str, list[str], tuple[Thread, int] | None]]] = [[] for _ in range(self.turns)]
        self.distractors: list[str] = []

    # --- planning ----------------------------------------------------------------------------------
    def _n_updates(self) -> int:
        return self.rng.choices([0, 1, 2, 3], weights=[34, 40, 18, 8])[0]

    def _update_turns(self, start: int, k: int, same_ok: bool) -> list[tuple[int, bool]]:
        out: list[tuple[int, bool]] = []
        t = start
        for i in range(k):
            if i == 0 and same_ok and self.rng.random() < 0.12:
                out.append((t, True))
                continue
            t += self.rng.choice([1, 1, 2, 3, self.rng.randint(4, 12), self.rng.randint(8, self.turns)])
            if t >= self.turns:
                break
            out.append((t, False))
        return out

    def _thread(self, slot: Slot, at: int) -> None:
        r = self.rng
        ctx = {"svc": r.choice(SERVICES), "x": r.choice(TOPICS), "lib": r.choice(LIBS)}
        subject = r.choice(slot.subject).format(**ctx) if slot.subject else slot.key
        vkind = slot.vkind
        first = self.vals.new(vkind, ctx["svc"])
        th = Thread(slot.kind, subject, [first], [_fill(r.choice(slot.plant), subject, ctx, v=first.text)], [at], [], slot)
        if slot.kind != "safety":
            small = vkind in ("jspm", "mock")  # few values to draw from: one update at most
            for t, same in self._update_turns(at, min(self._n_updates(), 1) if small else self._n_updates(), True):
                old = th.chain[-1]
                form = "same_message" if same else r.choice(sorted(slot.update))
                line, new = self._update_line(slot, form, old, subject, ctx)
                if new is None:
                    continue
                th.chain.append(new)
                th.lines.append(line)
                th.turns.append(t)
                th.forms.append(form)
        self.threads.append(th)
        # said without a change, at a time its value is current
        if slot.repeat and r.random() < 0.35:
            i = r.randrange(len(th.chain))
            end = th.turns[i + 1] if i + 1 < len(th.turns) else self.turns
            if th.turns[i] + 1 < end:
                self._say(r.randrange(th.turns[i] + 1, end), _fill(r.choice(slot.repeat), subject, ctx, v=th.chain[i].text), [th.chain[i].text])
        if slot.distract and r.random() < 0.5:
            other = self.vals.new(vkind, r.choice(SERVICES))
            self.distractors.append(other.text)
            self._say(r.randrange(1, self.turns), _fill(r.choice(slot.distract), subject, ctx, v=other.text), [other.text])
        if slot.kind == "fact" and r.random() < 0.25 and at + 1 < self.turns:
            self._say(r.randrange(at + 1, self.turns), _fill(r.choice(QUESTIONS), subject, ctx), [])

    def _update_line(self, slot: Slot, form: str, old: Val, subject: str, ctx: dict[str, str]) -> tuple[str, Val | None]:
        r = self.rng
        if form == "same_message":
            new = self.vals.new(slot.vkind, ctx["svc"])
            return _fill(r.choice(SAME_MESSAGE), subject, ctx, v=new.text), new
        tmpl = r.choice(slot.update[form])
        if form == "relative":
            got = self.vals.relative(slot.vkind, old, -1 if any(w in tmpl for w in LOWERS) else 1)
            if got is None:
                return self._update_line(slot, "paraphrase", old, subject, ctx) if "paraphrase" in slot.update else ("", None)
            new, delta = got
            return _fill(tmpl, subject, ctx, v=new.text, d=delta), new
        for t in [tmpl, *(u for u in slot.update[form] if u != tmpl)]:  # words that say which way it moved must be true
            way = 1 if t in HIGHER else -1 if t in LOWER else 0
            try:
                new = self.vals.new(slot.vkind, ctx["svc"], avoid_unit=old.unit if form == "units" else None,
                                    beyond=(old.n, way) if way and old.n is not None else None)
            except RuntimeError:
                continue
            return _fill(t, subject, ctx, v=new.text, o=old.text), new
        return "", None

    def _pair(self, k: int) -> None:
        r = self.rng
        (m1, m2), noun, vkind = PAIRS[k]
        at = r.randint(0, self.last_plant)
        a, b = self.vals.new(vkind), self.vals.new(vkind)
        pid = self.seed * 10 + k
        ta = Thread("fact", f"{m1} {noun}", [a], [], [at], [], pair=pid)
        tb = Thread("fact", f"{m2} {noun}", [b], [], [at], [], pair=pid)
        if r.random() < 0.4:
            both = r.choice(PAIR_BOTH).format(n=noun, m1=m1, m2=m2, M1=_cap(m1), M2=_cap(m2), v1=a.text, v2=b.text)
            ta.lines.append(both)
            tb.lines.append(both)
            self._say(at, both, [a.text, b.text], (ta, 0), (tb, 0))
        else:
            tb.turns[0] = r.randint(0, self.last_plant)
            for th, m, v in ((ta, m1, a), (tb, m2, b)):
                th.lines.append(r.choice(PAIR_PLANT).format(m=m, M=_cap(m), n=noun, v=v.text))
                self._say(th.turns[0], th.lines[0], [v.text], (th, 0))
        if r.random() < 0.5:
            th, m, other = (ta, m1, m2) if r.random() < 0.5 else (tb, m2, m1)
            t = th.turns[0]
            for _ in range(1 if r.random() < 0.85 else 2):
                t = max(t, ta.turns[0], tb.turns[0]) + r.randint(1, 10)
                if t >= self.turns:
                    break
                new = self.vals.new(vkind)
                line = r.choice(PAIR_UPDATE).format(m=m, n=noun, v=new.text, other=f"the {other} one")
                th.chain.append(new)
                th.lines.append(line)
                th.turns.append(t)
                th.forms.append("paraphrase")
                self._say(t, line, [new.text], (th, len(th.chain) - 1))
        self.threads += [ta, tb]

    def _say(self, turn: int, text: str, values: list[str], *steps: tuple[Thread, int]) -> None:
        self.said[turn].append((text, values, steps[0] if steps else None))
        for th, i in steps[1:]:  # a second thread stated by the same sentence
            self.said[turn].append(("", [], (th, i)))

    def plan(self) -> None:
        r = self.rng
        goal_v = Val(r.choice(GOAL_SERVICES))
        self.vals.take(goal_v.text, f"goal {goal_v.text}")
        goal = Thread("goal", "goal", [goal_v], [r.choice(GOAL_OPEN).format(v=goal_v.text)], [0], [])
        if r.random() < 0.35:
            new = Val(r.choice([g for g in GOAL_SERVICES if g != goal_v.text]))
            self.vals.take(new.text, f"goal {new.text}")
            goal.chain.append(new)
            goal.lines.append(r.choice(GOAL_UPDATE).format(v=new.text, o=goal_v.text))
            goal.turns.append(r.randint(self.turns // 3, self.turns - 1))
            goal.forms.append("paraphrase")
        self.threads.append(goal)
        for i, (t, line) in enumerate(zip(goal.turns, goal.lines, strict=True)):  # first: the opening request leads message 0
            self._say(t, line, [goal.chain[i].text] + ([goal_v.text] if i and hit(goal_v.text, line) else []), (goal, i))
        slots = (r.sample(FACTS, r.randint(7, 9)) + r.sample(CONSTRAINTS, r.randint(3, 4)) + r.sample(PREFERENCES, r.randint(2, 3))
                 + r.sample(SAFETY, r.randint(2, 3)))
        briefing = r.sample(range(len(slots)), r.randint(3, 5)) if r.random() < 0.4 else []
        brief_turn = r.choice([0, 1])
        for i, slot in enumerate(slots):
            self._thread(slot, brief_turn if i in briefing else r.randint(0, self.last_plant))
        for k in r.sample(range(len(PAIRS)), 2):
            self._pair(k)
        for th in self.threads:
            if th.pair is not None or th.kind == "goal":
                continue  # said already
            for i, (t, line) in enumerate(zip(th.turns, th.lines, strict=True)):
                values = [th.chain[i].text] + ([th.chain[i - 1].text] if i and th.chain[i - 1].text in line and hit(th.chain[i - 1].text, line) else [])
                self._say(t, line, values, (th, i))

    # --- writing -------------------------------------------------------------------------------------
    def _user_text(self, t: int) -> tuple[str, list[str], list[tuple[Thread, int]]]:
        r = self.rng
        units: list[tuple[str, list[str]]] = []
        steps: list[tuple[Thread, int]] = []
        for text, values, step in self.said[t]:
            if step is not None:
                steps.append(step)
            if not text:
                continue
            th = step[0] if step else None
            if th is not None and step is not None and step[1] and th.forms[step[1] - 1] == "same_message" and units:
                # the correction follows the statement it corrects, in the same unit
                j = max(k for k, (u, _) in enumerate(units) if hit(th.chain[step[1] - 1].text, u))
                units[j] = (units[j][0] + " " + text, units[j][1] + values)
                continue
            units.append((text, values))
        goal_first = t == 0
        head = units[:1] if goal_first else []
        body = units[1:] if goal_first else units
        if not goal_first:
            r.shuffle(body)
        values = [v for _, vs in units for v in vs]
        if len(body) >= 3 and r.random() < 0.45:
            text = "\n".join([r.choice(LIST_LEADS), *(f"- {u}" for u, _ in body)])
        else:
            sentences = [u for u, _ in body]
            i = 0
            while i + 1 < len(sentences):
                nxt = sentences[i + 1]
                first_word = nxt.split(" ", 1)[0]
                if r.random() < 0.3 and "\n" not in sentences[i] + nxt and sentences[i][-1] != "?" and (first_word in LOWERABLE or not first_word[:1].isupper()):
                    low = nxt[:1].lower() + nxt[1:] if first_word in LOWERABLE and not first_word.isupper() else nxt
                    sentences[i : i + 2] = [sentences[i].rstrip(".!") + r.choice(JOINS) + low]
                i += 1
            if sentences and (len(sentences) >= 2 or r.random() < 0.15) and r.random() < 0.35:
                sentences.insert(r.randint(0, len(sentences)), r.choice(NARRATIVE))
            text = " ".join(sentences)
        if (r.random() < 0.45 and not goal_first) or not (text or head):
            chat = r.choice(CHATTER)
            text = (chat + ("" if chat[-1] in "?!" else ".") + " " + text) if text else chat
        if r.random() < 0.5:
            task = r.choice(TASKS).format(svc=r.choice(SERVICES))
            text = (text + ("" if text[-1] in ".?!" else ".") + " " + task) if text else task
        if head:
            text = head[0][0] + (("\n\n" if "\n" in text else " ") + text if text else "")
        return text.strip(), values, steps

    def write(self) -> FieldSession:
        r = self.rng
        messages: list[Message] = []
        mentions: dict[str, list[int]] = {}

        def put(m: Message, values: list[str]) -> int:
            messages.append(m)
            for v in dict.fromkeys(values):
                mentions.setdefault(v, []).append(len(messages) - 1)
            return len(messages) - 1

        env = r.choice(["apart", "inline", "none"])
        env_text = ENV_BLOCK.format(svc=r.choice(SERVICES))
        if env == "apart":
            put(user(env_text), [])
        n_call = 0
        all_values = Avoid([v for th in self.threads for v in (c.text for c in th.chain)] + self.distractors)
        for t in range(self.turns):
            text, values, steps = self._user_text(t)
            if t == 0 and env == "inline":
                text = env_text + "\n\n" + text
            at = put(user(text), values)
            for th, i in steps:
                if len(th.said) != i:
                    raise RuntimeError(f"seed {self.seed}: {th.subject!r} step {i} said out of order")
                th.said.append(at)
            # the assistant sometimes echoes a value just stated (never one the same message corrected)
            echo = [th.chain[i].text for th, i in steps if th.kind != "goal" and not any(o is th and j == i + 1 for o, j in steps) and r.random() < 0.3]
            ack = r.choice(ACKS).format(v=echo[-1]) if echo else r.choice(["Let me look.", "On it.", "Checking.", "", ""])
            calls = r.choice([0, 1, 1, 2, 2, 3])
            if calls == 0:
                put(assistant((ack + " " if ack else "") + "Nothing to run for that; the change is straightforward."), echo[-1:])
                continue
            for c in range(calls):
                n_call += 1
                cid = f"call_{n_call}"
                cmd, body, code = tool_output(r, r.choice(SERVICES), all_values)
                put(assistant(ack if c == 0 else "", ToolCallPart(cid, "shell", f'{{"command": "{cmd}"}}')), echo[-1:] if c == 0 else [])
                put(tool_result(cid, f"{body}\nExit code: {code}", name="shell", is_error=code != 0 and r.random() < 0.5), [])
            put(assistant(r.choice([
                "Done. The change is in and the suite is green.", "I've pushed the fix; the failing test was a fixture ordering issue.",
                "Looked into it: the worker retries on a timeout and the second attempt succeeds.",
                "That's finished. Next I'd clean up the duplicated helper, if you agree.",
                "The build is faster now; most of the time went into resolving dependencies.",
            ]) + " " + " ".join(r.sample(["I kept the diff small.", "Tests cover the new branch.", "Logs look clean.",
                                          "No config changes were needed.", "One warning remains from a dependency."], r.randint(0, 3)))), [])
        return self._finish(messages, mentions)

    def _finish(self, messages: list[Message], mentions: dict[str, list[int]]) -> FieldSession:
        plants: list[Plant] = []
        for th in self.threads:
            if len(th.said) != len(th.chain):
                raise RuntimeError(f"seed {self.seed}: {th.subject!r} was not said at every step")
            plants.append(FieldPlant(th.kind, th.chain[-1].text, [c.text for c in th.chain[:-1]], th.pair, th.said[1:],
                                     subject=th.subject, statement=th.lines[0], said_at=th.said[0], forms=th.forms,
                                     meanings=[c.n for c in th.chain]))
        # every value is in exactly the messages the generator put it in
        lowered = [m.text.lower() for m in messages]
        for v in [*(c.text for th in self.threads for c in th.chain), *self.distractors]:
            found = found_in(v, lowered)
            if found != sorted(set(mentions.get(v, []))):
                raise RuntimeError(f"seed {self.seed}: {v!r} found in messages {found}, put in {mentions.get(v)}")
        return FieldSession(messages, plants, FAMILY, self.seed, mentions=mentions, distractors=self.distractors)


def generate(seed: int) -> FieldSession:
    """One ``field`` session from ``seed`` (18000+ for the benchmark)."""
    b = _Builder(seed)
    b.plan()
    return b.write()
