"""Retirement dates in the model registry (lifecycle.py, data/model_lifecycle.json), what `ctxw
models show` says of them, and the minimum cacheable prompt of the models whose number changed."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from click.testing import CliRunner

from contextwindow.cli.main import cli
from contextwindow.errors import ConfigError
from contextwindow.formats.cache_marks import min_cacheable_tokens
from contextwindow.lifecycle import LIFECYCLE_FILE, bundled_retirements, retirements, status
from contextwindow.llm import LocalProviderServer
from contextwindow.models import get_model, load_override_file, min_cacheable, registry


def test_retiring_models_carry_their_date_alias_and_dated_id_alike() -> None:
    assert get_model("claude-sonnet-4-5").retires == "2026-11-30"
    assert get_model("claude-sonnet-4-5-20250929").retires == "2026-11-30"
    assert get_model("anthropic/claude-sonnet-4-0").retires == "2026-06-15"
    assert get_model("gpt-4o-mini").retires == "2027-01-14"
    for current in ("claude-sonnet-4-6", "claude-opus-4-7", "claude-haiku-4-5", "gpt-5.5"):
        assert get_model(current).retires is None, current


def test_every_bundled_date_names_a_model_the_registry_knows() -> None:
    dates = bundled_retirements()
    assert len(dates) > 30
    for (provider, mid), day in dates.items():
        spec = registry().by_qualified.get(f"{provider}/{mid}")
        assert spec is not None, f"{provider}/{mid} is in model_lifecycle.json but not in the registry"
        assert spec.retires == day and date.fromisoformat(day)
    data = json.loads(LIFECYCLE_FILE.read_text(encoding="utf-8"))
    assert all(item.get("source") for item in data["retirements"])  # every date says where it came from


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_the_bundled_dates_agree_with_the_anthropic_sdk() -> None:
    """The official SDK warns on every call to a model it lists; where our registry knows the model,
    our date is the SDK's. A gate for the SDK version the dates were checked against
    (`checked_against` in model_lifecycle.json); a newer SDK may date more models, and then the test
    says which ones to check instead of failing CI on a release it has not seen."""
    anthropic = pytest.importorskip("anthropic")
    messages = pytest.importorskip("anthropic.resources.messages.messages")
    sdk: dict[str, str] = getattr(messages, "DEPRECATED_MODELS", {})
    assert sdk, "the anthropic SDK no longer lists deprecated models where this test looks"
    months = {m: i for i, m in enumerate(["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                          "October", "November", "December"], 1)}
    differ: list[str] = []
    checked = 0
    for mid, said in sdk.items():
        spec = registry().by_qualified.get(f"anthropic/{mid}")
        if spec is None:
            continue
        month, day, year = re.fullmatch(r"(\w+) (\d+)\w*, (\d{4})", said).groups()  # type: ignore[union-attr]
        theirs = date(int(year), months[month], int(day)).isoformat()
        checked += 1
        if spec.retires != theirs:
            differ.append(f"{mid}: ours {spec.retires}, the SDK's {theirs}")
    checked_against = json.loads(LIFECYCLE_FILE.read_text(encoding="utf-8"))["checked_against"]["anthropic"]
    installed = anthropic.__version__
    if _version(installed) > _version(checked_against) and differ:
        pytest.skip(f"anthropic {installed} is newer than the {checked_against} our dates were checked against and "
                    f"differs on {len(differ)} model(s): {'; '.join(differ)} (update model_lifecycle.json and checked_against)")
    assert not differ, differ
    # 2.12.0 listed 8+ models we know; 2.13.0 dropped the retired ones and lists 5, 4 of them in our registry
    assert checked >= (4 if _version(installed) >= (2, 13) else 1)


def test_status_in_words() -> None:
    assert status("2026-11-30", date(2026, 11, 24)) == "deprecated, retires 2026-11-30"
    assert status("2026-11-30", date(2026, 11, 30)).startswith("retired 2026-11-30")
    assert status(None, date(2026, 11, 24)).startswith("active")


def test_models_show_says_deprecated_and_when() -> None:
    out = CliRunner().invoke(cli, ["models", "show", "claude-sonnet-4-5"])
    assert out.exit_code == 0, out.output
    assert f"status           {status('2026-11-30', date.today())}" in out.output
    out = CliRunner().invoke(cli, ["models", "show", "claude-sonnet-4-5", "--json"])
    assert json.loads(out.output)["retires"] == "2026-11-30"
    out = CliRunner().invoke(cli, ["models", "show", "claude-sonnet-4-6"])
    assert "status           active (no retirement date known)" in out.output


def test_a_user_file_may_date_its_own_models_and_keeps_the_bundled_dates(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "models.json"
    f.write_text(json.dumps({"local": {"my-llm": {"limit": {"context": 32768}, "retires": "2027-03-01"}},
                             "anthropic": {"claude-sonnet-4-5": {"limit": {"context": 200000}, "cost": {"input": 2, "output": 10}}}}))
    monkeypatch.setenv("CONTEXTWINDOW_MODELS_FILE", str(f))
    assert get_model("local/my-llm").retires == "2027-03-01"
    mine = get_model("anthropic/claude-sonnet-4-5")
    assert mine.input_price == 2 and mine.retires == "2026-11-30"  # the user's prices, the provider's date
    f.write_text(json.dumps({"local": {"bad": {"limit": {"context": 8}, "retires": "30/11/2026"}}}))
    with pytest.raises(ConfigError, match=r"bad.*YYYY-MM-DD.*30/11/2026"):
        load_override_file(f)


def test_lifecycle_data_errors_are_typed_and_say_where() -> None:
    with pytest.raises(ConfigError, match="retirements"):
        retirements({"retirements": {}})
    with pytest.raises(ConfigError, match=r"retirements\[0\].*provider"):
        retirements({"retirements": [{"ids": ["x"], "retires": "2026-01-01"}]})
    with pytest.raises(ConfigError, match=r"retirements\[0\].*2026-13-01"):
        retirements({"retirements": [{"provider": "p", "ids": ["x"], "retires": "2026-13-01"}]})


def test_minimum_cacheable_prompt_from_the_providers_docs() -> None:
    assert min_cacheable_tokens("claude-opus-4-7") == 4096  # was 1,024 ("unknown")
    assert get_model("claude-opus-4-7").min_cacheable_tokens == 4096
    assert min_cacheable_tokens("claude-sonnet-4-6") == 1024
    assert min_cacheable("google", "gemini-2.5-flash") == 2048 and min_cacheable("google", "gemini-2.5-pro") == 2048
    assert min_cacheable("google", "gemini-3.1-pro-preview") == 4096 and min_cacheable("google", "gemini-3.5-flash") == 4096
    assert min_cacheable("google", "gemini-3-flash-preview") == 1024
    assert min_cacheable("openai", "gpt-5.5") == 1024


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-sonnet-4-6"])
def test_ctxw_run_says_when_its_model_retires(tmp_path, model: str) -> None:  # type: ignore[no-untyped-def]
    """A one-line note on stderr, stdout (the --json run) untouched; nothing for a current model."""
    with LocalProviderServer(["done"]) as srv:
        r = CliRunner().invoke(cli, ["run", "t", "--model", model, "--provider", "anthropic", "--base-url", srv.base_url, "--json",
                                     "--store", f"sqlite:///{tmp_path / 's.db'}", "--cwd", str(tmp_path)],
                               env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "HOME": str(tmp_path)})
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["answer"] == "done"
    note = f"note: anthropic/{model} is {status('2026-11-30', date.today())}"
    assert (note in r.stderr) == (model == "claude-sonnet-4-5"), r.stderr
