"""Which earlier reasoning a provider keeps in the prompt, per model, and what a reply costs when re-sent.

Anthropic documents the rule per model (extended thinking / context windows guides):

- Opus 4.5 and later Opus models, Sonnet 4.6 and later Sonnet models keep the thinking of every earlier
  assistant turn in context (it is re-sent and counted as input).
- Opus 4.1 and earlier Opus, Sonnet 4.5 and earlier Sonnet, and every Haiku through 4.5 keep only the
  thinking of the last assistant turn (the tool-use loop since the last user message); earlier turns'
  thinking is stripped by the API and not counted.
- A Claude model this rule cannot place (a new family, an unparsable name) is taken to keep it: newer
  models do, and counting it errs high (compacting early), never low.

OpenAI reasoning models drop the reasoning items of earlier turns and keep those of the current one
(the encrypted reasoning Codex sends back within a turn); that is the ``openai`` profile's default.

What a reply costs when re-sent: the provider's own output count for that reply (``meta["output_tokens"]``
on an assistant message, stamped by the importers and by :class:`~contextwindow.session.Session` together
with the shape of the parts it counts) is the truth for what the model generated — including the *full*
thinking or encrypted reasoning the log only summarizes — so it replaces our estimate of the reply when it
is trustworthy (see :func:`reply_cost`). A compaction that changes the reply's parts voids it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..messages import Message, ReasoningPart, TextPart, ToolCallPart

#: A logged output count below this share of our estimate of the reply's visible parts is a partial
#: count written while streaming (Claude Code logs ``output_tokens: 1`` on early blocks of some
#: responses), not the reply's size: the estimate stands.
MIN_TRUSTED_SHARE = 0.5

#: A reply without reasoning parts whose output count is above this multiple of our estimate of it
#: carried thinking the log does not hold (Claude Code 1.0.x wrote none): the count is not used for it.
#: Fitted on the FIT files (benchmarks/bench_tokens_growth.py --fit).
MAX_PLAIN_RATIO = 1.6

#: ...and not above it when the count exceeds the estimate by at most this many tokens per tool call: the
#: count holds the model's own rendering of each call it made (name, parameters, their delimiters), which
#: the provider bills again when the call is re-sent, and which alone puts a small call-only reply past
#: the ratio. Fitted on Claude Code's FIT files (benchmarks/bench_tokens_growth.py ``fit_call_slack``;
#: docs/tokens.md), so it is Anthropic's only: another provider family has no slack until fitted on its logs.
CALL_RENDER_SLACK: dict[str, int] = {"anthropic": 40}

_CLAUDE = re.compile(r"claude-(?:(?P<fam1>opus|sonnet|haiku)-(?P<v1>\d+(?:[-.]\d{1,2}(?!\d))?)|(?P<v2>\d+(?:[-.]\d{1,2}(?!\d))?)-(?P<fam2>opus|sonnet|haiku))")
#: (family, first version that keeps every earlier turn's thinking); Haiku: none documented so far.
_KEEPS_FROM = {"opus": (4, 5), "sonnet": (4, 6), "haiku": (99, 0)}


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.replace(".", "-").partition("-")
    return int(major), int(minor or 0)


def keeps_all_thinking(model: str | None) -> bool | None:
    """True when ``model`` keeps every earlier assistant turn's thinking in context, False when only the
    last turn's, None when the model is not a Claude model (the provider family's default applies)."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    if "claude" not in name:
        return None
    m = _CLAUDE.search(name)
    if m is None:
        return True
    fam = m.group("fam1") or m.group("fam2")
    version = _version(m.group("v1") or m.group("v2"))
    # A date suffix (claude-sonnet-4-20250514) is not a minor version: _CLAUDE keeps minors to 1-2 digits.
    return version >= _KEEPS_FROM[fam]


def reply_shape(parts: Sequence[object]) -> str:
    """A cheap signature of a reply's parts (kind and size of each): an output count belongs to the parts
    it was reported for, and a compaction that masks, truncates or drops any of them changes the shape."""
    out = []
    for p in parts:
        if isinstance(p, ReasoningPart):
            out.append(f"r{len(p.text)}.{len(p.encrypted or '')}")
        elif isinstance(p, TextPart):
            out.append(f"t{len(p.text)}")
        elif isinstance(p, ToolCallPart):
            out.append(f"c{len(p.name)}.{len(p.arguments)}")
        else:
            out.append(str(getattr(p, "kind", "?"))[:1])
    return ",".join(out)


def reported_output(message: Message) -> int | None:
    """The provider's output-token count of an assistant reply, when it carries one stamped for exactly
    its current parts (:func:`with_output_count`); None otherwise."""
    meta = message.meta
    if not meta or message.role != "assistant":
        return None
    v = meta.get("output_tokens")
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        return None
    if meta.get("output_shape") != reply_shape(message.parts):
        return None
    return v


def reply_cost(visible: int, reasoning: int | None, output: int | None, calls: int = 0, slack: int = 0) -> tuple[int, int]:
    """``(cost kept, cost if its reasoning is dropped)`` of a reply's parts when re-sent.

    ``visible`` is our estimate of its text and tool calls, ``reasoning`` of its (summarized, encrypted or
    omitted) reasoning parts (None when it has none), ``output`` the provider's output count, ``calls`` how
    many tool calls the reply made, ``slack`` the tokens per call the count may exceed the estimate by
    (:data:`CALL_RENDER_SLACK` of the provider family).

    A reply without reasoning parts costs its trusted count when that count measures the same text: at
    most :data:`MAX_PLAIN_RATIO` times our estimate, or above it by at most ``slack`` per tool call.
    Past that the count holds thinking the client did not log (and so does not send back), and our
    estimate of the visible parts stands. A reply that carries reasoning uses the count: that is what the
    log shortens (a summary, a ciphertext) while the provider re-reads it in full. Without a trusted
    count the estimates stand. With one, the kept cost is that count — also when it is below our estimate of
    the visible parts alone: the count covers thinking, text and calls, so the estimate overshot (a large
    Write's code is where it does: FIT's replies with thinking whose count was under the visible estimate
    were billed at about the count, benchmarks/bench_tokens_steps.py) — and the dropped cost what is left
    once thinking goes: the visible estimate, never more than the count."""
    trusted = output is not None and output >= MIN_TRUSTED_SHARE * visible
    if reasoning is None:
        # The count measures the same text exactly, unless it is far above our estimate: then it holds
        # thinking the client did not log (and so does not send back), and the estimate stands.
        if trusted and output is not None and (output <= MAX_PLAIN_RATIO * visible or output - visible <= slack * calls):
            return output, output
        return visible, visible
    if not trusted or output is None:
        return visible + reasoning, visible
    return output, min(visible, output)


def with_output_count(message: Message, output_tokens: int | None) -> Message:
    """``message`` carrying the provider's output count of it (``meta["output_tokens"]``, with the shape of
    the parts it counts) when it is an assistant reply and the count is known; otherwise unchanged (a count
    already there stays)."""
    if (
        message.role != "assistant"
        or isinstance(output_tokens, bool)
        or not isinstance(output_tokens, int)
        or output_tokens <= 0
        or "output_tokens" in message.meta
    ):
        return message
    # the two keys in sorted order: a reply with no other meta is then stored as it is, not decoded
    # again from its JSON (store/plain.py: JSON gives dicts back with sorted keys)
    return replace(message, meta={**message.meta, "output_shape": reply_shape(message.parts), "output_tokens": output_tokens})
