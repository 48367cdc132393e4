"""Session: the one assembler. Real SQLite store, real local HTTP provider, scripted models."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from contextwindow.budget import BudgetConfig
from contextwindow.compaction import CompactionConfig
from contextwindow.compaction.cache import CacheConfig
from contextwindow.errors import ConfigError, ContextOverflowError
from contextwindow.events import Recorder
from contextwindow.folding import LLMSummarizer
from contextwindow.llm.base import Completion, ScriptedModel
from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store
from contextwindow.turns import validate
from contextwindow.usage import Usage


@pytest.fixture
def store(tmp_path: Path):
    s = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield s
    s.close()


def lines(n: int, tag: str) -> str:
    return "\n".join(f"{tag}/file_{i}.py:{i}: def handler_{i}(request): return process(request, retries={i})" for i in range(n))


def step(i: int, size: int = 120) -> tuple[Message, Message]:
    cid = f"call_{i}"
    call = Message("assistant", (TextPart(f"step {i}"), ToolCallPart(cid, "bash", json.dumps({"cmd": f"grep -rn handler src/{i}"}))))
    res = Message("tool", (ToolResultPart(cid, (TextPart(lines(size, f"src{i}")),)),))
    return call, res


def reply(text: str, input_tokens: int) -> Completion:
    msg = Message("assistant", (TextPart(text),))
    return Completion(text=text, usage=Usage(input_tokens=input_tokens, output_tokens=10), message=msg)


def small_session(store, window: int = 12_000, **kw) -> Session:
    cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None, **kw)
    return Session(store, window=window, max_output=1_000, system="You are a careful coding agent.", config=cfg)


def test_build_is_valid_and_prefix_stable_without_compaction(store) -> None:
    s = small_session(store, window=200_000)
    s.add(Message("user", (TextPart("Find the handler."),)))
    payloads = []
    for i in range(4):
        call, res = step(i, 10)
        s.add(call, res)
        b = s.build()
        assert b.compaction is None
        assert b.payload["messages"][0]["role"] == "system"
        payloads.append(b.payload["messages"])
        if i:
            assert b.prefix_share > 0.5
            assert payloads[i][: len(payloads[i - 1])] == payloads[i - 1]
    assert validate(b.messages, provider="openai") == []


def test_compaction_keeps_payload_in_budget_and_store_append_only(store) -> None:
    rec = Recorder()
    s = small_session(store)
    s.events.subscribe(rec)
    s.add(Message("user", (TextPart("Refactor the handlers. Never change the public API."),)))
    for i in range(30):
        s.add(*step(i, 40))
        b = s.build()
        assert b.tokens - b.budget.system - b.budget.tools <= b.budget.history_budget
        assert validate(b.messages, provider="openai") == []
    applied = rec.named("compaction.applied")
    assert applied, "a long session must compact"
    assert all(e.data["tokens_after"] < e.data["tokens_before"] for e in applied if e.data["steps"])
    # append-only: every message we added is still in the store, unchanged
    assert len(store.list(s.id)) == 1 + 30 * 2
    text = json.dumps(b.payload)
    assert "retrieve(ref=" in text  # a marker says how to get the dropped content back


def test_prefix_is_byte_identical_between_compaction_events(store) -> None:
    s = small_session(store)
    applied: list[str] = []  # a compaction event: a pass, or the per-call clear (Build.compaction reports passes only)
    s.events.subscribe(lambda ev: applied.append(ev.name) if ev.name == "compaction.applied" else None)
    s.add(Message("user", (TextPart("Go."),)))
    prev = None
    stable, cleared, folded = 0, 0, 0
    cleared_marker = re.compile(r'\A\[bash result cleared, ~\d+ tokens: retrieve\(ref="msg-\d+"\) or re-run it\]\Z')
    for i in range(40):
        s.add(*step(i, 60))
        events = len(applied)
        fold_before = s.store.latest_checkpoint(s.id)
        b = s.build()
        cur = b.payload["messages"]
        if prev is not None and len(applied) == events:
            assert cur[: len(prev)] == prev
            stable += 1
        elif prev is not None:
            # a compaction event breaks the prefix only where it changed something: the bytes before
            # the first changed message are the last call's, and that message is what the event made
            k = next(j for j in range(min(len(cur), len(prev))) if cur[j] != prev[j])
            assert k >= 1 and cur[:k] == prev[:k] and cur[0]["role"] == "system"
            if s.store.latest_checkpoint(s.id) != fold_before:  # a fold: the summary follows the system prompt
                assert k == 1 and cur[1]["content"].startswith("This conversation continues from an earlier part")
                folded += 1
            else:  # a clear: the first change is a cleared result, and every later change is one too
                assert cur[k]["role"] == "tool" and cleared_marker.match(cur[k]["content"]), cur[k]
                assert all(c == p or (c["role"] == "tool" and cleared_marker.match(c["content"])) for c, p in zip(cur[k:], prev[k:], strict=False))
                cleared += 1
        prev = cur
        s.record(Message("assistant", (TextPart(f"noted {i}"),)))
        s.add(Message("user", (TextPart(f"continue {i}"),)))
    assert stable >= 10 and cleared >= 2 and folded >= 2, (stable, cleared, folded)


def test_constraints_survive_five_folds_and_superseded_values_are_dropped(store) -> None:
    s = small_session(store, window=60_000)
    s.add(Message("user", (TextPart("Port the CLI to click. Never push to main. The budget cap is $50 for this task."),)))
    s.record(Message("assistant", (TextPart("Understood."),)))
    for r in range(5):
        if r == 2:
            s.add(Message("user", (TextPart("Change of plan: the budget cap is $80 for this task."),)))
        else:
            s.add(Message("user", (TextPart(f"Round {r}: keep going."),)))
        s.add(*step(r, 20))
        s.record(Message("assistant", (TextPart(f"round {r} done"),)))
        s.fold()
    summary = store.latest_checkpoint(s.id).summary.text
    assert "Never push to main." in summary
    assert "the budget cap is $80 for this task." in summary
    assert "$50" not in summary
    assert len(store.list_checkpoints(s.id)) == 5
    b = s.build()
    assert b.messages[0].meta.get("cw") == "fold_summary"


def test_fold_requires_turn_boundary(store) -> None:
    s = small_session(store)
    s.add(Message("user", (TextPart("hi"),)))
    s.add(step(0)[0])
    with pytest.raises(ConfigError, match="turn boundary"):
        s.fold()


def test_reactive_overflow_forces_compaction_then_succeeds(store) -> None:
    # cache=None: the per-call clearing would already clear the old results in the first (uncached) build
    s = small_session(store, window=200_000, cache=None)
    s.add(Message("user", (TextPart("Go."),)))
    for i in range(6):
        s.add(*step(i, 80))
    model = ScriptedModel([ContextOverflowError("prompt is too long: 250000 tokens > 200000 maximum", status=400), "fine"])
    done = s.call(model)
    assert done.text == "fine"
    assert len(model.calls) == 2
    first, second = (sum(len(m.text) for m in c.messages) for c in model.calls)
    assert second < first * 0.8


def test_provider_that_keeps_overflowing_ends_in_typed_error(store) -> None:
    s = small_session(store, window=200_000)
    s.add(Message("user", (TextPart("Go."),)))
    s.add(*step(0, 50))
    model = ScriptedModel(lambda msgs, system: ContextOverflowError("maximum context length exceeded", status=400))
    with pytest.raises(ContextOverflowError):
        s.call(model)
    assert len(model.calls) == s.config.max_reactive_retries + 1


def test_auto_fold_on_reported_usage_at_turn_boundary(store) -> None:
    rec = Recorder()
    s = small_session(store, window=20_000)
    s.events.subscribe(rec)
    s.add(Message("user", (TextPart("Summarize the repo."),)))
    s.add(*step(0, 10))
    s.record(reply("working", input_tokens=1_000))  # below threshold: no fold
    assert not rec.named("fold.applied")
    s.add(Message("user", (TextPart("More."),)))
    s.record(reply("all done", input_tokens=18_000))  # 90% of the window, at a turn boundary
    folds = rec.named("fold.applied")
    assert len(folds) == 1 and folds[0].data["reason"] == "auto"


def test_llm_fold_over_real_http_sends_one_flat_transcript(store) -> None:
    brief = "## Goal\nPort the CLI.\n## Progress\nDone step 0 in src0/file_1.py\n## Remaining\nstep 1\n## Constraints & preferences\n- Never push to main."
    with LocalProviderServer([Reply(text=brief, input_tokens=900, output_tokens=80)]) as srv:
        model = OpenAICompatibleModel("local-summarizer", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        s = small_session(store, window=60_000)
        s.summarizer = LLMSummarizer(model, window=32_000, count=s.counter.count_text)
        s.add(Message("user", (TextPart("Port the CLI. Never push to main."),)))
        s.add(*step(0, 5))
        s.record(Message("assistant", (TextPart("step 0 done"),)))
        s.fold()
        sent = srv.requests[0].body["messages"]
    user_msgs = [m for m in sent if m["role"] == "user"]
    assert len(user_msgs) == 1
    content = user_msgs[0]["content"] if isinstance(user_msgs[0]["content"], str) else user_msgs[0]["content"][0]["text"]
    assert "USER: Port the CLI." in content and "TOOL(bash):" in content
    assert "Port the CLI." in store.latest_checkpoint(s.id).summary.text
    assert store.usage_by_role(s.id)["summarizer"]["input_tokens"] == 900


def test_summarizer_5xx_falls_back_to_extractive_brief(store) -> None:
    rec = Recorder()
    with LocalProviderServer(lambda req: Reply.error(503, {"error": {"message": "overloaded"}})) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=(0, 0)))
        s = small_session(store, window=60_000)
        s.events.subscribe(rec)
        s.summarizer = LLMSummarizer(model, count=s.counter.count_text)
        s.add(Message("user", (TextPart("Fix it. Always run pytest."),)))
        s.record(Message("assistant", (TextPart("fixed"),)))
        s.fold()
    ev = rec.named("fold.applied")[0]
    assert ev.data["method"] == "extractive" and ev.data["ok"] is False
    assert ev.data["error"]
    assert "Always run pytest." in store.latest_checkpoint(s.id).summary.text


def test_async_fold_and_call(store) -> None:
    s = small_session(store, window=60_000)
    s.add(Message("user", (TextPart("Go."),)))

    async def run() -> None:
        await s.acall(ScriptedModel(["done"]))
        await s.afold()

    asyncio.run(run())
    assert store.latest_checkpoint(s.id) is not None


def test_steering_never_splits_a_call_from_its_result(store) -> None:
    s = small_session(store, window=200_000)
    s.add(Message("user", (TextPart("Start."),)))
    call, res = step(0, 3)
    s.add(call)
    s.steer("Also check the docs folder.")
    b = s.build()  # a call is waiting for its result: the steering text must wait too
    assert "docs folder" not in json.dumps(b.payload)
    s.add(res)
    b = s.build()
    roles = [m["role"] for m in b.payload["messages"]]
    assert roles[-2:] == ["tool", "user"]
    assert "docs folder" in json.dumps(b.payload["messages"][-1])
    assert validate(b.messages, provider="openai") == []


def test_steering_joins_the_next_user_message(store) -> None:
    s = small_session(store, window=200_000)
    s.steer("Prefer small commits.")
    s.add(Message("user", (TextPart("Refactor utils."),)))
    stored = store.list(s.id)
    assert len(stored) == 1 and "Prefer small commits." in stored[0].message.text
    assert [c.text for c in s.constraints()] == ["Prefer small commits."]


def test_admitted_system_prompt_and_runtime_block_keep_the_prefix_cacheable(store, tmp_path: Path) -> None:
    from contextwindow.admission import admit

    (tmp_path / "AGENTS.md").write_text("Use ruff. Never commit secrets.\n")
    skill = tmp_path / ".agents" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship the service\n---\nRun make deploy.\n")
    adm = admit(tmp_path, None)
    cfg = SessionConfig(clip_budget_tokens=None)
    s = Session(store, window=200_000, max_output=4_000, system=adm, runtime_block=True, config=cfg)
    assert any(t.name == "read_skill" for t in s.tools)
    s.add(Message("user", (TextPart("Deploy it."),)))
    first = s.build().payload
    assert "Never commit secrets." in first["messages"][0]["content"]
    assert "deploy: Ship the service" in first["messages"][0]["content"]
    assert "Run make deploy." not in json.dumps(first)
    s.add(*step(0, 3))
    second = s.build().payload
    # everything but the trailing runtime block is a byte-identical prefix
    assert second["messages"][: len(first["messages"]) - 1] == first["messages"][:-1]
    assert second["messages"][-1] != first["messages"][-1]


def test_masked_results_read_back_through_retrieve(store) -> None:
    import re

    s = small_session(store)
    s.add(Message("user", (TextPart("Go."),)))
    seen: dict[str, str] = {}  # ref -> kind, over every build: masking comes first, a fold later
    for i in range(13):
        s.add(*step(i, 40))
        # the last build is forced (as after a provider overflow): a pass folds the masked steps
        text = json.dumps(s.build(force=i == 12).payload)
        for ref in re.findall(r'retrieve\(ref=\\"((?:msg|span)-[A-Za-z0-9_-]+)\\"', text):
            seen.setdefault(ref, ref.split("-")[0])
    masked = [r for r, k in seen.items() if k == "msg"]
    folded = [r for r, k in seen.items() if k == "span"]
    assert masked, "some builds mask old tool results and name each masked message"
    assert folded, "a later build folds the masked steps and names their span"
    for ref in masked + folded:
        out = s.run_retrieve(ToolCallPart("r1", "retrieve", json.dumps({"ref": ref, "grep": "handler_7\\b"})))
        part = out.tool_results[0]
        assert not part.is_error and "handler_7(request)" in part.text, ref
    bad = s.run_retrieve(ToolCallPart("r2", "retrieve", json.dumps({"ref": "../../etc/passwd"})))
    assert bad.tool_results[0].is_error and "root:" not in bad.tool_results[0].text


def test_clipped_tool_result_is_offloaded_and_retrievable(store) -> None:
    cfg = SessionConfig(clip_budget_tokens=300)
    s = Session(store, window=200_000, max_output=4_000, config=cfg)
    s.add(Message("user", (TextPart("Search."),)))
    call, res = step(0, 400)
    stored = s.add(call, res)
    kept = stored[1].message.tool_results[0].text
    assert len(kept) < len(res.text) / 5
    ref = re.search(r"(ofl_[0-9a-f]+)", kept).group(1)  # type: ignore[union-attr]
    back = s.run_retrieve(ToolCallPart("r", "retrieve", json.dumps({"ref": ref, "offset": 390, "limit": 5})))
    assert "handler_391(request)" in back.tool_results[0].text


def test_subagent_has_its_own_conversation_and_returns_a_clipped_result(store) -> None:
    parent = small_session(store, window=200_000)
    parent.add(Message("user", (TextPart("Research the codebase."),)))
    parent.add(Message("assistant", (ToolCallPart("sub1", "task", json.dumps({"prompt": "find handlers"})),)))
    child = parent.subagent(title="find handlers")
    assert child.id != parent.id and store.get_conversation(child.id).parent_id == parent.id
    child.add(Message("user", (TextPart("find handlers"),)), *step(0, 30))
    child.record(Message("assistant", (TextPart(lines(300, "found")),)))
    report = store.list(child.id)[-1].message.text
    parent.config = SessionConfig(clip_budget_tokens=500)
    stored = parent.add(Message("tool", (ToolResultPart("sub1", (TextPart(report),), name="task"),)))
    assert len(stored[0].message.text) < len(report) / 3
    assert len(store.list(parent.id)) == 3


def test_provider_usage_calibrates_the_estimate(store) -> None:
    rec = Recorder()
    s = small_session(store, window=200_000)
    s.events.subscribe(rec)
    s.add(Message("user", (TextPart("Go."),)), *step(0, 40))
    first = s.build()
    s.record(reply("noted", input_tokens=int(first.tokens * 1.4)))
    s.add(Message("user", (TextPart("Next."),)))
    s.build()
    factor = rec.named("build")[-1].data["calibration"]
    assert 1.3 < factor < 1.5


def test_background_fold_does_not_block_and_keeps_messages_added_meanwhile(store) -> None:
    import threading

    gate = threading.Event()

    def slow_summary(msgs, system):
        if not threading.current_thread().name.startswith(threading.main_thread().name):  # the deadline thread is named after its caller
            assert gate.wait(5)  # the background fold is still working while the agent goes on
        return "## Goal\nship it\n## Progress\nall of turn one\n## Remaining\nturn two"

    s = small_session(store, window=20_000)
    s.summarizer = LLMSummarizer(ScriptedModel(slow_summary), count=s.counter.count_text)
    s.add(Message("user", (TextPart("Ship it. Never skip the changelog."),)))
    main = ScriptedModel([Completion(text="turn one done", usage=Usage(input_tokens=18_000), message=Message("assistant", (TextPart("turn one done"),)))])

    async def run() -> None:
        await s.acall(main)
        assert s.pending_fold is not None and not s.pending_fold.done()
        s.add(Message("user", (TextPart("Now turn two."),)))
        b = s.build()  # the fold is not stored yet; the budget check still runs
        assert b.messages[0].meta.get("cw") != "fold_summary"
        gate.set()
        cp = await s.pending_fold
        assert cp is not None

    asyncio.run(run())
    b = s.build()
    assert b.messages[0].meta.get("cw") == "fold_summary"
    assert "Never skip the changelog." in b.messages[0].text
    assert b.messages[-1].text == "Now turn two."


def test_fold_summary_names_a_span_ref_that_reads_the_originals_back(store) -> None:
    s = small_session(store, window=60_000)
    s.add(Message("user", (TextPart("Audit the handlers."),)), *step(0, 30))
    s.record(Message("assistant", (TextPart("audited"),)))
    s.fold()
    text = store.latest_checkpoint(s.id).summary.text
    ref = re.search(r'retrieve\(ref="(span-[A-Za-z0-9_]+-[A-Za-z0-9_]+)"', text).group(1)  # type: ignore[union-attr]
    out = s.run_retrieve(ToolCallPart("r", "retrieve", json.dumps({"ref": ref, "grep": "handler_17\\b"})))
    assert not out.tool_results[0].is_error and "handler_17(request)" in out.tool_results[0].text


def test_assistant_first_history_is_made_valid_for_anthropic(store) -> None:
    s = Session(store, window=200_000, max_output=4_000, format="anthropic", config=SessionConfig(clip_budget_tokens=None))
    s.add(Message("assistant", (TextPart("Resuming where the previous session stopped."),)))
    s.add(Message("user", (TextPart("Go on."),)))
    b = s.build()
    assert b.payload["messages"][0]["role"] == "user"
    assert validate(b.messages, provider="anthropic") == []
    assert store.list(s.id)[0].message.role == "assistant"  # the record is untouched


def test_in_flight_summaries_are_on_the_spend_ledger(store) -> None:
    brief = Completion(text="## Goal\nkeep going\n## Progress\nsteps 0-9 read src/*\n## Remaining\nmore", usage=Usage(input_tokens=700, output_tokens=60))
    s = small_session(store, window=8_000, compaction=CompactionConfig(strategies=("summarize", "drop_turns", "squeeze")))
    s.summarizer = LLMSummarizer(ScriptedModel(lambda msgs, system: brief), count=s.counter.count_text)
    for t in range(6):
        s.add(Message("user", (TextPart(f"turn {t}"),)), *step(t, 60))
        s.record(Message("assistant", (TextPart(f"done {t}"),)))
        s.build()
    spend = store.usage_by_role(s.id)
    assert spend["summarizer"]["input_tokens"] >= 700


def test_a_pass_that_cannot_reach_the_trigger_is_not_repeated_every_call(store) -> None:
    rec = Recorder()
    # a cost-aware trigger below the budget (max_trigger 0.9; the default, 1.0, puts the latest one at the budget itself)
    s = small_session(store, window=12_000, cache=CacheConfig(max_trigger=0.9))
    s.events.subscribe(rec)
    # one protected message above the trigger (0.9 of the history budget)
    s.add(Message("user", (TextPart("Spec:\n" + lines(300, "spec")),)))
    for i in range(5):
        s.build()
        s.record(Message("assistant", (TextPart(f"ack {i}"),)))
        s.add(Message("user", (TextPart(f"ok {i}"),)))
    passes = rec.named("compaction.applied") + rec.named("compaction.noop")
    assert len(passes) == 1, [e.name for e in passes]
    b = s.build()
    assert b.tokens <= s.window  # still inside the budget: the hold never lets it overflow


def test_abuild_runs_an_in_flight_summary_off_the_event_loop(store) -> None:
    import threading

    seen: list[bool] = []

    def summary(msgs, system):
        seen.append(threading.current_thread() is threading.main_thread())
        return "## Goal\nkeep going\n## Progress\nearlier turns done\n## Remaining\nnext"

    s = small_session(store, window=8_000, compaction=CompactionConfig(strategies=("summarize", "drop_turns", "squeeze")))
    s.summarizer = LLMSummarizer(ScriptedModel(summary), count=s.counter.count_text)
    for t in range(6):
        s.add(Message("user", (TextPart(f"turn {t}"),)), *step(t, 60))
        s.record(Message("assistant", (TextPart(f"done {t}"),)))

    async def run() -> None:
        await s.abuild(force=True)  # a pass now, whatever the trigger: its summary is the model call

    asyncio.run(run())
    assert seen and not any(seen)  # the summarizer ran, and never on the loop's thread


def test_a_tool_cannot_skip_clipping_by_printing_the_retrieve_header(store) -> None:
    from contextwindow.clipping import RETRIEVE_HEADER

    s = Session(store, window=200_000, max_output=4_000, config=SessionConfig(clip_budget_tokens=300))
    s.add(Message("user", (TextPart("Go."),)), Message("assistant", (ToolCallPart("x", "bash", "{}"),)))
    fake = RETRIEVE_HEADER + " ref=ofl_0000000000000000]\n" + lines(400, "fake")
    stored = s.add(Message("tool", (ToolResultPart("x", (TextPart(fake),)),)))
    assert len(stored[0].message.text) < len(fake) / 5


def test_a_long_non_brief_reply_falls_back_to_the_extractive_brief(store) -> None:
    from contextwindow.folding import SummaryRequest

    page = "<html><body>" + "<p>Service temporarily unavailable, please retry later.</p>" * 40 + "</body></html>"
    summ = LLMSummarizer(ScriptedModel([page]), count=lambda t: len(t) // 4)
    out = summ.summarize(SummaryRequest(messages=[Message("user", (TextPart("Fix the bug. Never push."),))], constraints=("Never push.",)))
    assert out.method == "extractive" and not out.ok and "no brief" in (out.error or "")
    assert "Never push." in out.text


def test_reactive_retry_aims_by_the_providers_own_count(store) -> None:
    rec = Recorder()
    body = {"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 30000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}
    with LocalProviderServer([Reply.error(400, body), Reply(text="fits now")]) as srv:
        model = OpenAICompatibleModel("local", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
        s = small_session(store, window=200_000, cache=None)  # the reactive pass alone
        s.events.subscribe(rec)
        s.add(Message("user", (TextPart("Go."),)))
        for i in range(8):
            s.add(*step(i, 60))
        done = s.call(model)
        sizes = [len(json.dumps(r.body)) for r in srv.requests]
    assert done.text == "fits now"
    assert rec.named("compaction.reactive")[0].data["provider_count"] == 30000
    assert sizes[1] < sizes[0] * 0.7


def test_a_resumed_session_keeps_its_calibration(store) -> None:
    s = small_session(store, window=200_000)
    s.add(Message("user", (TextPart("Go."),)), *step(0, 40))
    first = s.build()
    s.record(reply("noted", input_tokens=int(first.tokens * 1.4)))
    rec = Recorder()
    again = Session(store, s.id, window=200_000, max_output=1_000, config=s.config)
    again.events.subscribe(rec)
    again.build()
    assert 1.3 < rec.named("build")[-1].data["calibration"] < 1.5
