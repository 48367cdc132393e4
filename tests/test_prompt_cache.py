"""Prompt-cache breakpoints: where the Session and our Anthropic client place ``cache_control``,
and what a provider that caches by Anthropic's rules (tests/anthropic_cache.py) bills for them, over
real HTTP to the local server; OpenAI's ``prompt_cache_key``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from anthropic_cache import PromptCache, blocks
from contextwindow import Session
from contextwindow.admission import admit
from contextwindow.compaction.cache import CacheConfig
from contextwindow.cost import usage_cost
from contextwindow.errors import ConfigError
from contextwindow.formats import cache_marks
from contextwindow.formats.cache_marks import count_marks, min_cacheable_tokens, place
from contextwindow.llm.anthropic import AnthropicModel
from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.messages import Message, ToolCallPart, tool_result, user
from contextwindow.session import SessionConfig
from contextwindow.store.memory import MemoryStore
from contextwindow.tools import ToolSpec

MODEL = "claude-sonnet-4-6"
SYSTEM = "You are a careful coding agent working in a Python repository.\n" + "".join(
    f"Rule {i}: read the file before editing it, keep the diff small, run the tests of module m{i}.\n" for i in range(90)
)
TOOLS = [ToolSpec("read", "Read a file of the repository", {"type": "object", "properties": {"path": {"type": "string"}}})]


def _text(rng: random.Random, words: int) -> str:
    vocab = ["def", "return", "self", "value", "import", "class", "test", "assert", "None", "list", "for", "in"]
    return " ".join(rng.choice(vocab) + str(rng.randrange(100)) for _ in range(words))


def strip(obj: Any) -> Any:
    """``obj`` with every ``cache_control`` taken out (and a string content as the one text block it stands for)."""
    if isinstance(obj, dict):
        if isinstance(obj.get("content"), str) and obj.get("role"):
            obj = {**obj, "content": [{"type": "text", "text": obj["content"]}]}
        return {k: strip(v) for k, v in obj.items() if k != "cache_control"}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def marked_messages(body: dict[str, Any]) -> list[int]:
    out = []
    for i, m in enumerate(body["messages"]):
        content = m["content"] if isinstance(m["content"], list) else []
        if any(isinstance(b, dict) and "cache_control" in b for b in content):
            out.append(i)
    return out


# --- the pure placement --------------------------------------------------------------------------


def test_place_marks_the_system_and_the_anchors_within_four_and_none_below_the_minimum() -> None:
    body = {
        "system": SYSTEM,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "tool_use", "id": "a", "name": "read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "only thinking", "signature": "s"}]},
            {"role": "user", "content": "next"},
        ],
    }
    out = place(body, "5m", model=MODEL)
    assert out["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert marked_messages(out) == [2, 4]  # the last message, and the user message before the last reply
    assert out["messages"][4]["content"] == [{"type": "text", "text": "next", "cache_control": {"type": "ephemeral"}}]
    assert strip(out)["messages"] == strip(body)["messages"] and out["system"] == [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    # every anchor asked for, at most four marks in all; a message with only thinking carries none
    many = place(body, "1h", model=MODEL, anchors=[4, 3, 2, 1, 0])
    assert count_marks(many) == 4 and "cache_control" not in json.dumps(many["messages"][3])
    assert many["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    # the body as given is not touched
    assert count_marks(body) == 0
    # a prefix below the model's minimum is not marked: a short system prompt, a long last message
    short = {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "word " * 1500}]}
    out = place(short, "5m", model=MODEL)
    assert isinstance(out["system"], str) and marked_messages(out) == [2]
    assert place({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}, "5m", model=MODEL) == {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}
    # no system prompt: the tools carry the prefix's mark
    tools_only = {"tools": [{"name": "t", "description": "d " * 3000, "input_schema": {}}], "messages": [{"role": "user", "content": "hi"}]}
    assert "cache_control" in place(tools_only, "5m", model=MODEL)["tools"][-1]


def test_a_body_with_marks_of_its_own_is_kept_byte_exact_and_off_adds_none() -> None:
    body = {"system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral", "ttl": "1h"}}], "messages": [{"role": "user", "content": "hi"}]}
    assert place(body, "5m", model=MODEL) is body
    plain = {"system": SYSTEM, "messages": [{"role": "user", "content": "hi"}]}
    assert place(plain, "off", model=MODEL) is plain
    with pytest.raises(ConfigError, match="cache"):
        AnthropicModel(MODEL, base_url="http://127.0.0.1:9", api_key="k", cache="2h")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"SessionConfig\.cache_marks"):
        Session(MemoryStore(), config=SessionConfig(cache_marks="always"))  # type: ignore[arg-type]


def test_the_minimum_follows_the_model() -> None:
    assert min_cacheable_tokens("claude-sonnet-4-5") == 1024
    assert min_cacheable_tokens("claude-opus-4-1") == 1024
    assert min_cacheable_tokens("claude-3-5-haiku-latest") == 2048
    assert min_cacheable_tokens("claude-haiku-4-5-20251001") == 4096
    assert min_cacheable_tokens("claude-opus-4-6") == 4096
    from contextwindow.models import get_model

    for model in ("claude-sonnet-4-5", "claude-3-5-haiku-latest", "claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-6"):
        # one rule: what the breakpoints skip is what the replay prices as uncacheable
        assert get_model(model).min_cacheable_tokens == min_cacheable_tokens(model), model


# --- a Session and AnthropicModel against a provider that caches by the rules -------------------


def agent_run(session_marks: str, model_marks: str, *, calls: int = 22, seed: int = 3, one_hour: bool = False) -> tuple[list[Any], Session, list[str], list[Any]]:
    """A tool loop of ``calls`` calls through ``Session.call`` and ``AnthropicModel``; returns the
    bodies the server received, the Session, the events between calls, and the cache's answers."""
    rng = random.Random(seed)
    cache = PromptCache(minimum=min_cacheable_tokens(MODEL))
    answers: list[Any] = []

    def answer(req: Any) -> Reply:
        u = cache.usage(req.body)
        answers.append(u)
        n = len(answers)
        return Reply(
            text=_text(rng, 30),
            tool_calls=(ToolCallSpec("read", {"path": f"src/m{n}.py"}, id=f"toolu_{n}"),),
            input_tokens=u.input_tokens,
            cache_read_tokens=u.cache_read_tokens,
            cache_write_tokens=u.cache_write_tokens,
            cache_write_1h_tokens=u.cache_write_tokens if one_hour else 0,
            output_tokens=60,
        )

    events: list[str] = []
    with LocalProviderServer(answer) as srv:
        model = AnthropicModel(MODEL, base_url=srv.base_url, api_key="k", cache=model_marks)  # type: ignore[arg-type]
        cfg = SessionConfig(cache_marks=session_marks, cache=CacheConfig(clear_at_least=1_500))  # type: ignore[arg-type]
        s = Session(MemoryStore(), model=MODEL, window=60_000, max_output=2_000, system=SYSTEM, tools=TOOLS, format="anthropic", config=cfg)
        s.events.subscribe(lambda ev: events.append(f"{len(answers)}:{ev.name}"))
        s.add(user("Fix the failing test in src/. Never push to main."))
        for _ in range(calls):
            done = s.call(model)
            call = done.message.tool_calls[-1]
            s.add(tool_result(call.id, _text(rng, rng.choice((120, 400, 900, 1600)))))
        bodies = [r.body for r in srv.requests]
    return bodies, s, events, answers


