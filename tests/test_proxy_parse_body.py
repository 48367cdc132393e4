"""The proxy parses request bodies (and answers) with orjson where that gives exactly what the stdlib gives
(proxy/history.py: parse_body); everything else goes to the stdlib, errors included."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from contextwindow.proxy.history import parse_body


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return rng.randint(-(2**70), 2**70) if rng.random() < 0.3 else rng.randint(-1000, 10**6)
    if kind == 1:
        return rng.choice([0.1, -0.0, 1e-05, 1.5e300, 123456.789, rng.random()])
    if kind == 2:
        return "".join(rng.choice(["a", "ü", "😀", "\n", "\"", "\\", "7", "\u2028", "\ud800"]) for _ in range(rng.randint(0, 12)))
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return "9" * rng.randint(15, 25)  # long digit runs inside a string
    if kind in (5, 6):
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{rng.randint(0, 5)}": _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def test_parse_body_gives_what_the_stdlib_gives() -> None:
    rng = random.Random(15)
    for _ in range(400):
        value = {"model": "m", "messages": [_value(rng) for _ in range(3)]}
        for raw in (json.dumps(value).encode(), json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"),
                    json.dumps(value, indent=1).encode()):
            try:
                want = json.loads(raw)
            except ValueError:
                with pytest.raises(ValueError):
                    parse_body(raw)
                continue
            assert _same(parse_body(raw), want), raw[:200]


@pytest.mark.parametrize("raw", [b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b'{"a": 1', b"", b'{"a": "\x01"}'])
def test_what_is_not_json_is_the_stdlib_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        parse_body(raw)


def test_an_answer_is_read_as_the_clients_sdk_reads_it_streamed_or_not() -> None:
    # some OpenAI-compatible servers write a -inf logprob as -Infinity (not JSON, but what Python's
    # json, so the official SDK, reads). The client gets its answer either way; the proxy must read
    # its usage and reply the same way whether it came whole or streamed (before: streamed events
    # were read by the stdlib, a whole body refused, and that answer's dollars and reply were lost)
    pytest.importorskip("aiohttp")
    openai = pytest.importorskip("openai")
    from contextwindow.llm.localserver import Reply
    from test_proxy import oai, stack

    def answer(req: Any) -> Reply:
        usage = {"prompt_tokens": 31, "completion_tokens": 2, "total_tokens": 33}
        choice = {"index": 0, "finish_reason": "stop", "logprobs": {"content": [{"token": "Yes", "logprob": "@", "bytes": None, "top_logprobs": []}]}}
        if req.body.get("stream"):
            delta = {**choice, "delta": {"role": "assistant", "content": "Yes."}, "finish_reason": None}
            events = [{"id": "s", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [delta]},
                      {"id": "s", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [], "usage": usage}]
            raw = b"".join(b"data: " + json.dumps(e).replace('"@"', "-Infinity").encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
            return Reply.garbage(raw, content_type="text/event-stream")
        body = {"id": "c", "object": "chat.completion", "created": 1, "model": "m", "usage": usage,
                "choices": [{**choice, "message": {"role": "assistant", "content": "Yes."}}]}
        return Reply.garbage(json.dumps(body).replace('"@"', "-Infinity").encode(), content_type="application/json")

    assert openai is not None
    with stack(answer) as (_up, px, store):
        c = oai(px)
        for stream in (False, True):
            msgs = [{"role": "user", "content": f"Is it there? ({'streamed' if stream else 'whole'})"}]
            if stream:
                got = "".join(ch.choices[0].delta.content or "" for ch in c.chat.completions.create(model="gpt-4o-mini", messages=msgs, stream=True)
                              if ch.choices)
            else:
                got = c.chat.completions.create(model="gpt-4o-mini", messages=msgs).choices[0].message.content
            assert got == "Yes."
        px.wait_idle()
        convs = store.list_conversations()
        assert len(convs) == 2
        for conv in convs:
            assert [(u.input_tokens, u.output_tokens) for u in store.list_usage(conv.id)] == [(31, 2)], conv.title
            assert [sm.message.text for sm in store.list(conv.id)][-1] == "Yes.", conv.title
