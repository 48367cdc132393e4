"""The file tools of the agent, confined to one working directory.

Every path a model names is resolved (``..`` and symlinks included) before anything is read
or written; one that lands outside the working directory is refused with a :class:`ToolError`,
never followed. Reads are bounded (line count, line length, file size), so a model cannot make
a tool hold a huge file in memory; what a result leaves out is said in the result.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError

MAX_LINE_CHARS = 2_000  # a longer line is cut (and says so)
DEFAULT_READ_LINES = 2_000
MAX_LIST_ENTRIES = 2_000
MAX_GREP_MATCHES = 500
MAX_GREP_FILE_BYTES = 10 * 1024 * 1024  # bigger files are skipped by grep (counted)
MAX_EDIT_FILE_BYTES = 50 * 1024 * 1024
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".ruff_cache"})


class ToolError(InputError):
    """A tool call that cannot be carried out; its message goes back to the model as an error result."""


def confine(root: Path, path: object, what: str = "path") -> Path:
    """``path`` (relative to ``root`` or absolute) resolved, symlinks included; outside ``root`` → ToolError."""
    if not isinstance(path, str) or not path.strip():
        raise ToolError(f"{what} must be a non-empty string, got {path!r}")
    if "\x00" in path:
        raise ToolError(f"{what} contains a NUL character")
    cand = Path(path)
    real = Path(os.path.realpath(cand if cand.is_absolute() else root / cand))
    if real != root and root not in real.parents:
        raise ToolError(f"{path!r} is outside the working directory {root}; only paths inside it can be used")
    return real


def shown(root: Path, p: Path) -> str:
    """``p`` relative to ``root`` (``.`` for the root itself)."""
    rel = os.path.relpath(p, root)
    return "." if rel == "." else rel


def _is_binary(head: bytes) -> bool:
    return b"\x00" in head


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + f" … [line cut: {len(line):,} characters]"


def read_file(root: Path, path: object, offset: int = 0, limit: int = DEFAULT_READ_LINES) -> str:
    """Numbered lines ``offset`` (0-based) .. ``offset + limit`` of a text file."""
    p = confine(root, path)
    if p.is_dir():
        raise ToolError(f"{shown(root, p)} is a directory; use list_dir")
    if not p.is_file():
        raise ToolError(f"{shown(root, p)}: no such file")
    if offset < 0 or limit < 1:
        raise ToolError(f"offset must be >= 0 and limit >= 1, got offset={offset} limit={limit}")
    with p.open("rb") as fh:
        if _is_binary(fh.read(8192)):
            raise ToolError(f"{shown(root, p)} is a binary file; it is not read as text")
    out: list[str] = []
    total = 0
    with p.open("r", encoding="utf-8", errors="replace", newline=None) as fh:
        for i, line in enumerate(fh):
            total = i + 1
            if offset <= i < offset + limit:
                out.append(f"{i + 1:>6}\t{_cut(line.rstrip(chr(10)))}")
    if total == 0:
        return f"[{shown(root, p)} is empty]"
    if offset >= total:
        raise ToolError(f"offset {offset} is past the end of {shown(root, p)} ({total} lines)")
    last = min(total, offset + limit)
    tail = f"\n[lines {offset + 1}-{last} of {total}; read on with offset={last}]" if last < total or offset else ""
    return "\n".join(out) + tail


def list_dir(root: Path, path: object = ".") -> str:
    p = confine(root, path)
    if not p.is_dir():
        raise ToolError(f"{shown(root, p)} is not a directory")
    entries = sorted(os.scandir(p), key=lambda e: e.name)
    lines: list[str] = []
    for e in entries[:MAX_LIST_ENTRIES]:
        if e.is_symlink():
            lines.append(f"{e.name} -> {os.readlink(e.path)}")
        elif e.is_dir():
            lines.append(e.name + "/")
        else:
            try:
                size = e.stat().st_size
            except OSError:
                size = -1
            lines.append(f"{e.name}  ({size:,} bytes)" if size >= 0 else e.name)
    head = f"{shown(root, p)}: {len(entries)} entries"
    more = f"\n[{len(entries) - MAX_LIST_ENTRIES:,} more entries not shown]" if len(entries) > MAX_LIST_ENTRIES else ""
    return head + ("\n" + "\n".join(lines) if lines else "") + more


def _walk(root: Path, base: Path) -> Iterator[Path]:
    if base.is_file():
        yield base
        return
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            f = Path(dirpath) / name
            real = Path(os.path.realpath(f))
            if real == root or root in real.parents:  # a symlink out of the tree is not followed
                yield f


def grep(root: Path, pattern: object, path: object = ".", glob: object = None) -> str:
    """Lines matching the regular expression ``pattern`` under ``path`` (``glob`` filters file names)."""
    if not isinstance(pattern, str) or not pattern:
        raise ToolError(f"pattern must be a non-empty regular expression, got {pattern!r}")
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None
    if glob is not None and not isinstance(glob, str):
        raise ToolError(f"glob must be a string like '*.py', got {glob!r}")
    base = confine(root, path)
    if not base.exists():
        raise ToolError(f"{shown(root, base)}: no such file or directory")
    hits: list[str] = []
    matches = files = skipped = 0
    for f in _walk(root, base):
        rel = shown(root, f)
        if glob and not (fnmatch.fnmatch(f.name, glob) or fnmatch.fnmatch(rel, glob)):
            continue
        try:
            if f.stat().st_size > MAX_GREP_FILE_BYTES:
                skipped += 1
                continue
            data = f.read_bytes()
        except OSError:
            skipped += 1
            continue
        if _is_binary(data[:8192]):
            continue
        found = False
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if rx.search(line):
                matches += 1
                found = True
                if len(hits) < MAX_GREP_MATCHES:
                    hits.append(f"{rel}:{n}:{_cut(line)}")
        files += found
    if not matches:
        out = f"no match for {pattern!r} under {shown(root, base)}"
    else:
        out = "\n".join(hits) + f"\n[{matches:,} matching lines in {files:,} files]"
        if matches > len(hits):
            out += f"\n[{matches - len(hits):,} matches not shown; narrow the pattern, path or glob]"
    if skipped:
        out += f"\n[{skipped:,} files over {MAX_GREP_FILE_BYTES // (1024 * 1024)} MB or unreadable were skipped]"
    return out


def edit_file(root: Path, path: object, old: object, new: object) -> str:
    """Replace the one exact occurrence of ``old`` with ``new``."""
    if not isinstance(old, str) or not old:
        raise ToolError("old must be a non-empty string: the exact text to replace")
    if not isinstance(new, str):
        raise ToolError(f"new must be a string, got {type(new).__name__}")
    p = confine(root, path)
    if not p.is_file():
        raise ToolError(f"{shown(root, p)}: no such file (use write_file to create one)")
    if p.stat().st_size > MAX_EDIT_FILE_BYTES:
        raise ToolError(f"{shown(root, p)} is over {MAX_EDIT_FILE_BYTES // (1024 * 1024)} MB; edit it with bash")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown(root, p)} is not UTF-8 text; edit it with bash") from None
    n = text.count(old)
    if n == 0:
        raise ToolError(f"old text not found in {shown(root, p)}; read the file and copy the exact text (whitespace included)")
    if n > 1:
        raise ToolError(f"old text occurs {n} times in {shown(root, p)}; include more surrounding lines so it is unique")
    start = text.index(old)
    p.write_bytes(text.replace(old, new, 1).encode("utf-8"))
    line = text.count("\n", 0, start) + 1
    return f"edited {shown(root, p)}: replaced 1 occurrence at line {line} ({old.count(chr(10)) + 1} lines → {new.count(chr(10)) + 1} lines)"


def write_file(root: Path, path: object, content: object) -> str:
    if not isinstance(content, str):
        raise ToolError(f"content must be a string, got {type(content).__name__}")
    p = confine(root, path)
    if p.is_dir():
        raise ToolError(f"{shown(root, p)} is a directory")
    existed = p.exists()
    p.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    p.write_bytes(data)
    return f"{'overwrote' if existed else 'created'} {shown(root, p)} ({len(data):,} bytes, {content.count(chr(10)) + (1 if content and not content.endswith(chr(10)) else 0)} lines)"
