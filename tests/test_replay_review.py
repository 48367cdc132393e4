"""Review of the replay engine: each policy does what docs/replay.md says, the bill is the formula's,
the constraint counts, inspect's estimates, ``ctxw compact`` and the demo's determinism.

Sessions here are small and synthetic (contextwindow.messages), so every number can be worked out by hand.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow import turns
from contextwindow.cli.main import cli
from contextwindow.compaction.mask import is_masked
from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.formats import get_format, openai_chat
from contextwindow.importers import CallRecord, ImportedCheckpoint, ImportedSession
from contextwindow.messages import Message, TextPart, ToolCallPart, assistant, dump_arguments, system, tool_result, user
from contextwindow.models import get_model
from contextwindow.replay import Pricing, replay
from contextwindow.replay.inspect import inspect_session
from contextwindow.replay.policies import (
    CLAUDE_CODE_MARGIN,
    CLAUDE_CODE_OUTPUT_RESERVE,
    ClaudeCodePolicy,
    ReplayContext,
)
from contextwindow.tokens import counter_for

MINI = "gpt-4o-mini"
SONNET = "claude-sonnet-4-5"


def _words(n: int, seed: int) -> str:
    return " ".join(f"w{seed}x{i}" for i in range(n))


def agent_session(
    steps: int = 20,
    size: int = 400,
    *,
    model: str = MINI,
    errors: tuple[int, ...] = (),
    first_reported: int | None = None,
    request: str = "Fix the bug. Never modify files under store/. Keep the report under 400 words.",
) -> ImportedSession:
    """system + one user request, ``steps`` calls each reading a file of ``size`` words, a closing reply."""
    msgs: list[Message] = [system("You are a test agent."), user(request)]
    calls: list[CallRecord] = []
    for k in range(steps):
        cid = f"c{k}"
        rep = first_reported if k == 0 else None
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, model=model, reported_input_tokens=rep))
        msgs.append(assistant(f"step {k}", ToolCallPart(cid, "read_file", dump_arguments({"path": f"f{k}.py"}))))
        msgs.append(tool_result(cid, _words(size, k), name="read_file", is_error=k in errors))
    calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, model=model))
    msgs.append(assistant("done"))
    return ImportedSession(format="test", source="synthetic", messages=msgs, calls=calls, model=model)


def multi_turn_session(n_turns: int = 6, steps: int = 4, size: int = 400) -> ImportedSession:
    msgs: list[Message] = [system("You are a test agent.")]
    calls: list[CallRecord] = []
    k = 0
    for t in range(n_turns):
        msgs.append(user(f"Task {t}: look at module {t}." + (" Never modify files under store/." if t == 0 else "")))
        for _ in range(steps):
            cid = f"c{k}"
            calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, model=MINI))
            msgs.append(assistant(f"step {k}", ToolCallPart(cid, "read_file", dump_arguments({"path": f"f{k}.py"}))))
            msgs.append(tool_result(cid, _words(size, k), name="read_file"))
            k += 1
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1, model=MINI))
        msgs.append(assistant(f"done with task {t}"))
    return ImportedSession(format="test", source="synthetic", messages=msgs, calls=calls, model=MINI)


def raw_tokens(session: ImportedSession, fixed: int = 0) -> list[int]:
    """What each call's raw payload holds, counted directly (the fixed prefix added)."""
    c = counter_for(session.model)
    return [fixed + c.count_messages(session.messages[: call.index]) for call in session.calls]


# --- policies ------------------------------------------------------------------------------


def test_none_sends_the_raw_history() -> None:
    s = agent_session(steps=6)
    res = replay(s, ["none"], window=200_000).policy("none")
    assert res.tokens_per_call == raw_tokens(s)
    assert res.compactions == res.folds == 0 and res.markers == []


