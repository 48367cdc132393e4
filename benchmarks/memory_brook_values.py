"""Values of the held-out ``brook`` family (``memory_family_brook.py``): each type drawn whole, unique in
its session, and never a number that stands inside another of the session's values.

Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from memory_sessions import value_pattern

CREW = (
    "Anneliese Brandt", "Tobenna Obi", "Marit Solberg", "Joaquín Ferrer", "Saoirse Kelleher", "Radek Dvořák",
    "Nilufar Rahimi", "Eamon Hartigan", "Lucía Pardo", "Kwabena Mensah", "Ilse Verhoeven", "Zoltan Farkas",
    "Mariam Tadesse", "Callum Rennie", "Sakura Imai", "Bogdan Petrescu", "Amaia Etxeberria", "Jarrah Wilson",
    "Hannele Virtanen", "Dominik Sauer", "Folake Adeyemi", "Aurelio Conti", "Signe Lund", "Tevita Fifita",
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Kind:
    """A value type. ``vtype``: qty (``lo``–``hi`` then ``unit``), money (dollars), pct (``lo``–``hi`` in tenths), num (a bare number),
    date, clock (HH:MM UTC), person, version (``unit`` is a prefix such as "v"), ticket (``unit`` is the
    project key), path (``unit`` is the prefix, a number completes it), host (``unit`` is the domain),
    pick (one of ``pool``)."""

    vtype: str
    lo: int = 0
    hi: int = 0
    unit: str = ""
    pool: tuple[str, ...] = ()


def found(value: str, text: str) -> bool:
    """The benchmark's own match (``value_pattern``): not inside a word, not right after a "$"."""
    return value_pattern(value).search(text.lower()) is not None


def order(v: str) -> tuple[float, ...]:
    """Where a date, a time or an amount stands among its kind ("2027-03-04" / "Mar 4" by month and day,
    "04:30 UTC" by minute of the day, else the first number): how an update's verb knows up from down."""
    iso = re.fullmatch(r"\d{4}-(\d\d)-(\d\d)", v)
    if iso:
        return (int(iso.group(1)), int(iso.group(2)))
    short = re.fullmatch(r"([A-Z][a-z]{2}) (\d+)", v)
    if short and short.group(1) in MONTHS:
        return (MONTHS.index(short.group(1)) + 1, int(short.group(2)))
    clock = re.fullmatch(r"(\d\d):(\d\d) UTC", v)
    if clock:
        return (int(clock.group(1)) * 60 + int(clock.group(2)),)
    num = re.search(r"\d+(?:\.\d+)?", v.replace(",", ""))
    if num is None:
        raise ValueError(f"brook: {v!r} has no order")
    return (float(num.group()),)


class Values:
    """Draws the values of one session; a value, and a magnitude, is used once."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: list[str] = []
        self.numbers: set[int] = set()
        self.iso_dates = rng.random() < 0.5

    def _n(self, lo: int, hi: int) -> int:
        free = [n for n in range(lo, hi + 1) if n not in self.numbers]
        n = self.rng.choice(free or list(range(lo, hi + 1)))
        self.numbers.add(n)
        return n

    def draw(self, k: Kind) -> str:
        for _ in range(300):
            v = self._one(k)
            if not any(found(v, u) or found(u, v) for u in self.used):
                self.used.append(v)
                return v
        raise RuntimeError(f"brook: ran out of distinct {k.vtype} values")

    def _one(self, k: Kind) -> str:
        r = self.rng
        t = k.vtype
        if t == "qty":
            return f"{self._n(k.lo, k.hi)} {k.unit}"
        if t == "money":
            return f"${self._n(k.lo, k.hi) * 100:,}"
        if t == "pct":
            n = self._n(k.lo, k.hi)
            return f"{n // 10}.{n % 10}%"
        if t == "date":
            m, d = r.randrange(12), r.randrange(2, 29)
            return f"2027-{m + 1:02d}-{d:02d}" if self.iso_dates else f"{MONTHS[m]} {d}"
        if t == "clock":
            return f"{r.randrange(k.lo, k.hi + 1):02d}:{r.choice((0, 15, 30, 45)):02d} UTC"
        if t == "person":
            return r.choice(CREW)
        if t == "num":
            return str(self._n(k.lo, k.hi))
        if t == "version":
            return f"{k.unit}{r.randrange(2, 9)}.{self._n(11, 59)}.{r.randrange(0, 7)}"
        if t == "ticket":
            return f"{k.unit}-{self._n(k.lo, k.hi)}"
        if t == "path":
            return f"{k.unit}{self._n(k.lo, k.hi)}"
        if t == "host":
            return f"{r.choice(('bk', 'stn', 'nx', 'cz'))}{self._n(k.lo, k.hi)}.{k.unit}"
        if t == "pick":
            return r.choice(k.pool)
        raise ValueError(f"brook: unknown value type {t!r}")
