"""Prompt-cache breakpoints (Anthropic's ``cache_control``) on an outgoing Messages body. Pure.

Anthropic caches a prompt prefix only where a request marks one, and bills it: a cache write at
1.25× the input price (2× with the one-hour TTL), then reads at 0.1× (cost.py). The rules this
module follows (Anthropic's prompt-caching docs):

- at most :data:`MAX_BREAKPOINTS` (4) marks in one request;
- the prefix runs tools → system → messages, so one mark on the last system block (or, with no
  system prompt, on the last tool) caches tools and system together;
- a mark whose prefix is shorter than the model's minimum (:func:`min_cacheable_tokens`: 1,024
  tokens, 2,048 for the Haiku 3 models, 4,096 for Haiku 4.5 and Opus 4.5/4.6) caches nothing and
  says nothing: such a mark is not placed (it would only use up one of the four);
- a hit is looked for from each mark back over at most 20 blocks, so a request finds what an
  earlier one cached only near one of its own marks;
- thinking blocks and empty text blocks cannot carry a mark;
- one-hour and five-minute marks mix only with the longer ones first: every mark placed here
  has the same TTL.

Where (:func:`place`): the end of the system prompt, and the end of the messages named by
``anchors`` (indexes into the body's ``messages``). The Session names them (the newest message
of its view, the last message this build shares with the previous one — the previous call's end,
or where a compaction event changed the view — and the end of the sticky head, a fold's summary);
without anchors, the last message and the user message before the last assistant one (in an agent
loop: where the previous call ended). Moving the newest mark forward is how a conversation's
cache grows (Anthropic's multi-turn pattern); the content before it does not change between two
compaction events (invariant 4), only where the marks sit.

A body that already carries any ``cache_control`` is returned as it is: the caller's own marks
are kept byte-exact and none are added next to them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from ..errors import ConfigError
from ..models import min_cacheable

CacheMode: TypeAlias = Literal["off", "5m", "1h"]
MODES: tuple[str, ...] = ("off", "5m", "1h")
MAX_BREAKPOINTS = 4
KEY = "cache_control"
ANCHOR_KEY = "cache_anchor"  # Message.meta: the Session asks for a breakpoint at the end of this message (value: its conversation id)
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def check_mode(mode: Any, where: str = "cache") -> CacheMode:
    """``mode`` when it is one of ``off``, ``5m``, ``1h``; a ConfigError naming ``where`` otherwise."""
    if mode not in MODES:
        raise ConfigError(f"{where}: prompt-cache mode must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def control(mode: CacheMode) -> dict[str, str]:
    """The ``cache_control`` value of ``mode`` (the five-minute TTL is the API's default and is not spelled out)."""
    return {"type": "ephemeral", "ttl": "1h"} if mode == "1h" else {"type": "ephemeral"}


def min_cacheable_tokens(model: str | None) -> int:
    """The shortest prefix Anthropic caches for ``model`` (1,024 when the model is not known): the
    registry's rule (:func:`contextwindow.models.min_cacheable`), which the replay's pricing uses too."""
    return min_cacheable("anthropic", model or "claude")


def count_marks(body: Mapping[str, Any]) -> int:
    """The ``cache_control`` marks in a Messages body (tools, system, message blocks, blocks inside tool results)."""
    n = 0
    for t in body.get("tools") or ():
        n += isinstance(t, Mapping) and KEY in t
    system = body.get("system")
    for b in system if isinstance(system, list) else ():
        n += isinstance(b, Mapping) and KEY in b
    for m in body.get("messages") or ():
        content = m.get("content") if isinstance(m, Mapping) else None
        for b in content if isinstance(content, list) else ():
            if not isinstance(b, Mapping):
                continue
            n += KEY in b
            inner = b.get("content")
            for c in inner if isinstance(inner, list) else ():
                n += isinstance(c, Mapping) and KEY in c
    return n


def default_anchors(body: Mapping[str, Any]) -> list[int]:
    """The last message, and the user message before the last assistant one before it."""
    msgs = body.get("messages") or []
    if not msgs:
        return []

    def role(i: int) -> Any:
        return msgs[i].get("role") if isinstance(msgs[i], Mapping) else None

    last = len(msgs) - 1
    out = [last]
    reply = next((i for i in range(last - 1, -1, -1) if role(i) == "assistant"), None)
    if reply is not None:
        asked = next((i for i in range(reply - 1, -1, -1) if role(i) == "user"), None)
        if asked is not None:
            out.append(asked)
    return out


def _markable(block: Any) -> bool:
    if not isinstance(block, Mapping) or block.get("type") in _UNMARKABLE:
        return False
    return not (block.get("type") == "text" and not block.get("text"))


def _pieces(body: Mapping[str, Any]) -> list[tuple[tuple[int, int], Any]]:
    """The body's prefix in cache order: ((section, index), piece) for tools, system blocks, messages."""
    out: list[tuple[tuple[int, int], Any]] = [((0, i), t) for i, t in enumerate(body.get("tools") or ())]
    system = body.get("system")
    if isinstance(system, str):
        out.append(((1, 0), system))
    elif isinstance(system, list):
        out.extend(((1, i), b) for i, b in enumerate(system))
    out.extend(((2, i), m) for i, m in enumerate(body.get("messages") or ()))
    return out


def _threshold(body: Mapping[str, Any], minimum: int, count: Callable[[str], int]) -> tuple[int, int] | None:
    """The first prefix position whose prefix (up to and including it) reaches ``minimum`` tokens
    (counted only that far: O(the minimum), not O(the body)); None when the whole body is shorter."""
    total = 0
    for pos, piece in _pieces(body):
        total += count(piece if isinstance(piece, str) else json.dumps(piece, ensure_ascii=False))
        if total >= minimum:
            return pos
    return None


def _mark_content(content: Any, value: Mapping[str, str], upto: int | None = None) -> Any:
    """``content`` with the mark on its last markable block at or before block ``upto`` (None:
    the end); None when there is none."""
    if isinstance(content, str):
        return [{"type": "text", "text": content, KEY: dict(value)}] if content and upto in (None, 0) else None
    if not isinstance(content, list):
        return None
    end = len(content) - 1 if upto is None else min(upto, len(content) - 1)
    for j in range(end, -1, -1):
        if _markable(content[j]):
            return [*content[:j], {**content[j], KEY: dict(value)}, *content[j + 1 :]]
    return None


def place(
    body: dict[str, Any],
    mode: CacheMode,
    *,
    model: str | None = None,
    anchors: Sequence[int | tuple[int, int]] | None = None,
    count: Callable[[str], int] | None = None,
) -> dict[str, Any]:
    """``body`` with breakpoints at the end of the system prompt and at the ``anchors`` (in that
    order of priority, at most four, none whose prefix is below the model's minimum). An anchor is
    a body message (marked on its last block) or a (message, block) pair (marked on that block:
    the end of one of the messages merged there, not a per-call block after it).
    A new dict where anything changed (the messages it marks copied, the rest shared); ``body``
    itself when ``mode`` is ``off`` or it already carries a mark."""
    if mode == "off" or count_marks(body):
        return body
    if count is None:
        from ..tokens.estimate import Estimator

        count = Estimator("anthropic").count_text
    start = _threshold(body, min_cacheable_tokens(model or body.get("model")), count)
    if start is None:
        return body
    value = control(mode)
    out = dict(body)
    left = MAX_BREAKPOINTS
    system, tools = body.get("system"), body.get("tools")
    if system and (1, len(system) - 1 if isinstance(system, list) else 0) >= start:
        marked = _mark_content(system, value)
        if marked is not None:
            out["system"], left = marked, left - 1
    elif not system and tools and (0, len(tools) - 1) >= start and isinstance(tools[-1], Mapping):
        out["tools"], left = [*tools[:-1], {**tools[-1], KEY: dict(value)}], left - 1
    msgs = body.get("messages") or []
    chosen = default_anchors(body) if anchors is None else anchors
    new_msgs: list[Any] | None = None
    for anchor in dict.fromkeys(chosen):
        if left <= 0:
            break
        i, upto = anchor if isinstance(anchor, tuple) else (anchor, None)
        if not 0 <= i < len(msgs) or (2, i) < start or not isinstance(msgs[i], Mapping):
            continue
        current = (new_msgs or msgs)[i]
        marked = _mark_content(current.get("content"), value, upto)
        if marked is None or marked == current.get("content"):
            continue
        new_msgs = new_msgs if new_msgs is not None else list(msgs)
        new_msgs[i] = {**current, "content": marked}
        left -= 1
    if new_msgs is not None:
        out["messages"] = new_msgs
    return out


def anchors_of(messages: Sequence[Any], positions: Sequence[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The body positions (``to_payload``'s ``positions``) of the messages a Session marked as
    anchors (``Message.meta``), newest first; None when none is (then :func:`place` uses
    :func:`default_anchors`)."""
    hinted = [positions[i] for i, m in enumerate(messages) if i < len(positions) and positions[i][0] >= 0 and m.meta.get(ANCHOR_KEY)]
    return sorted(set(hinted), reverse=True) if hinted else None


def conversation_key(messages: Sequence[Any]) -> str | None:
    """The conversation id a Session left on its anchors (for OpenAI's ``prompt_cache_key``)."""
    for m in reversed(messages):
        v = m.meta.get(ANCHOR_KEY)
        if isinstance(v, str) and v:
            return v
    return None


def session_anchors(messages: Sequence[Any], previous: Sequence[Any], n_view: int, head: int, keep: int = 3) -> list[int]:
    """Where a Session's build wants breakpoints (indexes into ``messages``, by priority):

    1. its newest view message (``n_view`` − 1; a per-call runtime block after it is left out);
    2. the last message it shares with the previous build's ``previous``: that call's end, or the
       last message before what a compaction event changed (the longest prefix the provider may
       still hold);
    3. the message before the newest ``keep`` tool results and the calls that made them — the
       line behind which the per-call clearing works: it moves one step a call, so the provider
       holds an entry at most a step or two before wherever the next clear starts (a hit is only
       found near a mark, and what a clear rewrites is what follows the entry it reads);
    4. the end of its sticky head (``head`` leading messages: a fold's summary)."""
    if n_view <= 0:
        return []
    shared = 0
    for a, b in zip(messages[:n_view], previous, strict=False):
        if a is not b and a != b:
            break
        shared += 1
    out = [n_view - 1]
    for i in (shared - 1, clearing_line(messages[:n_view], keep), head - 1):
        if 0 <= i < n_view and i not in out:
            out.append(i)
    return out


def clearing_line(messages: Sequence[Any], keep: int) -> int:
    """The index of the last message before the newest ``keep`` tool results and the assistant
    messages that called them (-1 when there are fewer)."""
    seen = 0
    i = len(messages) - 1
    while i >= 0:
        if messages[i].role == "tool":
            seen += 1
            if seen == keep:
                break
        i -= 1
    if i < 0:
        return -1
    i -= 1
    while i >= 0 and messages[i].role == "assistant":
        i -= 1
    return i


def hint(messages: Sequence[Any], anchors: Sequence[int], key: str) -> list[Any]:
    """``messages`` with ``anchors`` marked in their ``meta`` (value ``key``, the conversation id)."""
    from dataclasses import replace

    out = list(messages)
    for i in anchors:
        out[i] = replace(out[i], meta={**out[i].meta, ANCHOR_KEY: key})
    return out
