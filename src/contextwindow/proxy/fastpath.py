"""The lean front's "nothing to change" decision, at the byte level, from state it keeps itself. Pure.

The front (:mod:`.front`) keeps, per conversation it has seen forwarded unchanged, the body it
forwarded last (:class:`~.resend.Sent`), the call ids of its history and the room left before the
compaction trigger (tokens, told by the worker: proxy/worker.py). A request is forwarded as sent,
without asking the worker first, when all of these hold (what :meth:`Conversations.quick` checks
on a Session, here on bytes):

- its body is the previous one with messages spliced in where the history list closed
  (:func:`resend.splice`, confirmed on the parsed body by :func:`resend.confirm`): the same head,
  tools and settings byte for byte, so the same conversation, and nothing before is edited;
- the new messages are plain (text, tool calls, tool results: no image, document or reasoning
  part, whose tokens are not bounded by their bytes), and each tool result's bytes, times the
  worker's tokens-per-byte bound (1 for a byte-level BPE counter, the rates' sum for the
  heuristic estimator: :func:`bound.per_byte`), are within the clip budget, so the clipper keeps
  it as it is;
- the new messages' bytes (their JSON, which is more than their text and framing) times that
  bound are within the room, so the history stays under 90% of the trigger;
- the new messages pass the provider rules on their own, and use no call id the history used.

Responses requests (``POST /v1/responses``, Codex's) are decided the same way on their ``input``
list (2026-11-24): plain items are messages of text (``input_text`` / ``output_text``), function
and custom tool calls, and their outputs of text; a reasoning item, an image, a web search call or
any other item goes to the worker, and so does a request the provider keeps the history of
(``previous_response_id`` / ``conversation``: no key, :func:`key_of`). The worker groups a run of
consecutive call (or output) items into one message, so new items whose first one is on the same
side as the history's last (:attr:`Conv.last`) would change a stored message: they go to the worker.

Anything else goes to the worker, which decides on the Session as ``ctxw proxy`` always has.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import resend
from .identity import BODY_KEYS, CLIENT_HEADERS, HEADER
from .protocols import BY_PATH

try:
    import orjson
except ImportError:  # the proxy extra installs it; without it nothing is decided here
    orjson = None  # type: ignore[assignment]

#: the protocols decided here
DECIDED = ("openai", "anthropic", "openai_responses")
PLAIN_PARTS = frozenset({"text", "tool_use", "tool_result"})
#: the body key holding each protocol's history list, and the one holding its system prompt (when not in the list)
LIST_KEY = {"openai": "messages", "anthropic": "messages", "openai_responses": "input"}
SYSTEM_KEY = {"openai": "system", "anthropic": "system", "openai_responses": "instructions"}
RESPONSES_TEXT = frozenset({"input_text", "output_text"})
CALLS = ("function_call", "custom_tool_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")


@dataclass(slots=True)
class Conv:
    """What the front keeps of one conversation."""

    sent: resend.Sent  # the body forwarded last
    room: float  # tokens that may be added before 90% of the trigger, as last known
    per_byte: float = 1.0  # tokens per byte of a message's JSON that bound the worker's count (proxy/bound.py)
    call_ids: set[str] = field(default_factory=set)
    alias: bytes | None = None  # the byte key (:func:`byte_key`) its last request had, which finds it without a parse
    pending: deque[float] = field(default_factory=deque)  # tokens (bound) of requests sent as sent whose hand-over the worker has not answered
    last: str = ""  # Responses: the side (:func:`side`) of its history's last item


class Table:
    """The conversations the front keeps (their last bodies: at most ``kept`` of them and
    ``kept_bytes`` in all, the least recently used leaving first), found by their key or by the
    byte key (:func:`byte_key`) of their last request."""

    def __init__(self, kept: int, kept_bytes: int) -> None:
        self.kept, self.kept_bytes = kept, kept_bytes
        self.convs: OrderedDict[bytes, Conv] = OrderedDict()
        self.alias: dict[bytes, bytes] = {}  # byte key → the conversation's key (:func:`key_of`)
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.convs)

    def get(self, key: bytes | None) -> Conv | None:
        return self.convs.get(key) if key is not None else None

    def by_bytes(self, bkey: bytes | None) -> bytes | None:
        """The key of the conversation whose last request had byte key ``bkey``."""
        return self.alias.get(bkey) if bkey is not None else None

    def remember(self, key: bytes, conv: Conv, bkey: bytes | None = None) -> None:
        self.forget(key)
        self.convs[key] = conv
        self.bytes += len(conv.sent.raw)
        while self.convs and (len(self.convs) > self.kept or self.bytes > self.kept_bytes):
            _, gone = self.convs.popitem(last=False)
            self.bytes -= len(gone.sent.raw)
            self._unalias(gone)
        if key in self.convs:
            self.alias_to(bkey, key, conv)

    def sent(self, key: bytes, conv: Conv, sent: resend.Sent) -> None:
        """``conv`` (under ``key``) forwarded ``sent`` now."""
        self.bytes += len(sent.raw) - len(conv.sent.raw)
        conv.sent = sent
        self.convs.move_to_end(key)

    def forget(self, key: bytes) -> None:
        old = self.convs.pop(key, None)
        if old is not None:
            self.bytes -= len(old.sent.raw)
            self._unalias(old)

    def clear(self) -> None:
        self.convs.clear()
        self.alias.clear()
        self.bytes = 0

    def alias_to(self, bkey: bytes | None, key: bytes, conv: Conv) -> None:
        """``bkey`` (a request's byte key) finds ``conv`` (under ``key``) from now on."""
        if bkey == conv.alias:
            return
        self._unalias(conv)
        if bkey is not None:
            self.alias[bkey] = key
            conv.alias = bkey

    def _unalias(self, conv: Conv) -> None:
        if conv.alias is not None:
            self.alias.pop(conv.alias, None)
            conv.alias = None


def history_of(proto: str, body: Mapping[str, Any]) -> Any:
    """The body's history list (a Responses ``input`` may be a string: not a list)."""
    return body.get(LIST_KEY.get(proto, "messages"))


def _proto_of(path: str) -> str:
    p = BY_PATH.get(path)
    return p.name if p is not None else "openai"


def side(proto: str, m: Any) -> str:
    """Responses: which run an input item joins when the worker converts it — "assistant" (calls,
    the assistant's messages, reasoning), "tool" (outputs) or "user" (any other message); "" for
    other protocols, whose messages are not joined."""
    if proto != "openai_responses" or not isinstance(m, dict):
        return ""
    kind = m.get("type", "message" if "role" in m else None)
    if kind == "message":
        return "assistant" if m.get("role") == "assistant" else "user"
    return "tool" if kind in OUTPUTS or (isinstance(kind, str) and kind.endswith("_output")) else "assistant"


def _first_user(msgs: list[Any]) -> int:
    """The index of a history's first user message (its length: none)."""
    return next((i for i, m in enumerate(msgs) if isinstance(m, dict) and m.get("role") == "user"), len(msgs))


def key_of(path: str, headers: Mapping[str, str], body: Mapping[str, Any]) -> bytes | None:
    """The front's key of a request's conversation: the path, the identity headers and body keys
    (proxy/identity.py's), the system prompt and the history up to its first user message. None
    when the body holds no history list, or the provider keeps its history (Responses
    ``previous_response_id`` / ``conversation``)."""
    protocol = BY_PATH.get(path)
    proto = protocol.name if protocol is not None else "openai"
    msgs = history_of(proto, body)
    if orjson is None or not isinstance(msgs, list) or (protocol is not None and protocol.stateful(body)):
        return None
    first = _first_user(msgs)
    ids = [headers.get(HEADER, ""), *(headers.get(h, "") for h in CLIENT_HEADERS), *(body.get(k) for k in BODY_KEYS), body.get("metadata")]
    try:
        head = orjson.dumps([path, ids, body.get(SYSTEM_KEY[proto]), msgs[: first + 1]])
    except TypeError:
        return None
    return hashlib.blake2b(head, digest_size=16).digest()


_USER = (b'"role":"user"', b'"role": "user"')
KEY_WINDOW = 512  # bytes after the first user message's role that go into the key


def byte_key(path: str, headers: Mapping[str, str], raw: bytes) -> bytes | None:
    """The front's key of a request's conversation, from its bytes: the path, the identity headers
    (proxy/identity.py's) and the body up to ``KEY_WINDOW`` bytes past its first user message's
    role (the system prompt, the tools written before the history, the task). A conversation's
    requests share it once that many bytes follow the first user message (while the history is
    shorter it changes with every request, and the front finds the conversation by the parsed
    head, :func:`key_of`); two conversations that share it only cost a decision: what decides is
    that the body extends the conversation's previous one byte for byte (:func:`decide`). None
    when the body names no user message."""
    at = -1
    for pat in _USER:
        at = raw.find(pat)
        if at >= 0:
            break
    if at < 0:
        return None
    h = hashlib.blake2b(digest_size=16)
    h.update(path.encode("latin-1"))
    for name in (HEADER, *CLIENT_HEADERS):
        h.update(b"\0" + headers.get(name, "").encode("utf-8", "surrogateescape"))
    h.update(b"\0")
    h.update(raw[: at + KEY_WINDOW])
    return h.digest()


def call_ids(proto: str, messages: list[Any]) -> set[str]:
    """The call ids a history's assistant messages (Responses: call items) hold."""
    out: set[str] = set()
    if proto == "openai_responses":
        return {str(m.get("call_id")) for m in messages if isinstance(m, dict) and m.get("type") in CALLS}
    for m in messages:
        if not isinstance(m, dict) or m.get("role") != "assistant":
            continue
        if proto == "openai":
            out.update(str(c.get("id")) for c in m.get("tool_calls") or () if isinstance(c, dict))
        elif isinstance(m.get("content"), list):
            out.update(str(b.get("id")) for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
    return out


def _plain(proto: str, m: Any, clip: float | None) -> bool:
    """A message whose tokens its bytes bound, and whose tool results the clipper keeps as they are."""
    if not isinstance(m, dict):
        return False
    if proto == "openai_responses":
        return _plain_item(m, clip)
    role, content = m.get("role"), m.get("content")
    if proto == "openai":
        if role not in ("user", "assistant", "tool") or m.get("name"):
            return False
        if content is not None and not isinstance(content, str) and (
                not isinstance(content, list) or any(not isinstance(p, dict) or p.get("type") != "text" for p in content)):
            return False
        return role != "tool" or not clip or _bytes(content) <= clip
    if role not in ("user", "assistant"):
        return False
    if isinstance(content, str):
        return True
    if not isinstance(content, list):
        return False
    for b in content:
        if not isinstance(b, dict) or b.get("type") not in PLAIN_PARTS:
            return False
        if b.get("type") == "tool_result":
            inner = b.get("content")
            if isinstance(inner, list) and any(not isinstance(p, dict) or p.get("type") != "text" for p in inner):
                return False
            if clip and _bytes(inner) > clip:
                return False
    return True


def _texts(content: Any) -> bool:
    """A Responses content of text only (a string, or ``input_text`` / ``output_text`` parts)."""
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in RESPONSES_TEXT and isinstance(p.get("text"), str) for p in content))


