"""Review of token counting: our offline encodings against tiktoken's own (its own split patterns and
special tokens from tiktoken_ext, fed our hash-verified vocabulary through its cache, no network); the
estimator never raises on any str; image formulas; the model registry's name resolution."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextwindow.tokens.estimate import Estimator
from contextwindow.tokens.exact import count_tokens, vocab_bytes

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


@pytest.fixture(scope="module")
def tiktoken_own(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """tiktoken's own encodings (tiktoken_ext.openai_public), their vocabulary served from a cache dir
    we fill with the verified bytes under tiktoken's cache key; an unreachable proxy proves no download."""
    import tiktoken
    import tiktoken_ext.openai_public as public

    cache = tmp_path_factory.mktemp("tiktoken_cache")
    for name, url in _URLS.items():
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(vocab_bytes(name))
    mp = pytest.MonkeyPatch()
    mp.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        mp.setenv(var, "http://127.0.0.1:9")
    try:
        return {name: tiktoken.Encoding(**getattr(public, name)()) for name in _URLS}
    finally:
        mp.undo()


_SAMPLES = [
    "Hello, world! It's a test — don't worry; we'll see.",
    "def f(x):\n    return {'a': [1, 2, 3]}  # comment\n\n\n\tTabbed\r\nCRLF  \n",
    '{"key": "value", "n": 1234567890, "nested": {"arr": [true, false, null]}}',
    "日本語のテキストと中文文本，还有한국어 텍스트. Ελληνικά кириллица",
    "emoji 🎉🚀👩‍👩‍👧 and combining é ñ and RTL עברית العربية",
    "aGVsbG8gd29ybGQ=" * 50 + " 0123456789abcdef" * 20,
    "<|endoftext|> <|fim_prefix|> <|endofprompt|> special strings as text",
    "   leading spaces\n\n\n   \n trailing   ",
    "CamelCaseIdentifiersAndSNAKE_CASE_CONSTS getHTTPResponseCode 1,234.56 3.14159",
    "\x00\x01\x7f NUL and controls \ufeff BOM \u2028 line sep",
]


@pytest.mark.parametrize("name", list(_URLS))
def test_exact_counts_equal_tiktokens_own_encoding(tiktoken_own: dict[str, Any], name: str, transcripts_dir: Path) -> None:
    enc = tiktoken_own[name]
    texts = list(_SAMPLES)
    for f in sorted(transcripts_dir.rglob("*.jsonl"))[:4]:
        texts.append(f.read_text(encoding="utf-8")[:200_000])
    for t in texts:
        assert count_tokens(name, t) == len(enc.encode_ordinary(t)), t[:60]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300))
def test_exact_counts_equal_tiktoken_on_random_unicode(tiktoken_own: dict[str, Any], text: str) -> None:
    for name, enc in tiktoken_own.items():
        assert count_tokens(name, text) == len(enc.encode_ordinary(text))


_ANY_STR = st.text(st.characters(codec=None, exclude_categories=()), max_size=400) | st.text(
    st.sampled_from(["\ud800", "\udfff", "\x00", "a", " ", "\n", "é", "中", "🎉", "=", "+", "/", "{", "0"]), max_size=400
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ANY_STR)
def test_estimator_never_raises_and_is_positive_on_any_str(text: str) -> None:
    for fam in ("anthropic", "openai", "gemini", "generic"):
        n = Estimator(fam).count_text(text)
        assert isinstance(n, int)
        assert (n == 0) == (text == "")


def test_estimator_on_10_mb_of_odd_text() -> None:
    text = ("\x00\ud800 abc 中文 " + "QUJD" * 20 + "\n") * (10_000_000 // 110)
    n = Estimator("anthropic").count_text(text)
    assert n > len(text) // 20


@pytest.mark.parametrize(
    ("name", "qualified"),
    [
        ("claude-sonnet-4", "anthropic/claude-sonnet-4-0"),  # a reseller lists the bare id; the first party's alias wins
        ("claude-opus-4", "anthropic/claude-opus-4-0"),
        ("claude-3-5-haiku", "anthropic/claude-3-5-haiku-latest"),
        ("claude-3-7-sonnet", "anthropic/claude-3-7-sonnet-20250219"),  # undated → the dated id
        ("claude-3-5-sonnet", "anthropic/claude-3-5-sonnet-20241022"),  # newest of two dated ids
        ("gpt-4o", "openai/gpt-4o"),
        ("gpt-4o-2024-08-06", "openai/gpt-4o-2024-08-06"),
        ("openai/gpt-4o", "openai/gpt-4o"),
        ("cortecs/claude-sonnet-4", "cortecs/claude-sonnet-4"),  # an explicit provider is respected
    ],
)
def test_bare_names_resolve_to_the_first_party_provider(name: str, qualified: str) -> None:
    from contextwindow.models import get_model

    assert get_model(name).qualified == qualified


def test_first_party_resolution_keeps_haiku_cache_minimum_and_cache_prices() -> None:
    from contextwindow.models import get_model

    s = get_model("claude-3-5-haiku")
    assert s.min_cacheable_tokens == 2048 and s.cache_read_price is not None


@pytest.mark.parametrize(
    "content",
    [
        {"acme": {"m1": [1]}},
        {"acme": {"m1": {"limit": {"context": True}}}},
        {"acme": {"m1": {"limit": {"context": 1000}, "min_cacheable_tokens": "x"}}},
    ],
)
def test_bad_user_models_file_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: object) -> None:
    import json

    from contextwindow.errors import ConfigError
    from contextwindow.models import get_model

    f = tmp_path / "models.json"
    f.write_text(json.dumps(content))
    monkeypatch.setenv("CONTEXTWINDOW_MODELS_FILE", str(f))
    with pytest.raises(ConfigError, match="m1"):
        get_model("m1")


def test_user_models_file_tolerates_odd_optional_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from contextwindow.models import get_model

    f = tmp_path / "models.json"
    f.write_text(json.dumps({"acme": {"m1": {"limit": {"context": 1000, "output": True}, "modalities": {"input": 5}, "cost": {"input": True}}}}))
    monkeypatch.setenv("CONTEXTWINDOW_MODELS_FILE", str(f))
    s = get_model("m1")
    assert (s.context_window, s.max_output, s.input_price, s.supports_images) == (1000, 1000, None, False)


def test_user_models_file_is_parsed_once_and_reloaded_when_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from contextwindow.models import get_model, registry

    f = tmp_path / "models.json"
    f.write_text(json.dumps({"acme": {"m1": {"limit": {"context": 1000}}}}))
    monkeypatch.setenv("CONTEXTWINDOW_MODELS_FILE", str(f))
    assert registry() is registry()  # not rebuilt (4,700 specs) on every get_model
    assert get_model("m1").context_window == 1000
    f.write_text(json.dumps({"acme": {"m1": {"limit": {"context": 20000}}}}))
    assert get_model("m1").context_window == 20000


def test_anthropic_image_cap_matches_its_unresized_square() -> None:
    from contextwindow.tokens.images import image_tokens

    assert image_tokens("anthropic", 1092, 1092) == 1590  # the largest square sent without resizing
    assert image_tokens("anthropic", 4000, 4000) == 1590  # bigger images are scaled down to that
