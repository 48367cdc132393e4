"""Images seen once by the model travel later as a one-line marker; the base64 goes to the
offload store and comes back with :func:`restore_images` or :func:`retrieve_content`."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import re
import struct
from collections.abc import MutableMapping, Sequence

from ..messages import ImagePart, Message, Part, TextPart, ToolResultPart
from .model import OffloadSink
from .retrieve import check_ref, retrieve

IMAGE_MARKER_RE = re.compile(r"\A\[image omitted from context: (?P<size>\S+) (?P<fmt>\S+), ref (?P<ref>[A-Za-z0-9_\-]+)\b[^\]]*\]\Z")


def image_size(data_b64: str) -> tuple[int, int] | None:
    """(width, height) read from the header of a base64 PNG, GIF, JPEG or WebP; None if unknown."""
    try:
        head = base64.b64decode(data_b64[:87_384], validate=False)
    except (binascii.Error, ValueError):
        return None
    try:
        if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
            w, h = struct.unpack(">II", head[16:24])
            return int(w), int(h)
        if head[:6] in (b"GIF87a", b"GIF89a"):
            w, h = struct.unpack("<HH", head[6:10])
            return int(w), int(h)
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            chunk = head[12:16]
            if chunk == b"VP8X":
                return 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
            if chunk == b"VP8L":
                bits = int.from_bytes(head[21:25], "little")
                return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", head[26:30])
                return int(w) & 0x3FFF, int(h) & 0x3FFF
        if head[:2] == b"\xff\xd8":
            i = 2
            while i + 9 < len(head):
                if head[i] != 0xFF:
                    i += 1
                    continue
                marker = head[i + 1]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    h, w = struct.unpack(">HH", head[i + 5 : i + 9])
                    return int(w), int(h)
                if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                    i += 2
                    continue
                (seg,) = struct.unpack(">H", head[i + 2 : i + 4])
                i += 2 + seg
    except struct.error:
        return None
    return None


def image_key(part: ImagePart) -> str:
    return hashlib.sha256(part.data.encode("ascii", "replace")).hexdigest()[:24]


def image_marker(part: ImagePart, ref: str) -> str:
    size = (part.width, part.height) if part.width and part.height else image_size(part.data)
    dims = f"{size[0]}x{size[1]}" if size else "?x?"
    fmt = (part.media_type or "image").split("/")[-1]
    return f'[image omitted from context: {dims} {fmt}, ref {ref}; retrieve(ref="{ref}") brings it back]'


def _offload(part: ImagePart, sink: OffloadSink) -> str:
    size = image_size(part.data)
    meta = {"cw": "image", "media_type": part.media_type, "width": part.width, "height": part.height,
            "detail": part.detail, "pixels": list(size) if size else None}
    return sink.put_offload(part.data, meta)


def elide_seen_images(
    messages: Sequence[Message], seen: MutableMapping[str, str], sink: OffloadSink
) -> list[Message]:
    """Replace every base64 image the model has already seen by a marker naming its ref.

    ``seen`` maps an image key to its offload ref and persists between calls: an image met
    for the first time is offloaded, recorded and kept; on later calls it becomes
    ``[image omitted from context: WxH png, ref …]``. URL and file images are left alone.
    """

    def swap(p: ImagePart) -> ImagePart | TextPart:
        if p.source != "base64":
            return p
        key = image_key(p)
        ref = seen.get(key)
        if ref is None:
            seen[key] = _offload(p, sink)
            return p
        return TextPart(image_marker(p, ref))

    out: list[Message] = []
    for m in messages:
        parts: list[Part] = []
        changed = False
        for p in m.parts:
            new: Part = p
            if isinstance(p, ImagePart):
                new = swap(p)
            elif isinstance(p, ToolResultPart) and any(isinstance(c, ImagePart) for c in p.content):
                content = tuple(swap(c) if isinstance(c, ImagePart) else c for c in p.content)
                if content != p.content:
                    new = dataclasses.replace(p, content=content)
            changed = changed or new is not p
            parts.append(new)
        out.append(dataclasses.replace(m, parts=tuple(parts)) if changed else m)
    return out


def has_image(m: Message) -> bool:
    return any(
        isinstance(p, ImagePart) or (isinstance(p, ToolResultPart) and any(isinstance(c, ImagePart) for c in p.content)) for p in m.parts
    )


def elide_answered_images(
    messages: Sequence[Message], seen: MutableMapping[str, str], sink: OffloadSink
) -> tuple[list[Message], int]:
    """Replace every base64 image the model has already answered about (one that comes before
    the last assistant message) by a marker with its ``retrieve`` ref; images after it are kept.

    ``seen`` (image key → offload ref) persists between calls, so an image is offloaded once and
    its marker is the same bytes on every later call. Returns the messages and how many images
    were offloaded now (0 when nothing new was elided)."""
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
    if last < 1:
        return list(messages), 0
    new = 0
    for m in messages[:last]:
        if not has_image(m):
            continue
        for p in m.parts:
            inner = p.content if isinstance(p, ToolResultPart) else (p,)
            for c in inner:
                if isinstance(c, ImagePart) and c.source == "base64" and image_key(c) not in seen:
                    seen[image_key(c)] = _offload(c, sink)
                    new += 1
    head = elide_seen_images(messages[:last], seen, sink) if any(has_image(m) for m in messages[:last]) else list(messages[:last])
    return head + list(messages[last:]), new


def load_image(sink: OffloadSink, ref: str) -> ImagePart:
    """The image offloaded under ``ref`` as an :class:`ImagePart` again."""
    record = sink.get_offload(check_ref(ref))
    meta = dict(getattr(record, "meta", None) or {})
    return ImagePart(source="base64", data=record.content, media_type=meta.get("media_type"),
                     width=meta.get("width"), height=meta.get("height"), detail=meta.get("detail"))


def restore_images(messages: Sequence[Message], sink: OffloadSink) -> list[Message]:
    """Undo :func:`elide_seen_images`: image markers become the original image parts again."""

    def back(p: TextPart | ImagePart) -> TextPart | ImagePart:
        if isinstance(p, TextPart) and (m := IMAGE_MARKER_RE.match(p.text)):
            return load_image(sink, m.group("ref"))
        return p

    out: list[Message] = []
    for m in messages:
        parts: list[Part] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append(back(p))
            elif isinstance(p, ToolResultPart):
                parts.append(dataclasses.replace(p, content=tuple(back(c) for c in p.content)))
            else:
                parts.append(p)
        out.append(dataclasses.replace(m, parts=tuple(parts)))
    return out


def retrieve_content(
    sink: OffloadSink, ref: str, offset: int = 0, limit: int | None = None, grep: str | None = None,
    budget_tokens: int = 4000, *, column: int = 0,
) -> tuple[TextPart | ImagePart, ...]:
    """What a ``retrieve`` tool result should carry: the image itself for an image ref, else
    the bounded text slice of :func:`retrieve`."""
    record = sink.get_offload(check_ref(ref))
    if dict(getattr(record, "meta", None) or {}).get("cw") == "image":
        return (TextPart(f"[contextwindow retrieve ref={ref}: the image follows]"), load_image(sink, ref))
    return (TextPart(retrieve(sink, ref, offset, limit, grep, budget_tokens, column=column)),)
