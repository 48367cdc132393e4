"""What a session's window held (``ctxw inspect``): a JSON-able report over an imported session.

A totals block comes first (calls, input, cache read/write, output, dollars at registry prices, the
window and where it comes from, the peak share of the window, what the import dropped/repaired); the
per-call table (model, reported vs estimated input, dollars) follows with ``--calls``.

Per call, ``estimated_input_tokens`` is this project's count of the messages the provider was sent
(an imported checkpoint's summary in place of what it folded), by the counter of the model that made
that call (``--model`` forces one for all), with no calibration learned from the session itself; the
provider's number also holds the system prompt and tool definitions the log does not show, so the gap
between the two is mostly that fixed prefix (``fixed_prefix_tokens``).

``unexplained_steps`` names every step (from one call with usage to the next) whose reported prompt changed
by more than :data:`~.accuracy.UNEXPLAINED_TOKENS` beyond what the log explains — content the client added
or cut without logging it (an attached nested CLAUDE.md, a microcompact, a server-side search) — each with
what the log shows about it (:data:`~.accuracy.CAUSES`). An estimate between two reports misses by that
much there; a session re-anchors on the next report.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..budget import gauge
from ..cost import call_cost, calls_total
from ..importers import ImportedSession
from ..importers.report import import_report, report_line
from ..importers.window import session_window, tokenizer_model, window_text
from ..messages import Message, ToolCallPart, ToolResultPart
from ..models import find_model
from ..tokens import counter_for
from ..turns import group_turns
from .accuracy import UNEXPLAINED_TOKENS, points, unexplained
from .engine import estimate_overhead, provider_view, user_constraints


def _first_line(text: str, limit: int = 100) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s[:limit] + ("…" if len(s) > limit else "")
    return ""


def inspect_session(
    session: ImportedSession,
    *,
    model: str | None = None,
    window: int | None = None,
    top: int = 10,
    children: list[ImportedSession] | None = None,
) -> dict[str, Any]:
    """The inspection report of ``session`` (stable keys; see ``ctxw inspect --json``). The totals
    count the ``children`` too (sub-agent sessions of the same log: their calls and spend)."""
    name = model or session.model
    counter = counter_for(model or tokenizer_model(session))
    spec = find_model(name)
    model_known = spec is not None
    if window is not None:
        win, win_source = window, "option"
    elif model is not None and spec is not None:  # the model given on the command line (name is it)
        win, win_source = spec.context_window, "registry"
    else:
        win, win_source = session_window(session)
    msgs = session.messages
    by_role: dict[str, int] = defaultdict(int)
    by_kind: dict[str, int] = defaultdict(int)
    by_tool: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "call_tokens": 0, "result_tokens": 0})
    names: dict[str, str] = {}
    results: list[dict[str, Any]] = []
    for i, m in enumerate(msgs):
        by_role[m.role] += counter.count_message(m)
        for p in m.parts:
            n = counter.count_part(p) if hasattr(counter, "count_part") else counter.count_message(Message(m.role, (p,)))
            by_kind[p.kind] += n
            if isinstance(p, ToolCallPart):
                names[p.id] = p.name
                by_tool[p.name]["calls"] += 1
                by_tool[p.name]["call_tokens"] += n
            elif isinstance(p, ToolResultPart):
                tool = p.name or names.get(p.call_id) or "?"
                by_tool[tool]["result_tokens"] += n
                results.append(
                    {"index": i, "call_id": p.call_id, "tool": tool, "tokens": n, "is_error": p.is_error, "first_line": _first_line(p.text)}
                )
    results.sort(key=lambda r: -int(r["tokens"]))
    steps = unexplained(points(session, (lambda _m: counter) if model else None))
    calls = []
    for c in session.calls:
        cost = call_cost(c)
        # each call counted as its own model counts (thinking retention and tokenizer follow the model
        # that made the call: a mixed Opus + Haiku session), unless --model names one for all
        per_call = counter if model or not c.model else counter_for(c.model)
        calls.append(
            {
                "index": c.index,
                "model": c.model,
                "reported_input_tokens": c.reported_input_tokens,
                "estimated_input_tokens": per_call.count_messages(provider_view(session, c)),
                "output_tokens": c.output_tokens,
                "cache_read_tokens": c.cache_read_tokens,
                "cache_write_tokens": c.cache_write_tokens,
                "cache_write_1h_tokens": c.cache_write_1h_tokens,
                "cost_usd": None if cost is None else round(cost, 6),
            }
        )
    last = calls[-1] if calls else None
    used = (last["reported_input_tokens"] or last["estimated_input_tokens"]) if last else counter.count_messages(msgs)
    g = gauge(int(used or 0), win)
    prompts = [int(c["reported_input_tokens"] or c["estimated_input_tokens"] or 0) for c in calls]
    peak = max(prompts, default=int(used or 0))
    subs = children or []
    every = [*session.calls, *(c for ch in subs for c in ch.calls)]
    money = calls_total(every)
    report = import_report(session)
    totals = {
        "calls": len(every),
        "subagent_sessions": len(subs),
        "subagent_calls": sum(len(ch.calls) for ch in subs),
        "calls_with_usage": sum(1 for c in every if c.reported_input_tokens is not None),
        "input_tokens": sum(c.reported_input_tokens or 0 for c in every),
        "cache_read_tokens": sum(c.cache_read_tokens or 0 for c in every),
        "cache_write_tokens": sum(c.cache_write_tokens or 0 for c in every),
        "output_tokens": sum(c.output_tokens or 0 for c in every),
        **money.to_dict(),
        "cost_text": money.text(),
        "window": win,
        "window_source": win_source,
        "peak_tokens": peak,
        "peak_percent": round(100 * peak / win, 1) if win else None,
        "dropped": sum(report["dropped"].values()),
        "repaired": sum(report["repaired"].values()),
    }
    turns = [t for t in group_turns(msgs) if not t.preamble]
    number = {c.index: n + 1 for n, c in enumerate(session.calls)}
    return {
        "source": session.source,
        "format": session.format,
        "model": name,
        "model_known": model_known,
        "tokenizer": getattr(counter, "name", type(counter).__name__),
        "window": win,
        "window_source": win_source,
        "cost_usd": totals["cost_usd"],
        "totals": totals,
        "messages": len(msgs),
        "turns": len(turns),
        "tool_calls": sum(len(m.tool_calls) for m in msgs),
        "total_tokens": counter.count_messages(msgs),
        "by_role": dict(by_role),
        "by_kind": dict(by_kind),
        "by_tool": {k: by_tool[k] for k in sorted(by_tool, key=lambda k: -(by_tool[k]["call_tokens"] + by_tool[k]["result_tokens"]))},
        "largest_results": results[: max(0, top)],
        "calls": calls,
        "fixed_prefix_tokens": estimate_overhead(session, counter),
        "checkpoints": [
            {"upto": cp.upto, "trigger": cp.trigger, "pre_tokens": cp.pre_tokens, "summary_tokens": counter.count_message(cp.summary)}
            for cp in session.checkpoints
        ],
        "clearings": [
            {"call": number.get(cl.at), "index": cl.at, "results": len(cl.call_ids), "tokens_saved": cl.tokens_saved,
             "trigger": cl.trigger, "simulated": cl.simulated}
            for cl in session.clearings
        ],
        "unexplained_steps": [
            {"index": u.index, "reported_delta": u.reported_delta, "estimated_delta": u.estimated_delta, "tokens": u.tokens, "cause": u.cause}
            for u in steps
        ],
        "constraints": [c.text for c in user_constraints(msgs)],
        "skipped": len(session.skipped),
        "import_report": report,
        "gauge": {"used": g.used, "window": g.window, "percent": round(g.percent, 1), "severity": g.severity},
    }


def render_totals(doc: dict[str, Any]) -> list[str]:
    """The totals block: what the session cost and how full its window got."""
    t = doc["totals"]
    rep = doc.get("import_report") or {}
    lines = [
        f"{doc['source']}",
        f"format {doc['format']}, model {doc['model'] or 'unknown'}, {t['calls']} calls"
        + (f" ({t['calls_with_usage']} with usage)" if t["calls_with_usage"] != t["calls"] else "")
        + (f", of which {t['subagent_calls']} in {t['subagent_sessions']} sub-agent run(s)" if t.get("subagent_sessions") else ""),
        f"  input        {t['input_tokens']:>14,} tokens (whole prompts, as reported)",
        f"  cache read   {t['cache_read_tokens']:>14,}",
        f"  cache write  {t['cache_write_tokens']:>14,}",
        f"  output       {t['output_tokens']:>14,}",
        f"  cost         {t['cost_text']}  (registry prices, per call at its model)",
        f"  {window_text(t['window'], t['window_source'])}, peak {t['peak_tokens']:,} tokens = {t['peak_percent']}% of it",
        f"  import       {report_line(rep) if rep else 'nothing dropped or repaired'}",
    ]
    return lines


def render_unexplained(steps: list[dict[str, Any]], limit: int = 10, with_usage: int = 2) -> str:
    """The steps the log does not explain, one line each (the largest ``limit``), or a line saying none
    (or that the log has too few calls with usage to tell)."""
    head = f"steps the log does not explain (reported change beyond the estimate by > {UNEXPLAINED_TOKENS:,} tokens)"
    if with_usage < 2:
        return head + ": cannot tell (fewer than 2 calls with usage in the log)"
    if not steps:
        return head + ": none"
    total = sum(abs(int(s["tokens"])) for s in steps)
    lines = [f"{head}: {len(steps)}, {total:,} tokens in all"]
    for s in sorted(steps, key=lambda s: -abs(int(s["tokens"])))[:limit]:
        lines.append(
            f"  @ message {s['index']:<5} reported {s['reported_delta']:>+9,}  estimated {s['estimated_delta']:>+9,}"
            f"  ({s['tokens']:+,})  {s['cause']}"
        )
    if len(steps) > limit:
        lines.append(f"  … {len(steps) - limit} more (--json lists every one)")
    return "\n".join(lines)


def render_inspection(doc: dict[str, Any], *, show_calls: bool = False) -> str:
    """The report as text a person reads: totals first, details after (the per-call table with ``show_calls``)."""
    out: list[str] = render_totals(doc)
    add = out.append
    add("")
    add(
        f"{doc['messages']} messages, {doc['turns']} turns, {doc['tool_calls']} tool calls, "
        f"~{doc['total_tokens']:,} tokens in all ({doc['tokenizer']})"
    )
    add("tokens by role:  " + ", ".join(f"{k} {v:,}" for k, v in sorted(doc["by_role"].items(), key=lambda kv: -kv[1])))
    add("tokens by kind:  " + ", ".join(f"{k} {v:,}" for k, v in sorted(doc["by_kind"].items(), key=lambda kv: -kv[1])))
    if doc["by_tool"]:
        add("tokens by tool:")
        for name, t in list(doc["by_tool"].items())[:12]:
            add(f"  {name:<24} {t['calls']:>4} calls  {t['call_tokens']:>8,} in calls  {t['result_tokens']:>8,} in results")
    if doc["largest_results"]:
        add("largest tool results:")
        for r in doc["largest_results"]:
            err = " (error)" if r["is_error"] else ""
            add(f"  #{r['index']:<5} {r['tool']:<16} {r['tokens']:>8,} tokens{err}  {r['first_line'][:70]}")
    if doc["calls"] and show_calls:
        add(f"per call: provider-reported input vs our estimate (fixed prefix not in the log ≈ {doc['fixed_prefix_tokens']:,} tokens):")
        for n, c in enumerate(doc["calls"]):
            rep = "—" if c["reported_input_tokens"] is None else f"{c['reported_input_tokens']:,}"
            cost = "unpriced" if c["cost_usd"] is None else f"${c['cost_usd']:.4f}"
            add(
                f"  call {n + 1:>3} @ message {c['index']:<5} {c['model'] or '?'!s:<28} reported {rep:>9}   "
                f"estimated {c['estimated_input_tokens']:>9,}   output {c['output_tokens'] or 0:>7,}   {cost}"
            )
    elif doc["calls"]:
        add(f"per-call table: ctxw inspect --calls ({len(doc['calls'])} calls)")
    if doc["checkpoints"]:
        add("compactions in the log:")
        for cp in doc["checkpoints"]:
            pre = "?" if cp["pre_tokens"] is None else f"{cp['pre_tokens']:,}"
            add(f"  before message {cp['upto']}: trigger {cp['trigger'] or '?'}, {pre} tokens before, summary {cp['summary_tokens']:,} tokens")
    else:
        add("compactions in the log: none")
    for cl in doc.get("clearings") or []:
        how = "simulated: Claude Code 2.0.x logs none" if cl["simulated"] else "logged"
        add(f"{cl['results']} old tool results cleared by Claude Code's microcompact at call {cl['call']} (message {cl['index']}; {how})")
    add(render_unexplained(doc["unexplained_steps"], with_usage=doc["totals"]["calls_with_usage"]))
    if doc["constraints"]:
        add(f"user constraints ({len(doc['constraints'])}):")
        for c in doc["constraints"][:10]:
            add(f"  - {c[:110]}")
    g = doc["gauge"]
    add(f"gauge at the end: {g['used']:,} / {g['window']:,} tokens ({g['percent']}%) {g['severity']}")
    return "\n".join(out)
