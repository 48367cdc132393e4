"""``ctxw tui``: the terminal UI for the curate and account stages (needs the ``tui`` extra)."""

from __future__ import annotations

import click

from ..errors import ConfigError
from ..store import open_store
from .common import default_store_url, handle_errors, open_existing_store, store_option


def register(group: click.Group) -> None:
    @group.command("tui")
    @store_option
    @handle_errors
    def tui_cmd(store_url: str | None) -> None:
        """Browse conversations, select turns and folds, fork a selection, see spend and the gauge.

        Keys: arrows move, tab switches panel, space selects a turn or fold, f forks the
        selection into a new conversation, q quits.
        """
        try:
            import textual  # noqa: F401
        except ModuleNotFoundError as exc:
            raise ConfigError("the TUI needs textual; install it with: pip install 'contextwindow[tui]'") from exc
        from ..tui import CurateApp

        # an explicit --store must exist (a typo would otherwise create an empty one); the default
        # store is created on first use. Reading the list once here means an unreadable store fails
        # with one line before the screen is taken over.
        store = open_existing_store(store_url) if store_url else open_store(default_store_url())
        try:
            store.list_conversations(limit=1)
            CurateApp(store).run()
        finally:
            store.close()
