"""Entry point of ``ctxw``. Each verb family lives in its own module with ``register(group)``."""

from __future__ import annotations

import importlib

import click

from .. import __version__

# Modules that add commands to the group; each exposes ``register(group: click.Group)``.
COMMAND_MODULES = (
    "tokens_cmd",  # ctxw tokens
    "models_cmd",  # ctxw models show
    "sessions_cmd",  # ctxw sessions list|show|export|fork
    "clip_cmd",  # ctxw clip / ctxw retrieve
    "prompt_cmd",  # ctxw prompt
    "transcripts_cmd",  # ctxw import / inspect
    "replay_cmd",  # ctxw replay / compact
    "tui_cmd",  # ctxw tui
    "agent_cmd",  # ctxw run (and chat)
    "proxy_cmd",  # ctxw proxy
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ctxw")
def cli() -> None:
    """contextwindow: manage the context window of LLM agents."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_name}").register(cli)


def main() -> None:
    cli(prog_name="ctxw")


if __name__ == "__main__":  # pragma: no cover
    main()
