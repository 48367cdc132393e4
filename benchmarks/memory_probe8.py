"""The ``probe8`` family's templates (seeds 17000+): tuning data from the start, written (issue 11,
fourth pass) before any run of it and before any look at ``lead``'s failures (only ``lead``'s
generator templates were ever read), with sentences of its own for the kinds that most plausibly
make a fact go missing or a value stay stale:

* facts said in passing inside a request ("Please bump the X deps — the Y listens on port V — and
  open a PR", "(for context, …)");
* facts about people, teams, hosts, ports, versions, paths, ticket ids, yearly amounts, durations;
* updates that name the subject another way: an abbreviation ("the order management system" →
  "the OMS"), a clipped word ("database" → "DB"), a dropped word ("the ledger admin console" →
  "the ledger console"), a pronoun, a possessive;
* corrections: right after the statement ("Sorry, I meant V.", "No wait, V.", "Typo: V, not U.")
  or later ("Typo in what I wrote: X is V, not U.", "U handed X to V last week.");
* an update that gives only the new value, its subject in the sentence before ("The X? Pushed to V.",
  "I checked X again. V is correct.");
* units and formats that change across the update ("45 minutes" → "2 hours", "$14,200" → "15.5k
  dollars" → "16,100 USD", "March 3" → "2026-03-10");
* values repeated in later chatter (not updates: "Thanks, I double-checked V and it looks right.");
* a pair of subjects that share words, named in another order by the update.

``memory_sessions.generate`` uses these when ``family == "probe8"``; every other family's sessions
are unchanged (no extra random draws outside probe8).
"""

from __future__ import annotations

import random
from typing import Any

