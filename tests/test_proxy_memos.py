"""What the proxy remembers between requests must be what it would compute again: the heads it
hashed (proxy/identity.py; aliases included, which exist only while the first user message is the
history's last), and the model specs it prices with (proxy/conversations.py; a models file that
changes is read again)."""

from __future__ import annotations

import random
from typing import Any

from contextwindow.proxy import identity
from contextwindow.proxy.history import normalize


def _history(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": f"system {rng.randint(0, 2)}"} for _ in range(rng.randint(0, 2))]
    parts = [{"type": "text", "text": f"part {rng.randint(0, 2)}"} for _ in range(rng.randint(1, 3))]
    out.append({"role": "user", "content": parts if len(parts) > 1 or rng.random() < 0.5 else parts[0]["text"]})
    for t in range(rng.randint(0, 3)):
        out += [{"role": "assistant", "content": f"answer {t}"}, {"role": "user", "content": f"more {t}"}]
    return out


def test_a_remembered_head_is_the_head_hashed_again() -> None:
    rng = random.Random(15)
    for _ in range(300):
        messages = _history(rng)
        for proto in ("openai", "anthropic"):
            body: dict[str, Any] = {"messages": messages}
            if proto == "anthropic":
                body = {"system": messages[0]["content"] if messages[0]["role"] == "system" else None,
                        "messages": [m for m in messages if m["role"] != "system"]}
                if body["system"] is None:
                    del body["system"]
            history, fps, _ = normalize(body, proto)
            got = identity.head_hashes(history, fps, proto)  # from the memo when this head was seen
            fresh, _ = identity._head_hashes(history, fps, proto)
            assert got == fresh, (proto, messages)
    assert identity._HEADS  # and the memo was used


def test_aliases_only_while_the_first_user_message_is_the_last() -> None:
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "text", "text": "task"}, {"type": "text", "text": "runtime"}]}]
    later = [*first, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    a = identity.head_hashes(*normalize({"messages": first}, "openai")[:2], "openai")
    b = identity.head_hashes(*normalize({"messages": later}, "openai")[:2], "openai")
    again = identity.head_hashes(*normalize({"messages": first}, "openai")[:2], "openai")
    assert a[0] == b[0] and a[1] and not b[1] and again == a


def test_prices_follow_a_models_file_that_changes(tmp_path: Any, monkeypatch: Any) -> None:
    import json

    from contextwindow.proxy.conversations import price
    from contextwindow.usage import Usage

    f = tmp_path / "models.json"
    monkeypatch.setenv("CONTEXTWINDOW_MODELS_FILE", str(f))
    usage = Usage(input_tokens=1_000_000, output_tokens=0, model="house-model-7")

    def write(dollars: int) -> None:
        f.write_text(json.dumps({"models": [{"id": "house-model-7", "provider": "house", "limit": {"context": 8192, "output": 1024},
                                             "cost": {"input": dollars, "output": 1}}]}) + " " * dollars)  # another size: another file

    write(3)
    assert price(usage).cost_usd == 3.0
    assert price(usage).cost_usd == 3.0  # remembered
    write(11)
    assert price(usage).cost_usd == 11.0  # the registry changed: looked up again
