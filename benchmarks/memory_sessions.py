"""Sessions generated from seeds for the memory benchmark (``bench_memory.py``).

A session is an agent conversation with planted user statements of five kinds (safety rules,
hard constraints, goals, preferences, facts), later paraphrased updates of some of them, pairs of
different subjects that share words, distractor chatter and tasks, and bulky tool output.

Template families that share no phrasing:

* ``tune`` — the templates the ledger was developed against;
* ``report`` — written before any run as the held-out set (seeds 1000+); its first run showed
  failures (57 stale values, 2 false merges, 86% of constraints) that were then used to improve
  the ledger, so it became a second tuning set;
* ``heldout`` — written after that, before any run of it (seeds 2000+). Its first run (the docs
  quote it) missed goals: 45 stale values, 3 false merges, 58% of preferences; its failures
  were then used to improve the ledger, so it became tuning data too;
* ``final`` — written before that improvement and before any run of it (seeds 3000+); its
  first run (17-41 stale values) was quoted as held out, then its failures were used to
  generalise supersession, so it is tuning data now;
* ``probe`` (seeds 7000+), ``probe2`` (8000+) and ``probe3`` (9000+) — tuning data from the start: more paraphrase
  kinds to develop against while ``blind`` stays unseen;
* ``blind`` — written (seeds 5000+) before the ``final`` failures were studied and before any
  run of it; held out for six rounds of changes, then (issue 11, second pass) its failures were
  studied, so it is tuning data now;
* ``sealed`` — written (seeds 11000+) before any of ``blind``'s failures were looked at and before
  any run of it, with its own subjects, shared-words pairs and distractors (statements about
  other subjects with values of the same type, questions naming a subject): the held-out family;
* ``lead`` (seeds 15000+) — written by the lead after every other family, by someone who tuned none of
  them, and committed before any run of it: held out.
* ``probe6`` (seeds 14000+) — tuning data from the start, written after sealed's fourth table
  (which of sealed's values stay stale never looked at) with sealed's structure and new update
  wording: passive hand-overs, "; it's V now" after a clause naming the subject, "slid out to",
  "was lifted to", "rose to", "goes by", "became".
* ``probe8`` (seeds 17000+) — tuning data from the start, written (issue 11, fourth pass) before any run
  of it: its templates and what they exercise are in ``memory_probe8.py``.
* ``probe7`` (seeds 16000+) — tuning data from the start, written (issue 11, third pass) before any look
  at ``lead``'s failures and before any run of it, with its own sentences for the kinds of wording a
  user writes: a leading "Starting tomorrow," / "As of Monday," / "Effective next week,"; values in
  other forms ("$3,100" / "3.1k dollars" / "three thousand one hundred dollars", "3 March" / "March 3"
  / "2026-03-03", "1.5k" / "1,500", number words); relative updates that give the result ("add a
  week to X, so V"); updates inside long sentences; two statements in one sentence; a goal
  restated or refined ("Actually, the goal is now …"); facts about paths and ticket ids.

Every planted value is unique in its session, so "the current value is in the output" and "a
superseded value is in the output" are unambiguous checks.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import memory_probe8 as P8
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user


def mentions_exact(messages: Sequence[Message], mentions: Mapping[str, Sequence[int]], values: Iterable[str], found: Callable[[str, str], bool]) -> bool:
    """A generator's own check (the families written in their own modules use it): every tracked value is
    found, by the family's ``found``, in exactly the messages the generator says it put it in, and none
    inside another."""
    vals = set(values)
    for v in vals:
        if [i for i, m in enumerate(messages) if found(v, m.text)] != sorted(mentions.get(v, ())):
            return False
    return not any(a != b and found(a, b) for a in vals for b in vals)


class _Builds(Protocol):
    def plan(self) -> None: ...
    def write(self) -> None: ...
    def finish(self) -> Any: ...


def first_built(make: Callable[[int, int], _Builds], seed: int, attempts: int, family: str) -> Any:
    """The session of ``seed`` from the first of ``attempts`` builds (``make(seed, attempt)``: plan,
    write, finish) whose check passes (``finish`` returns None when it does not): deterministic, the
    same seed gives the same session. The families in their own modules use it."""
    for attempt in range(attempts):
        b = make(seed, attempt)
        b.plan()
        b.write()
        g = b.finish()
        if g is not None:
            return g
    raise RuntimeError(f"{family}: seed {seed} gave no session whose values are all unique")


def value_pattern(value: str) -> re.Pattern[str]:
    """The benchmarks' one test for "``value`` is in a text" (the text lower-cased): not inside a word,
    not right after a "$" ("$400" does not hold "400")."""
    return re.compile(rf"(?<![\w$]){re.escape(value.lower())}(?!\w)")


@dataclass
class Plant:
    kind: str  # safety | constraint | goal | preference | fact
    value: str  # the value that must survive (the newest one)
    stale: list[str] = field(default_factory=list)  # values a later message superseded
    pair: int | None = None  # id of a shared-words pair (two different subjects)
    stale_at: list[int] = field(default_factory=list)  # index of the message that superseded each stale value


@dataclass
class TracedPlant(Plant):
    """A plant that keeps how it was said (the families in their own modules, ``heath`` and ``brook``, use it):
    every value the user gave its subject, where, in which form and sentence."""

    subject: str = ""  # the family's key for the subject ("goal" for the goal)
    noun: str = ""
    vtype: str = ""
    said: list[str] = field(default_factory=list)  # every value the user gave the subject, in order
    said_at: list[int] = field(default_factory=list)  # the message of each
    forms: list[str] = field(default_factory=list)  # the first statement's form, then each update's
    texts: list[str] = field(default_factory=list)  # the sentence of each, values filled


def mention(mentions: dict[str, list[int]], v: str, at: int) -> None:
    """Record that message ``at`` holds the tracked value ``v`` (once per message)."""
    lst = mentions.setdefault(v, [])
    if not lst or lst[-1] != at:
        lst.append(at)


def say(plant: TracedPlant, mentions: dict[str, list[int]], v: str, form: str, text: str, at: int, found: Callable[[str, str], bool]) -> None:
    """The user gave ``plant``'s subject the value ``v`` in ``text`` (message ``at``, worded as ``form``): kept
    on the plant, and ``v`` and any earlier value the text names (the one it replaces) mentioned there."""
    plant.said.append(v)
    plant.said_at.append(at)
    plant.forms.append(form)
    plant.texts.append(text)
    mention(mentions, v, at)
    for old in plant.said[:-1]:
        if old != v and found(old, text):
            mention(mentions, old, at)


@dataclass
class Generated:
    messages: list[Message]
    plants: list[Plant]
    family: str
    seed: int


NAMES = [
    "Dana", "Priya", "Omar", "Mei", "Kofi", "Lars", "Ines", "Tariq", "Yuki", "Sven", "Amara", "Bruno", "Chiara", "Dmitri",
    "Elena", "Farid", "Greta", "Hiro", "Ingrid", "Jonas", "Kamala", "Luca", "Maren", "Nadia", "Oskar", "Paula", "Quentin",
    "Rosa", "Sami", "Tomas", "Ulla", "Viktor", "Wanda", "Xavi", "Yara", "Zeno",
]
CODENAMES = ["Orion", "Vega", "Lyra", "Cygnus", "Draco", "Hydra", "Pavo", "Lupus", "Corvus", "Aquila", "Carina", "Fornax", "Indus", "Norma"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
LANGS = ["Portuguese", "German", "French", "Spanish", "Italian", "Dutch", "Swedish", "Polish", "Danish", "Finnish"]
THINGS = ["billing dashboard", "search indexer", "payments gateway", "audit pipeline", "mobile app", "ingest worker", "reporting service", "auth proxy"]
SVCS = ["ledger", "checkout", "inventory", "notifications", "scheduler", "catalog", "gateway", "metrics"]
PAIR_MODS = [("frontend", "backend"), ("staging", "production"), ("iOS", "Android"), ("EU", "US"), ("internal", "public")]
PAIR_NOUNS = [("release", "date"), ("API rate limit", "count"), ("database host", "host"), ("support contact", "name"), ("cache TTL", "seconds")]
# the sealed family's own subjects and shared-words pairs (no noun shared with the lists above)
SEALED_THINGS = ["feature flag service", "data warehouse", "status page", "build farm", "alerting stack", "docs site", "backup job", "chat bot"]
SEALED_SUBJECTS = {"date": "the {svc} cutover", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} consumer", "host": "the {svc} standby node"}
SEALED_PAIR_MODS = [("web", "desktop"), ("primary", "secondary"), ("nightly", "weekly"), ("north", "south"), ("partner", "customer")]
SEALED_PAIR_NOUNS = [("rollout", "date"), ("request quota", "count"), ("mirror host", "host"), ("escalation contact", "name"), ("session timeout", "seconds")]
# distractors: a statement about another subject with a value of the same type, or a question naming a planted subject
SEALED_DISTRACT = {
    "date": "My dentist appointment is on {v}, so I'm out that afternoon.",
    "name": "{v} from the design team says hi.",
    "rename": "The coffee machine on floor 3 is nicknamed {v}, funny.",
    "version": "My laptop still has Python {v} on it, ignore that.",
    "host": "The printer is at {v}, in case you see it in logs.",
}
SEALED_QUESTIONS = ["Is {s} still on track?", "Remind me later what we decided about {s}.", "Who else knows about {s}?"]
# probe4: a tuning family written after sealed's first table (sealed's failures never looked at), with the
# same structure (own subjects, pairs, distractors) and its own wording
OWN_WORLD = {
    "sealed": (SEALED_THINGS, SEALED_SUBJECTS, SEALED_PAIR_MODS, SEALED_PAIR_NOUNS, SEALED_DISTRACT, SEALED_QUESTIONS),
    "probe4": (
        ["metrics pipeline", "release tooling", "config service", "search cluster", "image store", "export job", "ticket bot", "log shipper"],
        {"date": "the {svc} switchover", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} processor", "host": "the {svc} failover node"},
        [("mobile", "tablet"), ("blue", "green"), ("daily", "hourly"), ("east", "west"), ("vendor", "client")],
        [("launch", "date"), ("call quota", "count"), ("backup host", "host"), ("duty contact", "name"), ("idle timeout", "seconds")],
        {
            "date": "{v} is when my vacation starts.",
            "name": "{v} from legal sent a note, nothing urgent.",
            "rename": "The office plant is called {v}, ha.",
            "version": "Someone's old laptop runs Python {v}, irrelevant.",
            "host": "The coffee machine is at {v}, don't worry about it.",
        },
        ["Any news on {s}?", "Can you remind me what's up with {s} later?", "Does anyone else work on {s}?"],
    ),
    "probe5": (
        ["payments ledger", "deploy bot", "docs builder", "usage meter", "feature store", "audit trail", "cron runner", "mail relay"],
        {"date": "the {svc} go-live", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} consumer job", "host": "the {svc} read replica"},
        [("alpha", "beta"), ("inbound", "outbound"), ("free", "paid"), ("red", "black"), ("legacy", "modern")],
        [("cutoff", "date"), ("rate cap", "count"), ("relay host", "host"), ("escalation owner", "name"), ("grace period", "seconds")],
        {
            "date": "My sister's wedding is on {v}.",
            "name": "{v} says the coffee is great today.",
            "rename": "Our team mascot is named {v}.",
            "version": "The tutorial I read used Python {v}.",
            "host": "Old logs mention {v}, ignore them.",
        },
        ["What happened with {s}?", "Is {s} blocked?", "Who decided about {s}?"],
    ),
    "probe6": (
        ["queue broker", "secrets vault", "ci runner", "wiki", "dns resolver", "load balancer", "sms relay", "pdf renderer"],
        {"date": "the {svc} rollover", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} indexer job", "host": "the {svc} hot spare"},
        [("upstream", "downstream"), ("small", "large"), ("morning", "evening"), ("left", "right"), ("trial", "enterprise")],
        [("freeze", "date"), ("burst quota", "count"), ("proxy host", "host"), ("backup contact", "name"), ("lock timeout", "seconds")],
        {
            "date": "My flight leaves on {v}, just so you know.",
            "name": "{v} from finance asked about lunch.",
            "rename": "The meeting room is called {v}, lol.",
            "version": "A blog post I saw used Python {v}.",
            "host": "A test box at {v} showed up in alerts, ignore it.",
        },
        ["Where are we with {s}?", "Can you keep an eye on {s}?", "Who should I ask about {s}?"],
    ),
    "lead": (
        ["billing exporter", "consent service", "thumbnail cache", "geo lookup", "fraud scorer", "webhook fanout", "quota keeper", "sitemap builder"],
        {"date": "the {svc} decommission", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} compactor", "host": "the {svc} canary box"},
        [("inner", "outer"), ("sandbox", "live"), ("first", "second"), ("arm", "x86"), ("retail", "wholesale")],
        [("embargo", "date"), ("write quota", "count"), ("jump host", "host"), ("fallback approver", "name"), ("drain timeout", "seconds")],
        {
            "date": "My lease renewal is due {v}, unrelated.",
            "name": "{v} from HR is organising the party.",
            "rename": "The team's chat channel got the silly name {v}.",
            "version": "An old gist I found pins Python {v}, skip it.",
            "host": "A laptop at {v} keeps pinging the VPN, not our problem.",
        },
        ["How is {s} coming along?", "Do we have a risk on {s}?", "Who signed off on {s}?"],
    ),
    "probe7": (
        ["invoice mailer", "session store", "asset pipeline", "search gateway", "retention job", "quote engine", "audit archiver", "health checker"],
        {"date": "the {svc} handover", "name": "the {thing}", "rename": "the {thing}", "version": "the {svc} batch runner", "host": "the {svc} edge box",
         "path": "the {svc} runbook", "id": "the {svc} outage ticket"},
        [("gold", "silver"), ("batch", "stream"), ("on-prem", "cloud"), ("junior", "senior"), ("spring", "autumn")],
        [("beta window", "date"), ("upload quota", "count"), ("bastion host", "host"), ("security reviewer", "name"), ("retry budget", "seconds")],
        {
            "date": "The office party is on {v}, if you want to come.",
            "name": "{v} from support says thanks for the fix.",
            "rename": "My cat is called {v}, random fact.",
            "version": "The old README still says Python {v} somewhere, ignore it.",
            "host": "Someone left a debug box at {v} running, not ours.",
            "path": "My scratch notes are in {v}, ignore them.",
            "id": "Ticket {v} is another team's problem.",
        },
        ["Any blockers on {s}?", "When did we last talk about {s}?", "Who knows the history of {s}?"],
    ),
}
OWN_WORLD["probe8"] = P8.OWN_WORLD
# probe7's goal values: service names no other template uses (a refined goal is checked by its own word)
GOAL_SVCS = ["pricing", "ranking", "shipping", "onboarding", "refunds", "loyalty", "payroll", "tracking"]
GOAL_UPDATE = {
    "probe7": [
        "Actually, the goal is now to get the {v} service onto the new scheduler first.",
        "Change of focus: we're moving the {v} service over to the new scheduler instead.",
        "Let me refine the plan: it's the {v} service that has to go onto the new scheduler today.",
    ],
    "probe8": P8.GOAL_UPDATE,
}
# probe7: two statements said in one sentence, and updates wrapped in a longer sentence
JOINERS = {"probe7": [", and ", "; also, ", " and "]}
WRAPS = {
    "probe7": [
        "After a long call with the platform folks this morning we agreed that {u}",
        "Not sure I mentioned it, but as far as I know {u}",
        "I only heard at lunch, so sorry for the late notice: {u}",
    ],
}
_NUM_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen",
              "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """``n`` (below 10,000) in words: 3100 → "three thousand one hundred"."""
    out = []
    if n >= 1000:
        out.append(f"{_NUM_WORDS[n // 1000]} thousand")
        n %= 1000
    if n >= 100:
        out.append(f"{_NUM_WORDS[n // 100]} hundred")
        n %= 100
    if n >= 20:
        out.append(_TENS[n // 10] + (f"-{_NUM_WORDS[n % 10]}" if n % 10 else ""))
    elif n:
        out.append(_NUM_WORDS[n])
    return " ".join(out)


class Values:
    """Unique values of each type for one session."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _uniq(self, make) -> str:  # type: ignore[no-untyped-def]
        for _ in range(1000):
            v = make()
            if v not in self.used and not any(v in u or u in v for u in self.used):
                self.used.add(v)
                return str(v)
        raise RuntimeError("ran out of unique values")

    def name(self) -> str:
        return self._uniq(lambda: self.rng.choice(NAMES))

    def date(self) -> str:
        return self._uniq(lambda: f"{self.rng.choice(MONTHS)} {self.rng.randint(2, 28)}")

    def money(self) -> str:
        return self._uniq(lambda: f"${self.rng.randint(3, 95) * 100}")

    def number(self, unit: str) -> str:
        return self._uniq(lambda: f"{self.rng.randint(11, 97)} {unit}")

    def version(self) -> str:
        return self._uniq(lambda: f"{self.rng.randint(2, 9)}.{self.rng.randint(10, 40)}.{self.rng.randint(1, 9)}")

    def codename(self) -> str:
        return self._uniq(lambda: f"{self.rng.choice(CODENAMES)}-{self.rng.randint(2, 99)}")

    def lang(self) -> str:
        return self._uniq(lambda: self.rng.choice(LANGS))

    def host(self) -> str:
        return self._uniq(lambda: f"db-{self.rng.randint(10, 99)}.{self.rng.choice(['int', 'corp', 'lan'])}.example.net")

    def path(self) -> str:
        return self._uniq(lambda: f"/srv/{self.rng.choice(SVCS)}/{self.rng.choice(['data', 'exports', 'backups', 'keys'])}{self.rng.randint(1, 99)}")

    def ticket(self) -> str:
        return self._uniq(lambda: f"{self.rng.choice(['OPS', 'INC', 'SUP'])}-{self.rng.randint(1000, 9899)}")


