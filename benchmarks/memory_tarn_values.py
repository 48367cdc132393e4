"""Values of the ``tarn`` memory family (benchmarks/memory_family_tarn.py): HELD OUT, written by i11w.

A value is drawn for a value type (``vtype``) and written in one of several forms; ``V.mag`` is what it
means as a number (minutes for times and durations, days for dates, units for amounts and counts) so
a test can check that an update moved the way its words say. Nothing here reads a session with the
ledger.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memory_sessions import value_pattern

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_MDAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: people of the family's world (full names: a first name alone is too easy to meet by chance)
PEOPLE = ("Aoife Brennan", "Kwame Asante", "Ingrid Solberg", "Tomasz Wierzba", "Yuki Tanabe", "Farida Haddad", "Mateus Correia",
          "Lucía Ferrán", "Oluwaseun Adeyemi", "Henrik Lindqvist", "Meera Raghavan", "Dmitri Orlov", "Zanele Khumalo",
          "Niamh Gallagher", "Rafael Quintero", "Saoirse Doyle", "Bilal Qureshi", "Katarzyna Nowicka", "Emeka Obi",
          "Linnea Holm", "Tariq Mansour", "Hana Dvořák", "Joaquín Ibarra", "Ewa Zielińska", "Ruairí Keane", "Sunita Pillai")
#: what is counted in small numbers
SMALL = ("folds", "lessons", "periods", "days", "replicas", "orders")
CURRENCIES = ("€", "£", "CHF ", "$", "NOK ")


@dataclass(frozen=True)
class V:
    text: str
    mag: float | None = None  # what it means as a number (None: not a quantity)
    vtype: str = ""


def range_value(lo: int, hi: int, unit: str) -> V:
    """A range written as ONE value in every sentence ("21–25 orders"): "between {v}" would leave
    "21 and 25 orders", which reads as a value only after "between"."""
    return V(f"{lo}–{hi} {unit}", float(lo * 1000 + hi), "range")


def inside(v: V, span: tuple[int, int] | None) -> bool:
    """``v`` within a subject's plausible ``span`` (both ends of a range)."""
    if span is None or v.mag is None:
        return True
    if v.vtype == "range":
        return all(span[0] <= end <= span[1] for end in divmod(int(v.mag), 1000))
    return span[0] <= v.mag <= span[1]


def found(value: str, text: str) -> bool:
    """The benchmark's own test of "``value`` is in ``text``" (``memory_sessions.value_pattern``)."""
    return bool(value_pattern(value).search(text.lower()))


def _doy_to_md(doy: int) -> tuple[int, int]:
    m = 0
    while doy > _MDAYS[m]:
        doy -= _MDAYS[m]
        m += 1
    return m, doy


def date_text(doy: int, form: int) -> str:
    """Day ``doy`` of 2027 in one of six forms."""
    m, d = _doy_to_md(doy)
    nth = "th" if 10 <= d <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    wd = WEEKDAYS[(doy + 3) % 7]  # 1 January 2027 is a Friday
    return (f"{d} {MONTHS[m]}", f"{MONTHS[m][:3]} {d}{nth}", f"2027-{m + 1:02d}-{d:02d}", f"{d:02d}/{m + 1:02d}/2027",
            f"{wd} the {d}{nth} of {MONTHS[m]}", f"{d}.{m + 1}.2027")[form % 6]


def time_text(minutes: int, form: int) -> str:
    h, mi = divmod(minutes, 60)
    h12 = (h - 1) % 12 + 1
    return (f"{h:02d}:{mi:02d}", f"{h12}:{mi:02d} {'pm' if h >= 12 else 'am'}", f"{h:02d}{mi:02d}h")[form % 3]


def duration_text(minutes: int, form: int) -> str:
    if form % 3 == 1 and minutes % 30 == 0:
        return f"{minutes / 60:g} hour{'' if minutes == 60 else 's'}"
    if form % 3 == 2:
        return f"{minutes * 60:,} seconds"
    return f"{minutes} minutes"


def money_text(amount: int, cur: str, form: int) -> str:
    code = {"€": "EUR", "£": "GBP", "$": "USD"}.get(cur, cur.strip())
    if form % 3 == 1:
        return f"{amount:,} {code}"
    if form % 3 == 2 and amount % 100 == 0 and amount >= 1000:
        return f"{cur}{amount / 1000:g}k"
    return f"{cur}{amount:,}"


