"""Values of the held-out ``quarry`` memory family (``memory_family_quarry.py``): typed, in several
written forms, each unique in its session.

A :class:`Q` is one value as the user wrote it: its text (what the benchmark searches for), its
type, which written form it uses and, for quantities, its magnitude in one base unit (minutes,
milliseconds, MiB, cents, day of the year …) so a relative update can state a result that is right
and a test can check which way a value moved. Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from memory_sessions import value_pattern

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)

#: people the user names: owners, on-call, reviewers (many not English)
PEOPLE = (
    "Siobhán", "Ngozi", "Thảo", "Jürgen", "Oluwaseun", "Bartłomiej", "Yuki", "Małgorzata", "Zeynep", "Aigerim",
    "Tomás", "Chidinma", "Ximena", "Dagný", "Radhika", "Kwabena", "Ilse", "Teodora", "Björn", "Anahí", "Rustam",
    "Mei-Ling", "Gráinne", "Emeka", "Søren", "Paulína", "Nikhil", "Fatoumata", "Eero", "Wiremu", "Leocadia", "Hamza",
)
#: names for renamed things and codenames
CODENAMES = (
    "Tamarack", "Saltmarsh", "Kittiwake", "Bramblecrest", "Ferrule", "Gannet-9", "Obsidian-3", "Larchmont", "Quillon",
    "Harrowgate", "Sandpiper-2", "Wolfram", "Cobaltine", "Marrowby", "Thistledown", "Petrel-5", "Oakhollow", "Skerry",
)
#: people quoted or mentioned who are never a planted value
BYSTANDERS = ("Lena from infra", "our PM", "the tech lead", "Farida (QA)", "my manager", "the on-site IT guy", "Kofi from support")

TYPES = ("person", "name", "host", "port", "version", "path", "ticket", "money", "date", "time", "duration", "ms", "size", "pct", "count", "choice")
#: types a relative update ("add N, so V") can use
NUMERIC = ("money", "date", "duration", "ms", "size", "pct", "count")


@dataclass(frozen=True)
class Q:
    text: str
    vtype: str
    form: int = 0  # which written form (per type, see ``render``)
    mag: float | None = None  # magnitude in the type's base unit; None for names, hosts …


def found(value: str, text: str) -> bool:
    """The benchmark's own test (``memory_sessions.value_pattern``)."""
    return bool(value_pattern(value).search(text.lower()))


def _date(doy: int, form: int) -> str:
    m = max(k for k in range(12) if _DAYS_BEFORE[k] < doy)
    d = doy - _DAYS_BEFORE[m]
    suffix = "th" if 10 <= d % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return (
        f"{MONTHS[m]} {d}",
        f"{d} {MONTHS[m][:3]}",
        f"2027-{m + 1:02d}-{d:02d}",
        f"{d:02d}/{m + 1:02d}/2027",
        f"{MONTHS[m][:3]} {d}{suffix}",
        f"{d}.{m + 1}.2027",
    )[form]


def _money(cents: int, form: int, cur: str) -> str:
    whole = cents // 100
    sym = {"USD": "$", "EUR": "€", "GBP": "£"}[cur]
    if form == 0:
        return f"{sym}{whole:,}"
    if form == 1:
        return f"{whole} {cur}"
    return f"{whole / 1000:g}k {cur}" if whole % 100 == 0 and whole >= 1000 else f"{sym}{whole:,}.00"


def _duration(minutes: int, form: int) -> str:
    h, m = divmod(minutes, 60)
    if form == 0:
        return f"{minutes} min"
    if form == 1:
        return f"{h}h{m:02d}" if m else f"{h} hours"
    if form == 2:
        return f"{minutes * 60}s"
    return f"{minutes / 60:g} hrs" if minutes % 6 == 0 else f"{minutes} minutes"


