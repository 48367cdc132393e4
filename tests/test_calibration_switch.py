"""A model switch re-anchors calibration: the growth across the switch (a new system prompt and tools)
is not learned as the conversation's growth."""

from __future__ import annotations

from contextwindow.tokens.calibration import Calibration


def test_switch_drops_the_growth_anchor_and_keeps_the_factor() -> None:
    cal = Calibration(family="anthropic").switched("claude-opus-4-5")
    cal = cal.observe(10_000, 12_000).observe(11_000, 13_200)
    factor = cal.factor
    # same model: a jump of +20k reported for +1k estimated would be learned (clamped)
    same = cal.switched("claude-opus-4-5").observe(12_000, 33_200)
    assert same.factor != factor
    # a switch: the same jump only re-anchors
    other = cal.switched("claude-haiku-4-5")
    assert other.last_estimate is None and other.model == "claude-haiku-4-5"
    moved = other.observe(12_000, 33_200)
    assert moved.factor == factor and moved.samples == cal.samples
    # and growth after the switch is learned again from the new anchor
    after = moved.observe(13_000, 34_400)
    assert after.samples == cal.samples + 1
    assert cal.switched(None) is cal
