"""The OpenAI Agents SDK: a ``Session`` backed by contextwindow's store, plus a model-input filter.

::

    session = ContextWindowSession("user-42", window=128_000, store="sqlite:///agents.db")
    result = await Runner.run(agent, "…", session=session,
                              run_config=RunConfig(call_model_input_filter=session.call_model_input_filter))

The SDK reads a session once, when a run starts (``get_items``: here the compacted, folded,
provider-valid view within the budget), and writes the run's new items back (``add_items``:
appended to the store, tool outputs clipped at the door, user rules into the ledger). Inside one
long run the SDK keeps appending to the model input on its own; ``call_model_input_filter``
mirrors those new items into the store as they appear and hands every model call the Session's
view instead, so each call of the run is valid and within budget too. Items the filter already
stored are not stored again by ``add_items`` (both see the run's new items in the same order).

The store is append-only: ``clear_session`` starts a new, empty segment (a conversation whose
parent is the old one; the old one stays whole), ``pop_item`` forks the conversation without its
last item (the source keeps it). A root conversation per ``session_id`` remembers which segment
is current (state key ``openai_agents``).

Items are Responses API input items, converted by :mod:`contextwindow.formats.openai_responses`
(lossless both ways: reasoning with ``encrypted_content``, function calls and outputs, images).
Pass ``hooks=session.hooks`` to ``Runner.run`` to record each call's usage (calibration, gauge,
spend ledger) too.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..formats import openai_responses
from ..messages import Message
from ..session import Build, Session
from ..store import ConversationStore, Selection, open_store
from ..tools import ToolSpec
from ..usage import Usage
from ._base import as_summarizer, missing_extra, open_session, resolve_window

try:
    from agents import RunHooks
    from agents.run_config import CallModelData, ModelInputData
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra("openai-agents", "openai-agents", exc) from exc

__all__ = ["ContextWindowSession", "from_items", "to_items"]

STATE_KEY = "openai_agents"
_FRAMEWORK = "openai-agents"
_COPIED_STATE = ("constraints", "calibration")


def from_items(items: Sequence[Any]) -> list[Message]:
    """Agents SDK input items (dicts or SDK/OpenAI models) → messages."""
    return openai_responses.from_payload([_plain(it) for it in items])


def to_items(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages → Agents SDK input items (Responses API input items)."""
    payload = openai_responses.to_payload(messages)
    items = payload["input"]
    if isinstance(items, str):  # a lone user string
        return [{"role": "user", "content": items}]
    return list(items)


