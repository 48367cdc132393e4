"""The exit code the extractive brief reads from a tool output: the fast path (lowercased text,
case-sensitive pattern) answers exactly what the case-insensitive pattern answers."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.folding import extractive
from contextwindow.folding.extractive import _EXIT_RE, _FOLDS_TO_PATTERN, exit_code


def reference(text: str) -> int | None:
    """The definition: the pattern, case-insensitive, in the first 4,000 and the last 2,000 characters."""
    m = _EXIT_RE.search(text[:4000]) or _EXIT_RE.search(text[-2000:])
    return int(m.group(1)) if m else None


def test_the_non_ascii_letters_folded_to_the_pattern_are_the_ones_the_fast_path_avoids() -> None:
    letters = "".join(sorted({c for c in _EXIT_RE.pattern if c.isalpha() and c.isascii()}))
    every = "".join(chr(c) for c in range(128, 0x110000) if not 0xD800 <= c < 0xE000)
    folded = set(re.findall(f"[{letters}]", every, re.IGNORECASE))
    assert folded == set(_FOLDS_TO_PATTERN)
    # lowercasing keeps every position where the fast path lowercases (the one exception is avoided)
    assert {c for c in every if len(c.lower()) != 1} <= set(_FOLDS_TO_PATTERN)
    # and no other character lowercases into a letter of the pattern
    assert not {c for c in every if c.lower() in letters and c.lower() != c} - set(_FOLDS_TO_PATTERN)


FRAGMENTS = [
    "Exit code: 1", "EXIT CODE 0", "exited with 127", "Exited With Status 3", '"exit_code": 2', "ExitCode=5",
    "returncode: -9", "Return Code 4", "process exited with code 6", "PROCESS EXITED WITH CODE 7", "return x + 1",
    "exıt code 8", "EXİT CODE 9", "exit ſtatus: 10", "proceſs exited with code 11", "K", "İ", "ı", "ſ", "é", "—",
    "exit", "return", "code", " ", "\n", ":", "=", "'", '"', "12", "-3", "x" * 1500, "ok\n" * 700,
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=12), max_size=40))
def test_fast_exit_code_equals_the_case_insensitive_pattern(pieces: list[str]) -> None:
    text = "".join(pieces)
    extractive.exit_code.cache_clear()
    assert exit_code(text) == reference(text)


def test_exit_codes_at_the_edges_of_the_windows() -> None:
    filler = "ok\n" * 3000  # 9,000 characters: the middle is not looked at
    assert exit_code("Exit code: 3\n" + filler) == 3
    assert exit_code(filler + "exited with 2") == 2
    middle = filler[:4500] + "exit code 4" + filler
    assert exit_code(middle) is None and reference(middle) is None
    assert exit_code("EXİT CODE 9") == reference("EXİT CODE 9") == 9  # dotted capital I folds to i
    assert exit_code("exit ſtatus: 10") == reference("exit ſtatus: 10") == 10  # long s folds to s
    assert exit_code("def f(x):\n    return x\n" * 100) is None