class Values:
    """Draws values no other tracked value of the session uses (the generator checks again at the end)."""

    def __init__(self, r: random.Random) -> None:
        self.r = r
        self.used: set[str] = set()
        self.mags: set[tuple[str, float]] = set()  # a quantity is drawn once, whatever its form
        self.cur = r.choice(CURRENCIES)

    def _take(self, v: V) -> bool:
        key = v.text.lower()
        if key in self.used or (v.mag is not None and (v.vtype, v.mag) in self.mags) or any(found(key, u) or found(u, key) for u in self.used):
            return False
        self.used.add(key)
        if v.mag is not None:
            self.mags.add((v.vtype, v.mag))
        return True

    def _fresh(self, make: object) -> V:
        for _ in range(200):
            v = make()  # type: ignore[operator]
            if self._take(v):
                return v  # type: ignore[no-any-return]
        raise RuntimeError("tarn: ran out of fresh values")

    def draw(self, vtype: str, unit: str = "", span: tuple[int, int] | None = None) -> V:
        """A fresh value of ``vtype``; ``span``: the plausible numbers for the subject (minutes for durations)."""
        r = self.r
        if span is not None and vtype in ("duration", "money", "pct", "count", "range", "size"):
            lo, hi = span
            # multiples of 5 whose low end rounds UP (a span from 4 never gives 0)
            n = (lambda: r.randrange(-(-lo // 5), hi // 5 + 1) * 5) if vtype in ("duration", "money") and hi - lo >= 20 else (lambda: r.randint(lo, hi))
            spanned = {"duration": lambda: self._duration(n(), r.randrange(3)), "money": lambda: self._money(n(), r.randrange(3)),
                       "pct": lambda: self._pct(n(), r.randrange(2)), "count": lambda: self._count(n(), unit),
                       "range": lambda: self._range(r.randint(lo, hi - 2), unit, span), "size": lambda: self._size(n(), r.randrange(2))}
            return self._fresh(spanned[vtype])
        makers = {
            "person": lambda: V(r.choice(PEOPLE), None, vtype),
            "port": lambda: V(str(r.randint(2100, 9899)), None, vtype),
            "host": lambda: V(f"{r.choice(('tarn', 'fjell', 'moss', 'heron', 'larch', 'cobble'))}-{r.choice(('db', 'app', 'wms', 'nb', 'ci'))}{r.randint(2, 97):02d}.{r.choice(('lan', 'int', 'corp'))}", None, vtype),
            "path": lambda: V(f"/{r.choice(('srv', 'data', 'mnt', 'opt'))}/{r.choice(('intake', 'archive', 'exports', 'scratch', 'cohorts'))}/{r.choice(('q', 'batch', 'run', 'lot'))}{r.randint(11, 989)}", None, vtype),
            "version": lambda: V(f"{r.randint(1, 9)}.{r.randint(0, 29)}.{r.randint(1, 19)}", None, vtype),
            "ticket": lambda: V(f"{r.choice(('OPS', 'SHOP', 'TT', 'REL', 'NB', 'WH'))}-{r.randint(1200, 9899)}", None, vtype),
            "date": lambda: self._date(r.randint(20, 340), r.randrange(6)),
            "weekday": lambda: V(r.choice(WEEKDAYS), None, vtype),
            "time": lambda: self._time(r.randrange(6 * 4, 21 * 4) * 15, r.randrange(3)),
            "duration": lambda: self._duration(r.choice((15, 20, 25, 40, 45, 50, 70, 75, 80, 100, 105, 110, 130, 150)), r.randrange(3)),
            "money": lambda: self._money(r.randrange(3, 90) * 25, r.randrange(3)),
            "pct": lambda: self._pct(r.randint(2, 97), r.randrange(2)),
            "count": lambda: self._count(r.randint(2, 40) if unit in SMALL else r.randint(45, 480), unit),
            "range": lambda: self._range(r.randint(2, 30), unit),
            "size": lambda: self._size(r.randint(2, 60), r.randrange(2)),
        }
        if vtype in makers:
            return self._fresh(makers[vtype])
        raise KeyError(vtype)

    def choice(self, options: tuple[str, ...]) -> V:
        return self._fresh(lambda: V(self.r.choice(options), None, "choice"))

    # forms of one quantity (fresh text each call: the caller may want another form of a value)
    def _date(self, doy: int, form: int) -> V:
        return V(date_text(doy, form), float(doy), "date")

    def _time(self, minutes: int, form: int) -> V:
        return V(time_text(minutes, form), float(minutes), "time")

    def _duration(self, minutes: int, form: int) -> V:
        return V(duration_text(minutes, form), float(minutes), "duration")

    def _money(self, amount: int, form: int) -> V:
        return V(money_text(amount, self.cur, form), float(amount), "money")

    def _pct(self, n: int, form: int) -> V:
        return V(f"{n}%" if form == 0 else f"{n} percent", float(n), "pct")

    def _count(self, n: int, unit: str) -> V:
        return V(f"{n} {unit}", float(n), "count")

    def _range(self, lo: int, unit: str, span: tuple[int, int] | None = None) -> V:
        hi = lo + self.r.randint(2, max(2, min(9, span[1] - lo))) if span else lo + self.r.randint(2, 9)
        return range_value(lo, hi, unit)

    def _size(self, gb: int, form: int) -> V:
        return V(f"{gb} GB" if form == 0 else f"{gb * 1024:,} MB", float(gb), "size")

    def moved(self, old: V, up: bool, unit: str = "", span: tuple[int, int] | None = None) -> tuple[V, str]:
        """A new value of ``old``'s type that moved up (later, more) or down, with the step in words;
        within ``span`` (the subject's plausible numbers) when it has one."""
        r = self.r
        assert old.mag is not None
        # steps no wider than half the span (a 4-60 shipping fee moves by 5 or 10, not 250)
        wide = max(1, (span[1] - span[0]) // 2) if span else 0
        for _ in range(200):
            if old.vtype == "date":
                d = r.choice((2, 3, 5, 7, 9, 12, 14))
                doy = int(old.mag) + (d if up else -d)
                if not 1 <= doy <= 365:
                    continue
                v, step = self._date(doy, r.randrange(6)), ("a week" if d == 7 else "two weeks" if d == 14 else f"{d} days")
            elif old.vtype == "time":
                d = r.choice((15, 30, 45, 60, 90))
                mins = int(old.mag) + (d if up else -d)
                if not 5 * 60 <= mins <= 23 * 60:
                    continue
                v, step = self._time(mins, r.randrange(3)), ("an hour" if d == 60 else f"{d} minutes")
            elif old.vtype == "duration":
                d = r.choice((5, 10, 15, 20, 30))
                mins = int(old.mag) + (d if up else -d)
                if mins < 5:
                    continue
                v, step = self._duration(mins, r.randrange(3)), f"{d} minutes"
            elif old.vtype == "money":
                d = r.choice([x for x in (5, 10, 25, 50, 100, 150, 250) if x <= wide] or [5]) if span else r.choice((25, 50, 100, 150, 250))
                amt = int(old.mag) + (d if up else -d)
                if amt < 25:
                    continue
                v, step = self._money(amt, r.randrange(3)), money_text(d, self.cur, 0)
            elif old.vtype == "pct":
                d = r.choice((1, 2, 3, 5, 10))
                n = int(old.mag) + (d if up else -d)
                if not 1 <= n <= 99:
                    continue
                v, step = self._pct(n, r.randrange(2)), f"{d} point{'' if d == 1 else 's'}"
            elif old.vtype == "count":
                d = r.choice([x for x in (1, 2, 4, 5, 10, 20, 25, 50, 100, 250, 500, 1000, 2500) if x <= wide] or [1]) if span else r.choice((2, 4, 5, 10, 20, 25))
                n = int(old.mag) + (d if up else -d)
                if n < 2:  # "1 folds"
                    continue
                v, step = self._count(n, unit), str(d)
            elif old.vtype == "size":
                d = r.choice((2, 4, 8))
                n = int(old.mag) + (d if up else -d)
                if n < 1:
                    continue
                v, step = self._size(n, r.randrange(2)), f"{d} GB"
            elif old.vtype == "range":
                d = r.choice((1, 2, 3))
                lo, hi = divmod(int(old.mag), 1000)
                lo, hi = lo + (d if up else -d), hi + (d if up else -d)
                if lo < 1:
                    continue
                v, step = range_value(lo, hi, unit), f"{d} on both ends"
            else:
                raise KeyError(old.vtype)
            if inside(v, span) and self._take(v):
                return v, step
        raise RuntimeError("tarn: ran out of moved values")
