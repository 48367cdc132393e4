"""ContextWindowCapability on a real pydantic-ai agent, with pydantic-ai's own FunctionModel
recording every request it receives (and reporting usage the way FunctionModel does).

The run: three user turns (each continuing from ``result.all_messages()``); each turn the model
reads five huge build logs, one call at a time, then answers. The user's rule is stated once, in
the first message. The same script runs first with the history processor pydantic-ai's docs show
for long conversations (keep the last messages), as a ProcessHistory capability.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from contextwindow.errors import ConfigError
from contextwindow.integrations.pydantic_ai import ContextWindowCapability, from_pydantic_ai, to_pydantic_ai
from contextwindow.store import open_store

WINDOW = 24_000
RULE = "Never edit files under generated/."
TURNS = 3
STEPS = 6


def read_log(n: int) -> str:
    """Read build log number n."""
    return "\n".join(f"2026-11-23T10:{i // 60:02d}:{i % 60:02d} INFO [step {n}] compiled src/module_{i}.py ok" for i in range(900))


def size(messages: list[ModelMessage]) -> int:
    """What a provider would count, roughly: the JSON of the messages over 4."""
    return len(ModelMessagesTypeAdapter.dump_json(messages)) // 4


def run(capabilities: list[Any]) -> tuple[list[list[ModelMessage]], list[ModelMessage]]:
    received: list[list[ModelMessage]] = []
    step = [0]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(list(messages))
        k = step[0]
        step[0] += 1
        if k % STEPS < STEPS - 1:
            return ModelResponse(parts=[ToolCallPart("read_log", {"n": k}, tool_call_id=f"c{k}")])
        return ModelResponse(parts=[TextPart(f"Turn done at step {k}.")])

    agent = Agent(FunctionModel(model), tools=[read_log], capabilities=capabilities)
    history: list[ModelMessage] | None = None
    for turn in range(TURNS):
        prompt = f"Fix the failing build. {RULE}" if turn == 0 else f"Next: part {turn} of the build."
        history = agent.run_sync(prompt, message_history=history).all_messages()
    assert history is not None
    return received, history


def orphans(messages: list[ModelMessage]) -> list[str]:
    called, answered, bad = set(), set(), []
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolCallPart):
                called.add(p.tool_call_id)
            elif isinstance(p, ToolReturnPart):
                answered.add(p.tool_call_id)
                if p.tool_call_id not in called:
                    bad.append(f"result {p.tool_call_id} without its call")
    return bad + [f"call {c} without its result" for c in sorted(called - answered)]


# --- pydantic-ai's own handling ---------------------------------------------------------------


def keep_last(messages: list[ModelMessage]) -> list[ModelMessage]:
    return messages[-3:]


def test_keep_last_history_processor_orphans_a_result_which_pydantic_ai_now_drops_silently() -> None:
    """The keep-recent-messages processor cuts the history anywhere: on this run its output starts
    with a tool result whose call was cut away (pydantic-ai #2050). pydantic-ai 2.68 cleans the
    history before the request and drops that result, so the model does not get the orphan — it
    gets a history that starts with the assistant, without the dropped result (no marker says
    so) and without the user's rule."""
    received, history = run([ProcessHistory(keep_last)])
    cut = keep_last(history[:-1])  # what the processor made of the history before the last answer
    assert orphans(cut) and orphans(cut)[0].startswith("result")
    assert all(orphans(r) == [] for r in received)
    late = received[STEPS:]
    assert any(isinstance(r[0], ModelResponse) for r in late)
    assert all(RULE not in str(r) for r in late)
    print(f"\nProcessHistory(keep last 3): {len(received)} requests, peak {max(size(r) for r in received)} tokens, rule lost after turn 1")


# --- ours -------------------------------------------------------------------------------------


def test_long_run_stays_valid_within_the_window_and_keeps_the_rule(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'pa.db'}")
    cap = ContextWindowCapability(window=WINDOW, store=store)
    received, history = run([cap])
    session = cap.session
    budget = session.budget().history_budget
    assert len(received) == TURNS * STEPS
    for i, r in enumerate(received):
        assert orphans(r) == [], f"request {i}"
        assert isinstance(r[0], ModelRequest), f"request {i}"
        assert size(r) <= budget, f"request {i}"
    folds = store.list_checkpoints(session.id)
    assert len(folds) >= 2
    assert RULE in str(received[-1])
    # the full record, once per message, and the run's final answer in it
    stored = store.list(session.id)
    assert len(stored) == len(history) == TURNS * (1 + 2 * (STEPS - 1) + 1)
    assert stored[-1].message.role == "assistant" and stored[-1].message.text == f"Turn done at step {TURNS * STEPS - 1}."
    # the run's own history is whole (only each request was managed)
    assert sum(isinstance(p, ToolReturnPart) for m in history for p in m.parts) == TURNS * (STEPS - 1)
    assert session.spend()["main"]["calls"] == len(received)
    print(f"\nContextWindowCapability: {len(received)} requests, peak {max(size(r) for r in received)} tokens (history budget {budget}), 0 orphans, {len(folds)} folds, rule kept, {len(stored)} messages stored")


def test_resume_by_conversation_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pa.db'}"
    cap = ContextWindowCapability(window=WINDOW, store=url)
    _, history = run([cap])
    again = ContextWindowCapability(window=WINDOW, store=url, conversation_id=cap.session.id)
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart("ok")])

    Agent(FunctionModel(model), capabilities=[again]).run_sync("Where were we?", message_history=history)
    assert RULE in str(seen[0]) and orphans(seen[0]) == []
    assert len(open_store(url).list(cap.session.id)) == len(history) + 2  # only the new prompt and answer