def _size(mib: float, form: int) -> str:
    if form == 0:
        return f"{mib:g} MB"
    if form == 1:  # a small size in GB reads as 0.00: say it in MiB
        return f"{mib / 1024:.2f} GB".replace(".00 GB", " GB") if mib >= 256 else f"{mib:g} MiB"
    return f"{int(mib * 1024):,} KiB"


def render(vtype: str, mag: float, form: int, unit: str = "", cur: str = "USD") -> str:
    if vtype == "money":
        return _money(int(mag), form, cur)
    if vtype == "date":
        return _date(int(mag), form)
    if vtype == "time":
        h, m = divmod(int(mag), 60)
        return f"{h:02d}:{m:02d} UTC" if form == 0 else f"{(h - 1) % 12 + 1}:{m:02d}{'am' if h < 12 else 'pm'}"
    if vtype == "duration":
        return _duration(int(mag), form)
    if vtype == "ms":
        return f"{int(mag)} ms" if form == 0 else f"{mag / 1000:g} s" if form == 1 else f"{int(mag)}ms"
    if vtype == "size":
        return _size(mag, form)
    if vtype == "pct":
        return f"{mag:g}%" if form == 0 else f"{mag:g} percent"
    if vtype == "count":
        n = int(mag)
        return f"{n:,} {unit}" if form == 0 else f"{n / 1000:g}k {unit}" if n % 100 == 0 and n >= 1000 else f"{n} {unit}"
    raise ValueError(vtype)


def _step(vtype: str, mag: float) -> float:
    """A round step for a magnitude of this order (5 units of its second digit; whole units at least)."""
    step = 5 * 10 ** (math.floor(math.log10(mag)) - 1)
    return step if vtype in ("size", "pct") else max(1, step)


#: how many written forms each quantity type has
FORMS = {"money": 3, "date": 6, "time": 2, "duration": 4, "ms": 3, "size": 3, "pct": 2, "count": 2}


