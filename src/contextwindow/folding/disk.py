"""Reading restored files from disk at fold time (the I/O edge of ``restore.py``)."""

from __future__ import annotations

from collections.abc import Callable


def disk_reader(root: str | None = None, limit_bytes: int = 2_000_000) -> Callable[[str], str | None]:
    """A ``read`` for :func:`restore_section`: the file's current text (relative paths under
    ``root``), or None when it is gone, unreadable, binary or larger than ``limit_bytes``."""
    from pathlib import Path

    base = Path(root) if root else Path.cwd()

    def read(path: str) -> str | None:
        p = Path(path).expanduser()
        p = p if p.is_absolute() else base / p
        try:
            if not p.is_file() or p.stat().st_size > limit_bytes:
                return None
            data = p.read_bytes()
        except OSError:
            return None
        if b"\0" in data[:4096]:
            return None
        return data.decode("utf-8", errors="replace")

    return read
