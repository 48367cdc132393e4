"""ContextWindowMiddleware on a real LangChain v1 agent (create_agent, LangGraph), with a chat model
that records every request it receives and reports usage the way a provider does.

The run: three user turns; each turn the model makes two parallel tool calls (a huge build log
and a small status), then three more huge reads, then answers. The user's rules are stated once,
in the first message. The same script runs under LangChain's own context handling first.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from contextwindow.errors import ConfigError
from contextwindow.integrations.langchain import ContextWindowMiddleware, from_langchain, to_langchain
from contextwindow.store import open_store

WINDOW = 24_000
RULES = ("Never edit files under generated/.", "Always run the linter before committing.")
TURNS = 5


class RecordingChatModel(BaseChatModel):
    """A chat model that answers by a script, records each request and reports its input size
    (LangChain's own approximate count standing in for a provider's usage)."""

    requests: list[list[BaseMessage]] = []  # noqa: RUF012 - a pydantic field, copied per instance
    script: Any = None

    @property
    def _llm_type(self) -> str:
        return "recording"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.requests.append(list(messages))
        answer = self.script(len(self.requests) - 1)
        answer.usage_metadata = {"input_tokens": count_tokens_approximately(messages), "output_tokens": 20, "total_tokens": 0}
        return ChatResult(generations=[ChatGeneration(message=answer)])


@tool
def read_log(n: int) -> str:
    """Read build log number n."""
    return "\n".join(f"2026-11-23T10:{i // 60:02d}:{i % 60:02d} INFO [step {n}] compiled src/module_{i}.py ok" for i in range(900))


@tool
def status(n: int) -> str:
    """A one-line status."""
    return f"status {n}: 3 tests failing"


def script(step: int) -> AIMessage:
    """Per turn: parallel (huge, small) calls, three more huge reads, then an answer."""
    k = step % 6
    if k == 0:
        return AIMessage("", tool_calls=[
            {"name": "read_log", "args": {"n": step}, "id": f"big_{step}"},
            {"name": "status", "args": {"n": step}, "id": f"small_{step}"},
        ])
    if k < 4:
        return AIMessage("", tool_calls=[{"name": "read_log", "args": {"n": step}, "id": f"call_{step}"}])
    if k == 4:
        return AIMessage("", tool_calls=[{"name": "status", "args": {"n": step}, "id": f"call_{step}"}])
    return AIMessage(f"Turn done after step {step}.")


def run(middleware: Sequence[Any], thread: str = "t1") -> tuple[RecordingChatModel, Any]:
    model = RecordingChatModel(script=script, requests=[])
    agent = create_agent(model, tools=[read_log, status], middleware=list(middleware), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": thread}}
    first = "Fix the failing tests in src/. " + " ".join(RULES)
    for turn in range(TURNS):
        agent.invoke({"messages": [HumanMessage(first if turn == 0 else f"Next: look at part {turn} of the build.")]}, config)
    return model, agent.get_state(config).values["messages"]


def orphans(messages: Sequence[BaseMessage]) -> list[str]:
    """Tool results without their call before them, and calls without their result after them."""
    called: set[str] = set()
    answered: set[str] = set()
    bad = []
    for m in messages:
        if isinstance(m, AIMessage):
            called |= {tc["id"] for tc in m.tool_calls}
        if isinstance(m, ToolMessage):
            answered.add(m.tool_call_id)
            if m.tool_call_id not in called:
                bad.append(f"result {m.tool_call_id} without its call")
    bad += [f"call {c} without its result" for c in sorted(called - answered)]
    return bad


def text_of(messages: Sequence[BaseMessage]) -> str:
    return "\n".join(m.content if isinstance(m.content, str) else json.dumps(m.content) for m in messages)


# --- LangChain's own handling, on the same run ------------------------------------------------


def test_trim_messages_orphans_a_tool_result_and_returns_empty_histories() -> None:
    """LangChain's trim_messages (strategy="last") on this history cuts between the parallel calls'
    results: the kept list starts with a tool result whose call was trimmed away (the provider 400
    of langchain #34282). With start_on="human" it returns an empty history instead."""
    _, history = run([])
    last_pair = max(i for i, m in enumerate(history) if isinstance(m, AIMessage) and len(m.tool_calls) == 2)
    tail = history[last_pair + 2 :]  # the small result and everything after it
    budget = count_tokens_approximately(tail) + 10
    trimmed = trim_messages(history, max_tokens=budget, token_counter=count_tokens_approximately, strategy="last")
    assert isinstance(trimmed[0], ToolMessage)
    assert orphans(trimmed) == [f"result {trimmed[0].tool_call_id} without its call"]
    assert trim_messages(history, max_tokens=budget, token_counter=count_tokens_approximately, strategy="last", start_on="human") == []


def test_summarization_middleware_keeps_pairs_but_sends_over_the_window() -> None:
    """LangChain's SummarizationMiddleware (langchain 1.4) no longer orphans on this run: its cut
    moves back to the AIMessage of a tool result. But it never clips a tool result, so it keeps
    the last messages whatever their size, and the model receives requests larger than the window."""
    summarizer = RecordingChatModel(script=lambda step: AIMessage("Summary of the work so far."), requests=[])
    mw = SummarizationMiddleware(model=summarizer, trigger=("tokens", WINDOW // 2), keep=("messages", 6))
    model, _ = run([mw])
    assert len(summarizer.requests) >= 2  # it did summarize
    assert all(orphans(r) == [] for r in model.requests)
    peak = max(count_tokens_approximately(r) for r in model.requests)
    assert peak > WINDOW
    over = sum(count_tokens_approximately(r) > WINDOW for r in model.requests)
    print(f"\nSummarizationMiddleware: {len(model.requests)} calls, peak {peak} tokens, {over} over the {WINDOW}-token window, 0 orphans")


# --- ours -------------------------------------------------------------------------------------


def test_long_agent_run_stays_valid_within_the_window_and_keeps_the_rules(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'lc.db'}")
    mw = ContextWindowMiddleware(window=WINDOW, store=store)
    model, history = run([mw])
    session = mw.session
    assert len(model.requests) == TURNS * 6
    for i, request in enumerate(model.requests):
        assert orphans(request) == [], f"request {i}"
        assert isinstance(request[0], HumanMessage), f"request {i} starts with {type(request[0]).__name__}"
        # the provider's count (here LangChain's estimate, which calibrates ours) leaves the output reserve free
        assert count_tokens_approximately(request) <= session.budget().history_budget, f"request {i}"
    folds = store.list_checkpoints(session.id)
    assert len(folds) >= 2
    last = text_of(model.requests[-1])
    for rule in RULES:
        assert rule in last
    # the full record: every message of the agent's state is in the store, once; the huge logs
    # were clipped at the door with their originals kept aside
    stored = store.list(session.id)
    keys = [sm.message.extra["langchain"]["key"] for sm in stored if "langchain" in sm.message.extra]
    assert sorted(keys) == sorted(m.id for m in history)
    refs = [r for sm in stored if sm.message.role == "tool" for r in re.findall(r"ofl_[0-9a-f]{16}", sm.message.text)]
    assert len(set(refs)) >= TURNS * 4  # every huge log was clipped at the door ...
    assert "compiled src/module_899.py ok" in store.get_offload(refs[0]).content  # ... and kept whole aside
    peak = max(count_tokens_approximately(r) for r in model.requests)
    print(
        f"\nContextWindowMiddleware: {len(model.requests)} calls, peak {peak} tokens (history budget {session.budget().history_budget}), "
        f"0 orphans, {len(folds)} folds, rules kept, {len(stored)} messages stored, {len(set(refs))} results clipped"
    )
    # accounting through the Session
    assert session.spend()["main"]["calls"] == len(model.requests)
    assert session.gauge().window == WINDOW


def test_a_new_middleware_resumes_the_thread_from_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lc.db'}"
    mw = ContextWindowMiddleware(window=WINDOW, store=url)
    run([mw], thread="resume")
    first = mw.session
    again = ContextWindowMiddleware(window=WINDOW, store=url)
    model = RecordingChatModel(script=lambda step: AIMessage("ok"), requests=[])
    agent = create_agent(model, tools=[], middleware=[again], checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("Where were we?")]}, {"configurable": {"thread_id": "resume"}})
    assert again.session.id == first.id
    assert all(rule in text_of(model.requests[0]) for rule in RULES)


# --- conversion -------------------------------------------------------------------------------


def sample() -> list[BaseMessage]:
    return [
        SystemMessage("You are careful.", id="s1"),
        HumanMessage("plain", id="h1"),
        HumanMessage(
            [
                {"type": "text", "text": "what is in these?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
                {"type": "image", "url": "https://example.org/a.png"},
                {"type": "image", "base64": "R0lGODlh", "mime_type": "image/gif"},
                "a bare string block",
            ],
            id="h2",
        ),
        AIMessage(
            [
                {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBCkYIAxgCIkD+sig=="},
                {"type": "redacted_thinking", "data": "opaque-bytes=="},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"p": "x"}},
            ],
            tool_calls=[{"name": "grep", "args": {"p": "x", "n": [1, 2]}, "id": "toolu_1"}],
            id="a1",
            response_metadata={"model_name": "claude-x", "stop_reason": "tool_use"},
            usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        ),
        ToolMessage("no match", tool_call_id="toolu_1", name="grep", status="error", id="t1"),
        ToolMessage(
            [{"type": "text", "text": "screenshot:"}, {"type": "image", "base64": "AAAA", "mime_type": "image/png"}],
            tool_call_id="toolu_1", id="t2", artifact={"path": "/tmp/s.png"},
        ),
        AIMessage("Done.", id="a2", additional_kwargs={"refusal": None}),
    ]


def test_round_trip_is_lossless_in_memory_and_through_the_store(tmp_path: Path) -> None:
    msgs = sample()
    ours = from_langchain(msgs)
    assert to_langchain(ours) == msgs
    store = open_store(f"sqlite:///{tmp_path / 'rt.db'}")
    cid = store.create_conversation()
    store.append(cid, ours)
    assert to_langchain([sm.message for sm in store.list(cid)]) == msgs
    kinds = [p.kind for m in ours for p in m.parts] + [c.kind for m in ours for r in m.tool_results for c in r.content]
    assert kinds.count("image") == 4 and kinds.count("reasoning") == 2 and kinds.count("tool_call") == 1
    reasoning = next(p for m in ours for p in m.parts if p.kind == "reasoning")
    assert reasoning.signature == "EqQBCkYIAxgCIkD+sig=="


def test_window_from_the_model_profile_or_a_clear_error() -> None:
    model = RecordingChatModel(script=script, requests=[], profile={"max_input_tokens": 50_000, "max_output_tokens": 4_000})
    mw = ContextWindowMiddleware(model=model, store="memory:")
    assert mw.session.window == 50_000
    assert ContextWindowMiddleware(model="gpt-4o-mini", store="memory:").session.window == 128_000
    with pytest.raises(ConfigError, match="window="):
        _ = ContextWindowMiddleware(model=RecordingChatModel(script=script, requests=[]), store="memory:").session
    with pytest.raises(ConfigError, match="window must be a positive"):
        _ = ContextWindowMiddleware(window=0, store="memory:").session


def test_importing_contextwindow_imports_no_framework() -> None:
    code = (
        "import sys, contextwindow, contextwindow.integrations; "
        "bad = [m for m in ('langchain', 'langchain_core', 'agents', 'pydantic_ai') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)



def test_async_agent_runs_through_awrap_model_call(tmp_path: Path) -> None:
    import asyncio

    mw = ContextWindowMiddleware(window=WINDOW, store=f"sqlite:///{tmp_path / 'lc.db'}")
    model = RecordingChatModel(script=script, requests=[])
    agent = create_agent(model, tools=[read_log, status], middleware=[mw], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "async"}}
    asyncio.run(agent.ainvoke({"messages": [HumanMessage("Fix it. " + RULES[0])]}, config))
    assert len(model.requests) == 6 and all(orphans(r) == [] for r in model.requests)
    history = agent.get_state(config).values["messages"]
    assert len(mw.session.store.list(mw.session.id)) == len(history)


def test_a_langchain_chat_model_can_be_the_fold_summarizer() -> None:
    brief = "## Goal\nFix the build.\n\n## State & done\nRead the logs.\n\n## Next steps\nRun the tests."
    summarizer = RecordingChatModel(script=lambda step: AIMessage(brief), requests=[])
    mw = ContextWindowMiddleware(window=WINDOW, store="memory:", summarizer=summarizer)
    model = RecordingChatModel(script=lambda step: AIMessage("Noted."), requests=[])
    agent = create_agent(model, tools=[], middleware=[mw])
    agent.invoke({"messages": [HumanMessage("Fix the build. " + RULES[0])]})
    cp = mw.session.fold()
    assert summarizer.requests, "the chat model wrote the brief"
    assert cp.meta["method"].startswith("llm") and "Run the tests." in cp.summary.text
    assert RULES[0] in cp.summary.text  # the ledger's rules are carried whatever the summarizer wrote
    assert mw.session.spend()["summarizer"]["calls"] == len(summarizer.requests)


def test_bad_input_is_a_typed_error_naming_it() -> None:
    from langchain_core.messages import ChatMessage

    from contextwindow.errors import PayloadError

    with pytest.raises(PayloadError, match="unsupported LangChain message type 'chat'"):
        from_langchain([HumanMessage("hi"), ChatMessage("x", role="critic")])
    with pytest.raises(ConfigError, match="model must be a LangChain chat model"):
        ContextWindowMiddleware(model=42)  # type: ignore[arg-type]


def test_an_adapter_session_has_no_default_limits_but_keeps_the_ones_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """A middleware lives as long as the app: the Session's out-of-the-box limits (30 minutes from
    construction, 1M tokens) would refuse every call of a long-lived agent. Only limits set by
    variable or by a passed config bind."""
    from contextwindow.budget import Limits
    from contextwindow.session import SessionConfig

    for var in ("CONTEXTWINDOW_MAX_TURNS", "CONTEXTWINDOW_MAX_TOKENS", "CONTEXTWINDOW_MAX_TOOL_CALLS",
                "CONTEXTWINDOW_MAX_COST_USD", "CONTEXTWINDOW_MAX_WALL_S"):
        monkeypatch.delenv(var, raising=False)
    assert ContextWindowMiddleware(window=WINDOW, store="memory:").session.config.limits == Limits()
    monkeypatch.setenv("CONTEXTWINDOW_MAX_COST_USD", "3")
    assert ContextWindowMiddleware(window=WINDOW, store="memory:").session.config.limits == Limits(max_cost_usd=3.0)
    cfg = SessionConfig(limits=Limits(max_turns=7))
    assert ContextWindowMiddleware(window=WINDOW, store="memory:", config=cfg).session.config.limits.max_turns == 7
