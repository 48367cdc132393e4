"""Calibration of estimates by what the provider reported. Pure: no clock, disk or network.

The provider's reported input tokens for a payload is the truth; our estimate of the same
payload is off by some factor for a model family. :class:`Calibration` learns that factor
from (estimated, reported) pairs — robustly: the ratio of *growth* between consecutive
calls when available (the constant system prompt and tool definitions cancel out), a clamp on
every observed ratio, and an exponentially weighted mean so one odd call cannot swing it.
It is an immutable value: :meth:`Calibration.observe` returns a new one.

:func:`effective_tokens` is the safety rule: use the larger of the (calibrated) estimate and
the last reported count when that report is newer than the estimate's inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..errors import ConfigError

#: No correction ever goes below/above these (an estimator off by more is a bug, not a bias).
MIN_FACTOR = 0.5
MAX_FACTOR = 2.0
#: Applying a factor below 1 lowers every later trigger, so it is bounded: the estimate is never
#: scaled below APPLY_FLOOR of itself, and only after MIN_SAMPLES_BELOW_ONE observations agree
#: (one provider that counts low once changes nothing). Factors above 1 apply at once.
APPLY_FLOOR = 0.9
MIN_SAMPLES_BELOW_ONE = 3
#: Growth smaller than this many tokens is too noisy to learn from.
MIN_GROWTH = 64


@dataclass(frozen=True, slots=True)
class Calibration:
    """A multiplicative correction for one model family, learned from provider usage."""

    family: str = "generic"
    factor: float = 1.0
    samples: int = 0
    alpha: float = 0.3
    last_estimate: int | None = None
    last_reported: int | None = None
    model: str | None = None

    def switched(self, model: str | None) -> Calibration:
        """Re-anchored at a model switch: a new model brings its own system prompt and tools, so the
        growth from the last call measures them, not the conversation. The anchor is dropped (the
        next call only sets it); the learned factor stays."""
        if model is None or model == self.model:
            return self
        if self.model is None:
            return replace(self, model=model)
        return replace(self, model=model, last_estimate=None, last_reported=None)

    def observe(self, estimated: int, reported: int) -> Calibration:
        """A new calibration that has also seen one call (our estimate, the provider's count).

        With a previous observation, the ratio of growths (Δreported/Δestimate) is learned;
        the first observation, or a shrinking payload (after compaction), uses the ratio of
        totals. Each ratio is clamped to [MIN_FACTOR, MAX_FACTOR] before averaging."""
        if estimated < 0 or reported < 0:
            raise ConfigError(f"token counts cannot be negative (estimated={estimated}, reported={reported})")
        ratio: float | None = None
        if self.last_estimate is not None and self.last_reported is not None:
            d_est = estimated - self.last_estimate
            d_rep = reported - self.last_reported
            if d_est >= MIN_GROWTH and d_rep > 0:
                ratio = d_rep / d_est
        if ratio is None and self.samples == 0 and estimated > 0 and reported > 0:
            ratio = reported / estimated
        moved = replace(self, last_estimate=estimated, last_reported=reported)
        if ratio is None or not math.isfinite(ratio):
            return moved
        ratio = min(MAX_FACTOR, max(MIN_FACTOR, ratio))
        factor = ratio if self.samples == 0 else (1 - self.alpha) * self.factor + self.alpha * ratio
        return replace(moved, factor=min(MAX_FACTOR, max(MIN_FACTOR, factor)), samples=self.samples + 1)

    @property
    def applied_factor(self) -> float:
        """The factor :meth:`apply` uses: the learned one when ≥ 1; below 1 only after
        MIN_SAMPLES_BELOW_ONE observations, and never below APPLY_FLOOR."""
        if self.factor >= 1.0:
            return self.factor
        if self.samples < MIN_SAMPLES_BELOW_ONE:
            return 1.0
        return max(self.factor, APPLY_FLOOR)

    def apply(self, estimate: int) -> int:
        """The estimate corrected by the learned factor: scaled up freely, down by at most
        1 - APPLY_FLOOR (see :attr:`applied_factor`)."""
        return round(estimate * self.applied_factor)


def calibrate(pairs: list[tuple[int, int]], family: str = "generic", alpha: float = 0.3) -> Calibration:
    """Learn a calibration from a sequence of (estimated, reported) pairs, oldest first."""
    cal = Calibration(family=family, alpha=alpha)
    for est, rep in pairs:
        cal = cal.observe(est, rep)
    return cal


def median_ratio(pairs: list[tuple[int, int]]) -> float:
    """Median of reported/estimated over pairs with both > 0, clamped (1.0 when none)."""
    ratios = sorted(r / e for e, r in pairs if e > 0 and r > 0)
    if not ratios:
        return 1.0
    mid = len(ratios) // 2
    m = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    return min(MAX_FACTOR, max(MIN_FACTOR, m))


def effective_tokens(estimate: int, last_reported: int | None, reported_is_newer: bool) -> int:
    """The count to act on: ``max(estimate, last_reported)`` when the provider's report is
    newer than (covers at least) what the estimate counted, else the estimate. The
    provider's number is the truth for the payload it saw, so we never act on less."""
    if last_reported is not None and reported_is_newer:
        return max(estimate, last_reported)
    return estimate


def anchored_estimate(last_reported: int, estimate_then: int, estimate_now: int) -> int:
    """Estimate of the current payload anchored on the last report: what the provider said
    for the earlier payload plus our estimate of what changed since (never below zero)."""
    return max(0, last_reported + (estimate_now - estimate_then))
