"""Strategy 2: proportional head+tail truncation, in passes.

Pass order: tool results largest first, then older assistant messages oldest first, then older
user messages oldest first. Protected: the first user message, the last ``keep_last_per_role``
messages of every role, error results, messages under ``min_chars``, and synthetic items (fold
summaries, nudges). Reasoning text of old assistant messages is dropped first. Already-truncated
messages can be truncated again (their ``original`` stays the store's message).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..messages import Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart, dump_arguments
from . import markers
from .view import Count, ViewItem, is_synthetic, total


@dataclass(frozen=True, slots=True)
class TruncateConfig:
    keep_last_per_role: int = 3
    min_chars: int = 500
    min_keep_ratio: float = 0.05
    floor_chars: int = 400
    head_share: float = 0.6
    protect_first_user: bool = True


def protected(items: Sequence[ViewItem], config: TruncateConfig, keep_texts: Sequence[str] = ()) -> set[int]:
    keep: set[int] = set()
    first_user = next((i for i, it in enumerate(items) if it.message.role == "user" and not is_synthetic(it)), None)
    if first_user is not None and config.protect_first_user:
        keep.add(first_user)
    seen: dict[str, int] = {}
    for i in range(len(items) - 1, -1, -1):
        role = items[i].message.role
        if seen.get(role, 0) < config.keep_last_per_role:
            keep.add(i)
            seen[role] = seen.get(role, 0) + 1
    for i, it in enumerate(items):
        m = it.message
        if is_synthetic(it) or m.role == "system" or any(r.is_error for r in m.tool_results) or _chars(m) < config.min_chars:
            keep.add(i)
        elif m.role == "user" and keep_texts and any(t in m.text for t in keep_texts):
            keep.add(i)  # it states a rule of the constraint ledger: cut only by a fold, which carries it
    return keep


def _chars(m: Message) -> int:
    n = 0
    for p in m.parts:
        if isinstance(p, TextPart | ReasoningPart):
            n += len(p.text)
        elif isinstance(p, ToolResultPart):
            n += sum(len(c.text) for c in p.content if isinstance(c, TextPart))
        elif isinstance(p, ToolCallPart):
            n += len(p.arguments)
    return n


def head_tail(text: str, keep_chars: int, key: str, tokens_per_char: float, head_share: float = 0.6, seq: int | None = None) -> str:
    """Keep about ``keep_chars`` of ``text`` (head + tail, snapped to line ends) with a marker between."""
    if keep_chars >= len(text):
        return text
    head_n = int(keep_chars * head_share)
    tail_n = keep_chars - head_n
    cut = text.rfind("\n", int(head_n * 0.8), head_n)
    head_end = cut + 1 if cut > 0 else head_n
    start = len(text) - tail_n
    nl = text.find("\n", start, start + max(1, tail_n // 5))
    tail_start = nl + 1 if nl >= 0 else start
    tail_start = max(tail_start, head_end)
    middle = text[head_end:tail_start]
    dropped_tokens = max(1, int(len(middle) * tokens_per_char))
    return text[:head_end] + markers.truncated(dropped_tokens, middle.count("\n"), key, seq) + text[tail_start:]


def _shorten_json(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit // 2] + f" ...[{len(value) - limit} chars cut]... " + value[-limit // 2 :]
    if isinstance(value, dict):
        return {k: _shorten_json(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten_json(v, limit) for v in value]
    return value


def truncate_message(item: ViewItem, ratio: float, config: TruncateConfig) -> Message:
    m = item.message
    chars = max(1, _chars(m))
    tpc = item.tokens / chars

    def cut(text: str) -> str:
        keep = max(config.floor_chars, int(len(text) * ratio))
        return head_tail(text, keep, item.key, tpc, config.head_share, item.seq) if len(text) > keep else text

    parts: list[Any] = []
    for p in m.parts:
        if isinstance(p, TextPart):
            parts.append(replace(p, text=cut(p.text)))
        elif isinstance(p, ToolResultPart):
            content = tuple(replace(c, text=cut(c.text)) if isinstance(c, TextPart) else c for c in p.content)
            parts.append(replace(p, content=content))
        elif isinstance(p, ToolCallPart) and len(p.arguments) > config.floor_chars * 2:
            args = p.parsed_arguments()
            if isinstance(args, dict | list):
                limit = max(config.floor_chars, int(len(p.arguments) * ratio))
                parts.append(replace(p, arguments=dump_arguments(_shorten_json(args, limit))))
            else:
                parts.append(p)
        else:
            parts.append(p)
    return replace(m, parts=tuple(parts), meta={**m.meta, "cw_truncated": True})


def drop_old_reasoning(items: Sequence[ViewItem], count: Count) -> tuple[list[ViewItem], list[str]]:
    """Remove reasoning parts from assistant messages before the last user turn (a synthetic user
    message such as a nudge or note starts no turn: the current tool loop keeps its signed reasoning)."""
    last_user = max(
        (i for i, it in enumerate(items) if it.message.role == "user" and not it.message.is_tool_result and not is_synthetic(it)),
        default=-1,
    )
    out = list(items)
    changed = []
    for i in range(max(0, last_user)):
        m = out[i].message
        if m.role == "assistant" and any(isinstance(p, ReasoningPart) for p in m.parts):
            parts = tuple(p for p in m.parts if not isinstance(p, ReasoningPart))
            if not parts:
                parts = (TextPart("[reasoning omitted]"),)
            out[i] = out[i].with_message(replace(m, parts=parts), count)
            changed.append(out[i].key)
    return out, changed


def passes(items: Sequence[ViewItem], config: TruncateConfig, keep_texts: Sequence[str] = ()) -> list[list[int]]:
    keep = protected(items, config, keep_texts)
    free = [i for i in range(len(items)) if i not in keep]
    tools = sorted((i for i in free if items[i].message.role == "tool"), key=lambda i: -items[i].tokens)
    asst = [i for i in free if items[i].message.role == "assistant"]
    users = [i for i in free if items[i].message.role == "user"]
    return [tools, asst, users]


def truncate(
    items: Sequence[ViewItem], need: int, count: Count, config: TruncateConfig, keep_texts: Sequence[str] = ()
) -> tuple[list[ViewItem], dict[str, object]] | None:
    before = total(items)
    out, reasoning = drop_old_reasoning(items, count)
    need -= before - total(out)
    targets: list[str] = []
    for group in passes(out, config, keep_texts):
        if need <= 0:
            break
        chosen: list[int] = []
        pool = 0
        for i in group:
            chosen.append(i)
            pool += out[i].tokens
            if pool * (1 - config.min_keep_ratio) >= need:
                break
        if not chosen or pool == 0:
            continue
        ratio = max(config.min_keep_ratio, 1 - need / pool)
        for i in chosen:
            new = out[i].with_message(truncate_message(out[i], ratio, config), count)
            if new.tokens < out[i].tokens:
                need -= out[i].tokens - new.tokens
                out[i] = new
                targets.append(new.key)
    after = total(out)
    if after >= before:
        return None
    return out, {"method": "truncate", "targets": targets, "reasoning_dropped": reasoning, "saved": before - after, "tokens_after": after}
