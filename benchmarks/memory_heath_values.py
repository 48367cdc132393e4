"""Values of the held-out ``heath`` family (``memory_family_heath.py``): how a value of each type is drawn
and written, each unique in its session.

A value's text is exactly what the benchmark looks for (``memory_sessions.value_pattern``), so a value
is drawn whole (number and unit, or a name, or a code) and never reused in its session: a magnitude
is used once per session whatever its unit, so no number of one value can stand inside another.
Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memory_sessions import value_pattern

#: how an amount of money is written, one currency per session
MONEY = {"eur": "€{n}", "gbp": "£{n}", "usd": "${n}", "nok": "{n} kr", "chf": "CHF {n}"}
PEOPLE = (
    "Oisín Madden", "Brigitte Laval", "Kofi Asante", "Halldóra Jónsdóttir", "Ravi Menon", "Agnieszka Wójcik",
    "Teodor Ilić", "Marisol Vega", "Wiremu Tane", "Fenna de Groot", "Idris Okonkwo", "Sunniva Aas",
    "Camille Rousseau", "Dariusz Nowak", "Yusra Haddad", "Lachlan Moir", "Ngozi Eze", "Tuomas Laine",
    "Ximena Ortiz", "Benedikt Kraus", "Ayşe Demir", "Rory Galbraith", "Priyanka Iyer", "Mads Kjær",
    "Esperanza Cruz", "Hiroshi Okada", "Gwenllian Price", "Stellan Berg", "Thandiwe Dube", "Ivo Brandão",
)
VESSELS = ("MV Kittiwake", "MV Sula", "MV Fulmar", "MV Razorbill", "MV Shearwater", "MV Guillemot", "MV Petrel", "MV Skua")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
LONG_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


@dataclass(frozen=True)
class Kind:
    """What a subject's value is. ``vtype``: qty (a number with ``unit``), money, pct, time, date, weekday,
    name, vessel, code (``unit`` is the prefix), pick (one of ``pool``)."""

    vtype: str
    lo: int = 0
    hi: int = 0
    unit: str = ""
    step: int = 1
    pool: tuple[str, ...] = ()


def found(value: str, text: str) -> bool:
    """The benchmark's own match: ``value`` in ``text``, not inside a word, not right after a "$"."""
    return value_pattern(value).search(text.lower()) is not None


class Values:
    """Draws values for one session; every value and every magnitude is used once."""

    def __init__(self, rng: random.Random, currency: str) -> None:
        self.rng = rng
        self.currency = currency
        self.used: set[str] = set()
        self.numbers: set[int] = set()
        self.date_form = rng.randrange(3)

    def _number(self, lo: int, hi: int, step: int) -> int:
        options = [n for n in range(lo, hi + 1, step) if n not in self.numbers] or list(range(lo, hi + 1, step))
        n = self.rng.choice(options)
        self.numbers.add(n)
        return n

    def _fresh(self, make: object) -> str:
        for _ in range(200):
            v = make() if callable(make) else str(make)
            if v.lower() not in self.used and not any(found(v, u) or found(u, v) for u in self.used):
                self.used.add(v.lower())
                return v
        raise RuntimeError("heath: ran out of distinct values")

    def draw(self, k: Kind) -> str:
        r = self.rng
        if k.vtype == "qty":
            return self._fresh(lambda: f"{self._number(k.lo, k.hi, k.step)} {k.unit}")
        if k.vtype == "money":
            return self._fresh(lambda: MONEY[self.currency].format(n=f"{self._number(k.lo, k.hi, k.step):,}"))
        if k.vtype == "pct":
            return self._fresh(lambda: f"{self._number(k.lo, k.hi, k.step)}%")
        if k.vtype == "time":
            return self._fresh(lambda: f"{r.randrange(k.lo, k.hi + 1):02d}:{r.choice((5, 10, 20, 25, 35, 40, 50, 55)):02d}")
        if k.vtype == "date":
            return self._fresh(self._date)
        if k.vtype == "weekday":
            return self._fresh(lambda: r.choice(WEEKDAYS))
        if k.vtype == "name":
            return self._fresh(lambda: r.choice(PEOPLE))
        if k.vtype == "vessel":
            return self._fresh(lambda: r.choice(VESSELS))
        if k.vtype == "code":
            return self._fresh(lambda: f"{k.unit}{self._number(k.lo, k.hi, k.step)}")
        if k.vtype == "pick":
            return self._fresh(lambda: r.choice(k.pool))
        raise ValueError(f"heath: unknown value type {k.vtype!r}")

    def _date(self) -> str:
        m = self.rng.randrange(12)
        d = self.rng.randrange(1, 29)
        if self.date_form == 0:
            return f"{MONTHS[m]} {d}"
        if self.date_form == 1:
            return f"{d} {LONG_MONTHS[m]}"
        return f"2027-{m + 1:02d}-{d:02d}"
