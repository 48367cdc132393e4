"""Shared CLI plumbing: error reporting, JSON output, store option, input reading."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..errors import ContextWindowError, InputError

F = TypeVar("F", bound=Callable[..., Any])

MAX_INPUT_BYTES = 512 * 1024 * 1024


def fail(message: str, code: int = 1) -> None:
    """Print one clear line to stderr and exit non-zero."""
    click.echo(f"ctxw: error: {message}", err=True)
    raise SystemExit(code)


def handle_errors(fn: F) -> F:
    """Turn library errors (and stray OS errors, and as a last resort any bug) into one line on stderr + exit 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ContextWindowError as exc:
            fail(f"{type(exc).__name__}: {exc}")
        except BrokenPipeError:  # `ctxw ... | head`: the reader left; nothing to say, and nowhere to say it
            _quiet_stdout()
            sys.exit(141)
        except (OSError, UnicodeError) as exc:
            fail(f"{type(exc).__name__}: {exc}")
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # a bug of ours: still one line, the traceback only on request
            if os.environ.get("CTXW_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc} (a bug in ctxw; rerun with CTXW_DEBUG=1 for the traceback)")

    return wrapper  # type: ignore[return-value]


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush of a closed pipe stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def read_input_bytes(path: str | None) -> bytes:
    """Read FILE or '-' (stdin) as bytes exactly (no newline translation)."""
    if path in (None, "-"):
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        source = "stdin"
    else:
        p = Path(path)
        if p.is_dir():
            raise InputError(f"{path} is a directory, not a file")
        if not p.exists():
            raise InputError(f"{path}: no such file")
        source = path
        with p.open("rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{source} is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MB; refusing to read it")
    return data


def default_store_url() -> str:
    """The store URL commands use when ``--store`` is not given (see ``store.default_url``)."""
    from ..store import default_url

    return default_url()


def open_existing_store(url: str) -> Any:
    """Open a store that must already exist: reading never creates one (a typo'd ``--store`` would
    otherwise make an empty database and answer "nothing here")."""
    from ..errors import NotFoundError
    from ..store import open_store

    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///") :].partition("?")[0]).expanduser()
        if not path.exists():
            raise NotFoundError(f"there is no store at {path} ({url})")
    return open_store(url)


store_option = click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="Store URL: sqlite:///path or postgresql://... (default: $CONTEXTWINDOW_STORE or a SQLite file in the user data dir).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
