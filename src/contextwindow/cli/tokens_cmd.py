"""``ctxw tokens``: count the tokens of a file's text exactly as it is."""

from __future__ import annotations

import click

from ..errors import InputError
from .common import emit_json, handle_errors, json_option, read_input_bytes


def decode_strict(data: bytes, source: str) -> str:
    """UTF-8 text of ``data``; invalid UTF-8 is refused with the byte offset (we never count
    a guess: a replaced byte would change the count)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{source} is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} ({exc.reason}); "
            "convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)"
        ) from None


def register(group: click.Group) -> None:
    """Add ``ctxw tokens`` to ``group``."""

    @group.command("tokens")
    @click.option("--model", "-m", default=None, metavar="MODEL", help="Model whose tokenizer to use (default: the generic estimator).")
    @click.argument("file", required=False, default="-", metavar="[FILE|-]")
    @json_option
    @handle_errors
    def tokens(model: str | None, file: str, as_json: bool) -> None:
        """Count the tokens of FILE (or stdin) with MODEL's tokenizer, bytes exactly as they are."""
        from ..tokens import counter_for

        data = read_input_bytes(file)
        text = decode_strict(data, "stdin" if file == "-" else file)
        counter = counter_for(model)
        if model and not counter.exact:
            from ..models import find_model

            if find_model(model) is None:
                click.echo(f"ctxw: note: unknown model {model!r}; counting with the {counter.name} estimator", err=True)
        n = counter.count_text(text)
        if as_json:
            emit_json({"tokens": n, "exact": counter.exact, "tokenizer": counter.name, "model": model, "bytes": len(data)})
        else:
            kind = "exact" if counter.exact else "estimate"
            click.echo(f"{n} tokens ({counter.name}, {kind}; {len(data)} bytes)")
