"""Dollars: every usage row priced at the model that made the call. The expected sums are computed here
from the raw log lines and the registry's prices, independently of the importers and of cost.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextwindow.budget import Limits
from contextwindow.cli.main import cli
from contextwindow.errors import LimitExceeded
from contextwindow.llm.localserver import LocalProviderServer, Reply
from contextwindow.llm.openai_compat import OpenAICompatibleModel
from contextwindow.llm.retry import RetryPolicy
from contextwindow.messages import Message, TextPart
from contextwindow.models import get_model
from contextwindow.session import Session, SessionConfig
from contextwindow.store import open_store


def _usd(tokens: int, per_million: float) -> float:
    return tokens * per_million / 1_000_000


def expected_claude_code(lines: list[dict[str, Any]]) -> float:
    """Σ over distinct message.id: input, cache read, 5m/1h cache writes and output at the model's prices
    (1h writes at 2× input: Anthropic's rule; the registry has no 1h price)."""
    seen: dict[str, dict[str, Any]] = {}
    for r in lines:
        m = r.get("message")
        if r.get("type") != "assistant" or not isinstance(m, dict) or not m.get("id") or m.get("model") == "<synthetic>":
            continue
        u = m.get("usage") or {}
        prev = seen.get(m["id"])
        if prev is None:
            seen[m["id"]] = {"model": m["model"], "usage": u, "out": u.get("output_tokens") or 0}
        else:
            prev["out"] = max(prev["out"], u.get("output_tokens") or 0)
    total = 0.0
    for v in seen.values():
        spec = get_model(v["model"])
        u = v["usage"]
        w1h = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
        cw = u.get("cache_creation_input_tokens") or 0
        total += _usd(u.get("input_tokens") or 0, spec.input_price)
        total += _usd(u.get("cache_read_input_tokens") or 0, spec.cache_read_price)
        total += _usd(cw - w1h, spec.cache_write_price) + _usd(w1h, 2 * spec.input_price)
        total += _usd(v["out"], spec.output_price)
    return total


def expected_codex(lines: list[dict[str, Any]]) -> float | None:
    model = None
    total, priced = 0.0, 0
    last_key = None
    for r in lines:
        p = r.get("payload") or {}
        if r.get("type") == "turn_context" and p.get("model"):
            model = p["model"]
        if r.get("type") == "event_msg" and p.get("type") == "token_count" and isinstance(p.get("info"), dict):
            key = json.dumps(p["info"], sort_keys=True)
            if key == last_key:
                continue
            last_key = key
            u = p["info"]["last_token_usage"]
            spec = get_model(model)
            cached = u.get("cached_input_tokens") or 0
            total += _usd(u["input_tokens"] - cached, spec.input_price) + _usd(cached, spec.cache_read_price)
            total += _usd(u.get("output_tokens") or 0, spec.output_price)
            priced += 1
    return total if priced else None


def _inspect(path: Path) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["inspect", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_inspect_total_equals_the_logs_usage_times_registry_prices(transcripts_dir: Path) -> None:
    checked = 0
    for sub, expect in (("claude_code", expected_claude_code), ("codex", expected_codex)):
        for path in sorted((transcripts_dir / sub).glob("*.jsonl")):
            lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            want = expect(lines)
            doc = _inspect(path)
            got = doc["cost_usd"]
            if want is None:
                assert got is None and "$0.00" not in doc["totals"]["cost_text"], path.name
                continue
            assert got is not None and abs(got - want) < 0.005, (path.name, got, want)
            checked += 1
            calls = [c["cost_usd"] for c in doc["calls"]]
            assert all(c is not None for c in calls)
    assert checked >= 12


def test_mixed_models_are_each_priced_at_their_own_rates(tmp_path: Path) -> None:
    def rec(mid: str, model: str, parent: str | None, uid: str) -> dict[str, Any]:
        return {"type": "assistant", "uuid": uid, "parentUuid": parent, "sessionId": "s", "message": {
            "id": mid, "role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 1000, "cache_read_input_tokens": 50_000, "cache_creation_input_tokens": 4000,
                      "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 3000}, "output_tokens": 500}}}

    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "a"}},
        rec("m1", "claude-opus-4-1", "u1", "a1"),
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s", "message": {"role": "user", "content": "b"}},
        rec("m2", "claude-3-5-haiku-20241022", "u2", "a2"),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    doc = _inspect(path)
    opus, haiku = (get_model(m) for m in ("claude-opus-4-1", "claude-3-5-haiku-20241022"))
    assert opus.input_price is not None and haiku.input_price is not None and opus.input_price > 5 * haiku.input_price
    per = [c["cost_usd"] for c in doc["calls"]]
    assert abs(per[0] - expected_claude_code(lines[:2])) < 1e-9
    assert abs(per[1] - expected_claude_code(lines[2:])) < 1e-9
    assert abs(doc["cost_usd"] - expected_claude_code(lines)) < 1e-9


def test_unknown_price_is_said_never_zero(tmp_path: Path) -> None:
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "a"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "message": {
            "id": "m1", "role": "assistant", "model": "nosuch-model-7", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 10, "output_tokens": 5}}},
    ]
    path = tmp_path / "unknown.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    doc = _inspect(path)
    assert doc["cost_usd"] is None and doc["calls"][0]["cost_usd"] is None
    assert doc["totals"]["unpriced_calls"] == 1 and doc["totals"]["unpriced_models"] == {"nosuch-model-7": 1}
    text = CliRunner().invoke(cli, ["inspect", str(path)]).stdout
    assert "unpriced (1 call(s): nosuch-model-7 ×1)" in text and "$0.00" not in text


