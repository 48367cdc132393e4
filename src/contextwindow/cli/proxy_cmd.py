"""``ctxw proxy``: serve the OpenAI / Anthropic protocols locally and manage each conversation that
passes through (needs the ``proxy`` extra)."""

from __future__ import annotations

import logging
import os
from typing import Any

import click

from ..errors import ConfigError
from .common import default_store_url, handle_errors, store_option

#: the HTTP layer ``ctxw proxy`` serves with unless ``--front`` or ``$CTXW_PROXY_FRONT`` says
#: otherwise (an embedded proxy, ``ProxyConfig``, keeps ``aiohttp``: docs/proxy.md, "the lean front")
DEFAULT_FRONT = "lean"


def register(group: click.Group) -> None:
    @group.command("proxy")
    @click.option("--upstream", required=True, metavar="URL", help="The provider's base URL; request paths (/v1/...) are appended.")
    @click.option("--anthropic-upstream", default=None, metavar="URL", help="Where /v1/messages goes when it differs from --upstream.")
    @click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (beyond loopback needs --token-env).")
    @click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True, help="Port (0: any free port).")
    @store_option
    @click.option("--window", type=click.IntRange(min=1), default=None, help="Context window in tokens (default: the model's).")
    @click.option("--clip-budget", type=click.IntRange(min=0), default=4_000, show_default=True,
                  help="Tokens a tool result may keep before it is clipped at the door (0: never clip).")
    @click.option("--token-env", default=None, metavar="VAR",
                  help="Environment variable holding the token clients must send in x-ctxw-token (or as Proxy-Authorization: Bearer).")
    @click.option("--max-body", type=click.IntRange(min=1), default=32 * 1024 * 1024, show_default=True,
                  help="Largest body in bytes of a request the proxy reads (413 beyond); pass-through bodies stream, whatever their size.")
    @click.option("-v", "--verbose", is_flag=True, help="Log each request's conversation and what was done to it.")
    @click.option("--lane", is_flag=True, help="Experimental: defer bookkeeping while requests are in flight (docs/proxy.md).")
    @click.option("--front", type=click.Choice(["aiohttp", "lean"]), default=None,
                  help="The HTTP layer: lean (default; $CTXW_PROXY_FRONT picks another): a front that forwards unchanged requests "
                       "itself, the store and Session work in a worker process; or aiohttp: one process, each answer relayed once "
                       "its request is durable (docs/proxy.md).")
    @handle_errors
    def proxy_cmd(upstream: str, anthropic_upstream: str | None, host: str, port: int, store_url: str | None, window: int | None,
                  clip_budget: int, token_env: str | None, max_body: int, verbose: bool, lane: bool, front: str | None) -> None:
        """Point an agent's base URL here: its conversations are clipped, compacted and accounted.

        Serves POST /v1/chat/completions, /v1/responses and /v1/messages; every other path is
        passed through untouched. Example: ctxw proxy --upstream https://api.anthropic.com, then
        ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
        """
        try:
            import aiohttp  # noqa: F401
        except ModuleNotFoundError as exc:
            raise ConfigError("ctxw proxy needs aiohttp; install it with: pip install 'contextwindow[proxy]'") from exc
        from ..proxy import Conversations
        from ..proxy.server import ProxyConfig, run
        from ..store import open_store

        token = None
        if token_env:
            token = os.environ.get(token_env)
            if not token:
                raise ConfigError(f"--token-env {token_env}: the variable is not set or empty")
        from ..proxy.config import FRONT_ENV
        from ..proxy.lean import SECRET_ENV

        config = ProxyConfig(upstream=upstream, anthropic_upstream=anthropic_upstream, host=host, port=port, token=token, max_body=max_body,
                             lane=lane, worker_secret=os.environ.get(SECRET_ENV) or None, front=front or os.environ.get(FRONT_ENV) or DEFAULT_FRONT)
        config.check()
        logging.basicConfig(level=logging.WARNING, format="ctxw proxy: %(message)s")
        logging.getLogger("contextwindow.proxy").setLevel(logging.DEBUG if verbose else logging.WARNING)
        url = store_url or default_store_url()
        if config.front == "lean" and not config.worker_secret:
            try:
                import httptools  # noqa: F401
            except ModuleNotFoundError as exc:
                raise ConfigError("ctxw proxy's lean front needs httptools; install it with: pip install 'contextwindow[proxy]', "
                                  "or serve with --front aiohttp") from exc
            _serve_lean(config, url, window, clip_budget, token_env, verbose, lane)
            return
        store = open_store(url)

        served: list[Any] = []

        def ready(server: Any) -> None:
            served.append(server)
            click.echo(f"ctxw proxy: listening on http://{host}:{server.port} → {upstream}"
                       + (f" (messages → {anthropic_upstream})" if anthropic_upstream else "") + f"; store {store.url}", err=True)

        try:
            run(config, Conversations(store, window=window, clip_budget=clip_budget or None), {"callback": ready})
        except KeyboardInterrupt:
            pass
        finally:
            store.close()
            if served:
                click.echo(f"ctxw proxy: stopped; {stopped(served[0].status())}", err=True)


def _serve_lean(config: Any, store_url: str, window: int | None, clip_budget: int, token_env: str | None, verbose: bool, lane: bool) -> None:
    """The lean front here, the worker (this command again, on a loopback port) in its own process."""
    import asyncio
    import sys

    from ..proxy.lean import serve_split

    argv = [sys.executable, "-m", "contextwindow.cli.main", "proxy", "--upstream", config.upstream, "--host", "127.0.0.1", "--port", "0",
            "--store", store_url, "--clip-budget", str(clip_budget), "--max-body", str(config.max_body), "--front", "aiohttp"]
    if config.anthropic_upstream:
        argv += ["--anthropic-upstream", config.anthropic_upstream]
    if window:
        argv += ["--window", str(window)]
    if token_env:
        argv += ["--token-env", token_env]
    if verbose:
        argv.append("-v")
    if lane:
        argv.append("--lane")
    served: list[Any] = []

    def ready(front: Any) -> None:
        served.append(front)
        click.echo(f"ctxw proxy: listening on http://{config.host}:{front.port} → {config.upstream} (lean front; worker at {front.worker_url})",
                   err=True)

    try:
        asyncio.run(serve_split(config, argv, clip_budget or None, ready))
    except KeyboardInterrupt:
        pass
    finally:
        if served:
            click.echo(f"ctxw proxy: front stopped; {front_stopped(served[0].status())}", err=True)


def front_stopped(st: dict[str, int]) -> str:
    """The lean front's last status in one line."""
    return (f"{st['requests']} requests ({st['front_fast']} forwarded as sent by the front, {st['front_first']} of them first requests, "
            f"{st['delegated']} served by the worker ({st['handover_capped']} of them while its hand-overs were over their cap), "
            f"{st['handover_waited']} waited for the worker to take some, {st['cancelled']} cancelled by their client); "
            f"records lost {st['records_lost']}")


def stopped(st: dict[str, int]) -> str:
    """The proxy's last status in one line (a lock still held once it stopped would be a bug)."""
    return (f"{st['requests']} requests ({st['managed']} managed: {st['fast']} forwarded as sent, {st['changed']} changed, "
            f"{st['retries']} retried; {st['passthrough']} passed through; {st['cancelled']} cancelled by their client); "
            f"{st['live']} conversations live, {st['lock_keys']} lock keys kept, {st['locks']} locks held, {st['queued']} jobs queued")
