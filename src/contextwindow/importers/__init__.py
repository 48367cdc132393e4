"""Transcript importers: agent session logs → :class:`ImportedSession`.

One module per agent log format (:mod:`.claude_code`, :mod:`.codex`, :mod:`.swe_agent`,
:mod:`.openhands`) plus saved provider request payloads (:mod:`.payload_files`, which converts them
with the wire-format converters in :mod:`contextwindow.formats`). The shared shape lives in
:mod:`.model`, reading in :mod:`.read`, tool-pair repair in :mod:`.repair`, detection by content in
:mod:`.detect`, and :mod:`.registry` is the one entry point (``load_transcript``/``load_all``).
Dependencies point one way: registry → importers → model/repair; nothing imports the registry back.
"""

from __future__ import annotations

from .model import (
    FORMATS,
    NO_RESULT_TEXT,
    CallRecord,
    ImportedCheckpoint,
    ImportedSession,
    RawInput,
    Skipped,
    normalize_format,
)
from .read import parse_input, read_bytes
from .registry import detect_format, load_all, load_raw, load_transcript
from .repair import structure_problems

__all__ = [
    "FORMATS",
    "NO_RESULT_TEXT",
    "CallRecord",
    "ImportedCheckpoint",
    "ImportedSession",
    "RawInput",
    "Skipped",
    "detect_format",
    "load_all",
    "load_raw",
    "load_transcript",
    "normalize_format",
    "parse_input",
    "read_bytes",
    "structure_problems",
]