def _changed_before(events: list[str], n: int) -> bool:
    """A compaction event (a clear or a pass) happened while building request ``n`` (0-based)."""
    return any(e == f"{n}:compaction.applied" for e in events)


def test_the_session_marks_where_its_prefix_ends_and_the_provider_reads_it_back() -> None:
    bodies, s, events, answers = agent_run("5m", "5m")
    assert any("compaction.applied" in e for e in events)  # the per-call clearing rewrote the view on the way
    rows = s.store.list_usage(s.id)
    assert len(rows) == len(bodies)
    for n, body in enumerate(bodies):
        assert count_marks(body) <= 4
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}  # tools + system: the sticky prefix
        assert len(body["messages"]) - 1 in marked_messages(body)  # the newest message
        # what the server answered is what the Session recorded, priced by cost.py with its cache parts
        assert (rows[n].cache_read_tokens, rows[n].cache_write_tokens) == (answers[n].cache_read_tokens, answers[n].cache_write_tokens)
        assert rows[n].cost_usd == pytest.approx(usage_cost(rows[n]))
        if n == 0:
            continue
        before, now = strip(bodies[n - 1]), strip(body)
        if not _changed_before(events, n):
            # between two compaction events the content is a byte-identical prefix (only the marks moved) ...
            assert json.dumps(now["messages"][: len(before["messages"])]) == json.dumps(before["messages"])
            # ... and the provider reads all of the previous request back: the bill the replay assumes
            assert answers[n].cache_read_tokens == answers[n - 1].input_tokens
        else:
            # a clear rewrote the view from message k on: all that comes before it is still read, but
            # for at most the one message before it (the marks on the last shared message and on the
            # clearing line find the entry an earlier request left there) -- the rewrite the clearing
            # step's cost model charges, not a rewrite of everything after the system prompt
            k = next(i for i, (a, b) in enumerate(zip(before["messages"], now["messages"], strict=False)) if a != b)
            system_only = PromptCache().usage({**now, "messages": []}).input_tokens
            almost = PromptCache().usage({**now, "messages": now["messages"][: k - 1]}).input_tokens
            assert answers[n].cache_read_tokens >= almost and answers[n].cache_read_tokens > system_only


