"""Helpers for the tests of the memory families that live in their own modules (benchmarks/memory_family_*.py)."""

from __future__ import annotations

import re
from pathlib import Path


def literals(path: Path) -> set[str]:
    """The string literals of a module, placeholders as "{}", lower-cased, without end punctuation."""
    src = path.read_text(encoding="utf-8")
    found = re.findall(r'"((?:[^"\\\n]|\\.)*)"', src) + re.findall(r"'((?:[^'\\\n]|\\.)*)'", src)
    return {re.sub(r"\{\w*\}", "{}", s).lower().strip(" .!") for s in found}


def borrowed(bench: Path, family: str, modules: tuple[str, ...]) -> tuple[int, list[str]]:
    """(how many strings ``modules`` of ``family`` hold, those of them longer than a few words that are also a
    string of another family's ``memory_*.py`` module)."""
    mine = set().union(*(literals(bench / m) for m in modules))
    theirs = set().union(*(literals(p) for p in bench.glob("memory_*.py") if family not in p.name))
    return len(mine), sorted(s for s in mine if len(s) > 12 and " " in s and s in theirs)
