"""Which Claude Code records make up a conversation, and in what order. Pure functions over records.

- The conversation is the chain from the last main-line message back to its root through
  ``parentUuid`` (a ``compact_boundary`` continues through ``logicalParentUuid``). A parent link to a
  record that is not in the file (Claude Code writes such dangling links, notably on compaction
  boundaries and resumed sessions) continues at the last main-line record before it in file order;
  each such jump is reported as a repair.
- Parallel tool calls hang off that chain as siblings: records sharing a chain reply's ``message.id``
  and the results of its calls are taken too — unless they are copies of records already taken (a
  history re-written on resume repeats the same ``message.id``s under new uuids), which are dropped
  as duplicates so each response appears once.
- Records are ordered along the chain (an off-chain record goes right after its nearest ancestor on
  the chain), not by file position, so a re-written copy cannot interleave with the original.
- Inline sub-agent turns (``isSidechain``, Claude Code 1.0.x) are grouped into one conversation per
  sub-agent run: the records connected to the same sidechain root.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .model import Skipped

DANGLING = "dangling parent link followed in file order"
DUPLICATE = "duplicate record of a re-written history"


@dataclass(slots=True)
class Rec:
    pos: int
    line: int | None
    obj: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.obj.get("type"))

    @property
    def msg(self) -> dict[str, Any]:
        m = self.obj.get("message")
        return m if isinstance(m, dict) else {}

    @property
    def mid(self) -> str | None:
        """``message.id`` when it is a non-empty string (anything else is no id, and never hashed)."""
        i = self.msg.get("id")
        return i if isinstance(i, str) and i else None

    @property
    def uuid(self) -> str | None:
        u = self.obj.get("uuid")
        return u if isinstance(u, str) else None

    def parent(self) -> str | None:
        p = self.obj.get("parentUuid") or self.obj.get("logicalParentUuid")
        return p if isinstance(p, str) and p else None


@dataclass(slots=True)
class Selection:
    records: list[Rec]  # in conversation order
    on_chain: set[int]  # positions on the chain (None chain → every record)
    repairs: list[Skipped] = field(default_factory=list)
    duplicates: int = 0


def _call_ids(rec: Rec) -> list[str]:
    c = rec.msg.get("content")
    if not isinstance(c, list):
        return []
    return [str(b.get("id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_use"]


def result_ids(rec: Rec) -> list[str]:
    c = rec.msg.get("content")
    if not isinstance(c, list):
        return []
    return [str(b.get("tool_use_id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_result"]


def copies(left_out: list[Rec], kept: list[Rec]) -> list[Rec]:
    """The records left out that are copies of kept ones (same type and content): a re-written history."""
    if not left_out:
        return []
    # Only kept records that could be equal (same type, same content shape and size) get the full key.
    cheap = {_cheap_key(r) for r in left_out}
    seen = {(r.type, _content_key(r)) for r in kept if _cheap_key(r) in cheap}
    return [r for r in left_out if (r.type, _content_key(r)) in seen]


def _cheap_key(rec: Rec) -> tuple[str | None, str, int]:
    c = rec.msg.get("content")
    return rec.type, type(c).__name__, len(c) if isinstance(c, (list, str)) else 0


def _content_key(rec: Rec) -> str:
    return json.dumps(rec.msg.get("content"), sort_keys=True, ensure_ascii=False, default=str)


def chain(
    msgs: list[Rec], by_uuid: dict[str, Rec], is_line: Callable[[Rec], bool]
) -> tuple[list[Rec] | None, list[Skipped]]:
    """The records from the root to the last line message (``is_line``), root first, and the repairs
    made on the way; None when the records have no uuids (take the file order)."""
    line = [r for r in msgs if is_line(r) and r.type in ("user", "assistant")]
    if not line or not any(r.uuid for r in line):
        return None, []
    line_pos = [r.pos for r in line]
    kept = {r.pos for r in msgs}
    cur: Rec | None = next((r for r in reversed(line) if r.uuid), None)
    out: list[Rec] = []
    seen: set[int] = set()
    repairs: list[Skipped] = []
    while cur is not None and cur.pos not in seen:
        seen.add(cur.pos)
        if cur.pos in kept:  # the walk passes through progress/system records; only messages are kept
            out.append(cur)
        parent = cur.parent()
        if parent is None:
            break
        nxt = by_uuid.get(parent)
        if nxt is None:
            i = bisect.bisect_left(line_pos, cur.pos) - 1
            if i < 0:
                break  # the first record of the file: a link into an earlier log is no gap here
            nxt = line[i]
            repairs.append(
                Skipped(cur.line, f"repaired: parent {parent!r} is not in the log; continued at line {nxt.line}", kind=DANGLING)
            )
        cur = nxt
    out.reverse()
    return out, repairs


def select(msgs: list[Rec], by_uuid: dict[str, Rec], is_line: Callable[[Rec], bool]) -> Selection:
    """The conversation's records, in order, for the records ``is_line`` accepts."""
    line = [r for r in msgs if is_line(r)]
    path, repairs = chain(msgs, by_uuid, is_line)
    if path is None:
        return Selection(line, {r.pos for r in line}, repairs)
    index = {r.pos: i for i, r in enumerate(path)}
    ids = {r.mid for r in path if r.type == "assistant" and r.mid}
    # Content keys only for the responses that have records off the chain (siblings of parallel calls,
    # copies of a re-written history): serializing every chain record's content is most of the cost.
    wanted = {r.mid for r in line if r.type == "assistant" and r.mid in ids and r.pos not in index}
    taken_keys = {(r.mid, _content_key(r)) for r in path if r.type == "assistant" and r.mid in wanted}
    answered = {x for r in path if r.type == "user" for x in result_ids(r)}
    extra: list[Rec] = []
    duplicates = 0
    for r in line:
        if r.pos in index or r.type != "assistant" or r.mid not in ids:
            continue
        key = (r.mid, _content_key(r))
        if key in taken_keys:
            duplicates += 1
            continue
        taken_keys.add(key)
        extra.append(r)
    calls = {cid for r in [*path, *extra] if r.type == "assistant" for cid in _call_ids(r)}
    for r in line:
        if r.type != "user" or r.pos in index:
            continue
        rids = result_ids(r)
        if not rids or not all(x in calls for x in rids):
            continue
        if all(x in answered for x in rids):
            duplicates += 1
            continue
        answered.update(rids)
        extra.append(r)
    # Order: along the chain; an off-chain record right after its nearest ancestor on the chain.
    chain_pos = [r.pos for r in path]
    keyed: list[tuple[int, int, int, Rec]] = [(i, 0, r.pos, r) for i, r in enumerate(path)]
    for r in extra:
        anchor = _anchor(r, by_uuid, index)
        if anchor is None:
            j = bisect.bisect_left(chain_pos, r.pos) - 1
            anchor = max(j, 0)
        keyed.append((anchor, 1, r.pos, r))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    return Selection([k[3] for k in keyed], set(index), repairs, duplicates)


def _anchor(r: Rec, by_uuid: dict[str, Rec], index: dict[int, int]) -> int | None:
    cur: Rec | None = r
    for _ in range(64):
        parent = cur.parent() if cur is not None else None
        cur = by_uuid.get(parent) if parent else None
        if cur is None:
            return None
        if cur.pos in index:
            return index[cur.pos]
    return None


def sidechain_groups(side: list[Rec], by_uuid: dict[str, Rec]) -> list[list[Rec]]:
    """Inline sub-agent records grouped by run: records connected to the same sidechain root."""
    root_of: dict[int, int] = {}
    side_pos = {r.pos for r in side}
    for r in side:
        cur = r
        path = [r.pos]
        for _ in range(100_000):
            if cur.pos in root_of:
                break
            parent = cur.parent()
            nxt = by_uuid.get(parent) if parent else None
            if nxt is None or nxt.pos not in side_pos:
                break
            cur = nxt
            path.append(cur.pos)
        root = root_of.get(cur.pos, cur.pos)
        for p in path:
            root_of[p] = root
    groups: dict[int, list[Rec]] = {}
    for r in side:
        groups.setdefault(root_of[r.pos], []).append(r)
    return [groups[k] for k in sorted(groups)]