def _plain_item(m: dict[str, Any], clip: float | None) -> bool:
    """A Responses input item whose tokens its bytes bound (module docstring)."""
    kind = m.get("type", "message" if "role" in m else None)
    if kind == "message":
        return m.get("role") in ("user", "assistant") and _texts(m.get("content"))
    if kind == "function_call":
        return all(isinstance(m.get(k), str) for k in ("call_id", "name", "arguments"))
    if kind == "custom_tool_call":
        return all(isinstance(m.get(k), str) for k in ("call_id", "name", "input"))
    if kind in OUTPUTS:
        out = m.get("output")
        return isinstance(m.get("call_id"), str) and _texts(out) and (not clip or _bytes(out) <= clip)
    return False  # reasoning (its cost may be the provider's output count), web search calls, anything else


def _bytes(content: Any) -> int:
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    if isinstance(content, list):
        return sum(_bytes(p.get("text")) for p in content if isinstance(p, dict))
    return 0


def decide(conv: Conv, proto: str, raw: bytes, body: Mapping[str, Any] | None, clip: int | None) -> tuple[resend.Sent, float, list[Any]] | None:
    """For a request that may go as sent: the state to keep for the next one, its new messages'
    bytes, and the new messages; None when the worker decides (module docstring). ``body``: the
    parsed request, needed only while the previous body's anchor is not known (where its history
    list's last message ends; learned from the first request that extends it, on the parsed body:
    :func:`resend.confirm`); once it is, the new bytes alone are read: ``head`` ends inside the
    history list right after a message (proven on a parsed body with the same bytes there), so
    ``head`` + ``,`` + objects + ``tail`` holds that list with those objects more, and the rest as it was.
    Returns :data:`NEED_BODY` when the parsed body is needed and not given."""
    from ..formats.rules import check

    if proto not in DECIDED:
        return None
    sp = resend.splice(conv.sent, raw)
    if sp is None:
        return None
    if conv.sent.anchor is not None:
        got = resend.spliced(sp)
        if got is None:
            return None
        new = got
    else:
        if body is None:
            return NEED_BODY
        msgs = history_of(proto, body)
        if not isinstance(msgs, list) or not resend.confirm(sp, msgs):
            return None
        new = msgs[conv.sent.count :]
    cost = len(sp.new) * conv.per_byte
    if cost > conv.room or not all(_plain(proto, m, clip / conv.per_byte if clip else None) for m in new):
        return None
    if side(proto, new[0]) in ("assistant", "tool") and side(proto, new[0]) == conv.last:
        return None  # Responses: the first new item would join the history's last message (module docstring)
    ids = call_ids(proto, new)
    if not ids.isdisjoint(conv.call_ids) or any(v.rule != "first_not_user" for v in check(proto, {LIST_KEY[proto]: new})):
        return None  # (the tail alone may begin with the assistant's answer: it follows the history's user turn)
    return resend.Sent(raw=raw, count=conv.sent.count + len(new), fingerprints=(), clean=True, anchor=sp.at), cost, new


