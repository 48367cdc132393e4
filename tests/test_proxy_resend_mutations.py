"""Bodies that differ from the previous request of their conversation in ways that are *not* "the
same bytes plus new messages" must not be read as such (proxy/resend.py's splice and shared-prefix
paths, and ``Conversations._valid``'s check of the new messages only): a broken JSON tail, a
message edited with text that looks like a message boundary, duplicate keys, changed tools, a
changed system prompt, a rewound history, new messages that break the provider rules across the
boundary. Seeded sequences of such requests go through one long-lived ``Conversations`` (its
fast paths: the previous body kept, the forward-as-sent decision) and, request by request, through
a fresh one on another store that reads every body whole; the two stores must hold the same
conversations, row for row, and each request the same fingerprints and rules verdict."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

pytest.importorskip("orjson")

from contextwindow.formats.rules import check
from contextwindow.proxy import Conversations
from contextwindow.proxy.conversations import Request
from contextwindow.proxy.history import normalize, parse_request
from contextwindow.proxy.protocols import BY_PATH
from contextwindow.store import open_store
from contextwindow.usage import Usage
from proxy_helpers import TOOLS

CHAT, MESSAGES = BY_PATH["/v1/chat/completions"], BY_PATH["/v1/messages"]
COMPACT = {"ensure_ascii": False, "separators": (",", ":")}  # as httpx (the official SDKs) writes: the prefix path applies
STYLES: list[dict[str, Any]] = [COMPACT, {}, {"separators": (",", ":")}]
ANT_TOOLS = [{"name": "grep", "input_schema": {"type": "object"}}]
DUP = "zz_dup_key"  # written as a second "content" key in the body's bytes
AGAIN = "zz_messages_again"  # written as a second "messages" key, after the first (a JSON reader keeps the last)
KINDS = ["broken_tail", "boundary_string", "inside_last", "duplicate_key", "tools", "system",
         "rewind", "dup_call_id", "orphan_result", "messages_again", "system_toggle"]


def turn(rng: random.Random, proto: Any, n: int, call_id: str | None = None) -> list[dict[str, Any]]:
    """One round the client adds: a tool call and its result, or a text answer and a follow-up."""
    cid = call_id or f"call_{n}"
    if rng.random() < 0.4:
        if proto is CHAT:
            return [{"role": "assistant", "content": f"step {n} }}]\",{{ ü"}, {"role": "user", "content": f"go on {n}"}]
        return [{"role": "assistant", "content": [{"type": "text", "text": f"step {n} }}]"}]},
                {"role": "user", "content": [{"type": "text", "text": f"go on {n}"}]}]
    out = "".join(f"src/m{n}.py:{i}: retry()\n" for i in range(rng.randint(1, 6)))
    if proto is CHAT:
        return [{"role": "assistant", "content": None, "tool_calls": [{"id": cid, "type": "function", "function": {"name": "grep", "arguments": f'{{"n":{n}}}'}}]},
                {"role": "tool", "tool_call_id": cid, "content": out}]
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": cid, "name": "grep", "input": {"n": n}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": out}]}]


def body_of(proto: Any, system: str | None, history: list[dict[str, Any]], tools: list[Any], first: bool) -> dict[str, Any]:
    """The request body; ``first``: the history before the other keys (else after them); no system prompt when None."""
    if proto is CHAT:
        msgs = [{"role": "system", "content": system}, *history] if system is not None else history
        rest: dict[str, Any] = {"model": "gpt-4o-mini", "max_tokens": 256, "tools": tools}
    else:
        msgs = history
        rest = {"model": "claude-sonnet-4-5", "max_tokens": 256, "tools": tools, **({"system": system} if system is not None else {})}
    return {"messages": msgs, **rest} if first else {**rest, "messages": msgs}


def encode(body: dict[str, Any], style: dict[str, Any]) -> bytes:
    return json.dumps(body, **style).encode().replace(f'"{DUP}"'.encode(), b'"content"').replace(f'"{AGAIN}"'.encode(), b'"messages"')


def requests(rng: random.Random, proto: Any, style: dict[str, Any], first: bool) -> list[tuple[str, bytes]]:
    """A client's requests: each kind of change once, in a random order, each after a plain
    extension (so the request before it is one the fast paths keep and extend)."""
    system: str | None = "You are careful."
    tools = list(TOOLS if proto is CHAT else ANT_TOOLS)
    task = {"role": "user", "content": "Find the retry logic."} if proto is CHAT else {"role": "user", "content": [{"type": "text", "text": "Find the retry logic."}]}
    h: list[dict[str, Any]] = [task]
    out = [("start", encode(body_of(proto, system, h, tools, first), style))]
    order = [kind for change in rng.sample(KINDS, len(KINDS)) for kind in ("extend", change)]
    for k, kind in enumerate(order, start=1):
        new = turn(rng, proto, k)
        if kind == "broken_tail":  # the next extension with its body cut short or closed wrongly: not JSON
            raw = encode(body_of(proto, system, h + new, tools, first), style)
            out.append((kind, raw[: -rng.randint(1, 3)] if rng.random() < 0.5 else raw[:-1] + b"]"))
            continue
        if kind == "boundary_string" and len(h) > 1:  # an earlier message edited with text that looks like a boundary
            j = rng.randrange(1, len(h))
            h = json.loads(json.dumps(h))
            m = h[j]
            if isinstance(m.get("content"), str):
                m["content"] += '"},{"role":"user","content":"x'
            elif isinstance(m.get("content"), list) and m["content"] and m["content"][0].get("type") == "text":
                m["content"][0]["text"] += "}]},{"
            else:
                m["x_note"] = "},{"
        elif kind == "inside_last":  # text appended inside the last message, then a new round
            h = json.loads(json.dumps(h))
            last = h[-1]
            if isinstance(last.get("content"), str):
                last["content"] += "}]"
            else:
                last["content"] = [*last["content"], {"type": "text", "text": "}]"}] if isinstance(last["content"], list) else last["content"]
            h = h + new
        elif kind == "duplicate_key":  # a new user message whose bytes carry two "content" keys (the last one counts)
            if proto is CHAT:
                extra: dict[str, Any] = {"role": "user", "content": f"draft {k}", DUP: f"final {k}"}
                noted: dict[str, Any] = {"role": "assistant", "content": f"noted {k}"}
            else:
                extra = {"role": "user", "content": [{"type": "text", "text": f"draft {k}"}], DUP: [{"type": "text", "text": f"final {k}"}]}
                noted = {"role": "assistant", "content": [{"type": "text", "text": f"noted {k}"}]}
            h = h + new
            h = [*h[:-1], extra] if new[0]["role"] == "assistant" and "go on" in json.dumps(new[-1]) else [*h, noted, extra]
        elif kind == "tools":  # the tools change (a tool added), the history grows
            tools = [*tools, {**tools[0], **({"function": {**tools[0]["function"], "name": f"t{k}"}} if proto is CHAT else {"name": f"t{k}"})}]
            h = h + new
        elif kind == "system":  # the system prompt changes
            system = f"You are careful. Rule {k}."
            h = h + new
        elif kind == "messages_again":  # the grown history, then a second "messages" key holding another one
            body = body_of(proto, system, h + new, tools, first)
            other = body_of(proto, system, h[:1] + new, tools, first)["messages"]
            out.append((kind, encode({**body, AGAIN: other}, style)))
            h = h[:1] + new
            continue
        elif kind == "system_toggle":  # the system prompt comes or goes (with the history first in the body, it is written after it)
            system = None if system is not None else f"You are careful. Rule {k}."
            h = h + new
        elif kind == "rewind" and len(h) > 3:  # the client drops its last round (its own compaction, an edit)
            h = h[:-2]
        elif kind == "dup_call_id" and len(h) > 2:  # a new call reusing an earlier call's id: against the rules
            used = [c["id"] for m in h for c in m.get("tool_calls") or []] if proto is CHAT else \
                [b["id"] for m in h if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_use"]
            h = h + (turn(random.Random(k), proto, k, used[0]) if used else new)
        elif kind == "orphan_result" and proto is CHAT:  # a tool message answering no call of the message before it
            h = [*h, {"role": "tool", "tool_call_id": f"call_{k}_nowhere", "content": "stray"}, *new]
        else:  # (a kind that does not apply to this history: a plain extension)
            kind, h = "extend", h + new
        out.append((kind, encode(body_of(proto, system, h, tools, first), style)))
    return out


def rows(store: Any) -> list[tuple[int | None, list[tuple[str, str, Any]]]]:
    """Each conversation (oldest first): its parent's position, its rows (role, text, fingerprint)."""
    convs = list(reversed(store.list_conversations()))
    pos = {c.id: i for i, c in enumerate(convs)}
    return [(pos.get(c.parent_id) if c.parent_id else None, [(sm.message.role, sm.message.text, sm.message.meta.get("fp"))
                                                             for sm in store.list(c.id)]) for c in convs]


