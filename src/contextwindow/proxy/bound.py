"""Upper bounds on a new message's tokens from its bytes, so that the no-build decision
(:meth:`~.conversations.Conversations.quick`) need not tokenize what a request adds before it is
forwarded. Pure.

The bound holds for a byte-level BPE counter: :class:`~contextwindow.tokens.exact.ExactCounter`
counts ``len(encoding.encode_ordinary(text))`` (tiktoken; a long text in chunks that concatenate to
it). Byte-level BPE starts from the text's UTF-8 bytes (tiktoken writes a lone surrogate as U+FFFD:
three bytes, as many as ``surrogatepass`` gives it) and every merge joins two adjacent pieces into
one token, so each token stands for at least one byte and a text of *b* bytes has at most *b*
tokens; chunks add up the same way. A message's count is its framing (the counter's profile) plus
its parts' counts, so the same framing plus its texts' bytes bounds it — for the messages a client
sends: no reasoning parts, no unlogged-content estimate riding in its meta (those return None).
Other counters (the heuristic :class:`~contextwindow.tokens.estimate.Estimator`, which can give
more tokens than bytes) have no bound here: the exact count decides, as before.

Where the bound says "under", the exact count is under too; where it does not, the caller counts
exactly (:func:`capped`), so every decision is the exact count's (tests/test_proxy_bound.py tries
the bound on adversarial text: digits, punctuation, CJK, emoji, lone surrogates, control bytes).
"""

from __future__ import annotations

from collections.abc import Callable

from ..messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from ..tokens.estimate import Estimator
from ..tokens.exact import ExactCounter
from ..tokens.unlogged import UNLOGGED_META


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate as three, as tiktoken counts its U+FFFD)."""
    return len(text.encode("utf-8", "surrogatepass"))


def has_bound(counter: object) -> bool:
    """True when ``counter`` never gives a text more tokens than its UTF-8 bytes (module docstring;
    a subclass may count otherwise: not trusted)."""
    return type(counter) is ExactCounter


def capped(counter: object, budget: int | None) -> Callable[[str], int] | None:
    """A count for a test against ``budget``: a text's bytes where they are within it (its tokens
    are then too), else the counter's exact count; None for a counter with no bound (or no budget)."""
    if not budget or not isinstance(counter, ExactCounter) or not has_bound(counter):
        return None
    exact = counter.count_text_memo

    def count(text: str) -> int:
        n = utf8_len(text)
        return n if n <= budget else exact(text)

    return count


def message_bound(counter: object, m: Message) -> int | None:
    """At least ``counter.count_message(m)``, without tokenizing; None where no bound is known."""
    if not isinstance(counter, ExactCounter) or not has_bound(counter) or (m.meta and UNLOGGED_META in m.meta):
        return None
    p = counter.profile
    n = p.per_message
    if m.name:
        n += p.per_name + utf8_len(m.name)
    for part in m.parts:
        if isinstance(part, TextPart):
            n += utf8_len(part.text)
        elif isinstance(part, ToolResultPart):
            n += p.per_tool_result + (utf8_len(part.call_id) if p.counts_call_ids else 0)
            for c in part.content:
                n += counter.count_image(c) if isinstance(c, ImagePart) else utf8_len(c.text)
        elif isinstance(part, ToolCallPart):
            n += p.per_tool_call + (utf8_len(part.id) if p.counts_call_ids else 0) + utf8_len(part.name) + utf8_len(part.arguments)
        elif isinstance(part, ImagePart):
            n += counter.count_image(part)
        elif isinstance(part, ReasoningPart):
            return None  # its cost may be the provider's output count (tokens/retention.py), not its bytes
        else:
            return None
    return n


def per_byte(counter: object) -> float | None:
    """Tokens per byte that bound ``counter``'s count of a plain message (text, tool calls, tool
    results) from the bytes of its JSON, for the lean front (proxy/fastpath.py); None: no bound.

    A byte-level BPE counter: 1 (module docstring; a message's JSON has more bytes than its texts
    plus the counter's framing). The heuristic :class:`~contextwindow.tokens.estimate.Estimator`:
    each of its text classes counts characters or runs of characters, so no class counts more
    than once per byte, and a text costs at most the sum of the class rates per byte, plus a
    line-number prefix's (at least two bytes) when that is positive, plus one for rounding and
    the minimum of one token per text (tests/test_proxy_front.py tries it on adversarial text)."""
    if isinstance(counter, ExactCounter) and has_bound(counter):
        return 1.0
    if type(counter) is Estimator:
        return sum(counter.rates.weights()) + max(0.0, counter.numbered_line) / 2 + 1.0
    return None