def test_session_anchors_beat_the_stateless_default_and_caching_beats_none() -> None:
    """The same loop billed three ways by the same provider: the Session's anchors, the client's own
    (last message + the previous call's end), and no breakpoints at all."""

    def bill(session_marks: str, model_marks: str) -> float:
        _, s, _, _ = agent_run(session_marks, model_marks)
        return sum(r.cost_usd or 0.0 for r in s.store.list_usage(s.id))

    anchored, default, none = bill("5m", "5m"), bill("off", "5m"), bill("off", "off")
    assert anchored < default < none
    assert anchored < 0.6 * none


def test_one_hour_writes_are_marked_and_priced_at_twice_the_input() -> None:
    bodies, s, _, answers = agent_run("1h", "1h", calls=4, one_hour=True)
    assert all(b["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"} for b in bodies)
    row = s.store.list_usage(s.id)[0]
    assert row.cache_write_tokens == answers[0].cache_write_tokens > 0
    assert row.extra["cache_write_1h_tokens"] == row.cache_write_tokens
    five = usage_cost(type(row)(input_tokens=row.input_tokens, output_tokens=row.output_tokens, cache_write_tokens=row.cache_write_tokens, model=row.model))
    assert row.cost_usd is not None and five is not None and row.cost_usd > five


def test_the_session_payload_goes_through_the_official_sdk_with_its_marks() -> None:
    anthropic = pytest.importorskip("anthropic")
    s = Session(MemoryStore(), model=MODEL, window=60_000, system=SYSTEM, tools=TOOLS, format="anthropic")
    s.add(user("Fix the failing test. Never push to main."))
    b = s.build()
    assert count_marks(b.payload) == 2 and b.cache_anchors == (0,)
    with LocalProviderServer(["done"]) as srv:
        client = anthropic.Anthropic(base_url=srv.base_url, api_key="k")
        reply = client.messages.create(**{k: v for k, v in b.payload.items() if k != "model"}, model=MODEL, max_tokens=256)
        assert reply.content[0].text == "done"
        assert srv.requests[0].body["system"] == b.payload["system"]
        assert srv.requests[0].body["messages"] == b.payload["messages"]
    # off: the payload carries none
    off = Session(MemoryStore(), model=MODEL, window=60_000, system=SYSTEM, format="anthropic", config=SessionConfig(cache_marks="off"))
    off.add(user("hi"))
    assert count_marks(off.build().payload) == 0


def test_openai_gets_the_conversation_id_as_prompt_cache_key_unless_the_caller_set_one() -> None:
    with LocalProviderServer(["a", "b", "c"]) as srv:
        s = Session(MemoryStore(), model="gpt-4o-mini", window=60_000)
        s.add(user("hello"))
        s.call(OpenAICompatibleModel("gpt-4o-mini", base_url=srv.openai_base_url, cache_key=True))
        s.add(user("again"))
        s.call(OpenAICompatibleModel("gpt-4o-mini", base_url=srv.openai_base_url, cache_key=True, extra_body={"prompt_cache_key": "mine"}))
        s.add(user("third"))
        s.call(OpenAICompatibleModel("gpt-4o-mini", base_url=srv.openai_base_url))  # a local server: not sent by default
        keys = [r.body.get("prompt_cache_key") for r in srv.requests]
    assert keys == [s.id, "mine", None]
    assert cache_marks.ANCHOR_KEY not in json.dumps(srv.requests[0].body)


def test_the_newest_mark_stays_before_a_per_call_runtime_block(tmp_path: Path) -> None:
    """The runtime block (``runtime_block=True``) changes every call and is merged into the last
    user turn: the mark sits on the view's last block before it, which the next call still has."""
    (tmp_path / "AGENTS.md").write_text(SYSTEM)
    s = Session(MemoryStore(), model=MODEL, window=60_000, system=admit(tmp_path, None), tools=TOOLS, format="anthropic", runtime_block=True)
    s.add(user("Fix the failing test. Never push to main."))
    bodies = []
    for i in range(3):
        b = s.build()
        bodies.append(b.payload)
        last = b.payload["messages"][-1]["content"]
        assert last[-1]["text"].startswith("# Runtime") and "cache_control" not in last[-1]
        assert "cache_control" in last[-2]
        s.add(Message("assistant", (ToolCallPart(f"toolu_{i}", "read", "{}"),)), tool_result(f"toolu_{i}", "contents " * 50))
    cache = PromptCache(minimum=min_cacheable_tokens(MODEL))
    first, second = cache.usage(bodies[0]), cache.usage(bodies[1])
    assert second.cache_read_tokens == first.input_tokens - cache.count(blocks(bodies[0])[-1][0])  # all but the old runtime block
