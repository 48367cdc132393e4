"""How often `default`'s replay does each kind of per-message work: once per message, or per call?

    python benchmarks/count_replay_work.py [--window 100000] [--transcripts DIR]

A measuring harness, not a test: it wraps a few library functions in counters (the clip's entry
point, the ledger's reading, the store's encoding, the engine's unit, the payload converter, the
counters' reads of a text) and replays the long fixture sessions (>= 40 calls) under `default`
alone, the memos emptied before each (bench_replay.forget_memos). Only the policy's own part is
counted (the engine's ``_run``, what ``PolicyResult.cpu_seconds`` times), not the replay's setup.
Printed per kind: calls, distinct inputs, and calls per distinct input (1.0 = once per message).
Inputs are told apart by content for texts; for message objects (the store's encoding, the
engine's unit) by object, and for payloads by the sequence of message objects sent, the objects
kept alive until the end so that no ``id`` is reused by a later object.
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contextwindow.clipping as clipping  # noqa: E402
import contextwindow.folding.ledger as ledger  # noqa: E402
import contextwindow.formats.openai_chat as openai_chat  # noqa: E402
import contextwindow.replay.engine as engine  # noqa: E402
import contextwindow.store.memory as memory  # noqa: E402
import contextwindow.tokens.estimate as estimate  # noqa: E402
import contextwindow.tokens.exact as exact  # noqa: E402
from bench_replay import FIXTURES, LONG_CALLS, forget_memos, sessions_with_models  # noqa: E402
from contextwindow.replay import replay  # noqa: E402

calls: collections.Counter[str] = collections.Counter()
distinct: dict[str, set[Hashable]] = collections.defaultdict(set)
chars: collections.Counter[str] = collections.Counter()
timed = [False]
alive: list[object] = []  # what an ``id`` key names stays alive, so the id is never reused


def _by_object(m: object) -> int:
    alive.append(m)
    return id(m)


def _by_objects(messages: Any, *a: Any, **k: Any) -> tuple[int, ...]:
    alive.append(messages)
    return tuple(id(m) for m in messages)


def _count(label: str, key: Hashable, size: int = 0) -> None:
    if timed[0]:
        calls[label] += 1
        distinct[label].add(key)
        chars[label] += size


def _wrap(mod: Any, name: str, label: str, key: Callable[..., Hashable]) -> None:
    fn = getattr(mod, name)

    @functools.wraps(fn)
    def wrapped(*a: Any, **k: Any) -> Any:
        _count(label, key(*a, **k))
        return fn(*a, **k)

    setattr(mod, name, wrapped)


def install() -> None:
    run = engine._run

    def timed_run(*a: Any, **k: Any) -> Any:
        timed[0] = True
        try:
            return run(*a, **k)
        finally:
            timed[0] = False

    engine._run = timed_run  # type: ignore[assignment]
    _wrap(clipping, "clip", "tool result examined by the clip", lambda r, *a, **k: getattr(r, "text", r))
    _wrap(ledger, "detect", "user text read by the ledger", lambda t, *a, **k: t)
    _wrap(memory, "encode_message", "message encoded by the store (JSON + hash)", _by_object)
    _wrap(engine, "serialize", "engine unit made (JSON of a new message object)", _by_object)
    _wrap(openai_chat, "to_payload", "provider payload built", _by_objects)
    features = estimate.Estimator.features

    def est_features(self: estimate.Estimator, text: str) -> Any:
        if self._features.get(text) is None:
            _count("text read by the estimator", text, len(text))
        return features(self, text)

    estimate.Estimator.features = est_features  # type: ignore[method-assign]
    exact_count = exact.ExactCounter.count_text

    def exact_text(self: exact.ExactCounter, text: str) -> int:
        _count("text read by tiktoken", text, len(text))
        return exact_count(self, text)

    exact.ExactCounter.count_text = exact_text  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcripts", type=Path, default=FIXTURES)
    ap.add_argument("--window", type=int, default=100_000)
    args = ap.parse_args()
    sessions = [(s, m) for s, m, _ in sessions_with_models(args.transcripts) if len(s.calls) >= LONG_CALLS]
    if not sessions:
        print(f"no long sessions under {args.transcripts}", file=sys.stderr)
        return 1
    install()
    results = sum(1 for s, _ in sessions for m in s.messages if m.is_tool_result)
    users = sum(1 for s, _ in sessions for m in s.messages if m.role == "user" and not m.is_tool_result)
    n_calls = sum(len(s.calls) for s, _ in sessions)
    for s, model in sessions:
        forget_memos(model)
        replay(s, ["default"], model=model, window=args.window)
    print(f"{len(sessions)} long sessions at {args.window:,}: {n_calls} calls, {results} tool-result messages, {users} user messages\n")
    print("| work | calls | distinct inputs | per distinct input | characters read |")
    print("|---|---|---|---|---|")
    for label in sorted(calls):
        d = len(distinct[label])
        print(f"| {label} | {calls[label]:,} | {d:,} | {calls[label] / max(d, 1):.2f} | {chars[label]:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