@pytest.mark.parametrize("window", [40_000, 44_000, 50_000])
def test_claude_code_first_fold_is_the_first_call_at_its_effective_window_minus_13k(window: int) -> None:
    """Claude Code's threshold: window − min(max output, 20k) − 13k (gpt-4o-mini: 16,384 out)."""
    s = agent_session(steps=25)
    raw = raw_tokens(s)
    threshold = window - min(get_model(MINI).max_output, CLAUDE_CODE_OUTPUT_RESERVE) - CLAUDE_CODE_MARGIN
    assert threshold == window - 16_384 - 13_000
    expected = next(n for n, t in enumerate(raw) if t >= threshold)
    res = replay(s, ["claude-code"], window=window).policy("claude-code")
    folds = [n for n, kind in res.markers if kind == "fold"]
    assert folds[0] == expected
    assert res.tokens_per_call[:expected] == raw[:expected]  # untouched before the fold
    assert res.tokens_per_call[expected] < threshold
    assert res.compactions == 0 and res.over_window_calls == 0


def test_claude_code_reserves_at_most_20k_for_output() -> None:
    """A model with a large max output (Sonnet 4.5: 64k) reserves 20k, as Claude Code does."""
    c = counter_for(SONNET)
    ctx = ReplayContext(window=200_000, counter=c, summarizer=ExtractiveSummarizer(c.count_text), max_output=get_model(SONNET).max_output)
    assert get_model(SONNET).max_output > 20_000
    assert ctx.claude_code_threshold() == 167_000


def test_claude_code_fold_replaces_everything_and_restores_the_5_newest_reads() -> None:
    s = agent_session(steps=60, size=80)
    c = counter_for(MINI)
    ctx = ReplayContext(window=50_000, counter=c, summarizer=ExtractiveSummarizer(c.count_text), overhead=c.count_message(s.messages[0]))
    pol = ClaudeCodePolicy(ctx)
    steps = (pol.before_call(s.messages[1 : call.index]) for call in s.calls)
    n, step = next((n, st) for n, st in enumerate(steps) if st.events)
    assert step.events == ["fold"]
    assert len(step.messages) == 1  # one summary stands for the whole history
    text = step.messages[0].text
    restored = text.split("## Recently read files (restored after the fold)", 1)[1]
    newest = [f"f{k}.py" for k in range(n - 1, n - 6, -1)]
    assert [f"### {p}" in restored for p in newest] == [True] * 5
    assert f"### f{n - 6}.py" not in restored
    assert "Never modify files under store/." in text


def test_masking_leaves_exactly_the_last_10_observations_unmasked() -> None:
    # two old results are errors: "keep the last 10 observations, mask the rest" still means 10
    s = agent_session(steps=20, errors=(1, 2))
    res = replay(s, ["masking"], window=200_000).policy("masking")
    from contextwindow.replay.policies import MaskingPolicy

    c = counter_for(MINI)
    pol = MaskingPolicy(ReplayContext(window=200_000, counter=c, summarizer=ExtractiveSummarizer(c.count_text)))
    for call in s.calls:
        step = pol.before_call(s.messages[1 : call.index])
    results = [m for m in step.messages if m.role == "tool"]
    assert len(results) == 20
    assert [is_masked(m) for m in results] == [True] * 10 + [False] * 10
    assert res.compactions == 10  # calls 11..20 each mask one more (the first call with 11 results is call 11)
    assert next(n for n, _ in res.markers) == 11


def test_microcompact_clears_old_results_before_every_call_keeping_3() -> None:
    s = agent_session(steps=12)
    res = replay(s, ["microcompact"], window=200_000).policy("microcompact")
    # from the call that sees a 4th result on, every call clears one more
    assert [n for n, _ in res.markers] == list(range(4, 13))
    raw = raw_tokens(s)
    assert all(t < r for t, r in zip(res.tokens_per_call[4:], raw[4:], strict=True))


