"""The line-number prefix file readers put before every line (Claude Code's Read tool: ``"     12→"``) is
priced apart for Claude models (tokens/estimate.py ``NUMBERED_LINE_TOKENS``, fitted on the FIT sessions).
Seeded texts made here; on the real transcripts, the held-out Read steps agree with the FIT constant."""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

from contextwindow.importers import load_all
from contextwindow.tokens import counter_for
from contextwindow.tokens.estimate import NUMBERED_LINE, NUMBERED_LINE_TOKENS, Estimator

WORDS = ["const", "value", "=", "await", "load(path);", "return", "if", "(x)", "{", "}", "//", "note:", "the", "cache"]


def _lines(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [("  " * rng.randrange(0, 4)) + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 10))) for _ in range(n)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_numbered_listing_costs_the_plain_text_plus_the_fitted_prefix_price(seed: int) -> None:
    body = _lines(seed, 300)
    plain = "\n".join(body)
    numbered = "\n".join(f"{i:6}→{line}" for i, line in enumerate(body, 1))
    assert len(NUMBERED_LINE.findall(numbered)) == 300 and not NUMBERED_LINE.findall(plain)
    claude = counter_for("claude-sonnet-4-5")
    assert isinstance(claude, Estimator) and claude.numbered_line == NUMBERED_LINE_TOKENS["anthropic"] < 0
    off = Estimator("anthropic", profile=claude.profile, numbered_line=0.0)
    # the rule moves each prefixed line by exactly the constant (to rounding), and nothing else
    assert abs((off.count_text(numbered) - claude.count_text(numbered)) - 300 * -claude.numbered_line) <= 1
    assert off.count_text(plain) == claude.count_text(plain)
    # a prefix still costs something: the listing stays dearer than the bare text
    assert claude.count_text(numbered) > claude.count_text(plain) + 300
    # only Claude's family has a fitted price; other families keep their class rates
    assert Estimator("gemini").numbered_line == 0.0 and Estimator("generic").numbered_line == 0.0


def test_an_arrow_that_does_not_open_a_line_is_ordinary_text() -> None:
    c = counter_for("claude-sonnet-4-5")
    assert isinstance(c, Estimator)
    off = Estimator("anthropic", profile=c.profile, numbered_line=0.0)
    text = "state a → b, then 3→4 in the middle of a line\nx = 1 → 2"
    assert c.count_text(text) == off.count_text(text)
    # a calibrated copy keeps the rule, scaled with the rest
    assert c.with_scale(1.1).numbered_line == pytest.approx(c.numbered_line * 1.1)


def _bench() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import bench_tokens_growth

    return bench_tokens_growth


def test_held_out_read_steps_agree_with_the_fit_constant(transcripts_dir: Path) -> None:
    b = _bench()
    data = [(f.name, s) for f in sorted((transcripts_dir / "claude_code").glob("*.jsonl")) for s in load_all(f)]
    held = b.numbered_line_steps(data, "held-out")
    per = [miss / n for _f, _i, miss, n in held]
    assert len(per) >= 5
    # measured on held-out (rule off): median -1.72 per prefix against the FIT constant -1.77
    assert abs(statistics.median(per) - NUMBERED_LINE_TOKENS["anthropic"]) < 0.5
    assert sum(1 for x in per if x < 0) >= len(per) - 2  # the rates overcount the prefix on most steps