# (long form, short form): the short form is how a later message may name the same thing
THINGS = [
    ("order management system", "OMS"), ("customer data platform", "CDP"), ("single sign-on portal", "SSO portal"),
    ("disaster recovery site", "DR site"), ("content delivery network", "CDN"), ("continuous integration server", "CI server"),
    ("key management service", "KMS"), ("business intelligence dashboard", "BI dashboard"),
]
# a fact's subject per kind: (long, short); {thing}/{short} from THINGS, {svc} a service name
SUBJECTS = {
    "date": ("the {thing} go-live", "the {short} go-live"),
    "name": ("the {thing}", "the {short}"),
    "rename": ("the {thing}", "the {short}"),
    "version": ("the {thing} agent", "the {short} agent"),
    "host": ("the {thing} database", "the {short} DB"),
    "port": ("the {svc} admin console", "the {svc} console"),
    "path": ("the {svc} config file", "the {svc} config"),
    "id": ("the {svc} migration ticket", "the {svc} ticket"),
    "amount": ("the {thing} support contract", "the {short} contract"),
    "duration": ("the {svc} maintenance window", "the {svc} window"),
    "team": ("escalations for the {thing}", "{short} escalations"),
}
THING_KINDS = {"date", "name", "rename", "version", "host", "amount", "team"}
#: how many fact kinds one session plants (a random subset, so updates fit in the second half)
FACT_KINDS_PER_SESSION = 7
# (plants, updates); {s}/{S} the subject, {a}/{A} its short form, {v} the value, {o} the value it replaces
FACT = {
    "date": (["{S} is booked in for {v}.", "Heads-up for planning: {s} falls on {v}.", "{S} should happen on {v}, all being well."],
             ["{A} is {v} now, sorry for the churn.", "Typo in what I wrote: {s} is {v}, not {o}.", "We had to rebook {a}; it's {v}.",
              "I checked the calendar for {s} again. {v} is correct.", "{A}? Pushed to {v}."]),
    "name": (["{v} is the person to ask about {s}.", "If you need anything on {s}, {v} is your contact."],
             ["{v} owns {a} these days.", "Sorry, I meant {v} for {s}, not {o}.", "{A} moved teams, so talk to {v} now.", "{o} handed {s} to {v} last week."]),
    "rename": (["Around here {s} is called {v}.", "{S} has the codename {v}."],
               ["{A} is {v} now, the old codename is retired.", "No wait, the codename for {s} is {v}.", "We're calling {a} {v} from this sprint."]),
    "version": (["{S} is on release {v}.", "{S} currently ships version {v}."],
                ["We rolled {a} forward to {v}.", "{A} runs {v} after last night's deploy.", "Typo: {s} is on {v}, not {o}."]),
    "host": (["{S} lives on {v}.", "Connect to {s} via {v}."],
             ["{A} was rebuilt on {v}.", "Use {v} for {a} from here on.", "The failover happened, so {a} is on {v} now."]),
    "port": (["{S} listens on port {v}.", "{S} is reachable on port {v}."],
             ["{A} moved to port {v}.", "We changed the port of {s}; {v} from now on.", "Sorry, port {v} for {a}, I had it wrong."]),
    "path": (["{S} sits at {v}.", "Edit {s} at {v} when you need to."],
             ["{A} got moved to {v}.", "Typo before: {s} is at {v}, not {o}."]),
    "id": (["{S} is {v}.", "Track {s} as {v}."],
           ["{A} got replaced by {v}.", "{A} is now {v}; the old one was a duplicate."]),
    "amount": (["{S} costs {v} a year.", "We pay {v} a year for {s}."],
               ["{A} went up to {v} a year at renewal.", "The renewal quote for {s} is {v} a year now.", "Sorry, I meant {v} a year for {a}."]),
    "duration": (["{S} lasts {v}.", "Plan for {s} to take {v}."],
                 ["{A} is {v} now.", "We stretched {a} to {v}.", "{A} got cut to {v}."]),
    "team": (["{S} go to the {v} team.", "Team {v} picks up {s}."],
             ["{A} go to team {v} now.", "{A} were handed to the {v} team.", "No wait, {s} belong to the {v} team, not {o}."]),
}
# a correction said right after the statement, in the same message
CORRECT_NOW = ["Sorry, I meant {v}.", "No wait, {v}.", "Typo: {v}, not {o}."]
# a fact said in passing inside a request ({u} the statement, {x} a service)
PASSING = [
    "Could you tidy the {x} tests (for context, {u}) and rerun them?",
    "Please bump the {x} deps — {u} — and open a PR.",
    "While you're in the {x} code, keep in mind that {u}.",
]
# a value repeated in later chatter: not an update, and not a statement of anything new
ECHO = ["Thanks, I double-checked {v} and it looks right.", "Ha, {v} again, I keep seeing that everywhere.", "Noted {v} in my own notes too."]
TEAMS = ["Falcon", "Heron", "Kestrel", "Osprey", "Puffin", "Wren", "Ibis", "Egret", "Plover", "Tern"]
OWN_WORLD = (
    [t for t, _ in THINGS],
    {},  # subjects come from SUBJECTS (each with a short form)
    [("hot", "cold"), ("admin", "guest"), ("ingress", "egress"), ("pilot", "general"), ("weekday", "weekend")],
    [("cutover window", "date"), ("connection limit", "count"), ("relay box", "host"), ("approval contact", "name"), ("idle cutoff", "seconds")],
    {
        "date": "Our team offsite is on {v}, unrelated.",
        "name": "{v} from accounting booked the big room.",
        "rename": "My Wi-Fi network is called {v}, ha.",
        "version": "My phone runs app version {v}, whatever.",
        "host": "A smoke-test VM at {v} belongs to someone else.",
        "port": "My local dev proxy uses port {v}, ignore that.",
        "path": "There's a stray copy in {v}, not important.",
        "id": "{v} is a ticket from a different project.",
        "amount": "My new bike cost {v}, ouch.",
        "duration": "The all-hands took {v}, way too long.",
        "team": "The {v} team won the hackathon.",
    },
    ["Is {s} going OK?", "Did anyone write down {s} somewhere?", "Who should review {s}?"],
)
GOAL = "Could you help me move the {v} service onto the new scheduler this week?"
GOAL_UPDATE = [
    "Small pivot: the {v} service goes onto the new scheduler first, the other one can wait.",
    "Let's retarget: I want the {v} service moved to the new scheduler instead.",
]
PAIR = ("On {m}, the {n} is {v}.", "The {m} {n} is {v} as of today.")
ONCALL = ("{v} is on pager duty until Friday.", "Correction on the pager: {v} has it until Friday.")
CONSTRAINT = [
    ("Commit subjects get {v} tops.", "Commit subjects can have {v} now, I was too strict.", "characters"),
    ("PRs bigger than {v} need splitting.", "Typo earlier: PRs bigger than {v} need splitting, not {o}.", "lines"),
    ("Cloud should cost us under {v} a month.", "The cloud ceiling is {v} a month now.", "$"),
    ("The migration wraps by {v} at the latest.", "Migration: {v} at the latest now.", "date"),
]
PREFERENCE = [
    ("Getting answers in {v} would be ideal for me.", "Actually {v} suits me better for answers."),
    ("Poll every {v} when you script waits.", "Poll every {v} instead when you script waits."),
]
SAFETY = ["Stuff under {v} stays put: do not delete it.", "Hands off the database at {v} unless I give the go-ahead."]
CHATTER = ["Right, good.", "Let me stare at this for a bit.", "Later, not now.", "Onwards.", "Appreciated!", "Bit odd, but okay."]
TASKS = ["Look at the {x} retry logic.", "Make the {x} logs less noisy.", "Add a smoke test for the {x} API."]


