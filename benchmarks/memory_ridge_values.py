"""Values for the ``ridge`` memory family: unique in a session both in what they mean and in how
they read (no value is found inside another with the benchmark's own match), each with what it
means as a number where it is one, and the format it is written in (so an update can change the
unit or the format and a test can check it)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
         "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
NAMES = ["Ines", "Tomasz", "Adaeze", "Haruto", "Marisol", "Bjorn", "Keziah", "Rustam", "Oluwaseun", "Greta", "Paulo", "Yevgenia",
         "Siddharth", "Noor", "Lachlan", "Fumiko", "Dariusz", "Aurelie", "Kwame", "Saoirse", "Matthias", "Priyanka", "Ezequiel",
         "Thandiwe", "Cormac", "Ilse", "Vikram", "Solveig", "Anouk", "Teodor"]
BOT_NAMES = ["Juniper", "Marlowe", "Sable", "Tamsin", "Perrin", "Odessa", "Calloway", "Briar"]
TEAMS = ["Halyard", "Bowline", "Mizzen", "Gunwale", "Bulkhead", "Keelson", "Capstan", "Transom"]
SITES = ["fra2", "iad1", "ams3", "sin1", "dub4", "osl2"]
PATH_WORDS = ["exp", "run", "sweep", "partner", "events", "vendor", "backfill", "daily"]
#: the types a value can be written in more than one format of
FORMATS = {"money": ("dollar", "usd", "k"), "date": ("md", "dm", "iso"), "duration": ("min", "h", "s"), "days": ("d", "w"),
           "count": ("digits", "words"), "size": ("MB", "GB"), "latency": ("ms", "s"), "pct": ("sign", "percent")}


def pattern(value: str) -> re.Pattern[str]:
    """The benchmark's test for "``value`` is in this (lower-cased) text" (bench_memory.py)."""
    return re.compile(rf"(?<![\w$]){re.escape(value.lower())}(?!\w)")


def found(value: str, text: str) -> bool:
    low = value.lower()
    return low in text.lower() and pattern(value).search(text.lower()) is not None


@dataclass(frozen=True)
class Val:
    text: str
    n: float | None = None  # what it means as a number (dollars, day of 2026, seconds, days, a count, MB, ms, percent, a version)
    fmt: str = ""  # how it is written (FORMATS), "" for types with one way


def _num(x: float) -> str:
    return f"{x:g}"


def render(vtype: str, n: float, fmt: str, noun: str = "") -> str | None:
    """``n`` written in ``fmt`` (None when that format cannot write it exactly)."""
    i = int(n)
    if vtype == "money":
        if fmt == "k":
            return f"{_num(n / 1000)}k dollars" if n >= 1000 and i % 10 == 0 else None
        return f"${i:,}" if fmt == "dollar" else f"{i:,} USD"
    if vtype == "date":
        month = next(m for m in range(12) if i <= sum(DAYS_IN[: m + 1]))
        day = i - sum(DAYS_IN[:month])
        return {"md": f"{MONTHS[month]} {day}", "dm": f"{day} {MONTHS[month]}", "iso": f"2026-{month + 1:02d}-{day:02d}"}[fmt]
    if vtype == "duration":
        if fmt == "h":
            return (f"{_num(n / 3600)} hour" + ("" if n == 3600 else "s")) if i % 1800 == 0 else None
        if fmt == "min":
            return f"{i // 60} minutes" if i % 60 == 0 else None
        return f"{i:,} seconds" if n <= 7200 else None
    if vtype == "days":
        if fmt == "w":
            return f"{i // 7} weeks" if i % 7 == 0 and i >= 14 else None
        return f"{i} days"
    if vtype == "count":
        if fmt == "words":
            return f"{WORDS[i]} {noun}" if i < len(WORDS) else None
        return f"{i:,} {noun}"
    if vtype == "size":
        if fmt == "GB":
            return f"{_num(n / 1024)} GB" if i % 256 == 0 and n >= 1024 else None
        return f"{i:,} MB" if n < 10_000 else None
    if vtype == "latency":
        return f"{i} ms" if fmt == "ms" else f"{_num(n / 1000)} seconds"
    if vtype == "pct":
        return f"{_num(n)}%" if fmt == "sign" else f"{_num(n)} percent"
    raise ValueError(f"ridge: {vtype} has no numeric rendering")


def _date_n(doy: int) -> int:
    return max(1, min(365, doy))


