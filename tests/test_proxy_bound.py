"""The byte bound the proxy's no-build decision uses instead of tokenizing (proxy/bound.py): a
byte-level BPE counter never gives a text more tokens than its UTF-8 bytes, tried on adversarial
text; a message's bound is at least its count; and through the real proxy, a tool result over the
clip budget by tokens but not by a bytes/4 guess takes the slow path and is clipped."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from contextwindow.messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from contextwindow.proxy import bound
from contextwindow.tokens.estimate import Estimator
from contextwindow.tokens.exact import ExactCounter

ALPHABETS = {
    "digits": "0123456789",
    "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "space": " \t\n\r\x0b\x0c",
    "control": "".join(chr(c) for c in range(32)) + "\x7f",
    "latin": "abcdefghijklmnopqrstuvwxyzéèàüöçñßøå",
    "cjk": "".join(chr(c) for c in range(0x4E00, 0x4E00 + 400)),
    "emoji": "".join(chr(c) for c in range(0x1F600, 0x1F650)) + "\u200d\ufe0f",
    "combining": "".join(chr(c) for c in range(0x300, 0x36F)) + "aeiou",
    "surrogates": "".join(chr(c) for c in (0xD800, 0xDBFF, 0xDC00, 0xDFFF)) + "xy",
    "hex": "0123456789abcdef",
}


def adversarial(rng: random.Random, n: int) -> str:
    """A text mixing runs from the alphabets above (the kinds a tokenizer packs worst)."""
    out: list[str] = []
    while sum(map(len, out)) < n:
        alphabet = ALPHABETS[rng.choice(sorted(ALPHABETS))]
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))))
    return "".join(out)[:n]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_a_byte_level_bpe_count_never_exceeds_the_texts_utf8_bytes(encoding: str) -> None:
    counter = ExactCounter(encoding)
    rng = random.Random(1515)
    worst = 0.0
    for i in range(300):
        text = adversarial(rng, rng.choice((1, 7, 64, 500, 3_000)))
        n, b = counter.count_text(text), bound.utf8_len(text)
        assert n <= b, (encoding, i, text[:80])
        worst = max(worst, n / b)
    for name, alphabet in ALPHABETS.items():  # one alphabet alone, long (chunked by the counter past its chunk size)
        text = "".join(rng.choice(alphabet) for _ in range(30_000))
        assert counter.count_text(text) <= bound.utf8_len(text), name
    assert worst > 0.5  # the texts do pack tokens densely: the bound is tested where it is tight


def test_the_heuristic_estimator_has_no_byte_bound() -> None:
    # it can give more tokens than bytes (a character class weighs over one token), so the exact path decides
    est = Estimator("anthropic")
    text = "".join(random.Random(3).choice(ALPHABETS["punct"]) for _ in range(200))
    assert est.count_text(text) > 0
    assert not bound.has_bound(est) and bound.message_bound(est, Message("user", (TextPart(text),))) is None
    assert bound.capped(est, 4_000) is None


def test_a_messages_bound_is_at_least_its_count() -> None:
    rng = random.Random(99)
    for encoding in ("o200k_base", "cl100k_base"):
        counter = ExactCounter(encoding)
        for i in range(150):
            t = lambda: adversarial(rng, rng.choice((0, 3, 40, 400)))  # noqa: E731
            parts: list[Any] = [TextPart(t())] if rng.random() < 0.5 else []
            if rng.random() < 0.5:
                parts.append(ToolCallPart(id=f"call_{t()[:20]}", name="grep", arguments=t()))
            if rng.random() < 0.5:
                parts.append(ToolResultPart(call_id=f"call_{i}", content=(TextPart(t()), TextPart(t()))))
            if rng.random() < 0.1:
                parts.append(ImagePart("url", "https://example.com/a.png", width=640, height=480))
            m = Message(rng.choice(("user", "assistant", "tool")), tuple(parts) or (TextPart("x"),), name=t()[:10] or None)
            b = bound.message_bound(counter, m)
            assert b is not None and b >= counter.count_message(m), (encoding, i)
        with_reasoning = Message("assistant", (ReasoningPart("thinking"), TextPart("done")))
        assert bound.message_bound(counter, with_reasoning) is None  # its cost may be the provider's count


def test_capped_gives_the_exact_answer_against_the_budget() -> None:
    counter = ExactCounter("o200k_base")
    count = bound.capped(counter, 300)
    assert count is not None
    rng = random.Random(5)
    for _ in range(200):
        text = adversarial(rng, rng.choice((50, 200, 299, 301, 600, 1_500)))
        assert (count(text) <= 300) == (counter.count_text(text) <= 300)


# --- through the real proxy ----------------------------------------------------------------------


def dense(rng: random.Random, nbytes: int) -> str:
    """ASCII that BPE packs badly (digits and punctuation): well over one token per four bytes."""
    alphabet = ALPHABETS["digits"] + ALPHABETS["punct"]
    return "".join(rng.choice(alphabet) for _ in range(nbytes))


def test_a_tail_over_the_budget_by_tokens_but_not_by_a_bytes_guess_takes_the_slow_path_and_is_clipped() -> None:
    pytest.importorskip("aiohttp")
    from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
    from contextwindow.proxy import Conversations
    from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
    from contextwindow.store import open_store

    budget = 400
    rng = random.Random(4242)
    counter = ExactCounter("o200k_base")
    small = "src/http.py:12: retry()\n" * 5  # under the budget by its bytes: no tokenizing before the forward
    big = dense(rng, 1_200)  # 1,200 bytes: "300 tokens" by a bytes/4 guess, far more by count
    assert bound.utf8_len(big) // 4 < budget < counter.count_text(big)
    received: list[dict[str, Any]] = []

    def handler(req: Any) -> Reply:
        received.append(req.body)
        n = len(req.body["messages"])
        return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)

    store = open_store("memory://")
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0), Conversations(store, clip_budget=budget)) as px:
        url = f"{px.url}/v1/chat/completions"
        history: list[dict[str, Any]] = [{"role": "user", "content": "Find the retry logic."}]
        outputs = [small, small, small, big]
        for out in outputs:
            msg = httpx.post(url, json={"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}, timeout=30).json()["choices"][0]["message"]
            history = [*history, msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": out}]
            px.wait_idle()
        httpx.post(url, json={"model": "gpt-4o-mini", "max_tokens": 64, "messages": history}, timeout=30)
        px.wait_idle()
        fast = px.server.stats["fast"]
    assert fast >= 2  # the requests whose new tool result was under the budget by its bytes went as sent
    last = received[-1]["messages"][-1]["content"]
    assert last != big and "ofl_" in last  # the dense one was counted, found over the budget, and clipped at the door
    assert [m["content"] for m in received[-2]["messages"] if m["role"] == "tool"] == [small] * 3  # the small ones as sent
