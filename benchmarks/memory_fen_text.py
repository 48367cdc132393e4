"""Situations, subjects, values and sentences of the held-out ``fen`` family (``memory_family_fen.py``).

Written by i11fam10 (issue 11, 2026-11-25) from how users talk to a coding agent, without reading the
ledger's code or any other family's sentences (their world modules were read only to avoid their
domains and names). Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from memory_sessions import value_pattern


def found(value: str, text: str) -> bool:
    """The benchmark's own match (``value_pattern``) of ``value`` in ``text``."""
    return bool(value_pattern(value).search(text.lower()))


# --- values -----------------------------------------------------------------------------------------
PEOPLE = ("Anahera Rewi", "Bogdan Ionescu", "Folasade Adeyemi", "Szymon Wrona", "Itzel Quispe", "Renske Visser", "Keoni Kahale",
          "Mirela Dobre", "Lwazi Nkosi", "Aurelio Santini", "Kaito Mori", "Ebba Lindqvist", "Tamar Avidan", "Oyelaran Bello",
          "Cosmin Radu", "Maelle Kerjean", "Jovana Petrov", "Pita Sharples", "Zuzana Hrubá", "Emeka Obi", "Sigrún Ása", "Dilnoza Karimova")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
WORDS = ("quill", "basalt", "heron", "juniper", "cobalt", "lantern", "meadow", "pylon", "saffron", "tundra", "walnut", "zephyr",
         "marrow", "obsidian", "plover", "russet", "sorrel", "thistle", "umber", "vellum")


@dataclass(frozen=True)
class Kind:
    """What a subject's value is. ``vtype``: qty (``lo``..``hi`` ``unit``), money, date, name, code (``unit``
    is the prefix), version, path (``unit`` is the root), host (``unit`` is the stem), pick (one of ``pool``)."""

    vtype: str
    lo: int = 0
    hi: int = 0
    unit: str = ""
    pool: tuple[str, ...] = ()