def test_session_prices_client_usage_so_the_dollar_limit_binds(tmp_path: Path) -> None:
    spec = get_model("gpt-4o-mini")
    assert spec.input_price and spec.output_price
    per_call = _usd(40_000, spec.input_price) + _usd(2_000, spec.output_price)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    replies = [Reply(text=f"answer {i}", input_tokens=40_000, output_tokens=2_000) for i in range(5)]
    try:
        with LocalProviderServer(replies) as srv:
            model = OpenAICompatibleModel("gpt-4o-mini", base_url=srv.openai_base_url, api_key="x", retry=RetryPolicy(delays=()))
            cfg = SessionConfig(limits=Limits(max_cost_usd=per_call * 2.5), clip_budget_tokens=None)
            s = Session(store, model="gpt-4o-mini", config=cfg)
            s.add(Message("user", (TextPart("go"),)))
            s.call(model)
            s.add(Message("user", (TextPart("more"),)))
            s.call(model)
            s.add(Message("user", (TextPart("and more"),)))
            s.call(model)  # 2 calls' worth spent, under 2.5: this one is made (limits are checked before a call)
            s.add(Message("user", (TextPart("once more"),)))
            with pytest.raises(LimitExceeded, match="cost_usd"):
                s.call(model)  # 3 calls' worth spent, over 2.5: refused before the call is made and paid
        assert len(srv.requests) == 3
        rows = store.list_usage(s.id)
        assert len(rows) == 3 and all(r.cost_usd is not None and abs(r.cost_usd - per_call) < 1e-12 for r in rows)
    finally:
        store.close()


def test_imported_usage_rows_carry_their_dollars(tmp_path: Path, transcripts_dir: Path) -> None:
    path = transcripts_dir / "codex" / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    url = f"sqlite:///{tmp_path / 'store.db'}"
    res = CliRunner().invoke(cli, ["import", str(path), "--store", url, "--json"])
    assert res.exit_code == 0, res.output
    conv = json.loads(res.stdout)["conversations"][0]["id"]
    store = open_store(url)
    try:
        rows = store.list_usage(conv)
        info = store.get_conversation(conv)
    finally:
        store.close()
    want = expected_codex([json.loads(x) for x in path.read_text().splitlines() if x.strip()])
    assert want is not None and abs(sum(r.cost_usd or 0 for r in rows) - want) < 0.005
    assert info.metadata["imported"]["window"] == {"tokens": 258_400, "source": "log"}


