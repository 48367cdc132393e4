"""Reading a transcript file into records (one JSON document, or JSONL lines with their numbers)."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ImportFormatError
from .model import RawInput, Skipped

MAX_FILE_BYTES = 1024 * 1024 * 1024


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; one clear ImportFormatError for a missing file, a directory or an empty file."""
    p = Path(path)
    if p.is_dir():
        raise ImportFormatError(f"{path} is a directory, not a transcript file (name the .jsonl/.json file inside it)")
    if not p.exists():
        raise ImportFormatError(f"{path}: no such file")
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise ImportFormatError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MB; refusing to read it")
    if not data.strip():
        raise ImportFormatError(f"{path} is empty: nothing to import")
    return data


def parse_input(data: bytes, source: str) -> RawInput:
    """Parse ``data`` as one JSON document, else as JSONL (comments, bad and truncated lines → Skipped)."""
    raw = RawInput(source=source, size=len(data))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        raw.skipped.append(Skipped(None, "file is not valid UTF-8; undecodable bytes were replaced by U+FFFD"))
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        try:
            raw.document = json.loads(text)
            raw.is_document = True
            return raw
        except ValueError:
            pass
    lines = text.split("\n")
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    loads = json.loads
    for no in range(1, last + 1):
        line = lines[no - 1]
        if line[:1] == "{":  # the common case: json.loads takes the trailing whitespace itself, no copy
            try:
                raw.records.append((no, loads(line)))
                continue
            except ValueError:
                pass
        s = line.strip()
        if not s:
            continue
        if s.startswith("#") or s.startswith("//"):
            raw.skipped.append(Skipped(no, "comment line"))
            continue
        try:
            obj = loads(s)
        except ValueError as exc:
            if no == last:
                raw.skipped.append(Skipped(no, f"truncated last line (not valid JSON: {exc.msg} at column {exc.colno})"))  # type: ignore[attr-defined]
            else:
                raw.skipped.append(Skipped(no, f"not valid JSON: {exc.msg} at column {exc.colno}"))  # type: ignore[attr-defined]
            continue
        if not isinstance(obj, dict):
            raw.skipped.append(Skipped(no, f"not a JSON object (got {type(obj).__name__})"))
            continue
        raw.records.append((no, obj))
    return raw
