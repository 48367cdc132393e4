"""Message-level counting shared by every counter: content + the provider's framing.

A :class:`Profile` holds a provider family's fixed costs (per message, per tool call/result,
per reasoning block, per tool definition, per request) and its image formula. A
:class:`MessageCounter` adds those to the text counts of its ``count_text`` and caches the
count of each message object (messages are frozen, so one object always costs the same), and
the count of each longer text (a message decoded again, or clipped into a new object, holds the
same strings: they are not tokenized twice).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..errors import TokenizeError
from ..messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from ..tools import ToolSpec
from .images import image_tokens
from .memo import TextMemo
from .retention import CALL_RENDER_SLACK, reply_cost, reported_output
from .unlogged import unlogged_tokens

#: Encrypted reasoning (OpenAI ``encrypted_content``, Anthropic ``redacted_thinking``) is opaque:
#: we charge one token per this many characters of ciphertext (base64 of roughly the plain text).
ENCRYPTED_CHARS_PER_TOKEN = 6.0


@dataclass(frozen=True, slots=True)
class Profile:
    """Fixed token costs of one provider family's framing."""

    name: str
    per_message: int
    per_name: int
    per_tool_call: int
    per_tool_result: int
    per_reasoning: int
    per_request: int
    per_tool_def: int
    image_flavor: str
    #: the provider drops reasoning of earlier turns (before the last user message) from the
    #: prompt; :meth:`MessageCounter.count_messages` follows it, ``count_message`` stays whole.
    drops_old_reasoning: bool = False
    #: the provider's prompt holds tool-call ids (chat templates that write them); OpenAI's reasoning
    #: models render calls and results in the harmony format, by function name, with no id.
    counts_call_ids: bool = True


# OpenAI chat framing as documented in OpenAI's cookbook (3 per message, 1 per name, 3 to prime
# the reply); the tool call/result framing (8/6) is an estimate, not fitted.
OPENAI = Profile("openai", 3, 1, 8, 6, 0, 3, 8, "openai", drops_old_reasoning=True)
#: OpenAI reasoning models (o-series, gpt-5*, codex-*, gpt-oss) see their conversation in the harmony
#: format (public in openai/harmony): a call is addressed to ``functions.<name>`` and its result comes back
#: from it, no call id is rendered. Same framing constants otherwise (not fitted).
OPENAI_HARMONY = replace(OPENAI, counts_call_ids=False)
# Fitted on the Claude Code sessions (benchmarks/bench_tokens_fit.py): 2 per message, a
# tool_use + its tool_result ≈ 10 tokens of framing beyond their ids, name and content.
ANTHROPIC = Profile("anthropic", 2, 1, 5, 5, 0, 0, 20, "anthropic", drops_old_reasoning=True)
#: Opus >= 4.5 / Sonnet >= 4.6 keep every earlier turn's thinking in context (tokens/retention.py).
ANTHROPIC_KEEPS_THINKING = replace(ANTHROPIC, drops_old_reasoning=False)
GEMINI = Profile("gemini", 3, 1, 10, 10, 0, 0, 10, "gemini")
GENERIC = Profile("generic", 4, 1, 8, 8, 2, 3, 20, "anthropic")

PROFILES: dict[str, Profile] = {p.name: p for p in (OPENAI, ANTHROPIC, GEMINI, GENERIC)}

CACHE_SIZE = 1 << 16
#: Texts at least this long have their counts kept (shorter ones cost about as much to look up).
TEXT_MEMO_MIN_CHARS = 64
#: The text memo holds at most this many characters in all (it keeps the strings alive).
TEXT_MEMO_CHARS = 8_000_000
#: distinct tool definition sets :meth:`MessageCounter.count_tools` remembers (past this it starts afresh)
TOOL_SETS_KEPT = 32