def test_wolffish_starts_at_75_percent_and_passes_down_towards_50() -> None:
    s = multi_turn_session()
    window = 20_000
    raw = raw_tokens(s, 0)
    res = replay(s, ["wolffish"], window=window).policy("wolffish")
    first = next(n for n, t in enumerate(raw) if t >= 0.75 * window)
    marks = [n for n, kind in res.markers if kind == "compaction"]
    assert marks[0] == first
    assert res.tokens_per_call[:first] == raw[:first]
    assert res.tokens_per_call[first] <= 0.5 * window
    assert max(res.tokens_per_call) < 0.75 * window + max(b - a for a, b in itertools.pairwise(raw))
    assert res.folds >= 1 and res.over_window_calls == 0


# --- pricing ---------------------------------------------------------------------------------


def test_three_call_bill_by_hand_anthropic() -> None:
    """Every number of the JSON row, from the formula, on 3 calls of a growing history."""
    s = agent_session(steps=2, size=600, model=SONNET, first_reported=5_000)
    c = counter_for(SONNET)
    fixed = 5_000 - c.count_messages(s.messages[: s.calls[0].index])
    t0, t1, t2 = raw_tokens(s, fixed)
    assert t0 == 5_000
    p = Pricing.of(get_model(SONNET))
    r, w = p.cache_read_price / p.input_price, p.cache_write_price / p.input_price  # type: ignore[operator]
    assert (r, w) == (pytest.approx(0.1), pytest.approx(1.25))
    billed = w * t0 + (r * t0 + w * (t1 - t0)) + (r * t1 + w * (t2 - t1))
    row = replay(s, ["none"]).to_dict()["policies"][0]
    assert row["calls"] == 3 and row["peak_tokens"] == t2
    assert row["cache_read_tokens"] == t0 + t1
    assert row["cache_write_tokens"] == t2  # t0 + (t1 - t0) + (t2 - t1)
    assert row["cache_hit_share"] == round((t0 + t1) / (t0 + t1 + t2), 4)
    assert row["billed_input_tokens"] == round(billed)
    assert row["cost_usd"] == pytest.approx(billed * 3.0 / 1e6, abs=1e-6)


def test_bill_by_hand_openai_with_prompts_below_the_minimum() -> None:
    s = agent_session(steps=4, size=100)  # gpt-4o-mini: no write price, minimum cacheable prefix 1,024
    u = raw_tokens(s)
    assert u[2] < 1_024 <= u[3]
    p = Pricing.of(get_model(MINI))
    assert p.cache_write_price is None and p.min_cacheable == 1_024
    rw = p.cache_read_price / p.input_price  # type: ignore[operator]
    row = replay(s, ["none"], window=128_000).to_dict()["policies"][0]
    # calls 0-3: the previous prompt (the common prefix) is under 1,024 tokens, so all of it is plain input;
    # call 4: the whole previous prompt u[3] is read from the cache, the rest is plain input; nothing is "written"
    assert row["cache_read_tokens"] == u[3]
    assert row["cache_write_tokens"] == 0
    billed = u[0] + u[1] + u[2] + u[3] + (rw * u[3] + (u[4] - u[3]))
    assert row["billed_input_tokens"] == round(billed)
    assert row["cache_hit_share"] == round(u[3] / sum(u), 4)
    assert row["cost_usd"] == pytest.approx(billed * p.input_price / 1e6, abs=1e-6)  # type: ignore[operator]


