"""The one entry point that loads any transcript: detection by content, then the format's importer.

``load_transcript(path)`` detects the format by content (``format=`` forces one) and always returns a
structurally valid history: every tool call answered, no orphan result (see :mod:`.repair`).
The importers depend on :mod:`.model` only; this registry imports them, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import ImportFormatError
from . import claude_code, codex, openhands, payload_files, swe_agent
from .detect import detect_raw as _detect_raw
from .detect import heuristic_from_text as _heuristic_from_text
from .model import FORMATS, ImportedSession, RawInput, first_reasons, normalize_format
from .read import parse_input, read_bytes


def detect_format(path_or_first_bytes: str | Path | bytes) -> str:
    """The format of a transcript, from its content (a path is read; bytes may be just the file's start)."""
    if isinstance(path_or_first_bytes, (bytes, bytearray)):
        data = bytes(path_or_first_bytes)
        source = "input"
    else:
        data = read_bytes(path_or_first_bytes)
        source = str(path_or_first_bytes)
    raw = parse_input(data, source)
    found = _detect_raw(raw)
    if found is None and not raw.is_document:
        # The first bytes of a large file: the last line may be cut, or a document may be unfinished.
        found = _heuristic_from_text(data[:65536].decode("utf-8", errors="replace"))
    if found is None:
        raise ImportFormatError(
            f"{source}: cannot tell which transcript format this is (known: {', '.join(FORMATS)}); pass --format to force one"
        )
    return found


# --- entry points ------------------------------------------------------------------------

Importer = Callable[[RawInput], list[ImportedSession]]


_IMPORTERS: dict[str, Importer] = {
    "claude-code": claude_code.import_raw,
    "codex": codex.import_raw,
    "swe-agent": swe_agent.import_raw,
    "openhands": openhands.import_raw,
}


def _importer(fmt: str) -> Importer:
    found = _IMPORTERS.get(fmt)
    if found is not None:
        return found
    return lambda raw: payload_files.import_raw(raw, fmt)


def load_raw(raw: RawInput, format: str | None = None) -> list[ImportedSession]:
    """Import already-parsed input; every session it holds (OpenHands eval files hold several)."""
    if format is None:
        fmt = _detect_raw(raw)
        if fmt is None:
            what = first_reasons(raw.skipped) if not raw.records and not raw.is_document else ""
            raise ImportFormatError(
                f"{raw.source}: cannot tell which transcript format this is (known: {', '.join(FORMATS)}); "
                f"pass --format to force one{what}"
            )
    else:
        fmt = normalize_format(format)
    if not raw.is_document and not raw.records:
        raise ImportFormatError(f"{raw.source}: no JSON records could be read" + first_reasons(raw.skipped))
    sessions = _importer(fmt)(raw)
    if not sessions:
        raise ImportFormatError(f"{raw.source}: nothing could be imported as {fmt}" + first_reasons(raw.skipped))
    return sessions


def load_all(path: str | Path, format: str | None = None) -> list[ImportedSession]:
    """Every session in ``path`` (one for most formats; one per instance for OpenHands eval output)."""
    raw = parse_input(read_bytes(path), str(path))
    return load_raw(raw, format)


def load_transcript(path: str | Path, format: str | None = None) -> ImportedSession:
    """The (first) session in ``path``; the format is detected by content unless ``format`` forces one."""
    from ..argcheck import check_path, check_str

    check_path(path, "load_transcript(path)")
    check_str(format, "load_transcript(format)", optional=True)
    return load_all(path, format)[0]