class Values:
    """Draws values unique in one session: a magnitude is used once whatever its unit."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.numbers: set[int] = set()

    def draw(self, k: Kind) -> str:
        for _ in range(400):
            v = self._one(k)
            if v not in self.used and not any(found(v, u) or found(u, v) for u in self.used):
                self.used.add(v)
                return v
        raise RuntimeError(f"fen: no fresh value of {k}")

    def _num(self, lo: int, hi: int) -> int:
        for _ in range(200):
            n = self.rng.randint(lo, hi)
            if n not in self.numbers:
                self.numbers.add(n)
                return n
        return self.rng.randint(lo, hi)

    def _one(self, k: Kind) -> str:
        r = self.rng
        if k.vtype == "qty":
            return f"{self._num(k.lo, k.hi)} {k.unit}"
        if k.vtype == "money":
            return f"${self._num(k.lo, k.hi):,}"
        if k.vtype == "date":
            return f"{r.choice(MONTHS)} {r.randint(2, 28)}"
        if k.vtype == "name":
            return r.choice(PEOPLE)
        if k.vtype == "code":
            return f"{k.unit}-{self._num(1000, 9899)}"
        if k.vtype == "version":
            return f"{r.randint(2, 9)}.{r.randint(10, 40)}.{r.randint(1, 9)}"
        if k.vtype == "path":
            return f"{k.unit}/{r.choice(WORDS)}-{r.randint(10, 99)}"
        if k.vtype == "host":
            return f"{k.unit}-{r.choice(WORDS)}-{r.randint(10, 99)}"
        return r.choice(k.pool)


# --- the world ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Subject:
    """``rule``: for safety rules and constraints, the words of the rule with ``{v}`` (an infinitive for a
    safety rule: "never {rule}"; "{noun} {bound} {v}" for a constraint); ``ref``: how the user refers
    back to the rule without its value ("the rule about tags")."""

    key: str
    kind: str
    noun: str
    k: Kind
    rule: str = ""
    ref: str = ""


@dataclass(frozen=True)
class Situation:
    key: str
    goals: tuple[str, ...]  # goal values (the opening request's object); a re-scope draws another
    subjects: tuple[Subject, ...]
    pair: tuple[str, str, str, Kind]  # modifier 1, modifier 2, shared noun, kind
    others: tuple[tuple[str, Kind], ...]  # other things with values of the same types (distractors)
    tasks: tuple[str, ...]
    colleague_rules: tuple[str, ...]  # rules a colleague holds, with {v}


def _s(key: str, kind: str, noun: str, k: Kind, rule: str = "", ref: str = "") -> Subject:
    return Subject(key, kind, noun, k, rule, ref)


SITUATIONS: tuple[Situation, ...] = (
    Situation(
        "pharmacy",
        ("moving the dispensing cabinets onto the new formulary server", "auditing the controlled-substance override log",
         "rebuilding the cabinet restock report", "cutting the cabinets over ward by ward"),
        (
            _s("wipe", "safety", "audit table wipes", Kind("host", unit="rx-audit"), "truncate anything on {v}", "the audit tables"),
            _s("pass", "safety", "cabinet reboots", Kind("code", unit="CAB"), "reboot cabinet {v} while a med pass is running", "cabinet reboots"),
            _s("phi", "safety", "patient exports", Kind("path", unit="/mnt/phi"), "copy patient rows out of {v}", "patient data"),
            _s("latency", "constraint", "the override lookup", Kind("qty", 150, 900, "ms"), "{n} under {v}", ""),
            _s("downtime", "constraint", "per-ward downtime", Kind("qty", 6, 45, "minutes"), "{n} under {v}", ""),
            _s("batch", "constraint", "the restock batch", Kind("qty", 40, 400, "lines"), "{n} under {v}", ""),
            _s("style", "preference", "reports", Kind("pick", pool=("tables over prose", "one line per ward", "plain-text summaries"))),
            _s("cadence", "preference", "status pings", Kind("pick", pool=("a digest at the end of each shift", "updates only when something breaks"))),
            _s("owner", "fact", "the formulary owner", Kind("name")),
            _s("server", "fact", "the formulary server version", Kind("version")),
            _s("golive", "fact", "the go-live for ward 4", Kind("date")),
            _s("ticket", "fact", "the change ticket", Kind("code", unit="CHG")),
            _s("drop", "fact", "the nightly drop folder", Kind("path", unit="/srv/pyxis")),
            _s("vendor", "fact", "the vendor contact", Kind("name")),
        ),
        ("nightly", "weekly", "restock export host", Kind("host", unit="rx-db")),
        (("the cafeteria menu service", Kind("version")), ("the parking office", Kind("name")), ("the old fax bridge", Kind("host", unit="fax"))),
        ("check the override log parser", "diff the old and new formulary schemas", "re-run the restock report for ward 2",
         "look at why cabinet sync retries so often"),
        ("run migrations on {v} before noon", "let anyone but pharmacy sign off on changes to {v}"),
    ),
    Situation(
        "enrolment",
        ("cutting course enrolment over to the new registrar API", "fixing the waitlist promotion job",
         "moving seat holds into the timetable service", "cleaning up duplicate student records before term"),
        (
            _s("grades", "safety", "grade table writes", Kind("host", unit="sis-prod"), "write to the grade tables on {v}", "grade writes"),
            _s("email", "safety", "bulk email", Kind("code", unit="LIST"), "send a bulk email to list {v} without a dry run", "bulk email"),
            _s("purge", "safety", "record purges", Kind("path", unit="/var/sis"), "delete anything under {v}", "the purge folder"),
            _s("seats", "constraint", "the seat-hold window", Kind("qty", 5, 60, "minutes"), "{n} under {v}", ""),
            _s("rate", "constraint", "calls to the registrar API", Kind("qty", 20, 600, "calls/min"), "{n} under {v}", ""),
            _s("cost", "constraint", "the monthly API bill", Kind("money", 200, 5000), "{n} under {v}", ""),
            _s("diffs", "preference", "code changes", Kind("pick", pool=("small diffs with a test each", "one commit per table"))),
            _s("naming", "preference", "job names", Kind("pick", pool=("snake_case job names", "names prefixed with the term code"))),
            _s("registrar", "fact", "the registrar contact", Kind("name")),
            _s("apiver", "fact", "the registrar API version", Kind("version")),
            _s("freeze", "fact", "the timetable freeze", Kind("date")),
            _s("term", "fact", "the term code", Kind("code", unit="TERM")),
            _s("cron", "fact", "the waitlist job's config", Kind("path", unit="/etc/sis")),
            _s("dba", "fact", "the DBA on call", Kind("name")),
        ),
        ("undergraduate", "postgraduate", "waitlist queue host", Kind("host", unit="sis-q")),
        (("the library kiosk", Kind("version")), ("the alumni office", Kind("name")), ("the parking permit system", Kind("host", unit="park"))),
        ("trace a waitlist promotion that skipped a student", "write the seat-hold expiry query", "check the registrar API error codes",
         "look at the duplicate-record matcher"),
        ("touch {v} during add/drop week", "merge records on {v} by hand"),
    ),
    Situation(
        "kiln",
        ("bringing up the new kiln controller board", "porting the firing schedules to the new firmware",
         "getting the thermocouple readings stable", "adding a remote cooldown alarm"),
        (
            _s("relay", "safety", "relay tests", Kind("code", unit="RLY"), "energise relay {v} with the lid open", "the relay"),
            _s("flash", "safety", "bootloader flashing", Kind("version"), "flash a bootloader older than {v}", "the bootloader"),
            _s("ramp", "safety", "ramp overrides", Kind("qty", 150, 400, "degrees per hour"), "ramp faster than {v}", "ramp speed"),
            _s("peak", "constraint", "the peak temperature", Kind("qty", 1000, 1300, "°C"), "{n} under {v}", ""),
            _s("poll", "constraint", "the thermocouple poll interval", Kind("qty", 50, 900, "ms"), "{n} under {v}", ""),
            _s("flashsize", "constraint", "the firmware image", Kind("qty", 90, 480, "KB"), "{n} under {v}", ""),
            _s("units", "preference", "temperatures in the logs", Kind("pick", pool=("Celsius with one decimal", "whole degrees only"))),
            _s("commits", "preference", "commit messages", Kind("pick", pool=("the schedule name in every commit subject", "short lowercase subjects"))),
            _s("potter", "fact", "the studio lead", Kind("name")),
            _s("board", "fact", "the board revision", Kind("code", unit="REV")),
            _s("firing", "fact", "the next test firing", Kind("date")),
            _s("sched", "fact", "the schedule file", Kind("path", unit="/opt/kiln")),
            _s("sdk", "fact", "the SDK version", Kind("version")),
            _s("elec", "fact", "the electrician", Kind("name")),
        ),
        ("bisque", "glaze", "firing profile host", Kind("host", unit="kiln")),
        (("my mum's router", Kind("version")), ("the clay supplier", Kind("name")), ("the studio printer", Kind("host", unit="print"))),
        ("read the thermocouple driver", "check why the ADC drifts after an hour", "write a dry-run mode for the schedule runner",
         "look at the watchdog reset log"),
        ("open the lid while {v} is still logging a firing", "run a firing on {v} unattended"),
    ),
    Situation(
        "observatory",
        ("rewriting the night scheduler for the 1.2 m telescope", "moving the image archive to object storage",
         "adding weather holds to the dome controller", "cleaning up the calibration frame pipeline"),
        (
            _s("dome", "safety", "dome commands", Kind("qty", 25, 60, "km/h"), "open the dome when wind is over {v}", "the dome"),
            _s("raw", "safety", "raw frame deletes", Kind("path", unit="/data/raw"), "delete frames under {v}", "raw frames"),
            _s("mount", "safety", "mount slews", Kind("code", unit="AXIS"), "slew axis {v} without the limit switches armed", "slews"),
            _s("overhead", "constraint", "scheduler overhead per target", Kind("qty", 3, 40, "seconds"), "{n} under {v}", ""),
            _s("store", "constraint", "the archive", Kind("qty", 20, 300, "TB"), "{n} under {v}", ""),
            _s("egress", "constraint", "monthly egress cost", Kind("money", 100, 3000), "{n} under {v}", ""),
            _s("plots", "preference", "plots", Kind("pick", pool=("PNG plots with axis labels", "no plots, numbers only"))),
            _s("tz", "preference", "times in messages", Kind("pick", pool=("UTC everywhere", "local time with the UTC offset"))),
            _s("pi", "fact", "the instrument scientist", Kind("name")),
            _s("ccd", "fact", "the camera firmware", Kind("version")),
            _s("run", "fact", "the next observing run", Kind("date")),
            _s("prop", "fact", "the proposal id", Kind("code", unit="PROP")),
            _s("cfg", "fact", "the scheduler config", Kind("path", unit="/etc/obs")),
            _s("night", "fact", "the night assistant", Kind("name")),
        ),
        ("blue-arm", "red-arm", "calibration cache host", Kind("host", unit="obs")),
        (("the visitor centre kiosk", Kind("version")), ("the cook at the lodge", Kind("name")), ("the weather mast", Kind("host", unit="met"))),
        ("profile the target ranking loop", "check the FITS header writer", "look at the flat-field combiner",
         "trace why the dome controller logs a timeout"),
        ("park the telescope on {v}", "run darks on {v} during the day"),
    ),
    Situation(
        "foodbank",
        ("building the volunteer rota app for the food bank", "moving donor records off the spreadsheet",
         "adding SMS shift reminders", "importing the warehouse stock counts"),
        (
            _s("donor", "safety", "donor exports", Kind("path", unit="/srv/donors"), "share anything from {v} outside the board", "donor data"),
            _s("sms", "safety", "SMS sends", Kind("code", unit="SMS"), "send campaign {v} to people who opted out", "opt-outs"),
            _s("prod", "safety", "production deploys", Kind("host", unit="rota"), "deploy to {v} on a Saturday", "Saturday deploys"),
            _s("smsbudget", "constraint", "the SMS spend", Kind("money", 30, 900), "{n} under {v}", ""),
            _s("load", "constraint", "page load on the rota", Kind("qty", 300, 3000, "ms"), "{n} under {v}", ""),
            _s("shift", "constraint", "a volunteer's shift", Kind("qty", 2, 9, "hours"), "{n} under {v}", ""),
            _s("tone", "preference", "reminder texts", Kind("pick", pool=("a friendly first-name greeting", "no emoji at all"))),
            _s("docs", "preference", "documentation", Kind("pick", pool=("a README section per screen", "short how-to pages with screenshots"))),
            _s("coord", "fact", "the rota coordinator", Kind("name")),
            _s("django", "fact", "the Django version", Kind("version")),
            _s("launch", "fact", "the rota launch", Kind("date")),
            _s("sheet", "fact", "the donor sheet export", Kind("path", unit="/srv/import")),
            _s("grant", "fact", "the grant reference", Kind("code", unit="GR")),
            _s("treasurer", "fact", "the treasurer", Kind("name")),
        ),
        ("morning", "evening", "shift reminder host", Kind("host", unit="sms")),
        (("my phone", Kind("version")), ("the church hall manager", Kind("name")), ("the office wifi box", Kind("host", unit="wifi"))),
        ("write the shift swap view", "check the SMS provider's error codes", "import last month's stock counts", "look at the duplicate volunteer check"),
        ("give anyone admin rights on {v}", "move the freezer log off {v}"),
    ),
)

COLLEAGUES = ("Harriet", "Gustavo", "Noor", "Pim", "Wen", "Obi")

# --- sentences ---------------------------------------------------------------------------------------
GOAL = ("I need help {g}.", "Today's job: {g}.", "Can you help me with {g}? That's the whole task for this session.")
GOAL_RESCOPE = ("Scope change: drop {o} for now, we're only {v}.", "New plan, we're not {o} any more — just {v}.")
SAFETY = {
    "please": "Please make sure we never, ever {r}.",
    "goingforward": "Going forward, don't {r} — ever.",
    "hard": "Hard requirement: nobody is to {r}.",
    "nonneg": "It's non-negotiable: we never {r}.",
}
CONSTRAINT = {
    "hard": "Hard requirement: {n} stays under {v}.",
    "question": "Can we keep {n} under {v}, please?",
    "nonneg": "It's non-negotiable that {n} stays under {v}.",
    "goingforward": "Going forward, {n} has to stay under {v}.",
}
PREFERENCE = {
    "like": "Going forward I'd like {v} for {n}.",
    "please": "For {n}, please do {v}.",
    "habit": "Small thing: {v} for {n}, that's how I read them best.",
}
FACT = {
    "colon": "{N}: {v}.",
    "is": "{N} is {v}.",
    "fyi": "fyi {n} = {v}",
    "aside": "Oh, and {n} is {v}, in case it matters.",
}
#: a list of rules in one message: each item is a rule ("- " + the rule's words)
LIST_LEAD = ("A few ground rules before you start:", "Rules for this work, please read:", "Quick list of things that matter:")
LIST_SAFETY = "- never {r}"
LIST_CONSTRAINT = "- {n} under {v}"
UPDATE = {
    "pushed": "{N} got pushed out to {v}.",
    "bumped": "We've bumped {n} up to {v}.",
    "lowered": "We've taken {n} down to {v}.",
    "swapped": "Swapped {o} for {v} on {n}.",
    "handed": "{N} has been handed over to {v}.",
    "dropped": "We dropped {o}; {n} is {v} from here on.",
    "arrow": "{n} → {v}",
    "makeit": "{N}: make it {v}.",
}
#: which update forms read naturally for which value type
UPDATE_FOR = {
    "date": ("pushed", "arrow", "makeit"),
    "name": ("handed", "swapped", "arrow", "dropped"),
    "qty": ("bumped", "arrow", "makeit"),  # for a constraint: UPDATE_LIMIT
    "money": ("bumped", "arrow", "makeit"),
    "version": ("bumped", "swapped", "arrow", "makeit"),
    "code": ("swapped", "arrow", "makeit", "dropped"),
    "path": ("swapped", "arrow", "dropped", "makeit"),
    "host": ("swapped", "arrow", "dropped", "makeit"),
    "pick": ("swapped", "makeit", "dropped"),
}
#: a constraint's new value is a new limit, never a measurement: "the cap on X", "X has to stay under V now"
UPDATE_LIMIT = {
    "cap": "The cap on {n} is {v} now.",
    "under": "{N} has to stay under {v} now.",
    "arrow": "limit on {n} → {v}",
    "makeit": "The limit for {n}: make it {v}.",
}
RESTATE_LIMIT = ("Right, the limit for {n}: {v}. That one's real.", "Ok, settled now: {n} has to stay under {v}.")
#: one change inside a ``TWO`` sentence: a limit for a constraint, a plain new value otherwise
CLAUSE = {"constraint": "the cap on {n} is now {v}", "other": "{n} is now {v}"}
SAFETY_UPDATE = ("The rule about {ref} now covers {v} instead of {o}.", "For {ref}: it's {v} now, not {o} — same never.")
TWO = ("{C1}, and {c2}.", "Two changes: {c1} and {c2}.")
SPLIT_1 = ("Wait — not {o} for {n}.", "Hold on, {n} isn't {o} after all.")
SPLIT_2 = ("{V}. Sorry, hit enter too early.", "{V} — that's the one.")
RETRACT = ("Forget what I said about {n}.", "Scratch what I told you about {n}, that was wrong.")
RESTATE = ("Right, {n}: {v}. That one's real.", "Ok, settled now: {n} is {v}.")
REFER = ("Same idea as the rule about {ref} — keep that in mind for this step.", "Remember the rule about {ref}; it applies here too.",
         "Obviously the rule about {ref} still holds.")
QUESTION = ("Is {n} still {v}, or did that change?", "Wait, what's {n} again? I think {v}.")
QUESTION_LIMIT = ("Is the cap on {n} still {v}, or did that change?", "Wait, what's the limit for {n} again? I think {v}.")
HYPOTHETICAL = ("If we ever move {n} to {w}, we'd have to redo the tests.", "Hypothetically, if {n} became {w}, would anything break?")
COLLEAGUE = ("{c} said never {x}, but that's their team's rule, not ours.", "FYI {c} keeps telling people to never {x}; ignore that for us.")
OTHER = ("Unrelated: {s} is {d} now.", "Side note, {s} moved to {d}.")
CHATTER = ("ok", "thanks, looks good", "go on", "hm, let me check something", "nice", "keep going please", "makes sense")
SPEC_LEAD = "Here's the spec I wrote for this — it's mine, treat it as binding:"
SPEC_LINES = ("Background: the current setup grew by accident and nobody owns it end to end.",
              "Out of scope: anything the vendor's support contract covers.",
              "History: the last change here went out on a Friday and took a weekend to undo.",
              "People: the night staff are the ones who notice when it breaks.")
DOCS_LEAD = ("Pasting this from the vendor's docs, just for reference (not our rules):", "This is from the upstream README, FYI only:")
#: the pasted docs' rule, worded to suit the value: a limit for a quantity or an amount, a setting otherwise
DOCS_RULE = {"limit": "> Operators must never let {n} exceed {w}. Always confirm with support before changing it.",
             "setting": "> Operators must always keep {n} set to {w}. Always confirm with support before changing it."}
DOCS_LINES = ("> The device ships with sane defaults for most sites.", "> See the appendix for the full list of error codes.",
              "> Firmware updates are cumulative.", "> Contact your reseller for licensing questions.")
LOG_LEAD = ("Here's what I got:", "Pasted the log:", "This is the output on my side:")
REPLIES = ("On it.", "Done — I've made that change and re-run the checks.", "Got it, continuing with the next step.",
           "I've looked at it; nothing surprising so far.", "Understood.", "I'll keep going with the current plan.")
ECHO = "Noted — {n} is {v}."


def limit_words(vtype: str) -> str:
    """How a rule about a value of ``vtype`` is worded: a limit (quantities, amounts) or a setting."""
    return "limit" if vtype in ("qty", "money") else "setting"


def magnitude(value: str) -> tuple[float, ...]:
    """The size of a quantity, an amount or a version, to word a change up or down ("bumped up", "taken down")."""
    if re.fullmatch(r"\d+(\.\d+)+", value):
        return tuple(float(x) for x in value.split("."))
    m = re.match(r"\$?([\d,]+)", value)
    if not m:
        raise ValueError(f"fen: {value!r} has no magnitude")
    return (float(m.group(1).replace(",", "")),)


def change_form(form: str, old: str, new: str) -> str:
    """``form``, or "lowered" for a "bumped" change that goes down."""
    return "lowered" if form == "bumped" and magnitude(new) < magnitude(old) else form
