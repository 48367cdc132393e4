"""The conversation store's values, protocol and small shared helpers.

A conversation is an append-only record: messages get a per-conversation sequence number
(1, 2, 3, ... with no gaps) and a stable id; their content is stored once, addressed by the
sha256 of :func:`contextwindow.messages.dumps`, so forks share it. A checkpoint (a *fold*) is
a row that says "messages up to ``upto_seq`` are summarized by ``summary``" — it deletes
nothing. Checkpoints have their own ordinal ``seq`` (1, 2, 3, ...) and their ``upto_seq``
never moves backwards.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import math
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError, NotFoundError, SelectionError, StoreError
from ..messages import Message, dumps, message_to_dict
from ..usage import Usage

# Offload refs: "ofl_" + 16 lowercase hex digits. Checked before any lookup.
OFFLOAD_REF_RE = re.compile(r"\Aofl_[0-9a-f]{16}\Z")
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as recorded: its store identity plus the value."""

    id: str
    conversation_id: str
    seq: int
    message: Message
    created_at: float


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A fold: ``summary`` stands for every message with ``seq <= upto_seq``.
    ``seq`` is the checkpoint's ordinal in its conversation (1 for the first fold)."""

    id: str
    conversation_id: str
    seq: int
    upto_seq: int
    summary: Message
    created_at: float
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ConversationInfo:
    id: str
    title: str | None
    parent_id: str | None
    metadata: dict[str, Any]
    created_at: float
    message_count: int


@dataclass(frozen=True, slots=True)
class Offload:
    """A large original (e.g. a clipped tool output) kept aside under a short opaque ref."""

    ref: str
    content: str
    meta: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Selection:
    """What a fork copies from its source, in source order.

    ``seqs``: message sequence numbers copied as they are (content shared, not duplicated).
    ``checkpoints``: checkpoint ordinals (``Checkpoint.seq``) whose *summary* is copied, placed
    right after the last message it folded. A checkpoint and a message it folded away itself
    (``previous.upto_seq < seq <= upto_seq``) cannot both be selected.
    """

    seqs: tuple[int, ...] = ()
    checkpoints: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Token counts to keep with appended messages: ``counter`` names the counter (see
    :func:`contextwindow.tokens.fingerprint.counter_key`), ``tokens`` one count per message."""

    counter: str
    tokens: tuple[int, ...]


def check_token_counts(counts: TokenCounts | None, n: int) -> TokenCounts | None:
    """``counts`` if it fits ``n`` appended messages, else a ConfigError saying what is wrong."""
    if counts is None:
        return None
    if not isinstance(counts, TokenCounts):
        raise ConfigError(f"token_counts must be a TokenCounts, got {type(counts).__name__}")
    check_text(counts.counter, "token counter name", empty=False)
    if len(counts.tokens) != n:
        raise ConfigError(f"token_counts has {len(counts.tokens)} counts for {n} messages")
    for t in counts.tokens:
        check_count(t)
    return counts


def check_count(t: object) -> int:
    if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < _BIGINT:
        raise ConfigError(f"a token count must be an int >= 0 within 64 bits, got {t!r}")
    return t


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One persisted Session event: its name, JSON data and when it happened (epoch seconds)."""

    conversation_id: str
    name: str
    data: dict[str, Any]
    at: float


def event_data_json(data: dict[str, Any]) -> str:
    """An event's data as JSON; a value JSON cannot hold is kept as its text (never dropped)."""
    return json.dumps(data, ensure_ascii=False, default=str)


