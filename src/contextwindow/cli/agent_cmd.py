"""``ctxw run "TASK"`` (the agent, non-interactive) and the options it shares with ``ctxw chat``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import click

from .common import emit_json, fail, handle_errors, json_option, store_option


def agent_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options of every agent command (``run``, ``chat``)."""
    opts = [
        click.option("--model", "model", required=True, metavar="M", help="Model name, e.g. gpt-5.4-mini, claude-sonnet-4-6, qwen2.5:7b."),
        click.option("--base-url", default=None, metavar="URL", help="Any OpenAI-compatible server (vLLM, llama.cpp, Ollama, LiteLLM) or the Anthropic API URL."),
        click.option("--provider", type=click.Choice(["openai", "anthropic"]), default="openai", show_default=True, help="Wire protocol: OpenAI chat completions or Anthropic Messages."),
        click.option("--api-key-env", default=None, metavar="VAR", help="Environment variable holding the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY; a local --base-url needs none)."),
        store_option,
        click.option("--cwd", default=".", show_default=True, type=click.Path(file_okay=False), help="Working directory: file tools cannot leave it; bash starts in it."),
        click.option("--resume", default=None, metavar="ID|last", help="Continue a stored conversation (its id, or 'last')."),
        click.option("--window", type=click.IntRange(min=1), default=None, metavar="TOKENS", help="Context window of a model the registry does not know."),
        click.option("--max-output", type=click.IntRange(min=1), default=None, metavar="TOKENS", help="Output cap per call (default: the model's)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def options_from(kw: dict[str, Any], **extra: Any) -> Any:
    from ..agent import AgentOptions

    return AgentOptions(
        model=kw["model"], provider=kw["provider"], base_url=kw["base_url"], api_key_env=kw["api_key_env"],
        store_url=kw["store_url"], cwd=kw["cwd"], resume=kw["resume"], window=kw["window"], max_output=kw["max_output"], **extra,
    )


def run_json(agent: Any, result: Any) -> dict[str, Any]:
    from ..formats import get_format

    messages = [sm.message for sm in agent.session.store.list(agent.session.id)]
    payload = get_format("openai").to_payload(messages, system=agent.session.system or None)
    return {
        "conversation_id": result.conversation_id,
        "answer": result.answer,
        "stopped": result.stopped,
        "cost_usd": result.cost_usd,
        "calls": [{"usage": _usage_dict(s.usage), "cost_usd": s.usage.cost_usd} for s in result.steps],
        "messages": payload["messages"],
    }


def _usage_dict(u: Any) -> dict[str, Any]:
    return {
        "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cache_read_tokens": u.cache_read_tokens,
        "cache_write_tokens": u.cache_write_tokens, "reasoning_tokens": u.reasoning_tokens, "model": u.model,
        "latency_s": u.latency_s,
    }


def lifecycle_note(model: str, today: date) -> str | None:
    """The line that says when ``model`` retires (the provider's own API refuses it from that day; a
    local server may still serve the name), or None when the registry knows no date or no model."""
    from ..errors import UnknownModelError
    from ..lifecycle import status
    from ..models import get_model

    try:
        spec = get_model(model)
    except UnknownModelError:
        return None
    if spec.retires is None:
        return None
    return f"note: {spec.qualified} is {status(spec.retires, today)} (ctxw models show {spec.id})"


def open_cli_agent(opts: Any, **kw: Any) -> tuple[Any, str | None]:
    """The agent of ``ctxw run`` and ``ctxw chat`` (``kw`` goes to ``open_agent``), and its model's
    retirement note, said on stderr here for both (``chat`` shows it in its notice line too)."""
    from ..agent import open_agent

    agent = open_agent(opts, **kw)  # a bad option, model or store fails here, in one line
    note = lifecycle_note(opts.model, date.today())
    if note:
        click.echo(note, err=True)
    return agent, note


def open_chat(opts: Any) -> Any:
    """The ``ctxw chat`` app, its agent opened by :func:`open_cli_agent` (the caller runs it and closes
    the agent's store)."""
    from ..events import EventBus
    from ..tui.chat import ChatApp

    bus = EventBus()
    agent, note = open_cli_agent(opts, events=bus)
    try:
        return ChatApp(agent, opts, bus=bus, notice=note)
    except BaseException:
        agent.session.store.close()  # the caller closes it only once it has the app
        raise


def register(group: click.Group) -> None:
    @group.command("run")
    @click.argument("task")
    @agent_options
    @click.option("--max-turns", type=click.IntRange(min=1), default=None, metavar="N", help="Stop after N model calls (exit 2 when the task is not done by then).")
    @json_option
    @handle_errors
    def run_cmd(task: str, max_turns: int | None, as_json: bool, **kw: Any) -> None:
        """Run the agent on TASK until it answers; print the answer (or --json: the whole run)."""
        opts = options_from(kw, max_steps=max_turns)
        agent, _ = open_cli_agent(opts)
        try:
            result = agent.run(task)
            if as_json:
                emit_json(run_json(agent, result))
            else:
                click.echo(result.answer)
        finally:
            agent.session.store.close()
        if result.stopped == "max_steps":
            fail(f"stopped after --max-turns {max_turns} model calls without a final answer (conversation {result.conversation_id}; continue with --resume)", 2)

    @group.command("chat")
    @agent_options
    @handle_errors
    def chat_cmd(**kw: Any) -> None:
        """The agent in a terminal UI: status bar, gauge, spend ledger, compaction cards, /compact,
        /context, /sessions, steering while a turn runs (needs the ``tui`` extra)."""
        try:
            import textual  # noqa: F401
        except ModuleNotFoundError as exc:
            from ..errors import ConfigError

            raise ConfigError("ctxw chat needs textual; install it with: pip install 'contextwindow[tui]'") from exc
        app = open_chat(options_from(kw))
        try:
            app.run()
        finally:
            app.agent.session.store.close()
