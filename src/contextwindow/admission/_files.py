"""Bounded, failure-proof reads of small text files (private to admission).

Everything here returns a value describing what happened; nothing raises for a bad file.
A file contributes nothing when it is missing, not a regular file (directory, FIFO, socket,
device), a dangling symlink or part of a symlink loop, unreadable, larger than the bound,
binary (holds NUL bytes) or not valid UTF-8. The reason is said in words.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: Default bound on the bytes read from any one admitted file.
DEFAULT_MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Omission:
    """Something that was left out of the prompt, and why (said in words)."""

    path: Path | None
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}" if self.path is not None else self.reason


@dataclass(frozen=True, slots=True)
class ReadOutcome:
    """The text of a file, or ``None`` with the reason it could not be used."""

    text: str | None
    reason: str | None = None
    size: int = 0


def human_bytes(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n} bytes"


def os_reason(exc: OSError, path: Path) -> str:
    """A short reason for an OS error met while looking at ``path``."""
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, FileNotFoundError):
        return "dangling symlink" if os.path.islink(path) else "does not exist"
    if isinstance(exc, NotADirectoryError):
        return "a path component is not a directory"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
    return f"cannot read ({exc.strerror or type(exc).__name__})"


def exists(path: Path) -> bool:
    """True when something (even a dangling symlink) is at ``path``; never raises."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def read_text(path: Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> ReadOutcome:
    """Read ``path`` as UTF-8 text, reading at most ``max_bytes + 1`` bytes."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return ReadOutcome(None, os_reason(exc, path))
    if stat.S_ISDIR(st.st_mode):
        return ReadOutcome(None, "is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        return ReadOutcome(None, "not a regular file (FIFO, socket or device)")
    if st.st_size > max_bytes:
        return ReadOutcome(None, f"too large ({human_bytes(st.st_size)}, limit {human_bytes(max_bytes)})", st.st_size)
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the stat, open must not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return ReadOutcome(None, os_reason(exc, path))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ReadOutcome(None, "not a regular file (FIFO, socket or device)")
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        return ReadOutcome(None, os_reason(exc, path))
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        return ReadOutcome(None, f"too large (more than {human_bytes(max_bytes)})", len(data))
    if b"\x00" in data:
        return ReadOutcome(None, "binary file (contains NUL bytes)", len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ReadOutcome(None, f"not valid UTF-8 (bad byte at offset {exc.start})", len(data))
    return ReadOutcome(text.removeprefix("\ufeff"), None, len(data))


def list_dir(path: Path, *, max_entries: int) -> tuple[list[str], str | None]:
    """Sorted entry names of the directory ``path`` (at most ``max_entries``).

    Returns ``([], None)`` when nothing is there or it is not a directory (not a skills
    folder, nothing to report); ``([], reason)`` when it exists but cannot be listed.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return [], ("dangling symlink" if os.path.islink(path) else None)
    except OSError as exc:
        return [], os_reason(exc, path)
    if not stat.S_ISDIR(st.st_mode):
        return [], None
    names: list[str] = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if len(names) >= max_entries:
                    return sorted(names), f"more than {max_entries} entries; only the first {max_entries} were looked at"
                names.append(entry.name)
    except OSError as exc:
        return sorted(names), os_reason(exc, path)
    return sorted(names), None


def is_dir(path: Path) -> tuple[bool, str | None]:
    """Whether ``path`` is a directory (following symlinks), with a reason when that is unknowable."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode), None
    except FileNotFoundError:
        return False, ("dangling symlink" if os.path.islink(path) else None)
    except OSError as exc:
        return False, os_reason(exc, path)


def identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of what ``path`` points to, to count a thing reached twice once; None if unknown."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