class ContextWindowSession:
    """An OpenAI Agents SDK ``Session`` whose history is a contextwindow conversation.

    ``session_id``: the SDK's id (default: the conversation id); ``model``: the model name whose
    window is managed (registry), or ``window=`` tokens; ``store``: URL or ConversationStore;
    ``conversation_id``: use this conversation as the root instead of finding/creating one by
    ``session_id``; ``summarizer``: a Summarizer or a ChatModel for folds (default extractive);
    ``session_config``: more Session options (``format`` default ``openai_responses``,
    ``config``, ``events``, ``max_output``)."""

    session_settings: Any = None

    def __init__(
        self,
        session_id: str | None = None,
        *,
        model: str | None = None,
        window: int | None = None,
        store: str | ConversationStore | None = None,
        conversation_id: str | None = None,
        summarizer: Any = None,
        **session_config: Any,
    ) -> None:
        if model is not None and not isinstance(model, str):
            model = getattr(model, "model", None) if isinstance(getattr(model, "model", None), str) else None
        self._store = open_store(store) if store is None or isinstance(store, str) else store
        self._name = model
        self._window, self._max_output = resolve_window(model, window, session_config.pop("max_output", None))
        self._summarizer = as_summarizer(summarizer)
        session_config.setdefault("format", "openai_responses")
        self._config = session_config
        self._root = conversation_id or (self._find_root(session_id) if session_id else None) or self._new_root(session_id)
        self.session_id = session_id or self._root
        self._session = self._open(self._current_id())
        self.last_build: Build | None = None
        self._served = 0  # items of the model input that came from get_items (the run's history)
        self._run: list[str] = []  # digests of the run's new items already in the store, in order
        self._added = 0  # how many of the run's new items add_items has been given
        self.hooks = _UsageHooks(self)

    # --- the Session ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        """The contextwindow Session of the current segment (gauge, spend, events, fold)."""
        return self._session

    @property
    def conversation_id(self) -> str:
        return self._session.id

    def _find_root(self, session_id: str) -> str | None:
        for info in self._store.list_conversations():
            md = info.metadata
            if md.get("framework") == _FRAMEWORK and md.get("agents_session_id") == session_id and md.get("root"):
                return info.id
        return None

    def _new_root(self, session_id: str | None) -> str:
        md: dict[str, Any] = {"framework": _FRAMEWORK, "root": True, **({"agents_session_id": session_id} if session_id else {})}
        if self._name:
            md["model"] = self._name
        return self._store.create_conversation(title=self._config.get("title"), metadata=md)

    def _current_id(self) -> str:
        st = self._store.get_state(self._root, STATE_KEY)
        cur = st.get("current") if isinstance(st, dict) else None
        return cur if isinstance(cur, str) else self._root

    def _open(self, conversation_id: str) -> Session:
        opts = {k: v for k, v in self._config.items() if k != "title"}
        return open_session(
            store=self._store, conversation_id=conversation_id, model=self._name, window=self._window, max_output=self._max_output,
            summarizer=self._summarizer, metadata={}, session_config=opts,
        )

    def _switch(self, conversation_id: str) -> None:
        self._store.set_state(self._root, STATE_KEY, {"current": conversation_id})
        self._session = self._open(conversation_id)
        self._served, self._run, self._added = 0, [], 0

    # --- the SDK Session protocol -------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The conversation as the model should see it: compacted and folded, valid, within the
        budget. ``limit`` keeps the latest items, widened back so no output loses its call.
        A new run starts here: the filter counts what follows as the run's new items."""
        items = await asyncio.to_thread(self._view_items)
        if limit is not None and limit >= 0:
            start = max(0, len(items) - limit)
            calls = {it.get("call_id"): i for i, it in enumerate(items) if str(it.get("type", "")).endswith("_call")}
            for it in items[start:]:
                if str(it.get("type", "")).endswith("_call_output") and it.get("call_id") in calls:
                    start = min(start, calls[it["call_id"]])
            items = items[start:] if limit else []
        self._served, self._run, self._added = len(items), [], 0
        return items

    async def add_items(self, items: list[Any]) -> None:
        """Append the run's new items (those the filter did not store already)."""
        todo = []
        for item in items:
            pos = self._added
            self._added += 1
            d = _digest(item)
            if pos < len(self._run) and self._run[pos] == d:
                continue  # stored by call_model_input_filter during the run
            if pos >= len(self._run):
                self._run.append(d)
            todo.append(item)
        if todo:
            await asyncio.to_thread(self._append, todo)

    async def pop_item(self) -> Any | None:
        """Remove and return the latest item: the conversation is forked without it (the source
        conversation keeps every row) and the fork becomes the current segment. None when the
        current segment holds no item after its last fold."""
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Start a new, empty segment; nothing is deleted (the old conversation is its parent)."""
        await asyncio.to_thread(self._clear)

    # --- inside one run ------------------------------------------------------------------------
    def call_model_input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """For ``RunConfig(call_model_input_filter=...)``: every model call of a run gets the
        Session's view (the run's new items mirrored into the store first)."""
        items = list(data.model_data.input)
        self._session.system = data.model_data.instructions or ""
        self._session.tools = _tool_specs(getattr(data.agent, "tools", None) or [])
        todo = []
        for pos, item in enumerate(items[self._served :]):
            d = _digest(item)
            if pos < len(self._run) and self._run[pos] == d:
                continue
            if pos >= len(self._run):
                self._run.append(d)
            todo.append(item)
        if todo:
            self._append(todo)
        b = self._build()
        return ModelInputData(input=list[Any](to_items(b.messages)), instructions=data.model_data.instructions)

    # --- helpers ---------------------------------------------------------------------------------
    def _view_items(self) -> list[dict[str, Any]]:
        cid = self._session.id
        if not self._store.list_active(cid) and self._store.latest_checkpoint(cid) is None:
            return []  # nothing yet: no build (an empty payload is not a request)
        return to_items(self._build().messages)

    def _build(self) -> Build:
        b = self._session.build()
        self.last_build = b
        return b

    def _append(self, items: Sequence[Any]) -> None:
        self._session.add(*from_items(items))
        if self._session.fold_due():
            self._session.fold(reason="auto")

    def _pop(self) -> Any | None:
        cid = self._session.id
        active = self._store.list_active(cid)
        if not active:
            return None
        items = to_items([active[-1].message])
        if not items:
            return None
        cp = self._store.latest_checkpoint(cid)
        fork = self._store.fork(cid, Selection(seqs=tuple(sm.seq for sm in active[:-1]), checkpoints=(cp.seq,) if cp else ()))
        for key in _COPIED_STATE:
            value = self._store.get_state(cid, key)
            if value is not None:
                self._store.set_state(fork, key, value)
        if len(items) > 1:
            self._store.append(fork, from_items(items[:-1]))
        self._switch(fork)
        self._session.events.emit("integration.pop_item", source=cid, fork=fork)
        return items[-1]

    def _clear(self) -> None:
        old = self._session.id
        new = self._store.create_conversation(
            title=self._config.get("title"), metadata={"framework": _FRAMEWORK, "cleared_from": old, **({"model": self._name} if self._name else {})},
            parent_id=old,
        )
        self._switch(new)
        self._session.events.emit("integration.clear_session", source=old, segment=new)

    def record_usage(self, usage: Usage) -> None:
        """One model call's usage into the Session (calibration, gauge, spend, limits)."""
        self._session.record(None, usage, auto_fold=False)


