"""What the proxy knows of one request on a managed endpoint, as it goes through
:class:`~.conversations.Conversations`: the request read (:class:`Request`), its history
identified (:class:`Parsed`), the decision to forward it as sent (:class:`Quick`), what goes
upstream (:class:`Prepared`), and the answer relayed back (:class:`Answer`). Values only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ContextWindowError, PayloadError
from ..messages import Message
from . import breakpoints, resend
from .identity import Identity
from .protocols import Protocol

if TYPE_CHECKING:
    from ..session import Session


@dataclass(frozen=True, slots=True)
class Request:
    """One parsed client request on a managed endpoint."""

    protocol: Protocol
    body: dict[str, Any]
    raw: bytes
    headers: Mapping[str, str]  # lower-case names
    exact: bool = True  # False: ``body`` is orjson's reading, not yet checked for long integers (history.parse_request)

    @property
    def model(self) -> str | None:
        m = self.body.get("model")
        return m if isinstance(m, str) and m else None


@dataclass(frozen=True, slots=True)
class Parsed:
    """A request's history, normalized and identified (pure work, before any lock)."""

    request: Request
    history: Sequence[Message]
    fingerprints: list[str]
    marks: dict[str, list[breakpoints.Mark]]
    identity: Identity
    sent: resend.Sent | None = None  # what the conversation's next request may extend (proxy/resend.py)
    reused: int = 0  # leading messages read from the previous request's bytes, not again
    prev: resend.Sent | None = None  # the previous request this one extends by its bytes (``reused`` > 0), or None


@dataclass(frozen=True, slots=True)
class Quick:
    """A request :meth:`Conversations.quick` lets through as sent; its new messages are not stored yet."""

    parsed: Parsed
    session: Session
    known: int


@dataclass(slots=True)
class Prepared:
    """What goes upstream for one request, and what the proxy did to it."""

    data: bytes
    changed: bool
    conversation_id: str
    identity: Identity
    known: int = 0  # messages the store already held
    added: int = 0  # messages appended by this request
    clipped: int = 0  # of those, tool results clipped at the door
    compacted: bool = False
    tokens: int = 0  # the history as sent, estimated
    restarted: bool = False  # the client rewrote its history: a new store conversation
    fast: bool = False  # forwarded as sent without a build (see Conversations.prepare)
    late: bool = False  # a late hand-over: the store holds all of it and more (Conversations.stored_already); its reply is not stored
    id_map: dict[str, str] = field(default_factory=dict)  # call ids as sent upstream -> as stored (Build.id_map)
    notes: list[str] = field(default_factory=list)


class LockMoved(ContextWindowError):
    """The request's conversation is not the one its lock is for any more (another request made
    the identity an alias of a conversation it created, or the index was reloaded after a lost
    group commit): nothing was written; the server forwards the request as sent."""


def check_history(req: Request) -> None:
    """A :class:`PayloadError` naming the field when the body holds no conversation."""
    body = req.body
    if req.protocol.name == "openai_responses":
        if "input" not in body:
            raise PayloadError("a Responses request needs 'input'", field="input")
    elif not isinstance(body.get("messages"), list):
        got = "missing" if "messages" not in body else f"a {type(body['messages']).__name__}"
        raise PayloadError(f"'messages' must be a list, got {got}", field="messages")


@dataclass(frozen=True, slots=True)
class Answer:
    """A relayed answer, kept to read the model's reply from: the parsed JSON body, or a stream's bytes."""

    protocol: str
    data: Any
    streaming: bool