# --- values of the kinds only probe8 plants (``vals`` is memory_sessions.FormValues) -------------
def port(vals: Any) -> str:
    return str(vals._uniq(lambda: str(vals.rng.randint(1025, 9899))))


def team(vals: Any) -> str:
    return str(vals._uniq(lambda: vals.rng.choice(TEAMS)))


def config_path(vals: Any, svcs: list[str]) -> str:
    return str(vals._uniq(lambda: f"/opt/{vals.rng.choice(svcs)}/etc/app-{vals.rng.randint(2, 99)}.yaml"))


def ticket(vals: Any) -> str:
    return str(vals._uniq(lambda: f"{vals.rng.choice(['PLAT', 'DATA', 'SEC'])}-{vals.rng.randint(100, 989)}"))


def amount(vals: Any) -> str:
    """A yearly amount in one of the forms people write it ("$14,200", "14.2k dollars", "14,200 USD")."""
    def one() -> str:
        n = vals.rng.randint(60, 240) * 100
        return str(vals._form(f"amount {n}", [f"${n:,}", f"{n / 1000:g}k dollars", f"{n:,} USD"]))
    return str(vals._pick(one))


def duration(vals: Any) -> str:
    """A duration in minutes or hours ("45 minutes", "2 hours", "1.5 hours")."""
    def one() -> str:
        n = vals.rng.choice([20, 25, 35, 40, 45, 50, 55, 70, 75, 80, 90, 120, 150, 180, 240])
        forms = [f"{n} minutes"] + ([f"{n / 60:g} hours"] if n % 30 == 0 and n >= 90 else [])
        return str(vals._form(f"duration {n}", forms))
    return str(vals._pick(one))


def makers(vals: Any, svcs: list[str]) -> dict[str, Any]:
    """The value maker of each fact kind."""
    return {
        "date": vals.date, "name": vals.name, "rename": vals.codename, "version": vals.version, "host": vals.host,
        "port": lambda: port(vals), "path": lambda: config_path(vals, svcs), "id": lambda: ticket(vals), "amount": lambda: amount(vals),
        "duration": lambda: duration(vals), "team": lambda: team(vals),
    }


def subject(kind: str, rng: random.Random, things: list[tuple[str, str]], svcs: list[str]) -> tuple[str, str]:
    """(long, short) subject of a fact of ``kind``; ``things`` is consumed (no two kinds share a thing)."""
    long_t, short_t = SUBJECTS[kind]
    if kind in THING_KINDS:
        thing, short = things.pop()
        return long_t.format(thing=thing, short=short), short_t.format(thing=thing, short=short)
    svc = rng.choice(svcs)
    return long_t.format(svc=svc), short_t.format(svc=svc)