class _UsageHooks(RunHooks):
    """``Runner.run(..., hooks=session.hooks)``: each model call's usage goes to the Session."""

    def __init__(self, owner: ContextWindowSession) -> None:
        self.owner = owner

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        u = getattr(response, "usage", None)
        if u is None or not getattr(u, "requests", 1):
            return
        inp = getattr(u, "input_tokens_details", None)
        out = getattr(u, "output_tokens_details", None)
        self.owner.record_usage(Usage(
            input_tokens=int(getattr(u, "input_tokens", 0) or 0),
            output_tokens=int(getattr(u, "output_tokens", 0) or 0),
            cache_read_tokens=int(getattr(inp, "cached_tokens", 0) or 0),
            reasoning_tokens=int(getattr(out, "reasoning_tokens", 0) or 0),
            model=self.owner.session.model,
        ))


def _plain(item: Any) -> Any:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(exclude_unset=True, mode="json")
    raise ConfigError(f"an Agents SDK item must be a dict or a model, got {type(item).__name__}")


def _digest(item: Any) -> str:
    """What an item says, its SDK-assigned ids and status left out (both sides of a run see the
    same item, one of them sometimes without those)."""
    d = _plain(item)
    body = {k: v for k, v in d.items() if k not in ("id", "status")}
    raw = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _tool_specs(tools: Sequence[Any]) -> list[ToolSpec]:
    out = []
    for t in tools:
        schema = getattr(t, "params_json_schema", None)
        if isinstance(getattr(t, "name", None), str) and isinstance(schema, dict):
            out.append(ToolSpec(t.name, str(getattr(t, "description", "") or ""), schema))
    return out
