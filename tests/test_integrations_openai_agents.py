"""ContextWindowSession + call_model_input_filter on a real OpenAI Agents SDK run, with the SDK's own
test model (agents.testing.ScriptedModel) recording every call's input and reporting usage.

The run: five user turns; each turn the model reads five huge build logs, one call at a time, then
answers. The user's rule is stated once, in the first message. The same script runs first with
the SDK's own SQLiteSession.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, SessionSettings, SQLiteSession, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from contextwindow.errors import ConfigError
from contextwindow.integrations.openai_agents import ContextWindowSession, from_items, to_items
from contextwindow.store import open_store

set_tracing_disabled(True)  # no trace export: nothing leaves the machine

WINDOW = 24_000
RULE = "Never edit files under generated/."
TURNS = 5
STEPS = 6  # five reads and an answer per turn


@function_tool
def read_log(n: int) -> str:
    """Read build log number n."""
    return "\n".join(f"2026-11-23T10:{i // 60:02d}:{i % 60:02d} INFO [step {n}] compiled src/module_{i}.py ok" for i in range(900))


def size(items: Any) -> int:
    """What a provider would count, roughly: the JSON of the input over 4."""
    return len(json.dumps(items)) // 4


def scripted() -> ScriptedModel:
    step = [0]

    def respond(call: Any) -> ModelStep:
        k = step[0]
        step[0] += 1
        n = size(call.input)
        usage = Usage(requests=1, input_tokens=n, output_tokens=10, total_tokens=n + 10)
        if k % STEPS < STEPS - 1:
            out: list[Any] = [ResponseFunctionToolCall(type="function_call", call_id=f"c{k}", name="read_log", arguments=json.dumps({"n": k}), id=f"fc{k}", status="completed")]
        else:
            out = [ResponseOutputMessage(type="message", role="assistant", id=f"m{k}", status="completed", content=[ResponseOutputText(type="output_text", text=f"Turn done at step {k}.", annotations=[])])]
        return ModelStep(output=out, usage=usage)

    return ScriptedModel([ModelStep.respond(respond) for _ in range(TURNS * STEPS)])


def run(session: Any, run_config: RunConfig | None = None, hooks: Any = None) -> ScriptedModel:
    model = scripted()
    agent = Agent(name="builder", instructions="You fix builds.", model=model, tools=[read_log])

    async def go() -> None:
        for turn in range(TURNS):
            text = f"Fix the failing build. {RULE}" if turn == 0 else f"Next: part {turn} of the build."
            kwargs: dict[str, Any] = {"session": session}
            if run_config is not None:
                kwargs["run_config"] = run_config
            if hooks is not None:
                kwargs["hooks"] = hooks
            await Runner.run(agent, text, **kwargs)

    asyncio.run(go())
    return model


def orphans(items: list[Any]) -> list[str]:
    called, answered, bad = set(), set(), []
    for it in items:
        kind = it.get("type") if isinstance(it, dict) else None
        if kind == "function_call":
            called.add(it["call_id"])
        elif kind == "function_call_output":
            answered.add(it["call_id"])
            if it["call_id"] not in called:
                bad.append(f"output {it['call_id']} without its call")
    return bad + [f"call {c} without its output" for c in sorted(called - answered)]


# --- the SDK's own session ---------------------------------------------------------------------


def test_sdk_sqlite_session_limit_returns_an_orphaned_output_and_runs_grow_past_the_window() -> None:
    """The SDK's SQLiteSession with SessionSettings(limit=N) hands back the latest N items, cut
    anywhere: here the list starts with a function_call_output whose call was cut off (the
    provider 400 "No tool call found for function call output"). The 0.24 Runner drops such an
    output before the call — silently, with no marker — so the model does not see the orphan; but
    nothing bounds a run's input, which grows past the window, and the user's rule is gone."""
    sdk = SQLiteSession("sdk", session_settings=SessionSettings(limit=4))
    model = run(sdk)
    items = asyncio.run(sdk.get_items(limit=4))
    assert items[0]["type"] == "function_call_output" and orphans(items)[0].startswith("output")
    assert all(orphans(c.input if isinstance(c.input, list) else []) == [] for c in model.calls)
    peak = max(size(c.input) for c in model.calls)
    assert peak > WINDOW
    assert RULE not in json.dumps(model.calls[-1].input)
    over = sum(size(c.input) > WINDOW for c in model.calls)
    print(f"\nSQLiteSession(limit=4): {len(model.calls)} calls, peak {peak} tokens, {over} over the {WINDOW}-token window, rule lost")


# --- ours ---------------------------------------------------------------------------------------


def test_long_run_stays_valid_within_the_window_and_keeps_the_rule(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'oa.db'}")
    s = ContextWindowSession("user-42", window=WINDOW, store=store)
    model = run(s, RunConfig(call_model_input_filter=s.call_model_input_filter), s.hooks)
    assert len(model.calls) == TURNS * STEPS
    budget = s.session.budget().history_budget
    for i, c in enumerate(model.calls):
        assert isinstance(c.input, list)
        assert orphans(c.input) == [], f"call {i}"
        assert c.input[0].get("role") == "user", f"call {i}"
        assert size(c.input) <= budget, f"call {i}"
    folds = store.list_checkpoints(s.conversation_id)
    assert len(folds) >= 2
    assert RULE in json.dumps(model.calls[-1].input)
    # the full record, once: every item of the five runs is a stored message, no duplicates
    stored = store.list(s.conversation_id)
    assert len(stored) == TURNS * (1 + 2 * (STEPS - 1) + 1)
    calls = [p.id for sm in stored for p in sm.message.tool_calls]
    assert len(calls) == len(set(calls)) == TURNS * (STEPS - 1)
    assert s.session.spend()["main"]["calls"] == len(model.calls)
    peak = max(size(c.input) for c in model.calls)
    print(f"\nContextWindowSession + filter: {len(model.calls)} calls, peak {peak} tokens (history budget {budget}), 0 orphans, {len(folds)} folds, rule kept, {len(stored)} messages stored")


def test_a_new_session_object_resumes_from_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'oa.db'}"
    s = ContextWindowSession("resume-me", window=WINDOW, store=url)
    run(s, RunConfig(call_model_input_filter=s.call_model_input_filter))
    again = ContextWindowSession("resume-me", window=WINDOW, store=url)
    assert again.conversation_id == s.conversation_id
    items = asyncio.run(again.get_items())
    assert orphans(items) == [] and RULE in json.dumps(items)


def test_pop_item_and_clear_session_keep_every_row(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'oa.db'}")
    s = ContextWindowSession("edit", window=WINDOW, store=store)
    seed = [
        {"role": "user", "content": "hello"},
        {"type": "function_call", "call_id": "c1", "name": "read_log", "arguments": "{\"n\": 1}"},
        {"type": "function_call_output", "call_id": "c1", "output": "log"},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hi.", "annotations": []}], "type": "message", "id": "m1", "status": "completed"},
    ]
    asyncio.run(s.add_items(seed))
    first = s.conversation_id
    popped = asyncio.run(s.pop_item())
    assert popped == seed[-1]
    assert s.conversation_id != first and len(store.list(first)) == 4  # the source keeps it
    assert asyncio.run(s.get_items()) == seed[:-1]
    asyncio.run(s.clear_session())
    assert asyncio.run(s.get_items()) == []
    assert asyncio.run(s.pop_item()) is None
    assert len(store.list(first)) == 4
    assert store.get_conversation(s.conversation_id).parent_id is not None
    # a new object for the same session id follows the current segment
    assert ContextWindowSession("edit", window=WINDOW, store=store).conversation_id == s.conversation_id


def test_items_round_trip_losslessly() -> None:
    items = [
        {"role": "user", "content": [
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "high"},
        ]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}], "encrypted_content": "gAAAAB-opaque"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_log", "arguments": "{\"n\":1}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "log text"},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "Done.", "annotations": []}]},
    ]
    ours = from_items(items)
    assert to_items(ours) == items
    reasoning = next(p for m in ours for p in m.parts if p.kind == "reasoning")
    assert reasoning.encrypted == "gAAAAB-opaque"
    assert [p.kind for m in ours for p in m.parts].count("image") == 1


def test_window_from_the_registry_or_a_clear_error() -> None:
    assert ContextWindowSession(model="gpt-4o-mini", store="memory:").session.window == 128_000
    with pytest.raises(ConfigError, match="window="):
        ContextWindowSession(model="my-local-model", store="memory:")


def test_importing_contextwindow_imports_no_framework() -> None:
    code = "import sys, contextwindow, contextwindow.integrations; assert 'agents' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bad_items_are_typed_errors_naming_them() -> None:
    from contextwindow.errors import PayloadError

    with pytest.raises(ConfigError, match="must be a dict or a model, got int"):
        from_items([42])
    with pytest.raises(PayloadError):
        from_items([{"type": "function_call", "name": "x"}])  # no call_id