def test_bill_by_hand_anthropic_across_a_fold_and_a_first_prompt_below_the_minimum() -> None:
    s = agent_session(steps=3, size=600, model=SONNET)  # no usage in the log: no hidden fixed prefix
    raw = raw_tokens(s)
    assert raw[0] < 1_024 <= raw[1]
    # only the last call crosses window − min(max output, 20k) − 13k (Sonnet 4.5's max output is 64k)
    window = raw[3] + CLAUDE_CODE_OUTPUT_RESERVE + CLAUDE_CODE_MARGIN - 1
    report = replay(s, ["claude-code"], window=window)
    row, res = report.to_dict()["policies"][0], report.policy("claude-code")
    t = res.tokens_per_call
    assert [n for n, _ in res.markers] == [3] and t[:3] == raw[:3] and t[3] < raw[3]
    # call 0: under 1,024 tokens → plain input, nothing written; call 1: prefix raw[0] < 1,024 → all written;
    # call 2: raw[1] read, the rest written; call 3 (after the fold): only the short system prompt is common → all written
    assert row["cache_read_tokens"] == raw[1]
    assert row["cache_write_tokens"] == raw[1] + (raw[2] - raw[1]) + t[3]
    billed = raw[0] + 1.25 * raw[1] + (0.1 * raw[1] + 1.25 * (raw[2] - raw[1])) + 1.25 * t[3]
    assert row["billed_input_tokens"] == round(billed)
    assert row["cost_usd"] == pytest.approx(billed * 3.0 / 1e6, abs=1e-6)
    assert row["cache_hit_share"] == round(raw[1] / sum(t), 4)
    # the fold's own call: Claude Code's compaction request reads the cached conversation (the system
    # prompt and the messages it summarizes at 0.1) and writes the summary at the output price (15/3)
    c = counter_for(SONNET)
    assert row["summary_calls"] == 1 and row["summary_input_tokens"] == c.count_messages(s.messages[1 : s.calls[3].index])
    assert row["summary_output_tokens"] > 0
    summary = (c.count_message(s.messages[0]) + row["summary_input_tokens"]) * 0.1 + row["summary_output_tokens"] * 5.0
    assert row["summary_billed_tokens"] == round(summary)
    assert row["total_cost_usd"] == pytest.approx((billed + summary) * 3.0 / 1e6 + row["output_cost_usd"], abs=1e-6)


# --- constraints -------------------------------------------------------------------------


def test_superseded_constraints_leave_the_total_and_kept_means_verbatim_in_the_last_payload() -> None:
    s = agent_session(steps=4, request="Keep the report under 400 words. Never modify files under store/.")
    later = user("Change of plan: keep the report under 800 words.")
    idx = s.calls[2].index
    msgs = [*s.messages[:idx], later, *s.messages[idx:]]
    calls = [c if c.index < idx else CallRecord(c.index + 1, c.reply_end + 1, model=c.model) for c in s.calls]
    s2 = ImportedSession(format="test", source="synthetic", messages=msgs, calls=calls, model=MINI)
    rows = {p["policy"]: p for p in replay(s2, ["none", "claude-code"], window=200_000).to_dict()["policies"]}
    assert rows["none"]["constraints_total"] == 2  # "under 400 words" was replaced by "under 800 words"
    assert rows["none"]["constraints_kept"] == 2
    # a window so small that claude-code folds at the last call: its summary keeps the rules or not, counted verbatim
    tiny = raw_tokens(s2)[-1] + min(get_model(MINI).max_output, CLAUDE_CODE_OUTPUT_RESERVE) + CLAUDE_CODE_MARGIN - 1
    cc = replay(s2, ["claude-code"], window=tiny).policy("claude-code")
    assert cc.folds == 1 and cc.constraints_total == 2


# --- inspect -----------------------------------------------------------------------------


def test_inspect_estimates_the_payload_each_call_was_sent_with_a_checkpoint() -> None:
    s = agent_session(steps=6, first_reported=3_000)
    summary = Message("user", (TextPart("Summary of the earlier work: read f0..f2."),), meta={"cw": "fold_summary"})
    upto = s.calls[3].index
    s2 = ImportedSession(
        format="test", source="synthetic", messages=s.messages, calls=s.calls, model=MINI,
        checkpoints=[ImportedCheckpoint(upto=upto, summary=summary)],
    )
    c = counter_for(MINI)
    doc = inspect_session(s2)
    est = [row["estimated_input_tokens"] for row in doc["calls"]]
    for call, e in zip(s.calls, est, strict=True):
        if call.index < upto:
            assert e == c.count_messages(s.messages[: call.index])
        else:
            assert e == c.count_messages([summary, *s.messages[upto : call.index]])
    assert doc["calls"][0]["reported_input_tokens"] == 3_000
    assert doc["fixed_prefix_tokens"] == 3_000 - est[0]


