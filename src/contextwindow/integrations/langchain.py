"""LangChain v1 agents: ``create_agent(..., middleware=[ContextWindowMiddleware(...)])``.

Before every model call (``wrap_model_call`` / ``awrap_model_call``) the request's messages are
mirrored into the store (each LangChain message once, by its id: tool results clipped at the
door, user rules into the constraint ledger), ``Session.build()`` makes the view (compacted and
folded as needed, provider-valid, within the budget) and the model receives that view as
LangChain messages. The model's answer is recorded with its ``usage_metadata`` (calibration,
gauge, spend; a fold at the turn boundary when the real input crossed the fold threshold).

The agent's own state is left as it is: the store keeps the full record, the model gets the
managed view. One conversation per LangGraph ``thread_id`` (or one per middleware without a
checkpointer), unless ``conversation_id=`` pins one.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..errors import ConfigError
from ..messages import Message, TextPart
from ..session import Build, Session
from ..tools import ToolSpec
from ..usage import Usage
from ._base import Mirror, as_summarizer, missing_extra, open_session, resolve_window

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra("langchain", "langchain", exc) from exc

from ._langchain_messages import FORMAT, from_langchain, message_from_langchain, to_langchain

__all__ = ["ContextWindowMiddleware", "from_langchain", "to_langchain", "usage_from_langchain"]

_NO_THREAD = ""


class ContextWindowMiddleware(AgentMiddleware):
    """Context management for a LangChain v1 agent, over a :class:`~contextwindow.session.Session`.

    ``model``: the chat model (or its name) whose window to manage, default the agent's model at
    the first call; ``window``: tokens, default the model's profile (``max_input_tokens``) or the
    registry by model name; ``store``: a store URL or a ConversationStore (default: the SQLite
    file under the user's data dir); ``conversation_id``: resume/pin a conversation;
    ``summarizer``: a contextwindow Summarizer or a LangChain chat model for folds (default: the
    extractive brief, no model); ``session_config``: more :class:`Session` options (``format``,
    ``config``, ``events``, ``max_output``, ``title``)."""

    def __init__(
        self,
        model: BaseChatModel | str | None = None,
        window: int | None = None,
        store: Any = None,
        conversation_id: str | None = None,
        summarizer: Any = None,
        **session_config: Any,
    ) -> None:
        super().__init__()
        if model is not None and not isinstance(model, BaseChatModel | str):
            raise ConfigError(f"model must be a LangChain chat model or a model name, got {type(model).__name__}")
        self._model = model
        self._window = window
        self._store = store
        self._conversation_id = conversation_id
        self._summarizer = as_summarizer(_ChatModelClient(summarizer) if isinstance(summarizer, BaseChatModel) else summarizer)
        self._config = session_config
        self._sessions: dict[str, Session] = {}
        self._mirror = Mirror(FORMAT)
        self._current: Session | None = None
        self.last_build: Build | None = None

    # --- the Session ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        """The Session of the latest model call (gauge, spend, events, fold)."""
        if self._current is None:
            self._current = self._open(self._model if isinstance(self._model, BaseChatModel) else None, _NO_THREAD)
        return self._current

    def session_for(self, thread_id: str) -> Session | None:
        return self._sessions.get(thread_id)

    def _open(self, chat: BaseChatModel | None, thread: str) -> Session:
        name = self._model if isinstance(self._model, str) else _model_name(chat)
        profile = getattr(chat, "profile", None) if chat is not None else None
        window, max_output = resolve_window(name, self._window, self._config.get("max_output"), profile if isinstance(profile, dict) else None)
        config = {k: v for k, v in self._config.items() if k != "max_output"}
        conversation_id = self._conversation_id or (_find_thread(self._store_obj(), thread) if thread else None)
        session = open_session(
            store=self._store_obj(), conversation_id=conversation_id, model=name, window=window, max_output=max_output,
            summarizer=self._summarizer, metadata={"framework": "langchain", **({"langchain_thread": thread} if thread else {})},
            session_config=config,
        )
        self._sessions[thread] = session
        return session

    def _store_obj(self) -> Any:
        from ..store import open_store

        if self._store is None or isinstance(self._store, str):
            self._store = open_store(self._store)
        return self._store

    def _session_for(self, request: ModelRequest) -> Session:
        thread = _thread_id()
        session = self._sessions.get(thread)
        if session is None:
            chat = self._model if isinstance(self._model, BaseChatModel) else request.model
            session = self._open(chat if isinstance(chat, BaseChatModel) else None, thread)
        self._current = session
        return session

    # --- one model call -----------------------------------------------------------------------
    def prepare(self, request: ModelRequest, session: Session | None = None) -> ModelRequest:
        """The request with its messages replaced by the Session's view (mirroring new ones first)."""
        session = session or self._session_for(request)
        session.system = request.system_prompt or ""
        session.tools = _tool_specs(request.tools)
        self._mirror.sync(session, from_langchain([m for m in request.messages if m.type != "system"]))
        b = session.build()
        self.last_build = b
        return request.override(messages=list[Any](to_langchain(b.messages)))

    def record(self, response: Any, session: Session | None = None) -> Any:
        """Store the model's answer (with its usage) and give the response back, ids filled in."""
        session = session or self.session
        result = getattr(response, "result", None)
        msgs: Sequence[BaseMessage] = result if isinstance(result, list) else [response] if isinstance(response, BaseMessage) else []
        for lc in msgs:
            if not isinstance(lc, AIMessage):
                continue
            if not lc.id:
                lc.id = f"lc_{uuid.uuid4().hex}"  # the state keeps this id, so the mirror knows the message
            m = message_from_langchain(lc)
            self._mirror.mark(session, m)
            session.record(m, usage_from_langchain(lc, session.model))
        return response

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        session = self._session_for(request)  # held for the call: another thread may run meanwhile
        return self.record(handler(self.prepare(request, session)), session)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        session = self._session_for(request)
        prepared = await asyncio.to_thread(self.prepare, request, session)
        return self.record(await handler(prepared), session)


def usage_from_langchain(message: AIMessage, model: str | None = None) -> Usage | None:
    """The provider-reported usage of an answer (``usage_metadata``), or None when it has none."""
    um = getattr(message, "usage_metadata", None)
    if not um:
        return None
    inp = um.get("input_token_details") or {}
    out = um.get("output_token_details") or {}
    return Usage(
        input_tokens=int(um.get("input_tokens") or 0),
        output_tokens=int(um.get("output_tokens") or 0),
        cache_read_tokens=int(inp.get("cache_read") or 0),
        cache_write_tokens=int(inp.get("cache_creation") or 0),
        reasoning_tokens=int(out.get("reasoning") or 0),
        model=model,
    )


def _model_name(chat: Any) -> str | None:
    for attr in ("model_name", "model", "model_id"):
        v = getattr(chat, attr, None)
        if isinstance(v, str) and v:
            return v
    return None


def _thread_id() -> str:
    try:
        from langgraph.config import get_config

        tid = get_config().get("configurable", {}).get("thread_id")
    except (ImportError, RuntimeError):
        return _NO_THREAD
    return str(tid) if tid is not None else _NO_THREAD


def _find_thread(store: Any, thread: str) -> str | None:
    """The newest conversation this middleware kept for LangGraph thread ``thread``."""
    for info in store.list_conversations():
        if info.metadata.get("langchain_thread") == thread and info.metadata.get("framework") == "langchain":
            return str(info.id)
    return None


def _tool_specs(tools: Sequence[Any]) -> list[ToolSpec]:
    """The request's tools as ToolSpecs (so their schemas count against the budget)."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    out = []
    for t in tools:
        try:
            fn = convert_to_openai_tool(t).get("function", {})
        except (ValueError, TypeError, NotImplementedError):
            continue  # provider built-in tools (dicts of another shape) have no schema to count
        if isinstance(fn, dict) and fn.get("name"):
            out.append(ToolSpec(fn["name"], fn.get("description") or "", fn.get("parameters") or {"type": "object", "properties": {}}))
    return out


class _ChatModelClient:
    """A LangChain chat model as contextwindow's ChatModel (for the LLM fold summarizer)."""

    def __init__(self, chat: BaseChatModel) -> None:
        self.chat = chat
        self.name = _model_name(chat) or type(chat).__name__
        profile = getattr(chat, "profile", None)
        self.window = profile.get("max_input_tokens") if isinstance(profile, dict) else None

    def complete(self, messages: Sequence[Message], *, system: str | None = None, max_tokens: int = 1024, tools: Any = None) -> Any:
        from ..llm.base import Completion

        lc = to_langchain(([Message("system", (TextPart(system),))] if system else []) + list(messages))
        answer = self.chat.invoke(lc)
        text = answer.text if isinstance(answer.text, str) else str(answer.content)
        usage = usage_from_langchain(answer, self.name) if isinstance(answer, AIMessage) else None
        return Completion(text=text, usage=usage or Usage(model=self.name))