# --- conversion -------------------------------------------------------------------------------


def sample() -> list[ModelMessage]:
    return [
        ModelRequest(parts=[
            SystemPromptPart("You fix builds."),
            UserPromptPart(["what is in these?", ImageUrl("https://example.org/a.png"), BinaryContent(b"\x89PNG\r\n", media_type="image/png")]),
        ]),
        ModelResponse(parts=[
            ThinkingPart("Let me look.", signature="EqQBCkYIAxgCIkD+sig==", provider_name="anthropic", id="th_1"),
            TextPart("Looking."),
            ToolCallPart("read_log", {"n": 1}, tool_call_id="c1"),
            ToolCallPart("read_log", '{"n": 2}', tool_call_id="c2"),
        ], model_name="claude-x"),
        ModelRequest(parts=[
            ToolReturnPart("read_log", {"lines": ["a", "b"]}, tool_call_id="c1"),
            ToolReturnPart("read_log", "bad arguments", tool_call_id="c2", outcome="retried"),
            UserPromptPart("and this too"),
        ]),
        ModelResponse(parts=[TextPart("Done.")]),
    ]


def test_round_trip_is_lossless_in_memory_and_through_the_store(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        msgs = sample()
    want = ModelMessagesTypeAdapter.dump_python(msgs, mode="json")
    ours = from_pydantic_ai(msgs)
    assert ModelMessagesTypeAdapter.dump_python(to_pydantic_ai(ours), mode="json") == want
    store = open_store(f"sqlite:///{tmp_path / 'rt.db'}")
    cid = store.create_conversation()
    store.append(cid, ours)
    assert ModelMessagesTypeAdapter.dump_python(to_pydantic_ai([sm.message for sm in store.list(cid)]), mode="json") == want
    assert [m.role for m in ours] == ["user", "assistant", "tool", "assistant"]
    kinds = [p.kind for m in ours for p in m.parts]
    assert kinds.count("image") == 2 and kinds.count("tool_call") == 2 and kinds.count("tool_result") == 2
    reasoning = next(p for m in ours for p in m.parts if p.kind == "reasoning")
    assert reasoning.signature == "EqQBCkYIAxgCIkD+sig=="


def test_window_from_the_registry_or_a_clear_error() -> None:
    assert ContextWindowCapability(model="openai:gpt-4o-mini", store="memory:").session.window == 128_000
    with pytest.raises(ConfigError, match="window="):
        _ = ContextWindowCapability(model="my-local-model", store="memory:").session


def test_importing_contextwindow_imports_no_framework() -> None:
    code = "import sys, contextwindow, contextwindow.integrations; assert 'pydantic_ai' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)




def test_bad_arguments_are_typed_errors() -> None:
    with pytest.raises(ConfigError, match="model must be a model name"):
        ContextWindowCapability(model=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="window must be a positive"):
        _ = ContextWindowCapability(window=-1, store="memory:").session