class ValueMaker:
    """Draws values that no other value of the session reads as or means."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.texts: list[str] = []
        self.keys: set[str] = set()

    def free(self, text: str, key: str) -> bool:
        return key not in self.keys and not any(found(text, t) or found(t, text) for t in self.texts)

    def take(self, text: str, key: str) -> bool:
        if not self.free(text, key):
            return False
        self.texts.append(text)
        self.keys.add(key)
        return True

    def draw(self, vtype: str, spec: tuple[object, ...], *, old: Val | None = None, sign: int = 0, fmt: str | None = None,
             not_fmt: str | None = None, n: float | None = None) -> Val | None:
        """A new value of ``vtype`` (above/below ``old`` when ``sign`` says so; exactly ``n`` when given), or None."""
        r = self.rng
        for _ in range(300):
            val = self._one(vtype, spec, n)
            if val is None:
                return None
            meaning, text, f = val
            if vtype in FORMATS:
                assert meaning is not None
                choices = [x for x in FORMATS[vtype] if x != not_fmt] if fmt is None else [fmt]
                r.shuffle(choices)
                noun = str(spec[2]) if vtype == "count" else ""
                text = next((t for t in (render(vtype, meaning, c, noun) for c in choices) if t), "")
                f = next((c for c in choices if render(vtype, meaning, c, noun) == text), "")
                if not text:
                    if n is not None:
                        return None
                    continue
            if sign and old is not None and old.n is not None and meaning is not None and (meaning - old.n) * sign <= 0:
                if n is not None:
                    return None
                continue
            key = f"{vtype}:{meaning if meaning is not None else text.lower()}"
            if self.take(text, key):
                return Val(text, meaning, f)
            if n is not None:
                return None
        return None

    def _one(self, vtype: str, spec: tuple[object, ...], n: float | None) -> tuple[float | None, str, str] | None:
        r = self.rng
        if n is not None:
            return n, "", ""
        if vtype == "person":
            return None, r.choice(NAMES), ""
        if vtype == "name":
            return None, r.choice(BOT_NAMES), ""
        if vtype == "team":
            return None, r.choice(TEAMS), ""
        if vtype == "choice":
            return None, str(r.choice(spec)), ""
        if vtype == "host":
            return None, f"{spec[0]}-{r.randint(2, 48):02d}.{r.choice(SITES)}.corp", ""
        if vtype == "port":
            p = r.randint(5100, 9899)
            return None, str(p), ""
        if vtype == "ticket":
            return None, f"{spec[0]}-{r.randint(120, 9899)}", ""
        if vtype == "branch":
            return None, f"release/{r.randint(3, 9)}.{r.randint(0, 24)}", ""
        if vtype == "path":
            return None, f"{spec[0]}/{r.choice(PATH_WORDS)}-{r.randint(2, 99)}", ""
        if vtype == "version":
            major, minor, patch = int(spec[0]), r.randint(0, 14), r.randint(0, 9)  # type: ignore[call-overload]
            return major * 10_000 + minor * 100 + patch, f"{major}.{minor}.{patch}", ""
        lo, hi = int(spec[0]) if spec else 0, int(spec[1]) if len(spec) > 1 else 0  # type: ignore[call-overload]
        if vtype == "money":
            step = int(spec[2]) if len(spec) > 2 else 50  # type: ignore[call-overload]
            return float(r.randrange(lo, hi, step)), "", ""
        if vtype == "date":
            return float(r.randint(40, 330)), "", ""
        if vtype == "duration":
            lo, hi = (lo, hi) if spec else (600, 10_800)
            return float(r.randrange(lo, hi, 300 if hi > 3600 else 60)), "", ""
        if vtype == "days":
            return float(r.randint(lo, hi)), "", ""
        if vtype == "count":
            return float(r.randint(lo, hi)), "", ""
        if vtype == "size":
            lo, hi = (lo, hi) if spec else (48, 480)
            return float(r.randrange(lo, hi, 256 if hi > 4096 else 8)), "", ""
        if vtype == "latency":
            return float(r.randrange(lo or 200, hi or 1600, 50)), "", ""
        if vtype == "pct":
            lo, hi = (lo, hi) if spec else (9000, 9990)
            return r.randrange(lo, hi, 10) / 100, "", ""
        raise ValueError(f"ridge: unknown value type {vtype!r}")

    def version_text(self, n: float) -> str:
        i = int(n)
        return f"{i // 10_000}.{i // 100 % 100}.{i % 100}"

    def shifted(self, vtype: str, spec: tuple[object, ...], old: Val, sign: int) -> tuple[Val, str] | None:
        """A value ``old`` moved up (sign 1) or down by a stated difference: (new value, the difference as said)."""
        r = self.rng
        assert old.n is not None
        for _ in range(60):
            if vtype == "money":
                d = float(r.choice([50, 100, 150, 200, 250, 300, 400, 500, 750, 1000]))
                dtext = f"${int(d):,}"
            elif vtype == "date":
                d, dtext = r.choice([(3.0, "three days"), (7.0, "a week"), (10.0, "ten days"), (14.0, "two weeks"), (4.0, "four days")])
            elif vtype == "duration":
                d = float(r.choice([300, 600, 900, 1200, 1800, 3600]))
                dtext = f"{int(d) // 60} minutes"
            elif vtype == "days":
                d = float(r.choice([2, 3, 5, 7, 10, 14, 30]))
                dtext = f"{int(d)} days"
            elif vtype == "count":
                d = float(r.choice([1, 2, 3, 4, 5, 8, 10, 16, 32, 64, 100, 128]))
                dtext = f"{int(d)} {spec[2]}"
            elif vtype == "size":
                d = float(r.choice([16, 32, 64, 256, 512, 1024]))
                dtext = f"{int(d)} MB"
            elif vtype == "latency":
                d = float(r.choice([50, 100, 150, 200, 250]))
                dtext = f"{int(d)} ms"
            elif vtype == "pct":
                d = float(r.choice([0.1, 0.2, 0.3, 0.5, 1.0]))
                dtext = f"{_num(d)} points"
            else:
                return None
            n = old.n + sign * d
            if n <= 0 or (vtype == "pct" and n >= 100) or (vtype == "date" and not 1 <= n <= 365):
                continue
            n = round(n, 2)
            if self.free(dtext, f"delta:{dtext}") and (val := self.draw(vtype, spec, n=n)) is not None:
                self.take(dtext, f"delta:{dtext}")
                return val, dtext
        return None