class Values:
    """Makes values for one session; every value is unique in it (none found in another)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: list[str] = []
        self.mags: set[tuple[str, float]] = set()

    def ok(self, text: str) -> bool:
        return all(not found(text, t) and not found(t, text) for t in self.taken)

    def reserve(self, text: str) -> None:
        self.taken.append(text)

    def _take(self, make, vtype: str, mag: float | None = None, form: int = 0) -> Q:  # type: ignore[no-untyped-def]
        for _ in range(400):
            text, mag2 = make()
            key = (vtype, mag2)
            if self.ok(text) and (mag2 is None or key not in self.mags):
                self.taken.append(text)
                if mag2 is not None:
                    self.mags.add(key)
                return Q(text, vtype, form, mag2)
        raise RuntimeError(f"quarry: no unique {vtype} value left")

    def new(self, vtype: str, *, stem: str = "", unit: str = "", cur: str = "USD", form: int | None = None,
            choices: tuple[str, ...] = (), near: float | None = None, span: tuple[float, float, float] | None = None) -> Q:
        """A fresh value of ``vtype`` (``near``: a magnitude of the same order as this one; ``span``: (low,
        high, step) of a first value where the type's own range would not be believable)."""
        r = self.rng
        f = r.randrange(FORMS[vtype]) if form is None and vtype in FORMS and vtype != "count" else (form or 0)
        if vtype == "person":
            return self._take(lambda: (r.choice(PEOPLE), None), vtype)
        if vtype == "name" and not choices:
            return self._take(lambda: (r.choice(CODENAMES), None), vtype)
        if vtype in ("choice", "name"):
            return self._take(lambda: (r.choice(choices), None), vtype)
        if vtype == "host":
            return self._take(lambda: (f"{stem}-{r.randint(2, 49):02d}.{r.choice(('lan', 'internal', 'corp', 'lab'))}", None), vtype)
        if vtype == "port":
            return self._take(lambda: (str(r.choice((r.randint(3100, 3999), r.randint(5100, 5999), r.randint(7100, 7999), r.randint(8100, 8999)))), None), vtype)
        if vtype == "version":
            return self._take(lambda: (f"{r.randint(2, 19)}.{r.randint(1, 31)}.{r.randint(2, 14)}", None), vtype)
        if vtype == "path":
            return self._take(lambda: (f"/{stem}/{r.choice(('v2', 'v3', 'current', 'stable', 'rc', 'legacy'))}/{r.choice(('out', 'shared', 'spool', 'cache', 'staging', 'export'))}-{r.randint(10, 99)}", None), vtype)
        if vtype == "ticket":
            return self._take(lambda: (f"{stem}-{r.randint(1100, 9899)}", None), vtype)

        def quantity() -> tuple[str, float]:
            mag = self._magnitude(vtype, near, span)
            if vtype == "count" and f == 1:  # the "1.2k" form needs a round number of hundreds, over a thousand
                mag = max(1100, round(mag / 100) * 100)
            return render(vtype, mag, f, unit, cur), mag

        return self._take(quantity, vtype, form=f)

    def _magnitude(self, vtype: str, near: float | None, span: tuple[float, float, float] | None = None) -> float:
        r = self.rng
        if span is not None and near is None:
            lo, hi, step = span
            return lo + step * r.randint(0, int((hi - lo) / step))
        if near is not None and vtype not in ("date", "time"):
            hi = min(near * 1.8, 99.5) if vtype == "pct" else near * 1.8
            step = _step(vtype, near)
            return max(step, round(r.uniform(near * 0.5, hi) / step) * step)
        return {
            "money": lambda: r.randint(4, 90) * 2500,
            "date": lambda: r.randint(20, 340),
            "time": lambda: r.randint(1, 23) * 60 + r.choice((0, 15, 30, 45, 10, 40)),
            "duration": lambda: r.choice((r.randint(3, 30) * 5, r.randint(2, 9) * 60, r.randint(4, 40) * 15)),
            "ms": lambda: r.randint(6, 95) * 10,
            "size": lambda: r.choice((r.randint(3, 60) * 16, r.randint(2, 12) * 256)),
            "pct": lambda: r.choice((r.randint(11, 95), r.randint(180, 199) / 2)),
            "count": lambda: r.choice((r.randint(11, 97), r.randint(12, 90) * 10, r.randint(2, 9) * 1000)),
        }[vtype]()

    def shifted(self, old: Q, sign: int, *, unit: str = "", cur: str = "USD") -> tuple[Q, str] | None:
        """A value ``sign`` (+1/-1) away from ``old`` by a stated delta, written in ``old``'s form; the
        delta as said ("3 weeks", "$250", "40 boards") or None when no unique one exists."""
        r = self.rng
        assert old.mag is not None
        for _ in range(60):
            if old.vtype == "date":
                days = r.choice((7, 14, 21, 3, 4, 10))
                delta = {7: "a week", 14: "two weeks", 21: "three weeks", 3: "three days", 4: "four days", 10: "ten days"}[days]
            else:
                frac = r.choice((0.2, 0.25, 0.3, 0.4, 0.5))
                step = _step(old.vtype, old.mag)
                days = max(step, round(old.mag * frac / step) * step)
                delta = render(old.vtype, days, 0, unit, cur) if old.vtype != "count" else f"{int(days)}"
            mag = old.mag + sign * days
            if mag <= 0 or (old.vtype == "date" and not 20 <= mag <= 360) or (old.vtype == "pct" and mag >= 100):
                continue
            if old.vtype == "time":
                continue
            text = render(old.vtype, mag, old.form, unit, cur)
            if (old.vtype, mag) in self.mags or not self.ok(text) or any(found(delta, t) or found(t, delta) for t in self.taken):
                continue
            self.taken += [text, delta]
            self.mags.add((old.vtype, mag))
            return Q(text, old.vtype, old.form, mag), delta
        return None