@runtime_checkable
class ConversationStore(Protocol):
    """An append-only store of conversations. Implementations: memory, SQLite, PostgreSQL."""

    url: str

    def create_conversation(
        self, title: str | None = None, metadata: dict[str, Any] | None = None, parent_id: str | None = None
    ) -> str: ...
    def get_conversation(self, conversation_id: str) -> ConversationInfo: ...
    def list_conversations(self, limit: int | None = None) -> builtins.list[ConversationInfo]: ...
    def set_title(self, conversation_id: str, title: str) -> None: ...
    def append(
        self, conversation_id: str, messages: Sequence[Message], *, token_counts: TokenCounts | None = None
    ) -> builtins.list[StoredMessage]: ...
    def list(self, conversation_id: str) -> builtins.list[StoredMessage]: ...
    def list_active(self, conversation_id: str) -> builtins.list[StoredMessage]: ...
    def checkpoint(
        self, conversation_id: str, summary: Message, upto_seq: int, meta: dict[str, Any] | None = None
    ) -> Checkpoint: ...
    def latest_checkpoint(self, conversation_id: str) -> Checkpoint | None: ...
    def list_checkpoints(self, conversation_id: str) -> builtins.list[Checkpoint]: ...
    def fork(self, conversation_id: str, selection: Selection, title: str | None = None) -> str: ...
    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str: ...
    def get_offload(self, ref: str) -> Offload: ...
    def record_usage(self, conversation_id: str | None, usage: Usage) -> None: ...
    def list_usage(self, conversation_id: str | None = None) -> builtins.list[Usage]: ...
    def record_event(self, conversation_id: str, name: str, data: dict[str, Any], at: float) -> None: ...
    def list_events(self, conversation_id: str, limit: int | None = None) -> builtins.list[StoredEvent]: ...
    def usage_by_role(self, conversation_id: str | None = None) -> dict[str, dict[str, Any]]: ...
    def put_token_counts(self, conversation_id: str, counter: str, counts: dict[str, int]) -> None: ...
    def active_token_counts(self, conversation_id: str, counter: str) -> dict[str, int]: ...
    def get_state(self, conversation_id: str, key: str) -> Any | None: ...
    def set_state(self, conversation_id: str, key: str, value: Any) -> None: ...
    def close(self) -> None: ...


@runtime_checkable
class GroupCommits(Protocol):
    """An optional capability of a :class:`ConversationStore`: writes committed in groups, many
    callers' writes made durable by one commit (``ctxw proxy`` turns it on). SQLiteStore has it
    (store/sqlite.py says how); the memory store has nothing to commit and the PostgreSQL store
    commits each write on its own (its server groups commits), so neither does. Callers ask
    :func:`group_commits_of` once, never ``getattr``."""

    @property
    def losses(self) -> int: ...  # groups lost to a failed commit since group commits were turned on
    def group_commits(self) -> Callable[[], None]: ...  # turn on; returns the function that commits and turns off
    def pending(self) -> int | None: ...  # the open group's number, or None when nothing waits
    def commit_through(self, number: int | None) -> None: ...  # make that group durable (StoreError: it was lost)
    def flush(self) -> None: ...  # commit the open group now


def group_commits_of(store: object) -> GroupCommits | None:
    """``store``'s group commits (:class:`GroupCommits`), or None when it has none."""
    return store if isinstance(store, GroupCommits) else None


@runtime_checkable
class BackgroundCheckpoints(Protocol):
    """An optional capability of a :class:`ConversationStore`: its write-ahead log checkpointed
    by a thread of its own, never inside a writer's commit (SQLiteStore; ``ctxw proxy`` turns it
    on so no checkpoint stalls its event loop). Callers ask :func:`background_checkpoints_of`."""

    def checkpoint_in_background(self, every_s: float = 0.5) -> Callable[[], None]: ...  # returns the function that stops it


def background_checkpoints_of(store: object) -> BackgroundCheckpoints | None:
    """``store``'s background checkpoints (:class:`BackgroundCheckpoints`), or None when it has none."""
    return store if isinstance(store, BackgroundCheckpoints) else None


# --- helpers shared by the implementations --------------------------------------------------