# --- ctxw compact --------------------------------------------------------------------------


@pytest.mark.parametrize(("out_format", "rounds"), [("openai", 3), ("anthropic", 2), ("openai", 0)])
def test_compact_rounds_fit_the_budget_and_are_valid(tmp_path: Path, out_format: str, rounds: int) -> None:
    s = agent_session(steps=15)
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(openai_chat.to_payload(s.messages)["messages"]))  # a plain JSON list
    budget = 8_000
    res = CliRunner().invoke(
        cli, ["compact", str(src), "--input-format", "openai", "--budget-tokens", str(budget), "--rounds", str(rounds), "--format", out_format, "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    report = doc["report"]
    # a further round only runs while still over the budget (a fold keeps what fits verbatim, so one may do)
    assert (1 <= report["rounds"] <= rounds) if rounds else report["rounds"] == 0
    assert [x for x in report["steps"] if x.startswith("fold ")] == [f"fold {r + 1} (extractive)" for r in range(report["rounds"])]
    assert report["tokens_after"] <= budget < report["tokens_before"]
    if out_format == "anthropic":
        msgs = get_format("anthropic").from_payload({"system": doc.get("system"), "messages": doc["messages"]})
    else:
        msgs = get_format("openai").from_payload(doc["messages"])
    assert turns.validate(msgs, out_format) == []
    assert counter_for(None).count_messages(msgs) <= budget
    assert report["constraints_kept"] == report["constraints_total"] == 3  # two rules and the opening request, the goal


# --- determinism -------------------------------------------------------------------------


def test_default_policy_replays_identically_when_results_are_clipped() -> None:
    # tool results far over the 4,000-token clip budget: clip markers name an offload ref
    s = agent_session(steps=8, size=3_000)
    runs = [replay(s, ["default"], window=40_000).policy("default") for _ in range(4)]
    assert all(r.tokens_per_call == runs[0].tokens_per_call for r in runs)
    assert len({r.billed_input_tokens for r in runs}) == 1


def test_demo_replays_give_the_same_table() -> None:
    from contextwindow.replay.demo import DEMO_MODEL, DEMO_WINDOW, demo_session

    s = demo_session()
    a = replay(s, ["default", "claude-code"], model=DEMO_MODEL, window=DEMO_WINDOW).to_dict()
    b = replay(s, ["default", "claude-code"], model=DEMO_MODEL, window=DEMO_WINDOW).to_dict()
    assert a == b


def test_default_summaries_ride_the_cached_prefix_with_their_output_at_the_output_price() -> None:
    """The Session's summary request re-sends its last payload (read price) with the instruction
    appended (input price), the summary at the output price (Sonnet 4.5: 15/3 = 5x), one call per
    summary asked for: cheaper than the same input all at the input price, dearer than all read."""
    s = multi_turn_session(n_turns=8, steps=4, size=400)
    report = replay(s, ["none", "default"], window=8_000, model=SONNET)
    none, d = report.policy("none"), report.policy("default")
    assert none.summary_calls == 0 and none.summary_billed_tokens == 0
    assert d.folds >= 1 and d.summary_calls >= d.folds
    assert d.summary_input_tokens > d.summary_output_tokens > 0
    flat = d.summary_input_tokens + 5.0 * d.summary_output_tokens
    all_read = 0.1 * d.summary_input_tokens + 5.0 * d.summary_output_tokens
    assert all_read < d.summary_billed_tokens < flat
    assert d.billed_with_summaries == pytest.approx(d.billed_input_tokens + d.summary_billed_tokens)
    assert d.summary_cost_usd == pytest.approx(d.summary_billed_tokens * 3.0 / 1e6)
