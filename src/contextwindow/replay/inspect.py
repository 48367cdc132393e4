"""What a session's window held (``ctxw inspect``): a JSON-able report over an imported session.

Per call, ``estimated_input_tokens`` is this project's count of the messages the provider was sent
(an imported checkpoint's summary in place of what it folded), with no calibration learned from the
session itself; the provider's number also holds the system prompt and tool definitions the log does
not show, so the gap between the two is mostly that fixed prefix (``fixed_prefix_tokens``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..budget import gauge
from ..errors import UnknownModelError
from ..importers import ImportedSession
from ..importers.report import import_report
from ..messages import Message, ToolCallPart, ToolResultPart
from ..models import DEFAULT_WINDOW, get_model
from ..tokens import counter_for
from ..turns import group_turns
from .engine import estimate_overhead, provider_view, user_constraints


def _first_line(text: str, limit: int = 100) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s[:limit] + ("…" if len(s) > limit else "")
    return ""


def inspect_session(session: ImportedSession, *, model: str | None = None, window: int | None = None, top: int = 10) -> dict[str, Any]:
    """The inspection report of ``session`` (stable keys; see ``ctxw inspect --json``)."""
    name = model or session.model
    counter = counter_for(name)
    win = window
    model_known = False
    if name:
        try:
            spec = get_model(name)
            win = win or spec.context_window
            model_known = True
        except UnknownModelError:
            pass
    win = win or DEFAULT_WINDOW
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
    calls = []
    for c in session.calls:
        calls.append(
            {
                "index": c.index,
                "reported_input_tokens": c.reported_input_tokens,
                "estimated_input_tokens": counter.count_messages(provider_view(session, c)),
                "output_tokens": c.output_tokens,
                "cache_read_tokens": c.cache_read_tokens,
                "cache_write_tokens": c.cache_write_tokens,
            }
        )
    last = calls[-1] if calls else None
    used = (last["reported_input_tokens"] or last["estimated_input_tokens"]) if last else counter.count_messages(msgs)
    g = gauge(int(used or 0), win)
    turns = [t for t in group_turns(msgs) if not t.preamble]
    return {
        "source": session.source,
        "format": session.format,
        "model": name,
        "model_known": model_known,
        "tokenizer": getattr(counter, "name", type(counter).__name__),
        "window": win,
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
        "constraints": [c.text for c in user_constraints(msgs)],
        "skipped": len(session.skipped),
        "import_report": import_report(session),
        "gauge": {"used": g.used, "window": g.window, "percent": round(g.percent, 1), "severity": g.severity},
    }


def render_inspection(doc: dict[str, Any]) -> str:
    """The report as text a person reads."""
    out: list[str] = []
    add = out.append
    add(f"{doc['source']}")
    add(
        f"format {doc['format']}, model {doc['model'] or 'unknown'} ({doc['tokenizer']}), {doc['messages']} messages, "
        f"{doc['turns']} turns, {doc['tool_calls']} tool calls, {len(doc['calls'])} model calls, ~{doc['total_tokens']:,} tokens in all"
    )
    add("")
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
    if doc["calls"]:
        add(f"per call: provider-reported input vs our estimate (fixed prefix not in the log ≈ {doc['fixed_prefix_tokens']:,} tokens):")
        for n, c in enumerate(doc["calls"]):
            rep = "—" if c["reported_input_tokens"] is None else f"{c['reported_input_tokens']:,}"
            add(f"  call {n + 1:>3} @ message {c['index']:<5} reported {rep:>9}   estimated {c['estimated_input_tokens']:>9,}")
    if doc["checkpoints"]:
        add("compactions in the log:")
        for cp in doc["checkpoints"]:
            pre = "?" if cp["pre_tokens"] is None else f"{cp['pre_tokens']:,}"
            add(f"  before message {cp['upto']}: trigger {cp['trigger'] or '?'}, {pre} tokens before, summary {cp['summary_tokens']:,} tokens")
    else:
        add("compactions in the log: none")
    if doc["constraints"]:
        add(f"user constraints ({len(doc['constraints'])}):")
        for c in doc["constraints"][:10]:
            add(f"  - {c[:110]}")
    g = doc["gauge"]
    add(f"gauge at the end: {g['used']:,} / {g['window']:,} tokens ({g['percent']}%) {g['severity']}")
    return "\n".join(out)
