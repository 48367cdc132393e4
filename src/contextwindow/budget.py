"""The budget waterfall, compaction/fold thresholds, the gauge and session limits. Pure.

Nothing here reads a clock, a file, the network or the process environment: the caller passes
token counts, costs and elapsed seconds in (the environment too, as a mapping).

The waterfall splits a model's context window::

    window
      − output_reserve   min(max_output, output_cap): room for the answer
      − system           the system prompt
      − tools            tool definitions
      − summary          the fold summary standing in for archived history
      − safety_buffer    slack for estimation error
      = history_budget   what the active messages may use

Compaction triggers when the history reaches ``trigger`` × history_budget and compacts down to
``target`` × history_budget. A fold (cumulative checkpoint) triggers when the whole prompt
reaches ``fold_threshold`` × window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from .errors import ConfigError, LimitExceeded

__all__ = [
    "CRITICAL_PERCENT",
    "DEFAULT_FOLD_THRESHOLD",
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_TARGET",
    "DEFAULT_TRIGGER",
    "DEFAULT_WINDOW",
    "ENV_VARS",
    "SAFETY_BUFFER_FLOOR",
    "SAFETY_BUFFER_FRACTION",
    "WARN_PERCENT",
    "Budget",
    "BudgetConfig",
    "Decision",
    "Gauge",
    "LimitHit",
    "Limits",
    "Severity",
    "check_limits",
    "compute_budget",
    "exceeded",
    "gauge",
    "should_compact",
    "should_fold",
]

#: Context window assumed for a model whose limits are unknown (the common size of current models).
DEFAULT_WINDOW = 128_000
#: Max output tokens assumed for a model whose limits are unknown.
DEFAULT_MAX_OUTPUT = 16_384
#: Cap on the output reserve: models that may write 64k+ tokens rarely do, so reserving all of it
#: wastes the window. 20k mirrors the cap common agents (Claude Code among them) use.
DEFAULT_OUTPUT_CAP = 20_000
DEFAULT_TRIGGER = 0.75
DEFAULT_TARGET = 0.50
DEFAULT_FOLD_THRESHOLD = 0.85
#: Default safety buffer: 2% of the window, at least SAFETY_BUFFER_FLOOR tokens.
SAFETY_BUFFER_FRACTION = 0.02
SAFETY_BUFFER_FLOOR = 512

#: Environment variable for each BudgetConfig field (read only by BudgetConfig.from_env).
ENV_VARS: Mapping[str, str] = {
    "output_cap": "CONTEXTWINDOW_OUTPUT_CAP",
    "safety_buffer": "CONTEXTWINDOW_SAFETY_BUFFER",
    "trigger": "CONTEXTWINDOW_TRIGGER",
    "target": "CONTEXTWINDOW_TARGET",
    "fold_threshold": "CONTEXTWINDOW_FOLD_THRESHOLD",
}

# other agents' names for the same settings; the CONTEXTWINDOW_ variable wins when both are set
ENV_ALIASES: Mapping[str, str] = {"trigger": "COMPRESSION_THRESHOLD"}

_OFF = frozenset({"off", "none", "no", "false", "disabled"})
_AUTO = frozenset({"auto", "default"})


# --- configuration ---------------------------------------------------------------------------


def _check_config(values: Mapping[str, Any], source: Mapping[str, str]) -> None:
    """Validate BudgetConfig values; ``source`` names where each came from (field or env var)."""

    def where(name: str) -> str:
        return source.get(name, name)

    cap = values["output_cap"]
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ConfigError(f"{where('output_cap')}={cap!r}: the output cap must be a whole number of tokens ≥ 1")
    buf = values["safety_buffer"]
    if buf is not None and (isinstance(buf, bool) or not isinstance(buf, int) or buf < 0):
        raise ConfigError(f"{where('safety_buffer')}={buf!r}: the safety buffer must be a whole number ≥ 0 (or auto)")
    for name in ("trigger", "target", "fold_threshold"):
        v = values[name]
        if v is None and name == "fold_threshold":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 < v <= 1:
            raise ConfigError(f"{where(name)}={v!r}: must be a fraction in (0, 1], e.g. 0.75 or 75%")
    if not values["target"] < values["trigger"]:
        raise ConfigError(
            f"{where('target')}={values['target']!r} must be below {where('trigger')}={values['trigger']!r}: "
            "compaction goes from the trigger down to the target"
        )


@dataclass(frozen=True, slots=True)
class BudgetConfig:
    """How the window is split and when to compact or fold.

    ``safety_buffer=None`` means automatic: 2% of the window, at least 512 tokens.
    ``fold_threshold=None`` turns automatic folding off. ``target < trigger ≤ 1`` is enforced.
    """

    output_cap: int = DEFAULT_OUTPUT_CAP
    safety_buffer: int | None = None
    trigger: float = DEFAULT_TRIGGER
    target: float = DEFAULT_TARGET
    fold_threshold: float | None = DEFAULT_FOLD_THRESHOLD

    def __post_init__(self) -> None:
        _check_config({f.name: getattr(self, f.name) for f in fields(self)}, {})

    @classmethod
    def from_env(cls, env: Mapping[str, str], **overrides: Any) -> BudgetConfig:
        """Defaults, then the CONTEXTWINDOW_* variables found in ``env``, then ``overrides``.

        ``env`` is passed in (e.g. ``os.environ``), never read globally. Empty values count as
        unset. Fractions accept ``0.75`` or ``75%``; CONTEXTWINDOW_FOLD_THRESHOLD accepts ``off``;
        CONTEXTWINDOW_SAFETY_BUFFER accepts ``auto``. A bad value raises ConfigError naming the
        variable and the value.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown BudgetConfig option(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        values: dict[str, Any] = {f.name: getattr(_DEFAULT_CONFIG, f.name) for f in fields(cls)}
        source: dict[str, str] = {}
        for name, var in ENV_VARS.items():
            raw = env.get(var)
            if (raw is None or not raw.strip()) and name in ENV_ALIASES:  # e.g. COMPRESSION_THRESHOLD for the trigger
                var = ENV_ALIASES[name]
                raw = env.get(var)
            if raw is None or not raw.strip():
                continue
            values[name] = _parse_env(name, var, raw.strip())
            source[name] = var
        for name, v in overrides.items():
            values[name] = v
            source[name] = name
        _check_config(values, source)
        return cls(**values)


def _parse_env(name: str, var: str, raw: str) -> Any:
    low = raw.lower()
    if name == "fold_threshold" and low in _OFF:
        return None
    if name == "safety_buffer" and low in _AUTO:
        return None
    if name in ("output_cap", "safety_buffer"):
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"{var}={raw!r}: expected a whole number of tokens, e.g. 20000") from None
    text = raw[:-1].strip() if raw.endswith("%") else raw
    try:
        v = float(text)
    except ValueError:
        hint = " or off" if name == "fold_threshold" else ""
        raise ConfigError(f"{var}={raw!r}: expected a fraction like 0.75 or 75%{hint}") from None
    if not math.isfinite(v):
        raise ConfigError(f"{var}={raw!r}: expected a finite fraction in (0, 1]")
    if raw.endswith("%"):
        v /= 100
    if not 0 < v <= 1:
        raise ConfigError(f"{var}={raw!r}: must be a fraction in (0, 1], e.g. 0.75 or 75%")
    return v


