"""Replay engine on real transcripts and on the embedded demo: validity, window, constraints, billing."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextwindow.errors import ConfigError
from contextwindow.importers import load_transcript
from contextwindow.models import get_model
from contextwindow.replay import POLICIES, Pricing, bill, replay
from contextwindow.replay.demo import DEMO_WINDOW, SCRIPTED_NOTE, demo_session

CLAUDE = "claude_code/codemie_session-196820da.jsonl"
CODEX = "codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
SWE = "swe_agent/trajectories__demonstrations__ctf__web__i_got_id_demo.traj"


@pytest.mark.parametrize(
    ("name", "model", "window"),
    [(CLAUDE, None, 64_000), (CODEX, "gpt-5.5", 48_000), (SWE, "gpt-4o", 8_000)],
)
def test_replay_real_sessions_under_every_policy(transcripts_dir: Path, name: str, model: str | None, window: int) -> None:
    session = load_transcript(transcripts_dir / name)
    report = replay(session, list(POLICIES), model=model, window=window)
    assert [p.policy for p in report.policies] == list(POLICIES)
    for res in report.policies:
        assert res.calls == len(session.calls)
        assert res.invalid_payloads == 0, (res.policy, res.problems[:3])
        assert len(res.tokens_per_call) == res.calls
        assert res.peak_tokens == max(res.tokens_per_call)
        assert 0 <= res.cache_hit_share <= 1
        assert res.constraints_kept <= res.constraints_total
    none, default = report.policy("none"), report.policy("default")
    assert none.over_window_calls > 0  # the raw history does not fit the small window
    assert default.over_window_calls == 0
    assert default.compactions + default.folds > 0
    assert default.constraints_kept == default.constraints_total
    assert default.peak_tokens < none.peak_tokens
    # the raw history's payload only grows, so every call after the first reuses the previous prefix
    assert none.cache_read_tokens > 0
    d = report.to_dict()
    assert set(d) >= {"session", "model", "window", "policies"}
    assert d["window"] == window


def test_claude_code_policy_folds_near_the_window(transcripts_dir: Path) -> None:
    session = load_transcript(transcripts_dir / CLAUDE)
    # 100k: Claude Code's rule (window − 20k − 13k) leaves this session (27.6k fixed prefix) 39k of history
    report = replay(session, ["claude-code"], window=100_000)
    res = report.policy("claude-code")
    assert res.folds >= 1
    assert res.over_window_calls == 0
    fold_calls = [n for n, kind in res.markers if kind == "fold"]
    # right after a fold the payload is much smaller than just before it
    for n in fold_calls:
        if n > 0:
            assert res.tokens_per_call[n] < res.tokens_per_call[n - 1]


def test_unknown_model_needs_model_or_window(transcripts_dir: Path) -> None:
    session = load_transcript(transcripts_dir / SWE)  # a log that names no model
    with pytest.raises(ConfigError, match="--model"):
        replay(session, ["none"])
    with pytest.raises(ConfigError, match="unknown policy"):
        replay(session, ["nope"], window=8_000)
    report = replay(session, ["none"], window=8_000)
    assert report.policies[0].cost_usd is None  # no prices without a known model


def test_demo_session_is_real_and_says_it_is_scripted() -> None:
    s = demo_session()
    assert SCRIPTED_NOTE in s.messages[0].text
    assert len(s.calls) >= 30
    tool_text = "\n".join(m.text for m in s.messages if m.role == "tool")
    assert "def compact(" in tool_text  # real grep output over the installed package
    assert "pytest" in tool_text  # a real command ran
    report = replay(s, ["none", "claude-code", "default"], window=DEMO_WINDOW)
    assert report.policy("none").over_window_calls > 0
    default = report.policy("default")
    assert default.over_window_calls == 0 and default.invalid_payloads == 0
    assert default.compactions > 0
    assert default.constraints_total >= 2 and default.constraints_kept == default.constraints_total


def test_bill_follows_the_provider_cache_rules() -> None:
    anthropic = Pricing.of(get_model("claude-sonnet-4-5"))
    openai = Pricing.of(get_model("gpt-4o-mini"))
    first = bill(10_000, 0, anthropic, first=True)
    assert first.cached == 0 and first.written == 10_000  # Anthropic writes the whole prompt
    warm = bill(12_000, 10_000, anthropic)
    assert (warm.cached, warm.written, warm.uncached) == (10_000, 2_000, 0)
    assert warm.billed == pytest.approx(10_000 * 0.1 + 2_000 * 1.25)
    small = bill(12_000, 500, anthropic)  # below the minimum cacheable prefix: nothing read
    assert small.cached == 0
    oa = bill(12_000, 10_000, openai)
    assert oa.written == 0 and oa.uncached == 2_000
    assert oa.cost_usd == pytest.approx((2_000 * 0.15 + 10_000 * 0.08) / 1e6)


def test_the_floor_is_the_prefix_read_each_call_and_each_new_token_written_once() -> None:
    from contextwindow.importers import CallRecord
    from contextwindow.messages import assistant, user
    from contextwindow.replay.floor import above_floor_share, floor_input_tokens
    from contextwindow.replay.pricing import Pricing

    msgs = [user("a" * 40), assistant("b" * 40), user("c" * 40), assistant("d" * 40)]
    calls = [CallRecord(index=1, reply_end=2), CallRecord(index=3, reply_end=4)]
    size = {id(m): 10 * (i + 1) for i, m in enumerate(msgs)}  # 10, 20, 30, 40 tokens

    def count(m: object) -> int:
        return size[id(m)]

    anthropic = Pricing(3.0, 0.3, 3.75, min_cacheable=1024)
    # call 1: prefix 2,000 written + message 1 (10) written; call 2: prefix read + messages 2-3 (50) written
    assert floor_input_tokens(msgs, calls, 0, 2_000, count, anthropic) == 2_000 * 1.25 + 10 * 1.25 + 2_000 * 0.1 + 50 * 1.25
    openai = Pricing(2.5, 1.25, None, min_cacheable=1024)
    assert floor_input_tokens(msgs, calls, 0, 2_000, count, openai) == 2_000 + 10 + 2_000 * 0.5 + 50
    # a prefix under the cacheable minimum is never read from the cache
    assert floor_input_tokens(msgs, calls, 0, 500, count, openai) == 500 + 10 + 500 + 50
    assert above_floor_share(200.0, 150.0) == 0.25 and above_floor_share(100.0, 150.0) == 0.0


def test_every_policy_carries_the_same_floor_under_its_bill_and_its_time() -> None:
    from contextwindow.replay import replay
    from contextwindow.replay.demo import DEMO_MODEL, DEMO_WINDOW, demo_session

    seen: list[str] = []
    report = replay(demo_session(), ["none", "masking", "default"], model=DEMO_MODEL, window=DEMO_WINDOW, on_policy=lambda r: seen.append(r.policy))
    assert seen == ["none", "masking", "default"]
    floors = {p.floor_input_tokens for p in report.policies}
    assert len(floors) == 1
    for p in report.policies:
        assert p.floor_input_tokens <= p.billed_input_tokens and p.seconds > 0
        assert 0 <= p.above_floor_share < 1


def test_reasoning_the_provider_drops_is_neither_read_nor_written() -> None:
    """Anthropic (and OpenAI) drop earlier turns' reasoning once a new user message follows it: the
    cached part of a call is counted as sent, so it never exceeds the prompt, and the raw history
    (which only appends) pays exactly the floor plus the reads of its history."""
    from contextwindow.importers import CallRecord, ImportedSession
    from contextwindow.messages import Message, ReasoningPart, TextPart, user

    msgs: list[Message] = []
    calls = []
    for turn in range(6):
        msgs.append(user(f"question {turn}: " + "word " * 1_200))  # over the cacheable minimum from the first call
        calls.append(CallRecord(index=len(msgs), reply_end=len(msgs) + 1))
        think = ReasoningPart("let me think " * 400, provider="anthropic")
        msgs.append(Message("assistant", (think, TextPart("answer " * 200))))
    session = ImportedSession("anthropic-messages", "made", msgs, calls, model="claude-sonnet-4-5")
    res = replay(session, ["none"]).policy("none")
    assert res.cache_read_tokens <= res.input_tokens
    # every call writes what it adds (the previous answer without its reasoning, the new question)
    assert res.cache_write_tokens > 6 * 1_200
    reads = res.cache_read_tokens * Pricing.of(get_model("claude-sonnet-4-5")).read_weight
    assert res.billed_input_tokens == pytest.approx(res.floor_input_tokens + reads)
