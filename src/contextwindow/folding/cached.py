"""A summary request that rides the conversation's cached prefix.

A flat transcript in one user message is a prompt no provider cache holds: every token of it is
billed at the input price. The conversation's last prompt, though, is in the provider's cache. So
when the caller hands one in (``SummaryRequest.prefix``), the model summarizer sends it again
unchanged — the same system prompt, tools and messages, so the rendered bytes start the same way —
and appends ONE user turn: the brief instruction, naming which messages to summarize (by count and
by quoting where the span starts and ends) and how to treat the earlier brief. Renderers put a
user turn after tool results in the provider's way: Anthropic merges it into the last user turn
(a text block after the ``tool_result`` blocks), OpenAI chat and responses take a user message
after the tool messages.

:func:`cached_messages` answers ``None`` when the prefix cannot carry the request: no prefix, a
prefix that does not obey its provider's rules with the instruction appended, or one too large for
the summarizer's window with the summary's budget (:func:`prompt_room`). The summarizer then renders the flat transcript as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import turns
from ..errors import ContextWindowError
from ..messages import Message, TextPart, ToolResultPart
from . import prompts
from .base import CachedPrefix, SummaryRequest

QUOTE_CHARS = 160
SLACK = 200  # tokens for chat framing and counter differences


def prompt_room(window: int, budget: int) -> int:
    """Prompt tokens a request over the prefix may take: the window less the summary's budget and
    some slack (the prefix itself was sent within the window; a provider that still says "too long"
    sends the summarizer to the flat transcript)."""
    return window - budget - SLACK
# the instruction of a request that rides the prefix (the summarizer's own system prompt cannot
# be sent: the prefix's system prompt must stay as it was for the cache to hit)
HEAD = (
    "Stop here: the conversation above is being folded to fit the context window. Do not continue it, "
    "do not answer its last message and do not call any tool. Write a handoff brief instead, as your whole reply."
)
SPAN = "\n\nSummarize {what}. Messages outside that span stay in the context as they are; do not summarize them."
PRIOR_ABOVE = (
    "\n\nThe conversation above starts from an earlier brief (the message that begins \"{start}\"). Re-write it as ONE brief "
    "with the same sections but those the harness writes (Latest user request, User messages, the memory block), updated by the span (never nest it under a heading of its own; it stays true unless the span changes it)."
)


def _quote(message: Message) -> str:
    """Where a message is, said so a model finds it in the conversation (its first words, else
    the tool call it makes or answers)."""
    results = [p for p in message.parts if isinstance(p, ToolResultPart)]
    if results:
        return f"the result of tool call {results[0].call_id}"
    text = " ".join(message.text.split())
    if text:
        return f'the {message.role} message that begins "{text[:QUOTE_CHARS]}"'
    if message.tool_calls:
        return f"the {message.role} message that calls {message.tool_calls[0].name} ({message.tool_calls[0].id})"
    return f"a {message.role} message"


def span_text(request: SummaryRequest) -> str:
    """Which messages the brief covers, named so a model finds them in the conversation above."""
    ms = [m for m in request.messages if m.parts]
    if not ms:
        return "the conversation above"
    if len(ms) == 1:
        return f"the one message that is {_quote(ms[0])}"
    return f"the {len(ms)} messages from {_quote(ms[0])} through {_quote(ms[-1])} (both included)"


def instruction(request: SummaryRequest, prefix: CachedPrefix) -> str:
    """The user turn appended to the prefix."""
    text = HEAD + SPAN.format(what=span_text(request)) + "\n\n" + prompts.BRIEF.format(budget=request.budget_tokens)
    prior = (request.prior_summary or "").strip()
    if prior:
        start = prior[:QUOTE_CHARS]
        if any(start in m.text for m in prefix.messages):
            text += PRIOR_ABOVE.format(start=" ".join(start[:80].split()))
        else:  # not in the prompt (e.g. a step summary the view replaced): sent as today
            text += prompts.PRIOR.format(prior=prior)
    text += prompts.carried(request.constraints)
    if request.instructions:
        text += prompts.INSTRUCTIONS.format(instructions=request.instructions.strip())
    return text


def cached_messages(request: SummaryRequest, *, room: int, count: Callable[[str], int]) -> tuple[list[Message], CachedPrefix] | None:
    """The prefix's messages with the instruction appended, or ``None`` when the prefix cannot
    carry this request (module docstring). ``room``: prompt tokens the summarizer may send."""
    prefix = request.prefix
    if prefix is None or not prefix.messages:
        return None
    ask = Message("user", (TextPart(instruction(request, prefix)),), meta={"cw": "summary_request"})
    if prefix.tokens + count(ask.text) > room:
        return None
    messages: Sequence[Message] = [*prefix.messages, ask]
    try:
        problems = turns.validate(list(messages), provider=prefix.provider)
    except ContextWindowError:  # an unknown rule set: not ours to guess
        return None
    if problems:
        return None
    return list(messages), prefix
