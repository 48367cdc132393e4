"""A key that names what a token counter would answer, for counts kept in a store.

Counts stored with messages are only reusable by a counter that counts the same way. The key is
the counter's name plus a short hash of its answers on a fixed set of probe messages (prose, code,
JSON, a tool call, a tool result, reasoning, a name): a counter whose rules changed (refitted
rates, another framing profile, another tokenizer) gets a different key and recounts instead of
trusting stale numbers. Computed once per counter object.
"""

from __future__ import annotations

import contextlib
import hashlib
import weakref

from ..messages import Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from .base import TokenCounter
from .retention import with_output_count

_PROBES: tuple[Message, ...] = (
    Message("user", (TextPart("The committee postponed the vote until next week, citing missing figures."),)),
    Message("assistant", (TextPart("def f(x):\n    return {k: v for k, v in x.items() if v is not None}\n"),)),
    Message("user", (TextPart('{"id": 42, "tags": ["a", "b"], "ok": true, "ratio": 0.125}'),), name="probe"),
    Message("assistant", (ReasoningPart("Think about the edge cases first."), ToolCallPart("call_1", "grep", '{"q": "TODO", "path": "src/"}'))),
    Message("tool", (ToolResultPart("call_1", (TextPart("src/a.py:12: # TODO handle unicode ✓ 東京\nsrc/b.py:3: pass"),)),)),
    Message("system", (TextPart("    indented\tcode\n\n\nwith   spaces ....... and ====== runs"),)),
    # a reply with the provider's output count (its re-send cost, tokens/retention.py)
    with_output_count(Message("assistant", (ReasoningPart("Check the bounds."), TextPart("Done."))), 40),
)

_KEYS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()


def counter_key(counter: TokenCounter) -> str:
    """``<name>#<8 hex>``: equal for counters that count the probes identically."""
    try:
        hit = _KEYS.get(counter)
    except TypeError:  # not weak-referenceable: compute every time
        hit = None
    if hit is not None:
        return hit
    answers = ",".join(str(counter.count_message(m)) for m in _PROBES) + ";" + str(counter.count_messages([]))
    key = f"{counter.name}#{hashlib.sha256(answers.encode()).hexdigest()[:8]}"
    with contextlib.suppress(TypeError):
        _KEYS[counter] = key
    return key
