"""Values of the held-out ``moss`` family (``memory_family_moss.py``): how each type of value is drawn
and written, in several forms, each unique in its session.

A value is drawn once per session whatever its form (a magnitude is never reused within its type), and
its text is what the benchmark looks for (``value_pattern``). A date said relative to the session's
"today" carries its absolute form in parentheses ("next Friday (Dec 4)"): the absolute part is the
tracked value. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from memory_sessions import value_pattern

#: the currency of a session and the forms an amount takes in it
CURRENCIES = {
    "usd": ("${n}", "{n} USD", "{n} dollars"),
    "eur": ("€{n}", "{n} EUR", "{n} euros"),
    "gbp": ("£{n}", "{n} GBP", "{n} pounds"),
    "chf": ("CHF {n}", "{n} Swiss francs", "{n} CHF"),
    "cad": ("C${n}", "{n} CAD", "{n} Canadian dollars"),
}
NAMES = (
    "Ines Carvalho", "Tomasz Wrona", "Aoife Brennan", "Kwame Mensah", "Leilani Kahale", "Mateo Ibáñez",
    "Signe Halvorsen", "Rashid Karimi", "Yuki Tanabe", "Olamide Adeyemi", "Bryony Pratt", "Dmitri Volkov",
    "Pilar Ugarte", "Hamish Drummond", "Nadia Benali", "Jonas Lindqvist", "Chiara Fontana", "Emeka Obi",
    "Saoirse Quinlan", "Viktor Horák", "Mei-Ling Chou", "Anders Bjørnstad", "Rosa Tejada", "Farid Haddad",
    "Greta Müller", "Luka Petrović", "Amara Nwosu", "Callum Reid", "Zofia Kamińska", "Tariq Aziz",
    "Hannelore Stein", "Diego Paredes", "Eun-ji Park", "Bartholomew Finch", "Noor Rahimi", "Søren Dahl",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


@dataclass(frozen=True)
class Q:
    """What a subject's value is: its type, the span it plausibly takes, and its unit or pool."""

    vtype: str  # money|count|pct|size|rate|temp|duration|lufs|date|time|name|host|path|id|version|option
    lo: float = 0
    hi: float = 0
    step: float = 1
    unit: str = ""  # count noun ("reels"), host stem, id prefix
    pool: tuple[str, ...] = ()  # path and option choices


@dataclass(frozen=True)
class V:
    text: str  # the tracked value, as written
    say: str  # how a sentence says it (the text, or "next Friday (Dec 4)")
    mag: float | None = None  # a quantity's magnitude (a date: days after the session's today)


QUANTITIES = ("money", "count", "pct", "size", "rate", "temp", "duration", "lufs", "date")


def found(value: str, text: str) -> bool:
    """The benchmark's own test for a value in a text (``memory_sessions.value_pattern``)."""
    return value_pattern(value).search(text.lower()) is not None


def _thousands(n: float) -> str:
    return f"{int(n):,}" if float(n).is_integer() else f"{n:,.1f}"


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:g}"


