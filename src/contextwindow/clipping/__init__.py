"""contextwindow.clipping: clip tool results at the door, offload originals, retrieve slices.

>>> from contextwindow.clipping import clip, retrieve, MemoryOffload
>>> sink = MemoryOffload()
>>> r = clip("\\n".join(f"line {i}" for i in range(5000)), 200, sink=sink)
>>> r.report.clipped, r.text.count("[contextwindow clipped")
(True, 1)
>>> retrieve(sink, r.report.ref, offset=10, limit=2).splitlines()[1]
'    11\\tline 10'
"""

from __future__ import annotations

from .images import elide_seen_images, image_size, load_image, restore_images, retrieve_content
from .marker import MARKER_PREFIX, RETRIEVE_HEADER, count_markers
from .model import (
    KINDS,
    MARKER_ALLOWANCE,
    RETRIEVE_TOOL_NAME,
    ClipConfig,
    ClipReport,
    ClipResult,
    MemoryOffload,
    OffloadSink,
)
from .retrieve import retrieve
from .router import clip, clip_with
from .sniff import sniff
from .tooldef import RETRIEVE_TOOL, retrieve_tool, run_retrieve_call

__all__ = [
    "KINDS",
    "MARKER_ALLOWANCE",
    "MARKER_PREFIX",
    "RETRIEVE_HEADER",
    "RETRIEVE_TOOL",
    "RETRIEVE_TOOL_NAME",
    "ClipConfig",
    "ClipReport",
    "ClipResult",
    "MemoryOffload",
    "OffloadSink",
    "clip",
    "clip_with",
    "count_markers",
    "elide_seen_images",
    "image_size",
    "load_image",
    "restore_images",
    "retrieve",
    "retrieve_content",
    "retrieve_tool",
    "run_retrieve_call",
    "sniff",
]