def shape_of(path: str, body: Mapping[str, Any]) -> bytes | None:
    """What a conversation's budget depends on, beyond the counter: the path, the model, the
    output reserve, the tools, every other setting and the system prompt (the body but its
    messages from the first user message on, and the identity keys). Conversations of one agent
    share it: the room a first request's bytes must stay under (the worker's ``/whole`` room,
    proxy/worker.py) learned from one holds for the next one's first request. None: no history."""
    key = LIST_KEY[_proto_of(path)]
    msgs = body.get(key)
    if orjson is None or not isinstance(msgs, list):
        return None
    first = _first_user(msgs)
    rest = {k: v for k, v in body.items() if k != key and k not in BODY_KEYS and k != "metadata"}
    try:
        return hashlib.blake2b(orjson.dumps([path, rest, msgs[:first]], option=orjson.OPT_SORT_KEYS), digest_size=16).digest()
    except TypeError:
        return None


def opening(proto: str, messages: list[Any]) -> bool:
    """A conversation's first request: the system prompt and the user's first words, no answer yet
    (Responses: messages only, none of them the assistant's)."""
    if proto == "openai_responses":
        return all(side(proto, m) == "user" for m in messages)
    return not any(isinstance(m, dict) and m.get("role") in ("assistant", "tool") for m in messages)


