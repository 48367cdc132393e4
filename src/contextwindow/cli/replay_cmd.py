"""``ctxw replay`` (a real session under each policy, measured) and ``ctxw compact`` (a conversation
brought under a token budget with the default policy)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ..errors import ConfigError, InputError
from .common import emit_json, handle_errors, json_option, read_input_bytes

COMPACT_OUTPUT_FORMATS = ("openai", "anthropic")


def _summarizer(url: str | None, model: str | None, count: Any) -> Any:
    """The extractive summarizer, or an LLM one when both --summarizer-url and --summarizer-model are set."""
    from ..folding import ExtractiveSummarizer, LLMSummarizer

    if not url and not model:
        return ExtractiveSummarizer(count)
    if not (url and model):
        raise ConfigError("a summarizer model needs both --summarizer-url and --summarizer-model")
    from ..llm.openai_compat import OpenAICompatibleModel

    key = os.environ.get("CONTEXTWINDOW_SUMMARIZER_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return WatchedSummarizer(LLMSummarizer(OpenAICompatibleModel(model, base_url=url, api_key=key), count=count), count)


def _report_summarizer(summ: Any, doc: dict[str, Any]) -> None:
    """Say on stderr (and in the JSON) when the model summarizer failed and the extractive brief stood in."""
    if isinstance(summ, WatchedSummarizer):
        doc["summarizer_failures"] = summ.failed
        doc["summarizer_error"] = summ.first_error
        msg = summ.warning()
        if msg:
            click.echo(msg, err=True)


class WatchedSummarizer:
    """Wraps a model summarizer so its failures are reported, not hidden: after the first summary
    that fell back to the extractive brief (model unreachable, garbage output...), the rest go
    straight to the extractive brief instead of retrying a dead endpoint on every compaction."""

    def __init__(self, inner: Any, count: Any) -> None:
        from ..folding import ExtractiveSummarizer

        self.inner = inner
        self.name = str(getattr(inner, "name", type(inner).__name__))
        self._extractive = ExtractiveSummarizer(count)
        self.failed = 0
        self.first_error: str | None = None

    def summarize(self, request: Any) -> Any:
        if self.first_error is not None:
            self.failed += 1
            return self._extractive.summarize(request)
        outcome = self.inner.summarize(request)
        if not outcome.ok:
            self.failed += 1
            self.first_error = outcome.error or "no reason given"
        return outcome

    def warning(self) -> str | None:
        if not self.failed:
            return None
        return (
            f"ctxw: warning: summarizer {self.name} failed ({self.first_error}); the extractive brief was used "
            f"for {self.failed} summar{'y' if self.failed == 1 else 'ies'} instead"
        )


summarizer_url_option = click.option("--summarizer-url", default=None, metavar="URL", help="OpenAI-compatible endpoint of a summarizer model (default: extractive, no model).")
summarizer_model_option = click.option("--summarizer-model", default=None, metavar="NAME", help="Model name at --summarizer-url.")


@contextmanager
def _progress(total: int, quiet: bool) -> Iterator[Any]:
    if quiet or total < 50 or not sys.stderr.isatty():
        yield None
        return
    with click.progressbar(length=total, label="replaying", file=sys.stderr) as bar:
        yield bar.update


def _fmt_int(n: int | float) -> str:
    return f"{round(n):,}"


def render_table(rows: list[dict[str, Any]], first: list[str] | None = None) -> str:
    """The per-policy table a person reads (``first``: an already formatted row on top, "as logged")."""
    head = ["policy", "calls", "peak", "over win", "invalid", "compact", "folds", "billed in", "summaries", "floor", "above floor", "cache hit", "cost $", "constraints"]
    body = [
        [
            r["policy"],
            str(r["calls"]),
            _fmt_int(r["peak_tokens"]),
            str(r["over_window_calls"]),
            str(r["invalid_payloads"]),
            str(r["compactions"]),
            str(r["folds"]),
            _fmt_int(r["billed_input_tokens"]),
            _fmt_int(r.get("summary_billed_tokens", 0)),
            _fmt_int(r.get("floor_input_tokens", 0)),
            f"{100 * r.get('above_floor_share', 0):.0f}%",
            f"{100 * r['cache_hit_share']:.0f}%",
            "n/a" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}",
            f"{r['constraints_kept']}/{r['constraints_total']}",
        ]
        for r in rows
    ]
    if first is not None:
        body.insert(0, first)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True)))]
    lines.append("  ".join("-" * w for w in widths))
    for b in body:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(b, widths, strict=True))))
    return "\n".join(lines)


@click.command("replay")
@click.argument("file", required=False, type=click.Path(dir_okay=True, path_type=str))
@click.option("--policy", "policies", multiple=True, metavar="NAME", help="Policy to replay (repeatable; default: all of them).")
@click.option("--model", default=None, metavar="M", help="Model for prices and tokenizer (default: the model the log names).")
@click.option("--window", type=int, default=None, metavar="N", help="Context window in tokens (default: the model's) — 'what if my window were smaller'.")
@click.option("--format", "fmt", default=None, metavar="FORMAT", help="Force the transcript format instead of detecting it.")
@click.option("--plot", "plot_path", default=None, metavar="OUT.png", help="Draw prompt tokens per call for each policy to a PNG.")
@click.option("--demo", is_flag=True, help="Replay the embedded demo session (scripted actions, real outputs over this package's source).")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr (a line per policy as it finishes).")
@summarizer_url_option
@summarizer_model_option
@json_option
@handle_errors
def replay_cmd(
    file: str | None,
    policies: tuple[str, ...],
    model: str | None,
    window: int | None,
    fmt: str | None,
    plot_path: str | None,
    demo: bool,
    summarizer_url: str | None,
    summarizer_model: str | None,
    as_json: bool,
    quiet: bool = False,
) -> None:
    """Replay a real agent session under context policies: tokens, cache, cost, constraints kept."""
    from ..replay import DEFAULT_POLICIES, POLICIES, replay, resolve_model
    from ..tokens import counter_for

    for p in policies:
        if p not in POLICIES:
            raise ConfigError(f"unknown policy {p!r} (known: {', '.join(POLICIES)})")
    if demo and file:
        raise ConfigError("give either FILE or --demo, not both")
    if plot_path:
        target = Path(plot_path)
        if target.is_dir() or not target.parent.is_dir():
            raise ConfigError(f"--plot {plot_path}: needs a file path in an existing directory")
    if demo:
        from ..replay.demo import DEMO_MODEL, DEMO_WINDOW, SCRIPTED_NOTE, demo_session

        session = demo_session()
        model = model or DEMO_MODEL
        window = window or DEMO_WINDOW
    else:
        from .transcripts_cmd import load_sessions, newest_session

        if file is None:
            found = newest_session()
            if found is None:
                raise InputError("no FILE given and no Claude Code or Codex session found under ~/.claude or ~/.codex; try: ctxw replay --demo")
            click.echo(f"ctxw: replaying {found} (the newest local session)", err=True)
            file = str(found)
        session = load_sessions(_existing(file), fmt)[0]
    if not session.calls:
        raise InputError(f"{session.source}: the log shows no model calls to replay")
    window_source = "option" if window is not None else None
    if window is None and not demo:  # the window the log states (or Claude Code's 200k), as inspect gauges it
        from ..importers.window import session_window

        stated, source = session_window(session)
        if source != "assumed" or session.format == "claude-code":  # a model-less log still needs --model/--window
            window, window_source = stated, source
    spec = resolve_model(model or session.model, window)
    from ..importers.window import tokenizer_model

    counter = counter_for(spec.id if spec.known else (model or tokenizer_model(session)))
    summ = _summarizer(summarizer_url, summarizer_model, counter.count_text)
    chosen = list(policies) or list(DEFAULT_POLICIES)
    def done(res: Any) -> None:
        if not (quiet or as_json):
            click.echo(
                f"ctxw: replayed {res.policy}: {res.calls} calls in {res.seconds:.1f} s "
                f"(billed {_fmt_int(res.billed_input_tokens)}, {100 * res.above_floor_share:.0f}% above the floor)",
                err=True,
            )

    with _progress(len(session.calls) * len(chosen), as_json or quiet) as step:
        report = replay(session, chosen, model=model, window=window, summarizer=summ, progress=step, on_policy=done)
    if plot_path:
        from ..replay.plot import plot_report

        plot_report(report, plot_path)
    doc = report.to_dict()
    _report_summarizer(summ, doc)
    from ..importers.report import import_report, report_line
    from ..replay.as_logged import as_logged, as_logged_cells

    logged = as_logged(session, report.window)
    doc["as_logged"] = logged
    doc["window_source"] = window_source or "registry"
    doc["import_report"] = import_report(session)
    if any(doc["import_report"].values()):
        click.echo(f"ctxw: {session.source}: {report_line(doc['import_report'])}", err=True)
    if demo:
        doc["scripted"] = True
        doc["note"] = SCRIPTED_NOTE.removeprefix("[demo] ")
    if as_json:
        emit_json(doc)
        return
    click.echo(f"session: {session.title or session.source}")
    if demo:
        click.echo(SCRIPTED_NOTE.removeprefix("[demo] "))
    click.echo(
        f"model: {report.model}  window: {report.window:,} ({doc['window_source']})  calls: {len(session.calls)}  "
        f"fixed prefix not in the log: {report.overhead:,} tokens  summarizer: {report.summarizer}"
    )
    click.echo("")
    click.echo(render_table(doc["policies"], None if demo else as_logged_cells(logged)))
    if not demo:
        click.echo(f"as logged = what the session really cost: {logged['cost_text']} in all (input, cache and output at registry prices)")
    click.echo("")
    click.echo("billed in = input cost in input-price tokens (cache reads/writes weighted by their prices); floor = what any policy")
    click.echo("must pay (the fixed prefix read from the cache on every call, each new token written once); summaries = the")
    click.echo("summaries' own model calls, in input-price tokens (billed as a model would write them, whatever summarizer ran; not in")
    click.echo("billed in, nor in above floor, which is of the input; in --json's total_cost_usd); see docs/replay.md")
    for res in report.policies:
        if res.problems:
            click.echo(f"ctxw: {res.policy}: {res.invalid_payloads} invalid payload(s), first: {res.problems[0]}", err=True)
    if plot_path:
        click.echo(f"plot written to {plot_path}")


def _existing(path: str) -> str:
    if path == "-":  # stdin
        return path
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path} is a directory, not a session file")
    if not p.exists():
        raise InputError(f"{path}: no such file")
    return path


def _load_messages(file: str, input_format: str | None) -> tuple[list[Any], str | None]:
    if input_format is not None and input_format.strip().lower().replace("_", "-") in ("openai", "openai-chat"):
        from ..formats import openai_chat

        data = read_input_bytes(file)
        if not data.strip():
            raise InputError(f"{file} is empty")
        try:
            obj = json.loads(data)
        except ValueError as exc:
            raise InputError(f"{file}: not valid JSON ({exc}); --input-format openai wants a JSON list of Chat Completions messages") from exc
        msgs = openai_chat.from_payload(obj)
        if not msgs:
            raise InputError(f"{file}: no messages")
        return msgs, None
    from .transcripts_cmd import load_sessions

    session = load_sessions(_existing(file), input_format)[0]
    return session.messages, session.model


@click.command("compact")
@click.argument("file", type=click.Path(dir_okay=True, path_type=str))
@click.option("--budget-tokens", "budget", type=int, required=True, metavar="N", help="Token budget the result must fit.")
@click.option("--rounds", type=int, default=1, show_default=True, metavar="K", help="Folds in a row after compaction (0: compaction only).")
@click.option("--model", default=None, metavar="M", help="Model whose tokenizer counts (default: the log's, else an estimate).")
@click.option("--instructions", default=None, metavar="TEXT", help="What the summary should focus on.")
@click.option("--format", "out_format", default="openai", show_default=True, metavar="openai|anthropic", help="Output message format (anthropic without --json prints {system, messages} when there is a system prompt).")
@click.option("--input-format", default=None, metavar="FORMAT", help="'openai' for a plain JSON list of Chat Completions messages, or a transcript format.")
@summarizer_url_option
@summarizer_model_option
@json_option
@handle_errors
def compact_cmd(
    file: str,
    budget: int,
    rounds: int,
    model: str | None,
    instructions: str | None,
    out_format: str,
    input_format: str | None,
    summarizer_url: str | None,
    summarizer_model: str | None,
    as_json: bool,
) -> None:
    """Compact a conversation to at most N tokens (layered compaction, then folds) and print it."""
    from ..formats import get_format
    from ..replay.compact import compact_conversation
    from ..tokens import counter_for

    if out_format not in COMPACT_OUTPUT_FORMATS:
        raise ConfigError(f"unknown --format {out_format!r} (expected one of {', '.join(COMPACT_OUTPUT_FORMATS)})")
    messages, log_model = _load_messages(file, input_format)
    model = model or log_model
    counter = counter_for(model)
    summ = _summarizer(summarizer_url, summarizer_model, counter.count_text)
    result, report = compact_conversation(messages, budget=budget, counter=counter, summarizer=summ, rounds=rounds, instructions=instructions)
    payload = get_format(out_format).to_payload(result)
    doc: dict[str, Any] = {"messages": payload["messages"], "report": {**report.to_dict(), "format": out_format, "model": model}}
    if payload.get("system"):
        doc["system"] = payload["system"]
    _report_summarizer(summ, doc["report"])
    if as_json:
        emit_json(doc)
        return
    if payload.get("system"):  # Anthropic keeps the system prompt apart: print it too, never drop it
        emit_json({"system": payload["system"], "messages": payload["messages"]})
    else:
        emit_json(payload["messages"])
    click.echo(
        f"ctxw: {report.tokens_before:,} → {report.tokens_after:,} tokens (budget {budget:,}); "
        f"{', '.join(report.steps) or 'nothing to do'}; constraints kept {report.constraints_kept}/{report.constraints_total}",
        err=True,
    )


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    group.add_command(replay_cmd)
    group.add_command(compact_cmd)
