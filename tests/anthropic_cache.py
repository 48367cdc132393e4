"""Anthropic's prompt cache as its docs describe it, for the local server in tests: the provider's
side, an oracle written apart from the breakpoints our clients place (``formats/cache_marks.py``),
so that a test checks where those marks are against what a provider caching by the rules reads.

A Messages body is a sequence of blocks in cache order — each tool definition, each system
block, each content block of each message (a string content is one block) — and a prefix is
identified by its content (the ``cache_control`` marks themselves are not content). For one
request (:meth:`PromptCache.usage`):

- for each mark, the longest cached prefix ending at the mark's block or at most
  ``lookback - 1`` blocks before it (20 blocks looked at in all) is a hit; the longest hit is read;
- everything after it up to the last mark is written, and the prefix at each mark is cached,
  when that prefix reaches the minimum (shorter ones are neither written nor cached);
- the rest (after the last mark) is uncached input.

A string ``system`` or message ``content`` is the same content as one text block holding it.

TTLs are not modelled (every entry stays), nor is the cache shared beyond one instance.
Tokens are counted by ``count`` (default: four bytes of JSON a token, like the local server).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

KEY = "cache_control"


@dataclass(frozen=True, slots=True)
class CacheUsage:
    """One request: the whole prompt and the parts of it read from and written to the cache."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


def _plain(block: Any) -> Any:
    if isinstance(block, Mapping):
        out = {k: v for k, v in block.items() if k != KEY}
        if isinstance(out.get("content"), list):
            out["content"] = [_plain(c) for c in out["content"]]
        return out
    return block


def blocks(body: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """(the block's content as canonical JSON, whether it carries a mark), in cache order."""
    out: list[tuple[str, bool]] = []

    def add(tag: str, b: Any) -> None:
        marked = isinstance(b, Mapping) and (KEY in b or any(isinstance(c, Mapping) and KEY in c for c in b.get("content") or () if isinstance(b.get("content"), list)))
        out.append((tag + json.dumps(_plain(b), sort_keys=True, ensure_ascii=False), bool(marked)))

    def listed(content: Any) -> Any:  # a string is shorthand for one text block
        return [{"type": "text", "text": content}] if isinstance(content, str) else content or ()

    for t in body.get("tools") or ():
        add("tool:", t)
    for b in listed(body.get("system")):
        add("system:", b)
    for m in body.get("messages") or ():
        for b in listed(m.get("content")):
            add(f"{m.get('role')}:", b)
    return out


class PromptCache:
    """The cache of one provider account: ``usage(body)`` answers a request and caches its prefixes."""

    def __init__(self, *, minimum: int = 1024, lookback: int = 20, count: Callable[[str], int] | None = None) -> None:
        self.minimum = minimum
        self.lookback = lookback
        self.count = count or (lambda s: max(1, (len(s.encode()) + 3) // 4))
        self.entries: set[str] = set()

    def usage(self, body: Mapping[str, Any]) -> CacheUsage:
        seq = blocks(body)
        keys: list[str] = []
        cum = [0]
        h = hashlib.sha256()
        for text, _ in seq:
            h.update(text.encode())
            h.update(b"\x00")
            keys.append(h.copy().hexdigest())
            cum.append(cum[-1] + self.count(text))
        marks = [i for i, (_, marked) in enumerate(seq) if marked]
        hit = 0  # blocks read from the cache
        for q in marks:
            for j in range(q, max(-1, q - self.lookback), -1):
                if keys[j] in self.entries:
                    hit = max(hit, j + 1)
                    break
        written = 0
        if marks:
            last = marks[-1] + 1
            if cum[last] >= self.minimum:
                written = cum[last] - cum[hit] if last > hit else 0
            for q in marks:
                if cum[q + 1] >= self.minimum:
                    self.entries.add(keys[q])
        return CacheUsage(cum[-1], cum[hit], written)