def _system(proto: str, m: Any) -> bool:
    """A system message of plain text (Chat's and Responses' ``system`` / ``developer`` roles)."""
    if proto == "openai_responses":
        return isinstance(m, dict) and m.get("type", "message") == "message" and m.get("role") in ("system", "developer") and _texts(m.get("content"))
    if proto != "openai" or not isinstance(m, dict) or m.get("role") not in ("system", "developer") or m.get("name"):
        return False
    content = m.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content))


def first(limit: tuple[float, float] | None, proto: str, raw: bytes, body: Mapping[str, Any],
          clip: int | None) -> tuple[Conv, tuple[resend.Sent, float, list[Any]]] | None:
    """A conversation's first request (:func:`opening`) that may go as sent: the state to keep for
    its next one, and :func:`decide`'s answer. ``limit``: the whole-request room (tokens, and the
    tokens per byte that bound the count) learned for its :func:`shape_of`; it goes when its plain
    messages' bytes times that bound are within the room, and it passes the provider rules."""
    from ..formats.rules import check

    msgs = history_of(proto, body)
    if limit is None or proto not in DECIDED or not isinstance(msgs, list) or not msgs or not opening(proto, msgs):
        return None
    tokens, per = limit
    cost = len(raw) * per
    if cost > tokens or not all(_system(proto, m) or _plain(proto, m, clip / per if clip else None) for m in msgs):
        return None
    if check(proto, dict(body)):
        return None
    sent = resend.Sent(raw=raw, count=len(msgs), fingerprints=(), clean=True)
    return Conv(sent, tokens - cost, per, last=side(proto, msgs[-1])), (sent, 0.0, msgs)


#: :func:`decide`'s answer when it needs the parsed body
NEED_BODY: Any = ("need the parsed body",)