def run(convs: Conversations, proto: Any, raw: bytes, headers: dict[str, str]) -> tuple[Any, bool] | None:
    """One request as the proxy takes it; None when the body is not JSON (a 400: nothing stored)."""
    try:
        body, exact = parse_request(raw)
    except ValueError:
        return None
    p = convs.parse(Request(proto, body, raw, headers, exact))
    q = convs.quick(p)
    done = convs.commit(q) if q is not None else convs.prepare(p)
    # an answer's usage (its reply is not stored: the client's own copy comes with its next request)
    convs.record(done.conversation_id, Usage(input_tokens=20 * len(p.fingerprints), output_tokens=5, model=proto_model(proto)),
                 fast=done.fast)
    return p, q is not None


def live_conversation(convs: Conversations, p: Any) -> str:
    """The conversation the live proxy put the request in (the newest one of its identity)."""
    found = [c.id for c in convs.store.list_conversations() if c.id in convs._live and c.metadata.get("proxy", {}).get("key") == p.identity.key]
    return found[0]


def proto_model(proto: Any) -> str:
    return "gpt-4o-mini" if proto is CHAT else "claude-sonnet-4-5"


@pytest.mark.parametrize("proto", [CHAT, MESSAGES], ids=["chat", "messages"])
def test_mutated_resends_store_what_whole_reads_store(proto: Any) -> None:
    rng = random.Random(1524 if proto is CHAT else 1525)
    live_store, fresh_store = open_store("memory://"), open_store("memory://")
    live = Conversations(live_store)
    seen: dict[str, int] = {}
    taken = quick = 0
    for client in range(12):  # every writer style, the history first or last in the body, named by a header or not
        headers = {"x-ctxw-conversation": f"client-{client}"} if client // 6 else {}
        for kind, raw in requests(rng, proto, STYLES[client % 3], bool(client % 2)):
            got = run(live, proto, raw, headers)
            ref = run(Conversations(fresh_store), proto, raw, headers)  # a fresh proxy: every body read whole
            seen[kind] = seen.get(kind, 0) + 1
            if got is None or ref is None:
                assert got is None and ref is None and kind == "broken_tail", kind
                continue
            p, fast = got
            body = json.loads(raw)
            whole = normalize(body, proto.name)[1]
            assert p.fingerprints == whole == ref[0].fingerprints, (client, kind)
            assert live._valid(p) == (not check(proto.name, body)), (client, kind)
            want = [t["function"]["name"] if proto is CHAT else t["name"] for t in body["tools"]]
            assert [t.name for t in live._live[live_conversation(live, p)].tools] == want, (client, kind)
            if kind not in ("extend", "start", "inside_last", "duplicate_key", "tools", "dup_call_id", "orphan_result"):
                assert p.prev is None, (client, kind)  # never read as the previous body plus new messages
            taken += p.reused > 0
            quick += fast
        assert rows(live_store) == rows(fresh_store), client
    assert set(seen) >= set(KINDS) - ({"orphan_result"} if proto is MESSAGES else set()) and taken > 20 and quick > 10, (seen, taken, quick)  # every kind, and the fast paths, ran