class Values:
    """Draws a session's values: each magnitude once per type, each text once."""

    def __init__(self, rng: random.Random, today: dt.date, currency: str) -> None:
        self.rng = rng
        self.today = today
        self.currency = currency
        self.used: dict[str, set[float | str]] = {}
        self.texts: set[str] = set()

    def _take(self, key: str, mark: float | str) -> bool:
        seen = self.used.setdefault(key, set())
        if mark in seen:
            return False
        seen.add(mark)
        return True

    def draw(self, q: Q) -> V:
        for _ in range(60 if q.pool else 200):
            v = self._one(q)
            if v is not None and v.text.lower() not in self.texts:
                self.texts.add(v.text.lower())
                return v
        raise RuntimeError(f"moss: no unused value left for {q}")

    def maybe(self, q: Q) -> V | None:
        """Like ``draw``, or None when the subject has no unused value left (a small pool)."""
        try:
            return self.draw(q)
        except RuntimeError:
            return None

    def at(self, q: Q, mag: float) -> V | None:
        """``q``'s value of magnitude ``mag`` (a relative change's result), or None when it is taken or
        outside the subject's span."""
        if not q.lo <= mag <= q.hi or not self._take(q.vtype if q.vtype != "count" else q.unit, mag):
            return None
        v = self.fmt(q, mag, self.rng.randrange(3))
        if v.text.lower() in self.texts:
            return None
        self.texts.add(v.text.lower())
        return v

    def _one(self, q: Q) -> V | None:
        r = self.rng
        if q.vtype in QUANTITIES:
            steps = round((q.hi - q.lo) / q.step)
            mag = q.lo + q.step * r.randint(0, steps)
            if not self._take(q.vtype if q.vtype != "count" else q.unit, mag):
                return None
            return self.fmt(q, mag, r.randrange(3))
        if q.vtype == "name":
            pick = r.choice(NAMES)
        elif q.vtype in ("path", "option"):
            pick = r.choice(q.pool)
        elif q.vtype == "host":
            pick = f"{q.unit}-{r.randint(2, 48):02d}" + r.choice(("", ".lan", ".internal"))
        elif q.vtype == "id":
            pick = f"{q.unit}-{r.randint(120, 9899)}"
        elif q.vtype == "version":
            pick = r.choice(("v", "")) + f"{r.randint(1, 9)}.{r.randint(0, 24)}.{r.randint(0, 19)}"
        elif q.vtype == "time":
            h, m = r.randint(5, 22), r.choice((0, 15, 30, 45))
            if not self._take("time", h * 60 + m):
                return None
            pick = f"{h:02d}:{m:02d}" if r.random() < 0.6 else f"{(h - 1) % 12 + 1}:{m:02d} {'am' if h < 12 else 'pm'}"
        else:
            raise ValueError(f"moss: unknown value type {q.vtype!r}")
        return V(pick, pick) if self._take("text", pick.lower()) else None

    def fmt(self, q: Q, mag: float, form: int) -> V:
        """The magnitude ``mag`` of a quantity ``q`` in form ``form`` (0–2)."""
        t = q.vtype
        if t == "money":
            text = CURRENCIES[self.currency][form].format(n=_thousands(mag))
        elif t == "count":
            text = f"{_num(mag)} {q.unit}"
        elif t == "pct":
            text = (f"{_num(mag)}%", f"{_num(mag)} percent", f"{_num(mag)} per cent")[form]
        elif t == "size":
            text = (f"{_num(mag)} GB", f"{_num(mag)}GB", f"{_num(mag)} gigabytes")[form]
        elif t == "rate":
            text = (f"{_num(mag)} Mbps", f"{_num(mag)} Mbit/s", f"{_num(mag)} megabits per second")[form]
        elif t == "temp":
            text = (f"{_num(mag)} °C", f"{_num(mag)}°C", f"{_num(mag)} degrees Celsius")[form]
        elif t == "lufs":
            text = (f"-{_num(mag)} LUFS", f"-{_num(mag)} LKFS", f"minus {_num(mag)} LUFS")[form]
        elif t == "duration":
            text = duration_text(mag, form)
        elif t == "date":
            return self.date(int(mag), form)
        else:
            raise ValueError(f"moss: {t!r} is not a quantity")
        return V(text, text, mag)

    def date(self, days: int, form: int) -> V:
        """The day ``days`` after today: absolute ("Dec 4", "4 December", "2026-12-04"), or in form 2
        relative with the absolute day in parentheses ("next Friday (Dec 4)")."""
        d = self.today + dt.timedelta(days=days)
        short = f"{MONTHS[d.month - 1][:3]} {d.day}"
        if form == 0:
            return V(short, short, days)
        if form == 1:
            text = f"{d.day} {MONTHS[d.month - 1]}" if self.rng.random() < 0.5 else d.isoformat()
            return V(text, text, days)
        if days > 21:  # nobody counts that far: the day itself
            return V(short, short, days)
        return V(short, f"{relative_day(self.today, d)} ({short})", days)


def duration_text(minutes: float, form: int) -> str:
    if form == 2 and minutes % 60 == 0:
        h = int(minutes // 60)
        return f"{h} hour" if h == 1 else f"{h} hours"
    if form == 2 and minutes % 30 == 0 and minutes > 60:
        return f"{minutes / 60:g} hours"
    return f"{_num(minutes)} minutes" if form != 1 else f"{_num(minutes)} min"


def relative_day(today: dt.date, d: dt.date) -> str:
    """How someone says ``d`` on ``today``: "tomorrow", "this Friday", "next Friday", "in three weeks"."""
    days = (d - today).days
    if days == 1:
        return "tomorrow"
    week_left = 6 - today.weekday()
    name = WEEKDAYS[d.weekday()]
    if 1 < days <= week_left:
        return f"this {name}"
    if week_left < days <= week_left + 7:
        return f"next {name}"
    if days % 7 == 0:
        return f"{_word(days // 7)} weeks from today"
    return f"{days} days from now, a {name}"


def _word(n: int) -> str:
    return ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")[n] if n <= 12 else str(n)