def test_one_window_and_dollars_across_inspect_replay_sessions_show_and_tui(tmp_path: Path, transcripts_dir: Path) -> None:
    from contextwindow.tui import view

    path = transcripts_dir / "codex" / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    want = expected_codex(lines)
    assert want is not None
    doc = _inspect(path)
    assert (doc["window"], doc["window_source"]) == (258_400, "log")
    res = CliRunner().invoke(cli, ["replay", str(path), "--policy", "none", "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["window"] == 258_400 and rep["window_source"] == "log"
    assert rep["as_logged"]["calls"] == len(doc["calls"]) and abs(rep["as_logged"]["total_cost_usd"] - want) < 0.005
    text = CliRunner().invoke(cli, ["replay", str(path), "--policy", "none", "-q"]).stdout
    assert text.index("as logged") < text.index("none ")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    conv = json.loads(CliRunner().invoke(cli, ["import", str(path), "--store", url, "--json"]).stdout)["conversations"][0]["id"]
    show = CliRunner().invoke(cli, ["sessions", "show", conv, "--store", url, "--json"])
    sdoc = json.loads(show.stdout)
    assert (sdoc["window"], sdoc["window_source"]) == (258_400, "log")
    assert abs(sdoc["cost_by_role"]["main"]["cost_usd"] - want) < 0.005
    assert sdoc["gauge"]["percent"] == doc["gauge"]["percent"]
    human = CliRunner().invoke(cli, ["sessions", "show", conv, "--store", url]).stdout
    assert "window 258,400 (from the log)" in human and f"${want:,.4f}"[:6] in human
    store = open_store(url)
    try:
        info = store.get_conversation(conv)
        from contextwindow.curation import segments
        from contextwindow.tokens import counter_for

        g = view.account_gauge(segments(store, conv), info, counter_for("gpt-5.5"))
    finally:
        store.close()
    assert (g.window, round(g.percent, 1)) == (258_400, doc["gauge"]["percent"])
    assert view.window_source(info) == "log"
    assert view.spend_lines({"main": {"calls": 2, "cost_usd": 0.0, "cost_unknown_calls": 2}}) == ["  main: 2 calls, in 0, out 0, unpriced"]


def test_claude_code_window_is_200k_unless_the_log_shows_more(tmp_path: Path, transcripts_dir: Path) -> None:
    doc = _inspect(transcripts_dir / "claude_code" / "codemie_session-624a4a58.jsonl")
    assert (doc["window"], doc["window_source"]) == (200_000, "assumed")
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "a"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "message": {
            "id": "m1", "role": "assistant", "model": "claude-opus-4-6", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 420_000, "output_tokens": 5}}},
    ]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    doc = _inspect(path)
    assert doc["window"] == get_model("claude-opus-4-6").context_window and doc["window_source"] == "log"


def test_a_rollout_that_names_no_model_is_counted_as_codex(transcripts_dir: Path) -> None:
    path = transcripts_dir / "codex" / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
    doc = _inspect(path)
    assert doc["model"] is None and doc["tokenizer"] == "o200k_base"
    assert doc["cost_usd"] is None  # no model named and no usage: nothing to price, and it says so
    # no window stated either: Codex's own (what its other rollouts state), not the generic 128k this
    # rollout's history (~131k) would overflow
    assert (doc["window"], doc["window_source"]) == (258_400, "assumed")
    assert doc["gauge"]["percent"] < 100
    # a rollout that names a model the registry does not know keeps the generic window: 258,400 is
    # Codex's own models' window, not a local model's
    from contextwindow.importers import ImportedSession
    from contextwindow.importers.window import session_window

    assert session_window(ImportedSession("codex", "x.jsonl", [], [], model="my-local-qwen-7b")) == (128_000, "assumed")
