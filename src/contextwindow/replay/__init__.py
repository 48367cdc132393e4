"""Replay real agent sessions under context-management policies and measure them.

    from contextwindow.replay import replay
    report = replay(load_transcript("session.jsonl"), ["none", "claude-code", "default"], window=64_000)
    report.to_dict()   # per policy: calls, peak tokens, over-window calls, billed input, cost, constraints kept
"""

from .engine import DEFAULT_POLICIES, PolicyResult, ReplayReport, replay, resolve_model, user_constraints
from .policies import POLICIES, Policy, ReplayContext, Step
from .pricing import CallBill, Pricing, bill

__all__ = [
    "DEFAULT_POLICIES",
    "POLICIES",
    "CallBill",
    "Policy",
    "PolicyResult",
    "Pricing",
    "ReplayContext",
    "ReplayReport",
    "Step",
    "bill",
    "replay",
    "resolve_model",
    "user_constraints",
]