class MessageCounter:
    """Base of the exact and the estimating counter. Subclasses set ``name``/``exact`` and
    implement :meth:`count_text`."""

    name: str = "base"
    exact: bool = False

    def __init__(self, profile: Profile, cache_size: int = CACHE_SIZE) -> None:
        self.profile = profile
        self._cache: OrderedDict[int, tuple[Message, int, int]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._texts: TextMemo[int] = TextMemo(self._lock, TEXT_MEMO_MIN_CHARS, TEXT_MEMO_CHARS)  # text -> count
        self._tool_sets: dict[tuple[int, ...], tuple[tuple[ToolSpec, ...], int]] = {}  # count_tools, by the specs' identity

    def count_text(self, text: str) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def forget_memos(self) -> None:
        """Empty the per-text and per-message memos (the answers stay the same; a benchmark uses
        it so that a repeated run does not find the counts an earlier one left)."""
        self._texts.clear()
        with self._lock:
            self._tool_sets.clear()
            self._cache.clear()

    def count_text_memo(self, text: str) -> int:
        """``count_text(text)``, remembered for texts of TEXT_MEMO_MIN_CHARS or more (oldest
        forgotten first past TEXT_MEMO_CHARS characters): a counter's answers never change."""
        n = self._texts.get(text)
        return n if n is not None else self._texts.put(text, self.count_text(text))

    def remember(self, text: str, n: int) -> None:
        """Keep ``n`` as the count of ``text`` in the text memo (texts of TEXT_MEMO_MIN_CHARS or more)."""
        self._texts.put(text, n)

    def count_joined(self, text: str, pieces: Sequence[str]) -> int:
        """``count_text_memo(text)``, told that ``text == "".join(pieces)`` (a fold message made of
        a brief and files counted before): a counter whose counts add up (the estimator) counts
        it from the pieces; this one reads it whole."""
        return self.count_text_memo(text)

    # --- parts and messages ---------------------------------------------------------------

    def _checked_text(self, text: object, what: str) -> int:
        if not isinstance(text, str):
            raise TokenizeError(f"{what} must be text, got {type(text).__name__}")
        return self.count_text_memo(text) if text else 0

    def count_image(self, part: ImagePart) -> int:
        return image_tokens(self.profile.image_flavor, part.width, part.height, part.detail)

    def count_reasoning(self, part: ReasoningPart) -> int:
        n = self.profile.per_reasoning + self._checked_text(part.text, "reasoning text")
        if not part.text and part.encrypted:
            n += int(len(part.encrypted) / ENCRYPTED_CHARS_PER_TOKEN)
        return n

    def count_part(self, part: object) -> int:
        """Tokens of one part of a message (without the message's own framing)."""
        p = self.profile
        if isinstance(part, TextPart):
            return self._checked_text(part.text, "text part")
        if isinstance(part, ToolResultPart):
            n = p.per_tool_result + (self._checked_text(part.call_id, "tool result call_id") if p.counts_call_ids else 0)
            for c in part.content:
                n += self.count_image(c) if isinstance(c, ImagePart) else self._checked_text(c.text, "tool result text")
            return n
        if isinstance(part, ToolCallPart):
            return (
                p.per_tool_call
                + (self._checked_text(part.id, "tool call id") if p.counts_call_ids else 0)
                + self._checked_text(part.name, "tool call name")
                + self._checked_text(part.arguments, "tool call arguments")
            )
        if isinstance(part, ReasoningPart):
            return self.count_reasoning(part)
        if isinstance(part, ImagePart):
            return self.count_image(part)
        raise TokenizeError(f"cannot count a {type(part).__name__}: not a message part")

    def count_message(self, message: Message) -> int:
        """Tokens of one message as the provider bills it: its parts + per-message framing.
        An assistant reply that carries the provider's output count (``meta["output_tokens"]``) costs
        that count (see :mod:`.retention`); a message standing for content the log does not hold adds the
        estimate it carries (:mod:`.unlogged`). Cached per message object (bounded, oldest evicted
        first), so recounting a long history is cheap."""
        return self._counted(message)[0]

    def _counted(self, message: Message) -> tuple[int, int]:
        """``(tokens, droppable)``: the message's count, and how much of it is reasoning a provider
        that strips earlier turns' reasoning leaves out."""
        key = id(message)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is message:
            return hit[1], hit[2]
        if not isinstance(message, Message):
            raise TokenizeError(f"cannot count a {type(message).__name__}: expected a Message")
        visible = 0
        reasoning: int | None = None
        for part in message.parts:
            if isinstance(part, ReasoningPart):
                reasoning = (reasoning or 0) + self.count_reasoning(part)
            else:
                visible += self.count_part(part)
        output = reported_output(message)
        calls = sum(1 for part in message.parts if isinstance(part, ToolCallPart))
        kept, dropped = reply_cost(visible, reasoning, output, calls, CALL_RENDER_SLACK.get(self.profile.name, 0))
        n = self.profile.per_message + kept + unlogged_tokens(message)
        if message.name:
            n += self.profile.per_name + self.count_text(message.name)
        with self._lock:
            self._cache[key] = (message, n, kept - dropped)
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return n, kept - dropped

    def count_messages(self, messages: Iterable[Message]) -> int:
        """Tokens of a whole prompt's messages, plus the per-request framing. For providers
        that drop earlier turns' reasoning, that reasoning is not counted here."""
        msgs = messages if isinstance(messages, (list, tuple)) else list(messages)
        total = self.profile.per_request + sum(self.count_message(m) for m in msgs)
        if self.profile.drops_old_reasoning:
            total -= self.dropped_reasoning(msgs)
        return total

    def dropped_reasoning(self, messages: Sequence[Message]) -> int:
        """Tokens of the reasoning a provider leaves out: that of assistant messages before the
        last user message (a new turn) — for a reply with the provider's output count, the part of
        that count beyond its visible text and calls."""
        last_user = -1
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role == "user":
                last_user = i
                break
        n = 0
        for m in messages[: max(last_user, 0)]:
            if m.role == "assistant":
                n += self._counted(m)[1]
        return n

    def count_tools(self, tools: Sequence[ToolSpec]) -> int:
        """Tokens of tool definitions: name, description and JSON schema of each. Remembered for
        the same ToolSpec objects (a few sets): the proxy hands every conversation that sends the
        same definitions the same specs, and a new conversation's first request counted them again."""
        specs = tuple(tools)
        key = tuple(map(id, specs))
        hit = self._tool_sets.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], specs, strict=True)):
            return hit[1]
        n = self._count_tools(specs)
        with self._lock:
            if len(self._tool_sets) >= TOOL_SETS_KEPT:
                self._tool_sets.clear()
            self._tool_sets[key] = (specs, n)
        return n

    def _count_tools(self, tools: Sequence[ToolSpec]) -> int:
        n = 0
        for i, t in enumerate(tools):
            if not isinstance(t, ToolSpec):
                raise TokenizeError(f"tool {i}: expected a ToolSpec, got {type(t).__name__}")
            try:
                schema = json.dumps(t.parameters, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            except (TypeError, ValueError) as exc:
                raise TokenizeError(f"tool {i} ({t.name!r}): parameters are not JSON-serializable: {exc}") from exc
            # through the memo: every Session of a proxy counts the same definitions once more otherwise
            n += self.profile.per_tool_def + self.count_text(t.name) + self.count_text_memo(t.description) + self.count_text_memo(schema)
        return n

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} profile={self.profile.name}>"