def content_hash(body: str) -> str:
    """sha256 hex of a message's canonical JSON (its content address). Lone surrogates (tool output
    decoded with surrogateescape) hash as their UTF-8-style bytes instead of failing."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def encode_message(m: Message) -> tuple[str, str]:
    """(content hash, JSON body to store) of a message. The body is the canonical ``dumps``, or,
    when that holds lone surrogates no database accepts, the same JSON with ASCII escapes."""
    if not isinstance(m, Message):
        raise ConfigError(f"append takes Message values, got {type(m).__name__}")
    body = dumps(m)
    h = content_hash(body)
    if not is_storable_text(body):
        body = json.dumps(message_to_dict(m), ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return h, body


def new_id(prefix: str) -> str:
    """A random id such as ``c_1f2e3d4c5b6a7988`` (prefix names the kind of row)."""
    return f"{prefix}_{secrets.token_hex(8)}"


def new_offload_ref() -> str:
    return f"ofl_{secrets.token_hex(8)}"


def check_offload_ref(ref: object) -> str:
    """Return ``ref`` if it has the shape of an offload ref, else raise NotFoundError naming it."""
    if not isinstance(ref, str) or not OFFLOAD_REF_RE.match(ref):
        raise NotFoundError(f"unknown offload ref {ref!r} (refs look like ofl_ + 16 hex digits)")
    return ref


def is_storable_text(text: str) -> bool:
    """True if both databases can hold ``text`` in a TEXT column as is (no NUL, valid UTF-8)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encode_offload(content: str) -> tuple[str, str | None]:
    """(stored text, encoding): plain text as is, anything else as an ASCII JSON string (``"json"``)."""
    if is_storable_text(content):
        return content, None
    return json.dumps(content, ensure_ascii=True), "json"


def decode_offload(stored: str, encoding: str | None) -> str:
    if encoding is None:
        return stored
    if encoding == "json":
        value = json.loads(stored)
        if isinstance(value, str):
            return value
    raise StoreError(f"offload stored with an unknown encoding {encoding!r} (written by a newer contextwindow?)")


