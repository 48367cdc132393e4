"""pydantic-ai (2.x): ``Agent(model, capabilities=[ContextWindowCapability(...)])``.

pydantic-ai 2 replaced ``history_processors=`` by capabilities; this one implements
``prepare_model_request``, the hook its guidelines name for compaction and context-window
fitting (it runs before each attempt, once the serving model is known). The run's messages are
mirrored into the store (each message once: clipped at the door, user rules into the ledger),
and the attempt's request gets ``Session.build()``'s view instead — compacted, folded,
provider-valid, within the budget. Changes to ``request_context`` are for that attempt only, so
the run's own history (``result.all_messages()``) stays whole, as does the store.
``after_model_request`` records every answer with its usage (calibration, gauge, spend), so the
run's final answer is in the store too; a fold runs at a turn boundary whose real input crossed
the fold threshold.

A message is known again by its position in the history and what it says: the key chains the
previous message's key with this message's digest, so passing ``result.all_messages()`` as the
next run's ``message_history`` stores only the new messages, while two different histories that
happen to share a message do not merge.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..errors import ConfigError
from ..messages import Message
from ..session import Build, Session
from ..store import ConversationStore, open_store
from ..tools import ToolSpec
from ..usage import Usage
from ._base import Mirror, as_summarizer, missing_extra, open_session, resolve_window

try:
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelResponse
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra("pydantic-ai", "pydantic-ai", exc) from exc

from ._pydantic_ai_messages import FORMAT, from_pydantic_ai, message_key, to_pydantic_ai

__all__ = ["ContextWindowCapability", "from_pydantic_ai", "to_pydantic_ai"]

_ROOT = "0" * 16


class ContextWindowCapability(AbstractCapability[Any]):
    """Context management for a pydantic-ai agent, over a :class:`~contextwindow.session.Session`.

    ``model``: the model name whose window is read from the registry (``"openai:gpt-4o"`` works;
    default: the agent's model at the first request); ``window``: tokens instead; ``store``: URL or
    ConversationStore; ``conversation_id``: resume/pin a conversation (default: a new one per
    capability object); ``summarizer``: a Summarizer or ChatModel for folds (default extractive);
    ``session_config``: more Session options (``format``, ``config``, ``events``, ``max_output``)."""

    def __init__(
        self,
        model: str | None = None,
        window: int | None = None,
        store: str | ConversationStore | None = None,
        conversation_id: str | None = None,
        summarizer: Any = None,
        **session_config: Any,
    ) -> None:
        if model is not None and not isinstance(model, str):
            raise ConfigError(f"model must be a model name, got {type(model).__name__}")
        self._name = model
        self._window = window
        self._store = open_store(store) if store is None or isinstance(store, str) else store
        self._conversation_id = conversation_id
        self._summarizer = as_summarizer(summarizer)
        self._config = session_config
        self._session: Session | None = None
        self._mirror = Mirror(FORMAT)
        self._chain = _ROOT  # key of the last message of the history the latest request carried
        self.last_build: Build | None = None

    # --- the Session ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        """The Session (gauge, spend, events, fold); opened on first use."""
        if self._session is None:
            self._session = self._open(self._name)
        return self._session

    def _open(self, name: str | None) -> Session:
        bare = name.split(":", 1)[1] if name and ":" in name and "/" not in name.split(":", 1)[0] else name
        config = dict(self._config)
        window, max_output = resolve_window(bare, self._window, config.pop("max_output", None))
        return open_session(
            store=self._store, conversation_id=self._conversation_id, model=bare, window=window, max_output=max_output,
            summarizer=self._summarizer, metadata={"framework": "pydantic-ai"}, session_config=config,
        )

    # --- hooks ----------------------------------------------------------------------------------
    async def prepare_model_request(self, ctx: Any, request_context: Any) -> Any:
        if self._session is None:
            self._session = self._open(self._name or _model_name(request_context.model))
        return await asyncio.to_thread(self.prepare, request_context)

    def prepare(self, request_context: Any) -> Any:
        """The request context with its messages replaced by the Session's view."""
        session = self.session
        params = request_context.model_request_parameters
        session.system = _instructions(request_context.messages, params)
        session.tools = [ToolSpec(t.name, t.description or "", t.parameters_json_schema) for t in params.function_tools]
        ours = self._keyed(from_pydantic_ai(request_context.messages))
        self._mirror.sync(session, ours)
        b = session.build()
        self.last_build = b
        messages = to_pydantic_ai(b.messages)
        return replace(request_context, messages=messages)

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        if isinstance(response, ModelResponse):
            await asyncio.to_thread(self.record, response)
        return response

    def record(self, response: ModelResponse) -> None:
        """Store an answer with its usage; its key is the one the next request will give it."""
        session = self.session
        m = from_pydantic_ai([response])[0]
        key = _chain(self._chain, m)
        m = replace(m, extra={**m.extra, FORMAT: {**m.extra[FORMAT], "key": key}})
        self._mirror.mark(session, m)
        u = response.usage
        usage = Usage(
            input_tokens=int(u.input_tokens or 0), output_tokens=int(u.output_tokens or 0),
            cache_read_tokens=int(u.cache_read_tokens or 0), cache_write_tokens=int(u.cache_write_tokens or 0),
            model=session.model,
        ) if u is not None and (u.input_tokens or u.output_tokens) else None
        session.record(m, usage)

    # --- keys -------------------------------------------------------------------------------------
    def _keyed(self, messages: Sequence[Message]) -> list[Message]:
        out = []
        prev = _ROOT
        for m in messages:
            prev = _chain(prev, m)
            out.append(replace(m, extra={**m.extra, FORMAT: {**m.extra[FORMAT], "key": prev}}))
        self._chain = prev
        return out


def _chain(prev: str, m: Message) -> str:
    return hashlib.sha256(f"{prev}:{message_key(m)}".encode()).hexdigest()[:16]


def _instructions(messages: Sequence[Any], params: Any) -> str:
    """The instructions the request carries (they count against the budget)."""
    parts = getattr(params, "instruction_parts", None) or []
    texts = [str(getattr(p, "content", "") or "") for p in parts]
    if not any(texts):
        last = next((m for m in reversed(messages) if getattr(m, "kind", None) == "request"), None)
        texts = [last.instructions] if last is not None and isinstance(getattr(last, "instructions", None), str) else []
    return "\n\n".join(t for t in texts if t)


def _model_name(model: Any) -> str | None:
    name = getattr(model, "model_name", None)
    return name if isinstance(name, str) and name else None
