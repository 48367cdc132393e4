"""``ctxw run "TASK"`` (the agent, non-interactive) and the options it shares with ``ctxw chat``."""

from __future__ import annotations

from collections.abc import Callable
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


def say_lifecycle(model: str) -> None:
    """One line on stderr when the registry knows a retirement date for ``model`` (the provider's
    own API refuses it from that day; a local server may still serve the name)."""
    from datetime import date

    from ..errors import UnknownModelError
    from ..lifecycle import status
    from ..models import get_model

    try:
        spec = get_model(model)
    except UnknownModelError:
        return
    if spec.retires is not None:
        click.echo(f"note: {spec.qualified} is {status(spec.retires, date.today())} (ctxw models show {spec.id})", err=True)


def register(group: click.Group) -> None:
    @group.command("run")
    @click.argument("task")
    @agent_options
    @click.option("--max-turns", type=click.IntRange(min=1), default=None, metavar="N", help="Stop after N model calls (exit 2 when the task is not done by then).")
    @json_option
    @handle_errors
    def run_cmd(task: str, max_turns: int | None, as_json: bool, **kw: Any) -> None:
        """Run the agent on TASK until it answers; print the answer (or --json: the whole run)."""
        from ..agent import open_agent

        opts = options_from(kw, max_steps=max_turns)
        agent = open_agent(opts)
        say_lifecycle(opts.model)
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
        from ..agent import open_agent
        from ..events import EventBus
        from ..tui.chat import ChatApp

        opts = options_from(kw)
        bus = EventBus()
        agent = open_agent(opts, events=bus)  # a bad option, model or store fails here, in one line
        try:
            ChatApp(agent, opts, bus=bus).run()
        finally:
            agent.session.store.close()