def check_text(value: object, what: str, *, optional: bool = False, empty: bool = True) -> Any:
    """``value`` if it is a string both databases hold as is (None too when ``optional``), else a
    ConfigError naming ``what`` (NUL characters and lone surrogates are refused by every backend)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string, got {type(value).__name__}")
    if not empty and not value:
        raise ConfigError(f"{what} must be a non-empty string")
    if not is_storable_text(value):
        raise ConfigError(f"{what} {value!r} holds a NUL character or a lone surrogate, which the store cannot keep")
    return value


def check_conversation_id(conversation_id: object) -> str:
    """Return ``conversation_id`` if a store could hold it, else NotFoundError naming it (before any
    query: a NUL or a lone surrogate would otherwise be a driver error, not "unknown")."""
    if not isinstance(conversation_id, str) or not is_storable_text(conversation_id):
        raise NotFoundError(f"unknown conversation {conversation_id!r}")
    return conversation_id


def dump_json(value: Any, what: str) -> str:
    """Compact deterministic JSON of ``value``; a non-JSON value is a ConfigError naming ``what``."""
    try:
        raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} must be JSON-serializable: {exc}") from exc
    if not is_storable_text(raw):  # lone surrogates: the same JSON with ASCII escapes round-trips them
        raw = json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return raw


def check_dict(value: dict[str, Any] | None, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a dict, got {type(value).__name__}")
    dump_json(value, what)
    return dict(value)


_BIGINT = 2**63  # what both databases' BIGINT holds


def _usage_int(u: Usage, name: str) -> int:
    v = getattr(u, name)
    if isinstance(v, bool) or not isinstance(v, int) or not -_BIGINT <= v < _BIGINT:
        raise ConfigError(f"usage.{name} must be an int within 64 bits, got {v!r}")
    return v


def _usage_number(u: Usage, name: str) -> float | None:
    v = getattr(u, name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ConfigError(f"usage.{name} must be a finite number or None, got {v!r}")
    return float(v)


def usage_to_row(u: Usage) -> dict[str, Any]:
    """The columns of one usage row; a value no database keeps exactly is a ConfigError naming it."""
    if not isinstance(u, Usage):
        raise ConfigError(f"record_usage takes a Usage, got {type(u).__name__}")
    return {
        **{k: _usage_int(u, k) for k in USAGE_FIELDS},
        "model": check_text(u.model, "usage.model", optional=True),
        "role": check_text(u.role, "usage.role", empty=False),
        "cost_usd": _usage_number(u, "cost_usd"),
        "latency_s": _usage_number(u, "latency_s"),
        "extra": dump_json(u.extra, "usage.extra"),
    }


def totals_by_role(usages: Sequence[Usage]) -> dict[str, dict[str, Any]]:
    """Sum usage per role: calls, token fields, cost (known costs only; ``cost_unknown_calls``
    counts calls without a cost so nothing is hidden) and latency."""
    out: dict[str, dict[str, Any]] = {}
    for u in usages:
        t = out.setdefault(
            u.role, {"calls": 0, **dict.fromkeys(USAGE_FIELDS, 0), "cost_usd": 0.0, "cost_unknown_calls": 0, "latency_s": 0.0}
        )
        t["calls"] += 1
        for k in USAGE_FIELDS:
            t[k] += getattr(u, k)
        if u.cost_usd is None:
            t["cost_unknown_calls"] += 1
        else:
            t["cost_usd"] += u.cost_usd
        if u.latency_s is not None:
            t["latency_s"] += u.latency_s
    return out


def check_selection(selection: Selection, checkpoints: Sequence[Checkpoint], last_seq: int) -> list[tuple[str, int]]:
    """Validate a fork selection against the source; return the ordered plan as
    (``"message"``, seq) and (``"fold"``, checkpoint ordinal) items."""
    if not isinstance(selection, Selection):
        raise ConfigError(f"fork takes a Selection, got {type(selection).__name__}")
    for what, values in (("message seqs", selection.seqs), ("fold numbers", selection.checkpoints)):
        if not isinstance(values, tuple | builtins.list):
            raise SelectionError(f"{what} must be a tuple of ints, got {type(values).__name__}")
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int)]
        if bad:
            raise SelectionError(f"{what} must be ints, got {bad[0]!r}")
    seqs = sorted(set(selection.seqs))
    for s in seqs:
        if not isinstance(s, int) or not 1 <= s <= last_seq:
            raise SelectionError(f"message seq {s!r} is not in the source (it has seqs 1..{last_seq})")
    by_ord = {c.seq: c for c in checkpoints}
    folds = sorted(set(selection.checkpoints))
    for k in folds:
        if k not in by_ord:
            raise SelectionError(f"fold {k!r} is not in the source (it has folds 1..{len(checkpoints)})")
        c = by_ord[k]
        prev = by_ord[k - 1].upto_seq if k > 1 else 0
        inner = [s for s in seqs if prev < s <= c.upto_seq]
        if inner:
            raise SelectionError(
                f"fold {k} and messages it folded away ({', '.join(map(str, inner[:5]))}) cannot both be selected"
            )
    plan: list[tuple[tuple[int, int, int], tuple[str, int]]] = [((s, 0, 0), ("message", s)) for s in seqs]
    plan += [((by_ord[k].upto_seq, 1, k), ("fold", k)) for k in folds]
    return [item for _, item in sorted(plan)]


def check_limit(limit: object) -> int | None:
    """A list limit: None (all) or an int >= 0; one past 64 bits means all (both databases cap there)."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ConfigError(f"limit must be a non-negative int or None, got {limit!r}")
    return min(limit, _BIGINT - 1)


def check_upto(upto_seq: int, last_seq: int, previous: Checkpoint | None) -> None:
    if not isinstance(upto_seq, int) or isinstance(upto_seq, bool):
        raise ConfigError(f"upto_seq must be an int, got {type(upto_seq).__name__}")
    floor = previous.upto_seq if previous else 0
    if not floor <= upto_seq <= last_seq:
        raise ConfigError(
            f"checkpoint upto_seq={upto_seq} out of range: it must be between the previous fold's "
            f"upto_seq ({floor}) and the last message seq ({last_seq})"
        )


INHERITED_KEYS = ("model",)


def inherited(metadata: dict[str, Any]) -> dict[str, Any]:
    """What a fork keeps of its source's metadata (the model the conversation was held with)."""
    return {k: metadata[k] for k in INHERITED_KEYS if k in metadata}