class FormValues(Values):
    """probe7: the same value kinds written in the forms people use (one form per value, each value
    unique by what it means, not only by how it is written)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.meant: set[str] = set()

    def _form(self, key: str, forms: list[str]) -> str:
        if key in self.meant:
            return ""  # the same value in another form: not a new value
        self.meant.add(key)
        return self._uniq(lambda: self.rng.choice(forms))

    def _pick(self, make) -> str:  # type: ignore[no-untyped-def]
        for _ in range(1000):
            v = str(make())
            if v:
                return v
        raise RuntimeError("ran out of unique values")

    def date(self) -> str:
        def one() -> str:
            m, d = self.rng.randrange(12), self.rng.randint(2, 28)
            suffix = "th" if 4 <= d <= 20 or d % 10 > 3 else ["th", "st", "nd", "rd"][d % 10]
            return self._form(f"date {m} {d}", [f"{MONTHS[m]} {d}", f"{d} {MONTHS[m]}", f"{MONTHS[m][:3]} {d}", f"{MONTHS[m]} {d}{suffix}", f"2026-{m + 1:02d}-{d:02d}"])
        return self._pick(one)

    def money(self) -> str:
        def one() -> str:
            n = self.rng.randint(3, 95) * 100
            return self._form(f"money {n}", [f"${n:,}", f"${n}", f"{n / 1000:g}k dollars", f"{_words(n)} dollars"])
        return self._pick(one)

    def number(self, unit: str) -> str:
        def one() -> str:
            if unit == "requests per minute":
                n = self.rng.randint(11, 97) * 100
                return self._form(f"{unit} {n}", [f"{n:,} {unit}", f"{n / 1000:g}k {unit}"])
            n = self.rng.randint(11, 97)
            return self._form(f"{unit} {n}", [f"{n} {unit}", f"{_words(n)} {unit}"])
        return self._pick(one)


# --- templates: (plant, update) per family; {s} subject, {v} value ---------------------------------
FACT = {
    "tune": {
        "date": (["{S} is on {v}.", "{S} will be {v}.", "Please note that {s} is {v}."], ["{S} moved to {v}.", "Update: {s} is now {v}.", "{S} changed to {v}."]),
        "name": (["{v} owns {s}.", "{v} is responsible for {s}."], ["{v} now owns {s}.", "{v} took over {s}."]),
        "rename": (["We renamed {s} to {v}."], ["We are calling {s} {v} now."]),
        "version": (["Use Python {v} for {s}."], ["Actually use Python {v} for {s}."]),
        "host": (["{S} is {v}."], ["{S} changed to {v}."]),
    },
    "report": {
        "date": (["Just so you know, {s} is {v}.", "For the record, {s} lands on {v}.", "{S}: {v}."], ["Heads up, {s} slipped to {v}.", "Actually {s} is {v} now.", "Correction: {s} should be {v} instead."]),
        "name": (["{S} is owned by {v}.", "{v} runs {s}."], ["{v} has taken over {s}.", "{S} is now maintained by {v}."]),
        "rename": (["{S} is now called {v}."], ["Let's call {s} {v} instead."]),
        "version": (["Pin Python to {v} for {s}."], ["Switch {s} to Python {v}."]),
        "host": (["For the record, {s} is {v}."], ["{S} has been migrated to {v}."]),
    },
    "heldout": {
        "date": (["Mark your calendar: {s} is {v}.", "{S} is planned for {v}."], ["New date for {s}: {v}.", "{S} got postponed to {v}.", "We moved {s} to {v}."]),
        "name": (["{v} is the owner of {s}.", "{S} belongs to {v}."], ["{S} now belongs to {v}.", "From today {v} owns {s}."]),
        "rename": (["{S} goes by the name {v}.", "We'll refer to {s} as {v}."], ["{S} is renamed to {v}.", "We're now calling {s} {v}."]),
        "version": (["{S} runs on Python {v}."], ["{S} now runs on Python {v}."]),
        "host": (["{S} lives at {v}."], ["{S} now lives at {v}."]),
    },
    "final": {
        "date": (["I was told {s} is set for {v}.", "Expect {s} on {v}."], ["They pushed {s} back to {v}.", "Scratch that, {s} is {v}.", "{S} is now expected on {v}."]),
        "name": (["{v} is in charge of {s}.", "Talk to {v} about {s}, they own it."], ["{v} is in charge of {s} now.", "Ownership of {s} moved to {v}."]),
        "rename": (["The new name for {s} is {v}.", "{S} has been rebranded as {v}."], ["Rename {s} to {v}.", "{S} will be called {v} from now on."]),
        "version": (["{S} needs Python {v}."], ["{S} needs Python {v} now, not the older one."]),
        "host": (["{S} is reachable at {v}."], ["{S} is reachable at {v} after the move."]),
    },
    "blind": {
        "date": (["{S} is penciled in for {v}.", "We're targeting {v} for {s}."], ["{S} is delayed until {v}.", "New plan: {s} happens on {v}.", "We had to reschedule {s} to {v}."]),
        "name": (["{S} is {v}'s responsibility.", "Questions about {s} go to {v}."], ["{v} is taking over {s} from now on.", "{S} is {v}'s job now."]),
        "rename": (["Internally {s} is known as {v}.", "In all docs {s} is referred to as {v}."], ["{S} got a new name: {v}.", "Marketing renamed {s}; it is {v} now."]),
        "version": (["{S} is pinned to Python {v}."], ["{S} was upgraded to Python {v}."]),
        "host": (["{S} sits on {v}."], ["{S} was moved over to {v}."]),
    },
    "probe": {
        "date": (["{S} is booked for {v}.", "We agreed on {v} for {s}.", "{S} happens on {v}."], ["{S} has been moved up to {v}.", "{S} is {v} now rather than the earlier date.", "Change of date for {s}: {v}."]),
        "name": (["{v} looks after {s}.", "The person for {s} is {v}."], ["{v} looks after {s} now.", "{v} inherited {s}.", "{S} has a new owner: {v}."]),
        "rename": (["{S} is codenamed {v}."], ["{S}'s codename changed to {v}.", "{S} is codenamed {v} now."]),
        "version": (["We build {s} with Python {v}."], ["We now build {s} with Python {v}.", "{S} moved to Python {v}."]),
        "host": (["{S} points at {v}."], ["{S} points at {v} now.", "Repoint {s} to {v}."]),
    },
    "probe3": {
        "date": (["We plan to open {s} on {v}.", "{S} goes live {v}."], ["We'll open {s} on {v} after all.", "{S} goes live {v}, one more delay.", "Please treat {v} as the date for {s}."]),
        "name": (["Send {s} bugs to {v}.", "{v} is our go-to person for {s}."], ["{v} is our go-to person for {s} from today.", "Send {s} bugs to {v} from now on."]),
        "rename": (["Internally we say {v} for {s}."], ["We say {v} for {s} now.", "{S} has a fresh name, {v}."]),
        "version": (["{S} is built against Python {v}."], ["{S} is built against Python {v} since the upgrade."]),
        "host": (["{S} is hosted on {v}."], ["{S} is hosted on {v} since last night."]),
    },
    "probe2": {
        "date": (["{S} kicks off on {v}.", "We're aiming for {v} with {s}.", "Target date for {s} is {v}."], ["{S} kicks off on {v} instead.", "{S} got bumped to {v}.", "We're now aiming for {v} with {s}.", "{S} won't be ready before {v}."]),
        "name": (["Any questions on {s}, ask {v}.", "{v} maintains {s}."], ["{v} maintains {s} going forward.", "{S} changed hands; {v} has it now.", "{v} is the new owner of {s}."]),
        "rename": (["Everyone calls {s} {v}."], ["{S} is going to be called {v}.", "{S} was renamed {v}."]),
        "version": (["{S} uses Python {v}."], ["{S} uses Python {v} these days.", "{S} was bumped to Python {v}."]),
        "host": (["{S} runs on {v}."], ["{S} runs on {v} now.", "{S} got migrated to {v}."]),
    },
    "sealed": {
        "date": (["{S} is scheduled for {v}.", "Put {s} down for {v}.", "{S} takes place on {v}."],
                 ["{S} was pushed out to {v}.", "Small change: {s} is on {v} now.", "{S} got rescheduled; it's {v} now.", "We're doing {s} on {v} instead."]),
        "name": (["{v} handles {s}.", "Ping {v} for anything on {s}."], ["{S} was handed over; {v} runs it now.", "{v} handles {s} now.", "{v} picked up {s}."]),
        "rename": (["{S} ships under the name {v}.", "The product name of {s} is {v}."], ["{S} has been renamed; it's {v} from here on.", "Going forward {s} is named {v}."]),
        "version": (["{S} targets Python {v}."], ["{S} targets Python {v} as of today.", "We bumped {s}; it's on Python {v} now."]),
        "host": (["{S} is served from {v}.", "The address of {s} is {v}."], ["{S} is served from {v} since the failover.", "We cut {s} over to {v}.", "{S} lives on a new box: {v}."]),
    },
    "probe4": {
        "date": (["{S} is slated for {v}.", "Pencil {s} in for {v}.", "{S} is happening on {v}."],
                 ["{S} was pushed back to {v}.", "Quick change: {s} is on {v} now.", "{S} was moved; it's {v} now.", "We're holding {s} on {v} instead."]),
        "name": (["{v} takes care of {s}.", "Reach out to {v} about {s}."], ["{S} was reassigned; {v} owns it now.", "{v} takes care of {s} now.", "{v} took on {s}."]),
        "rename": (["{S} is marketed as {v}.", "The public name of {s} is {v}."], ["{S} got a rebrand; it's {v} going forward.", "From now on {s} is called {v}."]),
        "version": (["{S} is built for Python {v}."], ["{S} is built for Python {v} starting today.", "We upgraded {s}; it runs Python {v} now."]),
        "host": (["{S} runs off {v}.", "The hostname of {s} is {v}."], ["{S} runs off {v} since the outage.", "We moved {s} onto {v}.", "{S} has a new home: {v}."]),
    },
    "probe5": {
        "date": (["{S} lands on {v}.", "Mark {v} for {s}."],
                 ["Update on {s}: {v}.", "{S} shifted again, {v} now.", "We'll go with {v} for {s}.", "Change of plan for {s}: {v}.", "{S} is going to be {v}."]),
        "name": (["{S} is with {v}.", "{v} is the point person for {s}."], ["{S} is with {v} now.", "{v} is the new point person for {s}.", "{S} went over to {v}."]),
        "rename": (["The label for {s} is {v}."], ["{S}'s new name is {v}.", "{S} has been rechristened {v}."]),
        "version": (["{S} is on Python {v}."], ["{S} is on Python {v} now.", "Python {v} for {s} from now on."]),
        "host": (["{S} points to {v}."], ["{S} now points to {v}.", "{S} is at {v} now."]),
    },
    "probe6": {
        "date": (["{S} is set to happen on {v}.", "Book {s} for {v}.", "{S} is on the calendar for {v}."],
                 ["{S} slid out to {v}.", "Minor change: {s} happens on {v} now.", "{S} got moved around; it's {v} now.", "We're running {s} on {v} instead.",
                  "They delayed {s} a bit, so it is {v} now."]),
        "name": (["{v} manages {s}.", "Ask {v} about anything on {s}."], ["{S} was passed along; {v} manages it now.", "{v} manages {s} now.", "{v} grabbed {s}.",
                                                                          "{S} has been handed to {v}."]),
        "rename": (["{S} is sold as {v}.", "The brand name of {s} is {v}."], ["{S} was renamed again; it's {v} from today.", "From here on {s} goes by {v}.",
                                                                              "{S} is now known as {v}."]),
        "version": (["{S} is compiled for Python {v}."], ["{S} is compiled for Python {v} as of this week.", "We upgraded {s}; it's on Python {v} these days.",
                                                         "{S} got bumped to Python {v}."]),
        "host": (["{S} is hosted at {v}.", "{S}'s address is {v}."], ["{S} is hosted at {v} since the migration.", "We switched {s} over to {v}.",
                                                                   "{S} moved to a fresh machine: {v}.", "{S} now lives at {v}."]),
    },
    "lead": {
        "date": (["{S} goes ahead on {v}.", "Plan {s} for {v}.", "We fixed {s} for {v}."],
                 ["{S} is now planned for {v}.", "{S} had to move, we landed on {v}.", "Revised date for {s}: {v}.", "{S} will go ahead on {v} after all.",
                  "Scratch the old date for {s}, it is {v}."]),
        "name": (["{v} looks after {s}.", "{S} sits with {v}."], ["{S} transferred to {v}.", "{v} looks after {s} from now on.", "Ownership of {s} passed to {v}.",
                                                          "{S} now sits with {v}."]),
        "rename": (["Customers know {s} as {v}.", "{S} carries the name {v}."], ["{S} carries the name {v} now.", "Marketing changed the name of {s} to {v}.",
                                                                               "Customers will know {s} as {v} from now on."]),
        "version": (["{S} pins Python {v}."], ["{S} pins Python {v} now.", "We moved {s} to Python {v}.", "{S} was upgraded and pins Python {v}."]),
        "host": (["{S} sits on {v}.", "You reach {s} at {v}."], ["{S} sits on {v} now.", "We rehomed {s} to {v}.", "You reach {s} at {v} after the move.",
                                                                "{S} was relocated to {v}."]),
    },
    "probe7": {
        "date": (["{S} is due on {v}.", "We've set {v} for {s}.", "{S} will happen on {v}."],
                 ["{S} got pushed a week, to {v}.", "As of this morning {s} is on {v}.", "Following the vendor delay nobody saw coming, {s} now falls on {v}.",
                  "{S} is not on the old date anymore but on {v}."]),
        "name": (["{v} is who owns {s}.", "If {s} breaks, {v} is the one to call."],
                 ["Starting Monday, {v} owns {s}.", "{v} inherits {s} as of this week.",
                  "After the reorg last week the team decided that {v} will look after {s} going forward.", "{S} is {v}'s now."]),
        "rename": (["{S} is internally named {v}.", "We refer to {s} by its codename, {v}."],
                   ["Heads up, {s} is {v} now after the rebrand.", "{S} got renamed again, to {v}.", "In the new docs {s} appears as {v}."]),
        "version": (["{S} runs Python {v}.", "{S} is on Python {v} at the moment."],
                    ["{S} moved up a release; it's on Python {v} now.", "After last night's upgrade {s} runs Python {v}."]),
        "host": (["{S} answers at {v}.", "Point anything meant for {s} at {v}."],
                 ["{S} answers at {v} since the rebuild.", "As of today {s} moved to {v}.", "The DNS entry for {s} now resolves to {v}."]),
        "path": (["{S} lives at {v}.", "You'll find {s} under {v}."], ["We moved {s} to {v}.", "{S} is at {v} after the cleanup."]),
        "id": (["{S} is tracked as {v}.", "Use {v} for {s}."], ["{S} was reopened as {v}.", "Please use {v} for {s} from now on, the old one is closed."]),
    },
}
ONCALL = {
    "tune": ("{v} is on call this week.", "Actually {v} is on call this week."),
    "report": ("This week {v} is on call.", "Swap of plans: {v} is on call this week instead."),
    "heldout": ("{v} has the pager this week.", "{v} has the pager this week now."),
    "final": ("On call this week: {v}.", "Change in rota: {v} is on call this week."),
    "blind": ("This week's on-call engineer is {v}.", "{v} swapped in as this week's on-call engineer."),
    "probe": ("{v} carries the pager this week.", "The pager this week is with {v} instead."),
    "probe3": ("This week the on-call rotation has {v}.", "The on-call rotation this week has {v}, not the other person."),
    "probe2": ("{v} has on-call duty this week.", "{v} took over on-call duty this week."),
    "sealed": ("{v} is our on-call this week.", "On-call this week switched to {v}."),
    "probe4": ("{v} holds the on-call shift this week.", "The on-call shift this week went to {v}."),
    "probe5": ("On-call duty this week belongs to {v}.", "{v} covers on-call this week instead."),
    "probe6": ("{v} is covering on-call this week.", "On-call this week moved over to {v}."),
    "lead": ("The pager sits with {v} this week.", "The pager this week sits with {v} now."),
    "probe7": ("{v} is the on-call person this week.", "Starting tomorrow, {v} is on call."),
}
CONSTRAINT = {
    "tune": [
        ("From now on write every commit message in the imperative mood, under {v}.", "Commit messages may be up to {v} from now on.", "characters"),
        ("Keep every pull request under {v}.", "Keep every pull request under {v} from now on.", "lines"),
        ("The cloud budget is {v} per month.", "Cap the cloud budget at {v} per month from now on.", "$"),
        ("The deadline for the migration is {v}.", "The migration deadline moved to {v}.", "date"),
    ],
    "report": [
        ("Commit messages: imperative mood, at most {v} each.", "Commit messages can now be as long as {v}.", "characters"),
        ("No pull request may exceed {v}.", "Pull requests may now go up to {v}.", "lines"),
        ("Spend at most {v} a month on cloud.", "We can spend up to {v} a month on cloud now.", "$"),
        ("The migration has to be done by {v}.", "The migration can slip to {v}.", "date"),
    ],
    "heldout": [
        ("Limit commit subjects to {v}.", "Limit commit subjects to {v} instead.", "characters"),
        ("Diffs must stay below {v}.", "Diffs must now stay below {v}.", "lines"),
        ("Our monthly cloud budget is capped at {v}.", "The monthly cloud budget is now capped at {v}.", "$"),
        ("The migration is due {v}.", "The migration is now due {v}.", "date"),
    ],
    "final": [
        ("Keep commit titles shorter than {v}.", "Commit titles can be up to {v} now.", "characters"),
        ("Never open a pull request bigger than {v}.", "It's fine to open pull requests up to {v} from now on.", "lines"),
        ("The cloud spend limit is {v} a month.", "Raise the cloud spend limit to {v} a month.", "$"),
        ("We must finish the migration by {v}.", "We now must finish the migration by {v}.", "date"),
    ],
    "blind": [
        ("Commit subject lines must fit in {v}.", "Commit subject lines may use up to {v} now.", "characters"),
        ("Cap each pull request at {v} of diff.", "Pull requests can grow to {v} of diff now.", "lines"),
        ("Don't let the cloud bill go over {v} per month.", "The cloud bill may go up to {v} per month now.", "$"),
        ("The migration needs to ship by {v}.", "The migration deadline is now {v}.", "date"),
    ],
    "probe": [
        ("Commit messages should not run past {v}.", "Let commit messages run to {v}.", "characters"),
        ("A pull request may touch at most {v}.", "Pull requests may now touch up to {v}.", "lines"),
        ("We can't spend more than {v} a month on cloud.", "The monthly cloud ceiling is {v} now.", "$"),
        ("Finish the migration no later than {v}.", "The migration can wait until {v}.", "date"),
    ],
    "probe3": [
        ("Cap commit headers at {v}.", "Commit headers get {v} from now on.", "characters"),
        ("Patches beyond {v} need to be split.", "Patches beyond {v} need to be split, that's the new bar.", "lines"),
        ("Hosting costs stay below {v} each month.", "Hosting costs may reach {v} each month now.", "$"),
        ("Wrap up the migration by {v}.", "Wrap up the migration by {v} instead.", "date"),
    ],
    "probe2": [
        ("Commit summaries have a hard limit of {v}.", "The commit summary limit is {v} now.", "characters"),
        ("PRs over {v} get rejected.", "PRs over {v} get rejected from now on.", "lines"),
        ("The cloud account must stay under {v} monthly.", "The cloud account can go to {v} monthly now.", "$"),
        ("The migration deadline: {v}.", "New migration deadline: {v}.", "date"),
    ],
    "sealed": [
        ("No commit message longer than {v}, please.", "We relaxed the commit message limit; {v} is fine now.", "characters"),
        ("Any pull request beyond {v} should be broken up.", "The pull request ceiling went up to {v}.", "lines"),
        ("Our cloud spending must not exceed {v} per month.", "The cloud spending cap is raised to {v} per month.", "$"),
        ("The migration has a hard stop of {v}.", "The migration's hard stop is pushed to {v}.", "date"),
    ],
    "probe4": [
        ("Commit titles top out at {v}.", "We loosened the commit title rule; {v} is OK now.", "characters"),
        ("Split any pull request larger than {v}.", "The pull request size limit went to {v}.", "lines"),
        ("Cloud costs must stay within {v} per month.", "The cloud cost allowance is increased to {v} per month.", "$"),
        ("The migration has a cutoff of {v}.", "The migration cutoff is moved to {v}.", "date"),
    ],
    "probe5": [
        ("Keep commit lines to {v}.", "Up to {v} for commit lines is fine now.", "characters"),
        ("A pull request should not go past {v}.", "Pull requests can be {v} long now.", "lines"),
        ("Cloud spend tops out at {v} per month.", "We can go to {v} per month on cloud now.", "$"),
        ("The migration must land by {v}.", "The migration can land by {v} instead.", "date"),
    ],
    "probe6": [
        ("No commit subject over {v}, thanks.", "We eased the commit subject limit; {v} is acceptable now.", "characters"),
        ("Break up any pull request past {v}.", "The pull request cap rose to {v}.", "lines"),
        ("Monthly cloud spend can't go above {v}.", "The monthly cloud spend cap was lifted to {v}.", "$"),
        ("The migration's final deadline is {v}.", "The migration's final deadline slipped to {v}.", "date"),
    ],
    "lead": [
        ("Commit subjects stay within {v}.", "Commit subjects may stretch to {v} now.", "characters"),
        ("Pull requests are limited to {v}.", "We raised the pull request limit to {v}.", "lines"),
        ("Cloud costs are capped at {v} a month.", "Cloud costs are capped at {v} a month now.", "$"),
        ("The migration is to be finished by {v}.", "The migration is to be finished by {v}, revised.", "date"),
    ],
    "probe7": [
        ("Commit headlines can't be longer than {v}.", "Give commit headlines a bit more room, say {v}.", "characters"),
        ("Pull requests have to stay smaller than {v}.", "After the review retro we agreed pull requests can be as big as {v}.", "lines"),
        ("We've got {v} a month for cloud, no more.", "Finance added some headroom: the cloud allowance is {v} a month.", "$"),
        ("The migration must be wrapped up by {v}.", "Add a week to the migration deadline, so {v}.", "date"),
    ],
}
PREFERENCE = {
    "tune": [("I'd rather have your answers in {v}.", "I'd rather have your answers in {v} instead."), ("I prefer timeouts of {v} in examples.", "I prefer timeouts of {v} in examples now.")],
    "report": [("I would rather you reply in {v}.", "Please reply in {v} from here on."), ("My preference is {v} for HTTP timeouts.", "Make that {v} for HTTP timeouts.")],
    "heldout": [("I like replies written in {v}.", "I now like replies written in {v}."), ("I prefer retry delays of {v}.", "Going forward I prefer retry delays of {v}.")],
    "final": [("I'd like the docs in {v}, please.", "Switch the docs to {v}, please."), ("Ideally use a poll interval of {v}.", "I'd rather use a poll interval of {v} instead.")],
    "blind": [("Please write your answers in {v}.", "Answers in {v} from now on, please."), ("I tend to prefer a backoff of {v} between retries.", "Bump the retry backoff to {v}.")],
    "probe": [("Answer me in {v} if you can.", "Actually, answer me in {v}."), ("A timeout of {v} suits me for examples.", "For examples I'd go with a timeout of {v} now.")],
    "probe3": [("Write the answers in {v}, thanks.", "From here on, answers in {v}."), ("Keep sleep intervals at {v} in scripts.", "Sleep intervals in scripts should be {v} now.")],
    "probe2": [("My answers should be in {v}.", "Switch my answers to {v}."), ("For polling, {v} is my favourite interval.", "For polling I now favour an interval of {v}.")],
    "sealed": [("I'd appreciate answers in {v}.", "Let's switch the answers over to {v}."), ("My preferred gap between poll attempts is {v}.", "Let's make the gap between poll attempts {v}.")],
    "probe4": [("I'd be glad to get answers in {v}.", "Let's move the answers over to {v}."), ("The wait between health checks I like best is {v}.", "Let's set the wait between health checks to {v}.")],
    "probe5": [("Answers in {v} work best for me.", "Answers in {v} work best for me now."), ("I'm happiest with a {v} pause between polls.", "A {v} pause between polls, please, from now on.")],
    "probe6": [("I'd be happy with answers in {v}.", "Let's change the answers over to {v}."), ("The pause I like between retry attempts is {v}.", "Let's make the pause between retry attempts {v}.")],
    "lead": [("Answers in {v} suit me best.", "Answers in {v} suit me best now."), ("Between retries I want a delay of {v}.", "Between retries I want a delay of {v} now.")],
    "probe7": [("I like replies in {v} best.", "Switch my replies to {v}, if that's alright."),
               ("When polling, wait {v} between tries.", "Effective next week, wait {v} between polling tries.")],
}
SAFETY = {
    "tune": ["Never delete anything under {v}.", "Never run migrations against {v} without asking me first."],
    "report": ["Under no circumstances remove files in {v}.", "Do not touch the database at {v} without my sign-off."],
    "heldout": ["Don't ever wipe the folder {v}.", "Never restart the database at {v} unless I say so."],
    "final": ["Never rm -rf anything in {v}.", "Do not run DROP statements on {v} ever."],
    "blind": ["Never touch anything under {v} without asking.", "Don't apply schema changes to {v} unless I approve."],
    "probe": ["Nothing under {v} gets deleted, ever.", "The database at {v} is off limits without my OK."],
    "probe3": ["Leave everything under {v} alone, never delete it.", "Never alter the database on {v}."],
    "probe2": ["Do not remove files under {v}.", "Never write to the database on {v} without my say-so."],
    "sealed": ["Files under {v} must never be deleted.", "Ask me before any write to the database at {v}."],
    "probe4": ["Data under {v} is never to be deleted.", "Check with me before you modify the database at {v}."],
    "probe5": ["Never clean out anything under {v}.", "Don't run UPDATE statements on {v} before I sign off."],
    "probe6": ["Any files in {v} are never to be removed.", "Get my approval before writing to the database at {v}."],
    "lead": ["Under no circumstances delete anything under {v}.", "Check with me first before you write to the database at {v}."],
    "probe7": ["Whatever happens, no files under {v} get deleted.", "The database at {v} is read-only for you unless I explicitly say otherwise."],
}
GOAL = {
    "probe5": "Today's mission: the {v} service on the new scheduler.",
    "probe4": "By the end of today the {v} service should run on the new scheduler.",
    "sealed": "Today we want the {v} service migrated to the new scheduler.",
    "tune": "The goal of this session is to move the {v} service onto the new scheduler.",
    "report": "Our objective today: get the {v} service running on the new scheduler.",
    "heldout": "The main task for this session is porting the {v} service to the new scheduler.",
    "final": "What we're doing in this session: migrating the {v} service to the new scheduler.",
    "blind": "This session is about moving the {v} service over to the new scheduler.",
    "probe": "Today's job: get the {v} service onto the new scheduler.",
    "probe3": "Main goal today: bring the {v} service onto the new scheduler.",
    "probe2": "We're here to get the {v} service working on the new scheduler.",
    "probe6": "For today, the {v} service needs to move to the new scheduler.",
    "lead": "The job for this session: get the {v} service onto the new scheduler.",
    "probe7": "I need the {v} service running on the new scheduler by tonight.",
}
PAIR = {
    "tune": ("The {m} {n} is {v}.", "The {m} {n} changed to {v}."),
    "report": ("For the {m} side, the {n} is {v}.", "Heads up: the {m} {n} is now {v}."),
    "heldout": ("The {n} for {m} is {v}.", "The {n} for {m} is {v} now."),
    "final": ("{M} {n}: {v}.", "{M} {n} changed, it is {v} now."),
    "blind": ("The {m} {n} stands at {v}.", "We updated the {m} {n} to {v}."),
    "probe": ("Our {m} {n} is {v}.", "The {m} {n} went to {v}."),
    "probe3": ("We run the {m} {n} at {v}.", "We run the {m} {n} at {v} now."),
    "probe2": ("The {n} on {m} is {v}.", "The {n} on {m} changed to {v}."),
    "sealed": ("The {n} we use for {m} is {v}.", "For {m} the {n} became {v}."),
    "probe4": ("The {n} in use for {m} is {v}.", "For {m}, the {n} turned into {v}."),
    "probe5": ("The {m} {n} sits at {v}.", "The {m} {n} sits at {v} now."),
    "probe6": ("{M}'s {n} is {v}.", "{M}'s {n} became {v}."),
    "lead": ("For {m} the {n} is {v}.", "For {m} the {n} is {v} now."),
    "probe7": ("The {m} {n} is {v}.", "The {m} {n} went up to {v}, the other one is unchanged."),
}
# the pair planted in one sentence (two subjects, two values)
PAIR_JOINED = {"probe7": "The {n} is {v1} for {m1} and {v2} for {m2}."}
CHATTER = {
    "tune": ["Thanks, that helps.", "Let me check with the team.", "Sounds good, carry on.", "OK.", "Great, continue please.", "Hmm, interesting."],
    "report": ["Cool, keep going.", "I'm grabbing lunch, back soon.", "Nice output.", "Alright.", "Fine by me.", "Let's see what happens."],
    "heldout": ["Good stuff.", "Brb, meeting.", "That took a while, huh.", "Okay, next.", "Yep.", "Hmm, not sure about that one, but go on."],
    "final": ["Right.", "That's odd but fine.", "Back from standup.", "Go ahead.", "Nice, thank you!", "Let me think about it later."],
    "blind": ["Ok cool.", "One sec, reading.", "Hm, let me think.", "Carry on.", "Thanks a lot.", "Interesting, keep it up."],
    "probe": ["Neat.", "Hold on.", "Yes, that.", "Keep at it.", "Alright then.", "Seems fine."],
    "probe3": ["Cool cool.", "Ok, noted.", "Brb.", "Continue.", "Wow, fast.", "Hmm."],
    "probe2": ["Sure thing.", "Wait a sec.", "Got it.", "Moving on.", "Makes sense.", "Fine."],
    "sealed": ["Nice one.", "Hang on, reading the logs.", "Let me get back to you on that.", "Okay, go on.", "Thanks!", "Huh, weird, but continue."],
    "probe4": ["Sweet.", "Give me a minute.", "I'll circle back on that.", "Proceed.", "Cheers!", "Odd, but fine."],
    "probe5": ["Good.", "Let me look.", "Later maybe.", "Go on then.", "Ta.", "Strange, but ok."],
    "probe6": ["Nice.", "Reading, one moment.", "Park that for now.", "Keep going.", "Much obliged!", "Weird, but whatever."],
    "lead": ["Right.", "Give me a sec.", "Sure, makes sense.", "Go ahead.", "Cheers.", "Odd, but fine."],
    "probe7": ["Lovely.", "Hmm, let me read that.", "Not now, later.", "Carry on then.", "Thanks a bunch!", "Bit strange, but fine."],
}
TASKS = {
    "tune": ["Fix the flaky test in tests/test_{x}.py.", "Add logging to the {x} module.", "Look at why the {x} build is slow."],
    "report": ["Can you clean up src/{x}/util.py?", "Refactor the {x} client a bit.", "Investigate the timeout in the {x} job."],
    "heldout": ["Please write a test for the {x} parser.", "Rename the helper in the {x} package.", "Profile the {x} importer."],
    "final": ["Now update the README of the {x} repo.", "Check the CI logs for the {x} pipeline.", "Bump the dependencies of {x}."],
    "blind": ["Could you tidy up the {x} config?", "Write docs for the {x} endpoint.", "Please speed up the {x} tests."],
    "probe": ["Have a look at the {x} dashboards.", "Split the {x} module in two.", "Run the {x} benchmarks again."],
    "probe3": ["Audit the {x} permissions.", "Clean the {x} cache.", "Retry the {x} deploy."],
    "probe2": ["Trim the {x} logs.", "Review the {x} queries.", "Document the {x} flags."],
    "sealed": ["Look into the {x} alerts.", "Please simplify the {x} handler.", "Add a retry to the {x} client."],
    "probe4": ["Inspect the {x} metrics.", "Simplify the {x} router.", "Add tracing to the {x} worker."],
    "probe5": ["Trace the {x} latency.", "Shrink the {x} image.", "Lint the {x} code."],
    "probe6": ["Check the {x} error budget.", "Tidy the {x} handler.", "Add a timeout to the {x} client."],
    "lead": ["Profile the {x} startup.", "Rename a variable in the {x} module.", "Add logging to the {x} worker."],
    "probe7": ["Check the {x} memory usage.", "Clean up the {x} imports.", "Add a health check to the {x} server."],
}
# probe8's templates live in memory_probe8.py
ONCALL["probe8"] = P8.ONCALL
CONSTRAINT["probe8"] = P8.CONSTRAINT
PREFERENCE["probe8"] = P8.PREFERENCE
SAFETY["probe8"] = P8.SAFETY
GOAL["probe8"] = P8.GOAL
PAIR["probe8"] = P8.PAIR
CHATTER["probe8"] = P8.CHATTER
TASKS["probe8"] = P8.TASKS


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _inner(s: str) -> str:
    """``s`` said inside a longer sentence: its first word in lower case unless it is a name, "I", an acronym or a value."""
    w = s.split(" ", 1)[0].rstrip(",:;")
    if w in NAMES or w == "I" or w.startswith("I'") or w.isupper() or not w[:1].isalpha() or any(w.startswith(c) for c in CODENAMES):
        return s
    return s[:1].lower() + s[1:]


def generate(seed: int, family: str, *, tool_tokens: int = 260, turns: int = 34) -> Generated:
    """One session from ``seed`` with the templates of ``family`` (a key of ``FACT``)."""
    rng = random.Random(seed)
    vals = FormValues(rng) if family in ("probe7", "probe8") else Values(rng)
    plants: list[Plant] = []
    statements: list[str] = []  # plant texts, in order
    updates: list[tuple[str, Plant, str]] = []  # (text, plant, new value) to say later

    goal_v = rng.choice(GOAL_SVCS if family in GOAL_UPDATE else SVCS)
    vals.used.add(goal_v)
    statements.append(GOAL[family].format(v=goal_v))
    plants.append(Plant("goal", goal_v))
    if family in GOAL_UPDATE and rng.random() < 0.5:  # the goal restated or refined
        new_goal = rng.choice([g for g in GOAL_SVCS if g != goal_v])
        updates.append((rng.choice(GOAL_UPDATE[family]), plants[-1], new_goal))
    for tmpl in SAFETY[family]:
        v = vals.path() if "{v}" in tmpl and ("under" in tmpl or "files" in tmpl) else vals.host()
        statements.append(tmpl.format(v=v))
        plants.append(Plant("safety", v))
    for plant_t, update_t, unit in rng.sample(CONSTRAINT[family], 3):
        make = {"$": vals.money, "date": vals.date}.get(unit, lambda u=unit: vals.number(u))
        v = make()
        p = Plant("constraint", v)
        statements.append(plant_t.format(v=v))
        plants.append(p)
        if rng.random() < 0.6:
            updates.append((update_t, p, make()))
    for plant_t, update_t in PREFERENCE[family]:
        # a template about replies/answers/docs takes a language, whatever its case ("Answers in {v} …": before, probe5's
        # got a number of seconds); `lead` (held out) keeps the sessions of its earlier runs until the lead decides otherwise
        about_language = re.search(r"answers|repl|docs", plant_t, 0 if family == "lead" else re.IGNORECASE)
        make = vals.lang if about_language else (lambda: vals.number("seconds"))
        v = make()
        p = Plant("preference", v)
        statements.append(plant_t.format(v=v))
        plants.append(p)
        if rng.random() < 0.5:
            updates.append((update_t, p, make()))
    kinds = ["date", "name", "rename", "version", "host", *(k for k in ("path", "id") if k in FACT.get(family, {}))]
    distractors: list[str] = []  # sealed and probe4 only: said among the chatter, never an update
    corrected: dict[str, Plant] = {}  # probe8: a statement corrected in the same breath → its plant
    facts: dict[str, tuple[Plant, str]] = {}  # probe8: a fact's statement → (its plant, its kind), for echoes
    if family == "probe8":
        kinds = []  # its facts are planted below
        _plant_probe8(rng, vals, statements, plants, updates, distractors, corrected, facts)
    for kind in kinds:
        plant_ts, update_ts = FACT[family][kind]
        if family in OWN_WORLD:
            subj = OWN_WORLD[family][1][kind].format(svc=rng.choice(SVCS), thing=rng.choice(OWN_WORLD[family][0]))
        else:
            subj = {"date": f"the {rng.choice(SVCS)} launch", "name": f"the {rng.choice(THINGS)}", "rename": f"the {rng.choice(THINGS)}",
                    "version": f"the {rng.choice(SVCS)} worker", "host": f"the {rng.choice(SVCS)} replica host"}[kind]
        make = {"date": vals.date, "name": vals.name, "rename": vals.codename, "version": vals.version, "host": vals.host, "path": vals.path, "id": vals.ticket}[kind]
        if family in OWN_WORLD:
            distractors.append(OWN_WORLD[family][4][kind].format(v=make()))
            distractors.append(rng.choice(OWN_WORLD[family][5]).format(s=subj))
        v = make()
        p = Plant("fact", v)
        statements.append(rng.choice(plant_ts).format(s=subj, S=_cap(subj), v=v))
        plants.append(p)
        if rng.random() < 0.6:
            updates.append((rng.choice(update_ts).replace("{s}", subj).replace("{S}", _cap(subj)), p, make()))
    on_v = vals.name()
    p = Plant("fact", on_v)
    statements.append(ONCALL[family][0].format(v=on_v))
    plants.append(p)
    if rng.random() < 0.5:
        updates.append((ONCALL[family][1], p, vals.name()))
    # a pair of different subjects that share words
    mods = rng.choice(OWN_WORLD[family][2] if family in OWN_WORLD else PAIR_MODS)
    noun, vkind = rng.choice(OWN_WORLD[family][3] if family in OWN_WORLD else PAIR_NOUNS)
    make = {"date": vals.date, "count": lambda: vals.number("requests per minute"), "host": vals.host, "name": vals.name,
            "seconds": lambda: vals.number("seconds")}[vkind]
    pair_id = seed
    pair_vals = []
    for m in mods:
        v = make()
        pair_vals.append(v)
        p = Plant("fact", v, pair=pair_id)
        if family not in PAIR_JOINED:
            statements.append(PAIR[family][0].format(m=m, M=_cap(m), n=noun, v=v))
        plants.append(p)
    if family in PAIR_JOINED:
        statements.append(PAIR_JOINED[family].format(n=noun, m1=mods[0], m2=mods[1], v1=pair_vals[0], v2=pair_vals[1]))
    if rng.random() < 0.5:
        m = rng.choice(mods)
        target = plants[-2] if m == mods[0] else plants[-1]
        updates.append((PAIR[family][1].replace("{m}", m).replace("{M}", _cap(m)).replace("{n}", noun), target, make()))

    # lay out the turns: statements early and middle, updates later, chatter and tasks around
    messages: list[Message] = []
    n_call = 0
    order = statements[:1] + rng.sample(statements[1:], len(statements) - 1)
    upd_at = sorted(rng.sample(range(turns // 2, turns - 1), len(updates)))
    upd_iter = iter(zip(upd_at, updates, strict=True))
    nxt = next(upd_iter, None)
    state_i = 0
    said_at = -1  # probe7: parts[said_at] is a statement another one may be joined to

    def say(parts: list[str], text: str, update: bool) -> None:
        nonlocal said_at
        if family in WRAPS and update and rng.random() < 0.3:
            text = rng.choice(WRAPS[family]).format(u=_inner(text))
        if family in JOINERS and said_at == len(parts) - 1 >= 0 and rng.random() < 0.5:
            parts[-1] = parts[-1].rstrip(".!") + rng.choice(JOINERS[family]) + _inner(text)
            said_at = -1
            return
        parts.append(text)
        said_at = len(parts) - 1

    for t in range(turns):
        parts: list[str] = []
        said_at = -1
        if t == 0:
            parts.append(order[0])
            state_i = 1
        while state_i < len(order) and rng.random() < 0.55 and t < turns // 2 - 1:
            say(parts, order[state_i], False)
            state_i += 1
        while nxt is not None and nxt[0] <= t:
            _, (text, plant, newv), = nxt
            say(parts, text.format(v=newv, o=plant.value) if family == "probe8" else text.format(v=newv), True)
            plant.stale.append(plant.value)
            plant.stale_at.append(len(messages))
            plant.value = newv
            vals.used.add(newv)
            nxt = next(upd_iter, None)
        if rng.random() < 0.5:
            parts.append(rng.choice(TASKS[family]).format(x=rng.choice(SVCS)))
        if distractors and rng.random() < 0.35:
            parts.insert(rng.randint(0, len(parts)), distractors.pop(rng.randrange(len(distractors))))
        if rng.random() < 0.5 or not parts:
            parts.insert(0, rng.choice(CHATTER[family]))
        if t == turns // 2 - 1:  # every statement is made before the first update can come
            parts += order[state_i:]
            state_i = len(order)
        if family == "probe8":
            _echo_probe8(rng, parts, order[:state_i], facts, said_before="\n".join(m.text for m in messages if m.role == "user"))
            for text, plant in corrected.items():
                if text in " ".join(parts):
                    plant.stale_at.append(len(messages))
        messages.append(user(" ".join(parts)))
        for _ in range(rng.randint(1, 2)):
            n_call += 1
            cid = f"call_{n_call}"
            cmd = rng.choice(["pytest -q", "git status", "make build", "grep -rn TODO src", "cat src/app.py"])
            messages.append(assistant("", ToolCallPart(cid, "shell", f'{{"command": "{cmd}"}}')))
            body = "\n".join(f"{cmd.split()[0]}: line {i} " + " ".join(rng.choice(["ok", "src/app.py", "passed", "warn", "x=1", "done"]) for _ in range(8)) for i in range(tool_tokens // 20))
            messages.append(tool_result(cid, body + f"\nExit code: {rng.choice([0, 0, 0, 1])}", name="shell"))
        messages.append(assistant(rng.choice(["Done; the change is in place and the tests pass.", "I looked into it; details above.", "Working on it, next I will run the build."]) + " " + "More detail about the steps taken. " * rng.randint(2, 6)))
    return Generated(messages, plants, family, seed)


def _plant_probe8(rng: random.Random, vals: Values, statements: list[str], plants: list[Plant], updates: list[tuple[str, Plant, str]],
                  distractors: list[str], corrected: dict[str, Plant], facts: dict[str, tuple[Plant, str]]) -> None:
    """probe8's facts: a random subset of its kinds, some corrected in the same breath, some said in
    passing inside a request; updates name the subject by its long or its short form."""
    things = rng.sample(P8.THINGS, len(P8.THINGS))
    make = P8.makers(vals, SVCS)
    for kind in rng.sample(sorted(P8.FACT), P8.FACT_KINDS_PER_SESSION):
        subj, short = P8.subject(kind, rng, things, SVCS)
        distractors.append(P8.OWN_WORLD[4][kind].format(v=make[kind]()))
        distractors.append(rng.choice(P8.OWN_WORLD[5]).format(s=subj))
        v = make[kind]()
        p = Plant("fact", v)
        text = rng.choice(P8.FACT[kind][0]).format(s=subj, S=_cap(subj), v=v)
        if rng.random() < 0.25:  # corrected in the same breath
            newv = make[kind]()
            text += " " + rng.choice(P8.CORRECT_NOW).format(v=newv, o=v)
            p.stale.append(v)
            p.value = newv
            corrected[text] = p
        elif rng.random() < 0.3:  # said in passing inside a request
            text = rng.choice(P8.PASSING).format(x=rng.choice(SVCS), u=_inner(text).rstrip("."))
        statements.append(text)
        plants.append(p)
        facts[text] = (p, kind)
        if rng.random() < 0.6:
            upd = rng.choice(P8.FACT[kind][1])
            updates.append((upd.replace("{s}", subj).replace("{S}", _cap(subj)).replace("{a}", short).replace("{A}", _cap(short)), p, make[kind]()))


def _echo_probe8(rng: random.Random, parts: list[str], said: list[str], facts: dict[str, tuple[Plant, str]], said_before: str) -> None:
    """probe8: now and then a value said earlier comes back in chatter (its current value; not an update)."""
    known = [facts[t] for t in said if t in facts and t in said_before]
    if known and rng.random() < 0.3:
        plant, kind = rng.choice(known)
        parts.append(rng.choice(P8.ECHO).format(v=f"port {plant.value}" if kind == "port" else plant.value))
