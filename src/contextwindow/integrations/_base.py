"""What the framework adapters share (private): opening their Session, the model's window, and
the mirror that puts each framework message into the store exactly once.

A framework hands the adapter its whole history before every model call. The mirror remembers,
per conversation, the key of every framework message already stored (kept in the stored
message's ``extra[<framework>]["key"]``, so a new process resumes without duplicates) and
appends only the new ones, through ``Session.add``: tool results are clipped at the door and
user rules enter the constraint ledger there, as for any other agent.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..budget import LIMIT_ENV_VARS, Limits
from ..errors import ConfigError
from ..folding.base import Summarizer
from ..messages import Message, Part, part_to_dict
from ..session import Session, SessionConfig
from ..store import ConversationStore, open_store

__all__ = ["Mirror", "fingerprint", "missing_extra", "open_session", "resolve_window"]


def missing_extra(framework: str, extra: str, exc: ImportError) -> ConfigError:
    return ConfigError(
        f"contextwindow.integrations needs {framework} for this adapter: pip install \"contextwindow[{extra}]\" ({exc})"
    )


def fingerprint(parts: Sequence[Part]) -> str:
    """A short digest of what ``parts`` say, their own ``extra`` left out: equal when a part list
    came back from the store unchanged (not clipped, masked, truncated)."""
    body = []
    for p in parts:
        d = part_to_dict(p)
        d.pop("extra", None)
        if isinstance(d.get("content"), list):
            d["content"] = [{k: v for k, v in c.items() if k != "extra"} for c in d["content"]]
        body.append(d)
    raw = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def resolve_window(name: str | None, window: int | None, max_output: int | None, profile: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """(window, max output): what the caller said, else the framework's model profile, else the
    model registry by name. A model nobody knows is a ConfigError asking for ``window=``."""
    from ..budget import DEFAULT_MAX_OUTPUT
    from ..models import get_model

    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window <= 0):
        raise ConfigError(f"window must be a positive number of tokens, got {window!r}")
    prof = profile or {}
    if window is None and isinstance(prof.get("max_input_tokens"), int) and prof["max_input_tokens"] > 0:
        window = int(prof["max_input_tokens"])
    if max_output is None and isinstance(prof.get("max_output_tokens"), int) and prof["max_output_tokens"] > 0:
        max_output = int(prof["max_output_tokens"])
    if window is None or max_output is None:
        spec = get_model(name, default=True) if name else None
        if window is None:
            if spec is None or not spec.known:
                raise ConfigError(
                    f"cannot tell the context window of model {name!r}: it has no profile and is not in the model registry; "
                    "pass window=<tokens>"
                )
            window = spec.context_window
        if max_output is None:
            max_output = spec.max_output if spec is not None and spec.known else DEFAULT_MAX_OUTPUT
    return window, min(max_output, max(1, window // 2))


def as_summarizer(value: Any) -> Summarizer | None:
    """None (the extractive brief), a Summarizer, or a ChatModel (``complete``) wrapped as the LLM summarizer."""
    if value is None or hasattr(value, "summarize"):
        return value
    if hasattr(value, "complete"):
        from ..folding.llm_summarizer import LLMSummarizer

        return LLMSummarizer(value)
    raise ConfigError(
        f"summarizer must be a contextwindow Summarizer, a ChatModel (complete()) or the framework's chat model, got {type(value).__name__}"
    )


def open_session(
    *,
    store: str | ConversationStore | None,
    conversation_id: str | None,
    model: str | None,
    window: int,
    max_output: int,
    summarizer: Summarizer | None,
    metadata: dict[str, Any],
    session_config: Mapping[str, Any],
) -> Session:
    """The Session an adapter works through; a new conversation unless ``conversation_id`` is given."""
    st = open_store(store) if store is None or isinstance(store, str) else store
    if not isinstance(st, ConversationStore):
        raise ConfigError(f"store must be a store URL or a ConversationStore, got {type(store).__name__}")
    if conversation_id is not None:
        st.get_conversation(conversation_id)  # NotFoundError naming it when unknown
    else:
        meta = dict(metadata)
        if model:
            meta["model"] = model
        conversation_id = st.create_conversation(title=session_config.get("title"), metadata=meta)
    opts = {k: v for k, v in session_config.items() if k != "title"}
    # The framework's own loop decides when a run stops (LangChain's recursion limit, the Agents SDK's
    # max_turns, pydantic-ai's UsageLimits), and an adapter object lives as long as the app: the
    # Session's out-of-the-box limits (30 minutes from construction, 1M tokens summed) would refuse
    # every call of a long-lived app, so only the limits set by variable or by a passed config apply.
    opts.setdefault("config", SessionConfig(limits=explicit_limits(os.environ)))
    try:
        return Session(st, conversation_id, model=model, window=window, max_output=max_output, summarizer=summarizer, **opts)
    except TypeError as exc:
        raise ConfigError(f"unknown Session option: {exc}") from exc


def explicit_limits(env: Mapping[str, str]) -> Limits:
    """The session limits the environment sets by name (CONTEXTWINDOW_MAX_*); none of the defaults."""
    named = Limits.from_env(env)
    return replace(Limits(), **{attr: getattr(named, attr) for attr, var in LIMIT_ENV_VARS.items() if (env.get(var) or "").strip()})


class Mirror:
    """The keys of the framework messages a conversation already holds, for one framework."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self._seen: dict[str, set[str]] = {}

    def seen(self, session: Session) -> set[str]:
        keys = self._seen.get(session.id)
        if keys is None:
            keys = self._seen[session.id] = set()
            for sm in session.store.list(session.id):
                k = key_of(sm.message, self.fmt)
                if k:
                    keys.add(k)
        return keys

    def sync(self, session: Session, messages: Iterable[Message]) -> int:
        """Append the messages whose key the conversation does not hold yet; returns how many."""
        keys = self.seen(session)
        new: list[Message] = []
        for m in messages:
            k = key_of(m, self.fmt)
            if k is None or k in keys:
                continue
            keys.add(k)
            new.append(m)
        if new:
            session.add(*new)
        return len(new)

    def mark(self, session: Session, message: Message) -> None:
        k = key_of(message, self.fmt)
        if k:
            self.seen(session).add(k)


def key_of(m: Message, fmt: str) -> str | None:
    sec = m.extra.get(fmt) if isinstance(m.extra, Mapping) else None
    k = sec.get("key") if isinstance(sec, Mapping) else None
    return k if isinstance(k, str) else None
