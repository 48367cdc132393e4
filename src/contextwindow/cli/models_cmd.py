"""``ctxw models show|list``: what the registry knows about a model."""

from __future__ import annotations

from dataclasses import asdict

import click

from ..errors import ConfigError
from .common import emit_json, handle_errors, json_option


def _price(v: float | None) -> str:
    return "-" if v is None else f"${v:g}"


def register(group: click.Group) -> None:
    """Add ``ctxw models`` to ``group``."""

    @group.group("models")
    def models() -> None:
        """Model specs: context window, max output, prices (bundled models.dev data)."""

    @models.command("show")
    @click.argument("model")
    @json_option
    @handle_errors
    def show(model: str, as_json: bool) -> None:
        """Print MODEL's window, max output, prices per 1M tokens and lifecycle (retirement date)."""
        from datetime import date

        from ..lifecycle import status
        from ..models import get_model

        spec = get_model(model)
        if as_json:
            emit_json(asdict(spec))
            return
        lines = [
            f"model            {spec.qualified}" + (f"  ({spec.name})" if spec.name else ""),
            f"context window   {spec.context_window:,}",
            f"max output       {spec.max_output:,}",
            f"input / 1M       {_price(spec.input_price)}",
            f"output / 1M      {_price(spec.output_price)}",
            f"cache read / 1M  {_price(spec.cache_read_price)}",
            f"cache write / 1M {_price(spec.cache_write_price)}",
            f"tokenizer        {spec.tokenizer}",
            f"min cacheable    {spec.min_cacheable_tokens:,}",
            f"images           {'yes' if spec.supports_images else 'no'}",
            f"status           {status(spec.retires, date.today())}",
        ]
        click.echo("\n".join(lines))

    @models.command("list")
    @click.option("--provider", "-p", default=None, help="Only this provider (e.g. anthropic, openai, google).")
    @json_option
    @handle_errors
    def list_(provider: str | None, as_json: bool) -> None:
        """List known models (provider/id, window, max output, input/output price)."""
        from ..models import list_models

        specs = list_models(provider)
        if provider is not None and not specs:
            known = sorted({s.provider for s in list_models()})
            raise ConfigError(f"--provider {provider!r}: no such provider in the registry (known: {', '.join(known)})")
        if as_json:
            emit_json([asdict(s) for s in specs])
            return
        for s in specs:
            click.echo(f"{s.qualified}\t{s.context_window}\t{s.max_output}\t{_price(s.input_price)}\t{_price(s.output_price)}")
