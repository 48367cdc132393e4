"""Clients that end every request with a block that changes from call to call, through ``ctxw
proxy``: how many store conversations they become, how much of each upstream request is a byte
prefix of the next one, whether a tool result keeps its clipped text, and where the dollars land.

In process: the real local provider server (``llm/localserver.py``) as upstream, the proxy on a
loopback port, httpx as the client (the SDKs are exercised in tests/test_proxy_transient.py).
Each seeded client runs ``--turns`` tool steps of 40-400-line outputs (clip budget 300 tokens) and
appends a reminder whose text changes every call, as its own last message (``message``: how
``ctxw run`` speaks Chat Completions) or as a text block after the tool results in its last user
message (``block``: how ``ctxw run`` speaks Anthropic). Nothing here is tuned on these numbers; it
runs on any checkout of this repository, so the same command measures the code before the change:

    python benchmarks/bench_proxy_transient.py                 # the table in docs/proxy.md
    PYTHONPATH=/path/to/older/src python benchmarks/bench_proxy_transient.py --json
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
from typing import Any

import httpx

from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
from contextwindow.proxy import Conversations
from contextwindow.proxy.server import BackgroundProxy, ProxyConfig
from contextwindow.store import open_store


def output(rng: random.Random, step: int) -> str:
    lines = rng.randint(40, 400)
    return "".join(f"src/pkg_{(i * 7 + step) % 31}/mod_{i % 13}.py:{i}: retry(request, attempt={i})\n" for i in range(lines))


def reminder(rng: random.Random, step: int) -> str:
    return f"<system-reminder>step {step}; {rng.randint(1, 40)} files changed; {rng.choice(['tests failing', 'tests passing'])}</system-reminder>"


def script(protocol: str) -> Any:
    def reply(req: Any) -> Reply:
        n = len(req.body["messages"])
        call = ToolCallSpec("grep" if protocol == "openai" else "Bash", {"n": n}, id=f"call_{n}" if protocol == "openai" else f"toolu_{n}")
        return Reply(tool_calls=(call,), input_tokens=50 * n, output_tokens=15)

    return reply


def run_client(url: str, protocol: str, rng: random.Random, turns: int, seed: int) -> list[dict[str, Any]]:
    """One client; returns what it sent per request."""
    sent_all: list[dict[str, Any]] = []
    with httpx.Client(timeout=60) as http:
        if protocol == "openai":
            own: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                         {"role": "user", "content": f"Task {seed}: find the flaky test."}]
            for step in range(turns):
                body = {"model": "gpt-4o-mini", "max_tokens": 256, "messages": [*own, {"role": "user", "content": reminder(rng, step)}]}
                sent_all.append(body)
                msg = http.post(f"{url}/v1/chat/completions", json=body).json()["choices"][0]["message"]
                msg = {k: v for k, v in msg.items() if v is not None and k in ("role", "content", "tool_calls")}
                own.append(msg)
                own += [{"role": "tool", "tool_call_id": c["id"], "content": output(rng, step)} for c in msg["tool_calls"]]
        else:
            own = [{"role": "user", "content": [{"type": "text", "text": f"Task {seed}: find the flaky test."}]}]
            for step in range(turns):
                msgs = json.loads(json.dumps(own))
                msgs[-1]["content"].append({"type": "text", "text": reminder(rng, step)})
                body = {"model": "claude-sonnet-4-5", "max_tokens": 256, "system": "You are a coding agent.", "messages": msgs}
                sent_all.append(body)
                ans = http.post(f"{url}/v1/messages", json=body, headers={"anthropic-version": "2023-06-01"}).json()
                own.append({"role": "assistant", "content": ans["content"]})
                own.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": output(rng, step)}
                                                        for b in ans["content"] if b["type"] == "tool_use"]})
    return sent_all


def prefix_kept(prev: dict[str, Any], cur: dict[str, Any]) -> float:
    """Share (characters) of the previous upstream request, its last message left out (the client
    itself changes it), that is an identical prefix of the next one, message by message."""
    a = [json.dumps(m, sort_keys=True) for m in prev["messages"][:-1]]
    b = [json.dumps(m, sort_keys=True) for m in cur["messages"]]
    same = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        same += len(x)
    total = sum(map(len, a))
    return same / total if total else 1.0


def scenario(protocol: str, clients: int, turns: int) -> dict[str, Any]:
    store = open_store("memory://")
    with LocalProviderServer(script(protocol)) as up:
        cfg = ProxyConfig(upstream=up.base_url, port=0)
        with BackgroundProxy(cfg, Conversations(store, clip_budget=300)) as px:
            for seed in range(clients):
                run_client(px.url, protocol, random.Random(seed), turns, seed)
            px.wait_idle()
        bodies = [r.body for r in up.requests]
    by_task: dict[str, list[dict[str, Any]]] = {}
    for b in bodies:
        first = b["messages"][0]["content"] if protocol == "anthropic" else b["messages"][1]["content"]
        text = first if isinstance(first, str) else first[0]["text"]
        by_task.setdefault(text, []).append(b)
    shares = [prefix_kept(p, c) for reqs in by_task.values() for p, c in itertools.pairwise(reqs)]
    convs = store.list_conversations()
    priced = [len(store.list_usage(c.id)) for c in convs]
    return {
        "protocol": protocol, "tail": "message" if protocol == "openai" else "block", "clients": clients, "requests": len(bodies),
        "conversations": len(convs), "conversations_per_client": len(convs) / clients,
        "prefix_kept_mean": statistics.fmean(shares), "prefix_kept_min": min(shares),
        "full_prefix_share": sum(1 for s in shares if s == 1.0) / len(shares),
        "usage_rows_per_conversation_max": max(priced), "usage_rows": sum(priced),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--turns", type=int, default=8)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [scenario(p, args.clients, args.turns) for p in ("openai", "anthropic")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.clients} seeded clients x {args.turns} requests each; a changing reminder ends every request")
    print("| protocol | reminder as | requests | store conversations per client | prefix of the previous request kept, mean / min "
          "| pairs with the whole prefix kept | most calls priced in one conversation |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['protocol']} | {r['tail']} | {r['requests']} | {r['conversations_per_client']:.1f} | "
              f"{100 * r['prefix_kept_mean']:.1f}% / {100 * r['prefix_kept_min']:.1f}% | {100 * r['full_prefix_share']:.0f}% | "
              f"{r['usage_rows_per_conversation_max']} of {args.turns} |")


if __name__ == "__main__":
    main()
