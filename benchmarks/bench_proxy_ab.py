"""Two (or more) versions of ``ctxw proxy`` side by side: CPU per request at 50 clients, interleaved.

On a shared machine latency is the load's, not the code's; CPU time per request is steadier, and
interleaving the versions' batches (one upstream, one proxy process per version, each batch sent to
one proxy in turn) lets drift in the load hit every version alike. Each version is a ``src`` folder
(e.g. a temporary ``git worktree add --detach /tmp/old <commit>``); the load is bench_proxy.py's.

    git worktree add --detach /tmp/old main
    python benchmarks/bench_proxy_ab.py --src old=/tmp/old/src --src new=src --rounds 6 [--stream]
    python benchmarks/bench_proxy_ab.py --src main=/tmp/old/src --src new=src --src lane=src --lane-for lane
    git worktree remove /tmp/old

Prints each round's CPU ms/request per version (``/proc/PID/task/*/schedstat``), each version's
median, and the median of the per-round differences against the first version named; then, each
round having sent the same load straight to the upstream too (before the versions' batches), each
version's total latency p50/p99 added against those direct batches, over all rounds, with and
without each conversation's first request (the latency of a loaded machine: compare the versions
with each other, not with the goal).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_proxy as bp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", action="append", required=True, metavar="LABEL=PATH", help="a version's src folder (two or more)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--lane-for", action="append", default=[], metavar="LABEL", help="run that version's proxy with --lane")
    args = ap.parse_args()
    versions = [spec.split("=", 1) for spec in args.src]
    if len(versions) < 2 or any(len(v) != 2 for v in versions):
        ap.error("--src LABEL=PATH, at least twice")
    tmp = Path(tempfile.mkdtemp(prefix="bench_proxy_ab_"))
    load = round(os.getloadavg()[0], 1)
    procs: list[subprocess.Popen[str]] = []
    try:
        up, port = bp.start([sys.executable, bp.__file__, "--serve-upstream", "0.05"], r"port (\d+)")
        procs.append(up)
        upstream = f"http://127.0.0.1:{port}"
        proxies: dict[str, tuple[int, str]] = {}
        for i, (label, src) in enumerate(versions):
            env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
            p = subprocess.Popen([sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", upstream, "--port", "0",
                                  "--store", f"sqlite:///{tmp / f'proxy{i}.db'}", *(["--lane"] if label in args.lane_for else [])],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            procs.append(p)
            assert p.stderr is not None
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", p.stderr.readline())
            if not m:
                raise SystemExit(f"{label}: ctxw proxy did not start from {src}")
            proxies[label] = (p.pid, m.group(1))
            bp.run_batch(m.group(1), 2, 2, False, 90_000 + i)  # warm
        cpu: dict[str, list[float]] = {label: [] for label in proxies}
        lat: dict[str, tuple[list[float], list[bool]]] = {label: ([], []) for label in ["direct", *proxies]}
        p99: dict[str, list[float]] = {label: [] for label in proxies}  # each round's batch p99, total latency
        for r in range(args.rounds):
            _, total, first = bp.run_batch(upstream, args.clients, args.turns, args.stream, 1000 * r + 900)
            lat["direct"][0].extend(total)
            lat["direct"][1].extend(first)
            for i, (label, (pid, url)) in enumerate(proxies.items()):
                before = bp.cpu_s(pid)
                _, total, first = bp.run_batch(url, args.clients, args.turns, args.stream, 1000 * r + 100 * i)
                cpu[label].append(1000 * (bp.cpu_s(pid) - before) / len(total))
                lat[label][0].extend(total)
                lat[label][1].extend(first)
                p99[label].append(bp.pct(total, 0.99))
    finally:
        for p in procs:
            p.kill()
    print(f"proxy CPU ms/request, {args.clients} clients x {args.turns} turns, {'streamed' if args.stream else 'JSON'} answers, "
          f"{args.rounds} interleaved rounds (1-min load {load} -> {round(os.getloadavg()[0], 1)}):")
    first = versions[0][0]

    def paired(series: dict[str, list[float]], label: str) -> str:
        """Against the first version named: the median and range of the per-round differences."""
        if label == first:
            return ""
        diffs = [100 * (b - a) / a for a, b in zip(series[first], series[label], strict=True)]
        return f"  vs {first}: paired median {statistics.median(diffs):+.1f}% ({min(diffs):+.1f} .. {max(diffs):+.1f})"

    for label, xs in cpu.items():
        print(f"  {label}: median {statistics.median(xs):.3f}  rounds {', '.join(f'{x:.3f}' for x in xs)}" + paired(cpu, label))
    print("total latency added against the direct batches (all requests | first requests left out):")

    def added(label: str, q: float, later: bool) -> str:
        def pick(name: str) -> list[float]:
            xs, firsts = lat[name]
            return [x for x, f in zip(xs, firsts, strict=True) if not (later and f)]
        d, p = bp.pct(pick("direct"), q), bp.pct(pick(label), q)
        return f"{p:.1f} ms ({100 * (p - d) / d:+.1f}%)"

    d = lat["direct"][0]
    print(f"  direct: p50 {bp.pct(d, 0.5):.1f} ms, p99 {bp.pct(d, 0.99):.1f} ms")
    for label, xs in p99.items():
        print(f"  {label}: each round's p99 (ms) {', '.join(f'{x:.0f}' for x in xs)}" + paired(p99, label))
    for label in proxies:
        print(f"  {label}: p50 {added(label, 0.5, False)}, p99 {added(label, 0.99, False)} | p50 {added(label, 0.5, True)}, "
              f"p99 {added(label, 0.99, True)}")


if __name__ == "__main__":
    main()