_DEFAULT_CONFIG = BudgetConfig()


# --- the waterfall ---------------------------------------------------------------------------


def _tokens(name: str, v: Any, *, minimum: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{name} must be a whole number of tokens, got {v!r}")
    if v < minimum:
        raise ConfigError(f"{name} must be ≥ {minimum}, got {v}")
    return v


@dataclass(frozen=True, slots=True)
class Budget:
    """One split of the window. All values are tokens.

    ``fixed_overflow`` > 0 says the fixed parts alone (output reserve, system, tools, summary,
    safety buffer) exceed the window by that much; ``history_budget`` is then 0.
    ``fold_tokens`` is None when folding is off.
    """

    window: int
    output_reserve: int
    system: int
    tools: int
    summary: int
    safety_buffer: int
    history_budget: int
    fixed_overflow: int
    trigger_tokens: int
    target_tokens: int
    fold_tokens: int | None

    @property
    def fixed(self) -> int:
        """Everything but the history: output reserve, system, tools, summary, safety buffer."""
        return self.output_reserve + self.system + self.tools + self.summary + self.safety_buffer

    @property
    def prompt_fixed(self) -> int:
        """The fixed parts that are sent in the prompt: system, tools and summary."""
        return self.system + self.tools + self.summary

    def history_of(self, prompt_tokens: int) -> int:
        """The history's share of a whole-prompt count (e.g. a provider's reported input tokens)."""
        return max(0, prompt_tokens - self.prompt_fixed)

    def describe(self) -> str:
        fold = "off" if self.fold_tokens is None else f"{self.fold_tokens:,}"
        over = f", FIXED PARTS OVERFLOW BY {self.fixed_overflow:,}" if self.fixed_overflow else ""
        return (
            f"window {self.window:,} − output {self.output_reserve:,} − system {self.system:,} − tools {self.tools:,}"
            f" − summary {self.summary:,} − buffer {self.safety_buffer:,} = history {self.history_budget:,}"
            f" (trigger {self.trigger_tokens:,}, target {self.target_tokens:,}, fold {fold}){over}"
        )


def _share(n: int, fraction: float) -> int:
    """floor(n × fraction), never above n (a float product rounds up past n beyond 2**53)."""
    return min(n, math.floor(n * fraction))


def compute_budget(
    window: int = DEFAULT_WINDOW,
    max_output: int = DEFAULT_MAX_OUTPUT,
    system_tokens: int = 0,
    tool_tokens: int = 0,
    summary_tokens: int = 0,
    config: BudgetConfig | None = None,
) -> Budget:
    """Split ``window`` into output reserve, fixed prompt parts, safety buffer and history budget.

    Never returns a negative history budget: when the fixed parts exceed the window the result
    has ``history_budget=0`` and ``fixed_overflow`` says by how much.
    """
    cfg = config or _DEFAULT_CONFIG
    window = _tokens("window", window, minimum=1)
    max_output = _tokens("max_output", max_output)
    system_tokens = _tokens("system_tokens", system_tokens)
    tool_tokens = _tokens("tool_tokens", tool_tokens)
    summary_tokens = _tokens("summary_tokens", summary_tokens)
    output_reserve = min(max_output, cfg.output_cap)
    if cfg.safety_buffer is None:
        buffer = max(SAFETY_BUFFER_FLOOR, math.ceil(window * SAFETY_BUFFER_FRACTION))
    else:
        buffer = cfg.safety_buffer
    rest = window - output_reserve - system_tokens - tool_tokens - summary_tokens - buffer
    history = max(0, rest)
    return Budget(
        window=window,
        output_reserve=output_reserve,
        system=system_tokens,
        tools=tool_tokens,
        summary=summary_tokens,
        safety_buffer=buffer,
        history_budget=history,
        fixed_overflow=max(0, -rest),
        trigger_tokens=_share(history, cfg.trigger),
        target_tokens=_share(history, cfg.target),
        fold_tokens=None if cfg.fold_threshold is None else _share(window, cfg.fold_threshold),
    )


# --- decisions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether to compact (or fold), and why.

    For ``kind="compact"`` effective/threshold/target are history tokens; for ``kind="fold"``
    they are whole-prompt tokens. ``last_reported`` is the provider's number as given;
    ``reported`` is its conversion to the unit of the threshold (None when not given).
    """

    kind: Literal["compact", "fold"]
    estimate: int
    last_reported: int | None
    reported: int | None
    effective: int
    threshold: int | None
    target: int | None
    over: bool
    reason: str

    @property
    def to_free(self) -> int:
        """Tokens to remove to reach the target (0 when not over or no target)."""
        if not self.over or self.target is None:
            return 0
        return max(0, self.effective - self.target)

    def describe(self) -> str:
        """One line for a debug log."""
        verdict = self.kind if self.over else f"no {self.kind}"
        return f"{verdict}: {self.reason}"


def _calibrated(estimate: int, reported: int | None) -> tuple[int, str]:
    if reported is None:
        return estimate, f"estimate {estimate:,}"
    if reported > estimate:
        return reported, f"reported {reported:,} (estimate {estimate:,} is lower)"
    return estimate, f"estimate {estimate:,} (reported {reported:,})"


def should_compact(estimate: int, last_reported: int | None, budget: Budget) -> Decision:
    """Compact when the history reaches the trigger.

    ``estimate`` is the estimated tokens of the history (the active messages). ``last_reported``
    is the provider's input tokens for the last call (the whole prompt) or None; its history
    share (minus system, tools and summary) calibrates the estimate: the higher of the two
    counts. Pass None when compaction ran since that call (the number is stale).
    An empty history never needs compaction.
    """
    estimate = _tokens("estimate", estimate)
    reported = None if last_reported is None else budget.history_of(_tokens("last_reported", last_reported))
    effective, basis = _calibrated(estimate, reported)
    threshold = budget.trigger_tokens
    over = effective > 0 and effective >= threshold
    cmp = "≥" if over else "<"
    reason = f"history {basis} {cmp} trigger {threshold:,} of budget {budget.history_budget:,}"
    if over:
        reason += f" → target {budget.target_tokens:,}"
    if budget.fixed_overflow:
        reason += f"; fixed parts exceed the window by {budget.fixed_overflow:,}"
    return Decision(
        kind="compact",
        estimate=estimate,
        last_reported=last_reported,
        reported=reported,
        effective=effective,
        threshold=threshold,
        target=budget.target_tokens,
        over=over,
        reason=reason,
    )


def should_fold(estimate: int, last_reported: int | None, budget: Budget) -> Decision:
    """Fold when the whole prompt reaches ``fold_threshold`` × window.

    Same arguments as :func:`should_compact`: ``estimate`` is the history's estimate (system,
    tools and summary are added from the budget), ``last_reported`` the provider's whole-prompt
    count. Never over when folding is off.
    """
    estimate = _tokens("estimate", estimate)
    if last_reported is not None:
        _tokens("last_reported", last_reported)
    prompt_estimate = estimate + budget.prompt_fixed
    effective, basis = _calibrated(prompt_estimate, last_reported)
    threshold = budget.fold_tokens
    if threshold is None:
        over, reason = False, f"prompt {basis}; automatic folding is off"
    else:
        over = effective >= threshold
        reason = f"prompt {basis} {'≥' if over else '<'} fold threshold {threshold:,} of window {budget.window:,}"
    return Decision(
        kind="fold",
        estimate=prompt_estimate,
        last_reported=last_reported,
        reported=last_reported,
        effective=effective,
        threshold=threshold,
        target=None,
        over=over,
        reason=reason,
    )


# --- gauge -----------------------------------------------------------------------------------

Severity = Literal["ok", "warn", "critical"]
WARN_PERCENT = 70
CRITICAL_PERCENT = 90


@dataclass(frozen=True, slots=True)
class Gauge:
    """How full the window is: ok below 70%, warn from 70% to below 90%, critical from 90%."""

    used: int
    window: int
    percent: float
    severity: Severity

    def describe(self) -> str:
        return f"{self.used:,} / {self.window:,} tokens ({self.percent:.1f}%) {self.severity}"


def gauge(used: int, window: int) -> Gauge:
    """The gauge for ``used`` tokens of ``window``. Boundaries are exact (integer arithmetic)."""
    used = _tokens("used", used)
    window = _tokens("window", window, minimum=1)
    if used * 100 >= CRITICAL_PERCENT * window:
        severity: Severity = "critical"
    elif used * 100 >= WARN_PERCENT * window:
        severity = "warn"
    else:
        severity = "ok"
    return Gauge(used=used, window=window, percent=100.0 * used / window, severity=severity)


# --- session limits --------------------------------------------------------------------------

LIMIT_ENV_VARS: Mapping[str, str] = {
    "max_turns": "CONTEXTWINDOW_MAX_TURNS",
    "max_tokens": "CONTEXTWINDOW_MAX_TOKENS",
    "max_tool_calls": "CONTEXTWINDOW_MAX_TOOL_CALLS",
    "max_cost_usd": "CONTEXTWINDOW_MAX_COST_USD",
    "max_wall_s": "CONTEXTWINDOW_MAX_WALL_S",
}

_LIMIT_FIELDS = (
    ("turns", "max_turns"),
    ("tokens", "max_tokens"),
    ("tool_calls", "max_tool_calls"),
    ("cost_usd", "max_cost_usd"),
    ("wall_s", "max_wall_s"),
)


def _number(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ConfigError(f"{name} must be a finite number ≥ 0, got {v!r}")
    return v


@dataclass(frozen=True, slots=True)
class Limits:
    """Session limits; None means unlimited. A value above its maximum is exceeded."""

    max_turns: int | None = None
    max_tokens: int | None = None
    max_tool_calls: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None

    def __post_init__(self) -> None:
        for _, attr in _LIMIT_FIELDS:
            v = getattr(self, attr)
            if v is not None:
                _number(attr, v)

    @classmethod
    def defaults(cls) -> Limits:
        """The limits that bind out of the box: 200 turns, 1M tokens (input + output, summed over
        the calls), 200 tool calls, $2, 30 minutes."""
        return cls(max_turns=200, max_tokens=1_000_000, max_tool_calls=200, max_cost_usd=2.0, max_wall_s=1_800.0)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        """:meth:`defaults`, each replaced by its variable when set (a number, or ``off``):
        CONTEXTWINDOW_MAX_TURNS, _MAX_TOKENS, _MAX_TOOL_CALLS, _MAX_COST_USD, _MAX_WALL_S."""
        values: dict[str, Any] = {attr: getattr(cls.defaults(), attr) for _, attr in _LIMIT_FIELDS}
        for _, attr in _LIMIT_FIELDS:
            var = LIMIT_ENV_VARS[attr]
            raw = (env.get(var) or "").strip()
            if not raw:
                continue
            if raw.lower() in _OFF:
                values[attr] = None
                continue
            try:
                v = float(raw.lstrip("$")) if attr in ("max_cost_usd", "max_wall_s") else int(raw.replace("_", "").replace(",", ""))
            except ValueError:
                raise ConfigError(f"{var}={raw!r}: expected a number or 'off'") from None
            if v < 0 or not math.isfinite(v):
                raise ConfigError(f"{var}={raw!r}: expected a number >= 0 or 'off'")
            values[attr] = v
        return cls(**values)


@dataclass(frozen=True, slots=True)
class LimitHit:
    """One exceeded limit: its name (turns, tokens, tool_calls, cost_usd, wall_s) and the numbers."""

    limit: str
    value: float
    maximum: float

    def error(self) -> LimitExceeded:
        return LimitExceeded(self.limit, self.value, self.maximum)


def exceeded(
    limits: Limits,
    turns: int = 0,
    tokens: int = 0,
    tool_calls: int = 0,
    cost_usd: float = 0.0,
    wall_s: float = 0.0,
) -> list[LimitHit]:
    """Every exceeded limit, in the order turns, tokens, tool_calls, cost_usd, wall_s."""
    values = {"turns": turns, "tokens": tokens, "tool_calls": tool_calls, "cost_usd": cost_usd, "wall_s": wall_s}
    hits: list[LimitHit] = []
    for name, attr in _LIMIT_FIELDS:
        value = _number(name, values[name])
        maximum = getattr(limits, attr)
        if maximum is not None and value > maximum:
            hits.append(LimitHit(name, value, maximum))
    return hits


def check_limits(
    limits: Limits,
    turns: int = 0,
    tokens: int = 0,
    tool_calls: int = 0,
    cost_usd: float = 0.0,
    wall_s: float = 0.0,
) -> None:
    """Raise LimitExceeded for the first exceeded limit (order as in :func:`exceeded`)."""
    hits = exceeded(limits, turns, tokens, tool_calls, cost_usd, wall_s)
    if hits:
        raise hits[0].error()
