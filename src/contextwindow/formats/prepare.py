"""Message-level preparation for one provider, before a converter renders the payload. Pure.

Two things a converter cannot decide message by message:

- **Call ids.** Each provider accepts a different id alphabet and length (Anthropic:
  ``^[a-zA-Z0-9_-]+$``; OpenAI Chat: at most 40 characters; none accepts an empty id). An id
  the provider would reject, or that would collide with another id once made acceptable
  (``fn:0`` and ``fn_0`` both become ``fn_0``), is replaced by a deterministic new id — the same
  in the call and in its results, the same on every build (prompt caches stay warm). The map
  ``sent id → stored id`` comes back so ids can be mapped back on the way in (:func:`unmap_ids`).
- **Image media types.** A base64 image without a media type gets the one its first bytes say
  (PNG, JPEG, GIF, WebP); an image whose type cannot be told, or that the provider does not
  take, becomes a short text note (counted in the report, never dropped silently).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..messages import ImagePart, Message, Part, TextPart, ToolCallPart, ToolResultPart
from .memo import RenderMemo, same_prefix

__all__ = ["ID_RULES", "GrowingPrepare", "IdRule", "Prepared", "prepare", "sniff_image_type", "unmap_ids"]


@dataclass(frozen=True, slots=True)
class IdRule:
    """What a provider accepts as a call id: an alphabet (regex of one character) and a length."""

    allowed: re.Pattern[str] | None
    max_len: int


_ANTHROPIC_CHARS = re.compile(r"[a-zA-Z0-9_-]")
ID_RULES: dict[str, IdRule] = {
    "openai": IdRule(None, 40),
    "openai_responses": IdRule(None, 64),
    "anthropic": IdRule(_ANTHROPIC_CHARS, 64),
    "gemini": IdRule(None, 64),
}
# media types each provider takes for inline (base64) images
IMAGE_TYPES: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    "openai": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    "openai_responses": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    "gemini": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif"}),
}


@dataclass(frozen=True, slots=True)
class Prepared:
    messages: list[Message]
    id_map: dict[str, str] = field(default_factory=dict)  # sent id -> stored id (only the changed ones)
    notes: list[str] = field(default_factory=list)  # what was changed, one line each


def _id_ok(call_id: str, rule: IdRule) -> bool:
    if not call_id or len(call_id) > rule.max_len:
        return False
    return rule.allowed is None or all(rule.allowed.fullmatch(ch) for ch in call_id)


def _new_id(old: str, rule: IdRule, taken: set[str]) -> str:
    base = "".join(ch if (rule.allowed is None or rule.allowed.fullmatch(ch)) else "_" for ch in old) or "call"
    digest = hashlib.sha256(old.encode("utf-8", "surrogatepass")).hexdigest()
    stem = base[: max(1, rule.max_len - 11)]
    k = 0
    while True:
        cand = f"{stem}_{digest[k : k + 10]}"[: rule.max_len]
        if cand not in taken and _id_ok(cand, rule):
            return cand
        k += 1
        if k + 10 > len(digest):  # pragma: no cover - 2**40 collisions
            digest = hashlib.sha256(digest.encode()).hexdigest()
            k = 0


def sniff_image_type(data: str) -> str | None:
    """The media type the first bytes of base64 ``data`` say (png, jpeg, gif, webp), else None."""
    head = "".join(data[:48].split())
    head = head[: len(head) - len(head) % 4]
    try:
        raw = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return None
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if raw.startswith(b"RIFF") and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def _fix_image(img: ImagePart, fmt: str, notes: list[str], where: str) -> TextPart | ImagePart:
    if img.source != "base64":
        return img
    mt = img.media_type.lower() if img.media_type else None
    if mt is None or mt not in IMAGE_TYPES[fmt]:
        sniffed = sniff_image_type(img.data)
        if sniffed is not None and sniffed in IMAGE_TYPES[fmt]:
            if sniffed != img.media_type:
                notes.append(f"{where}: image media type {img.media_type or 'missing'} -> {sniffed} (from its first bytes)")
            return replace(img, media_type=sniffed)
        notes.append(f"{where}: image of unknown or unsupported type {img.media_type or '(none)'} replaced by a note")
        return TextPart(f"[image omitted: its type ({img.media_type or 'unknown'}) is not one {fmt} accepts]")
    if mt != img.media_type:
        return replace(img, media_type=mt)
    return img


def _clean(m: Message, rule: IdRule) -> bool:
    """True when ``m`` holds no image and only call ids ``rule`` accepts: prepare leaves it as is."""
    for p in m.parts:
        if isinstance(p, ToolCallPart):
            if not _id_ok(p.id, rule):
                return False
        elif isinstance(p, ToolResultPart):
            if not _id_ok(p.call_id, rule) or any(isinstance(c, ImagePart) for c in p.content):
                return False
        elif isinstance(p, ImagePart):
            return False
    return True


def prepare(messages: Sequence[Message], fmt: str) -> Prepared:
    """``messages`` with call ids and image media types made acceptable to ``fmt`` (the whole list
    decided at once; a Session keeps a :class:`GrowingPrepare` between builds instead)."""
    return _Grown.whole(messages, fmt).prepared()


class GrowingPrepare:
    """:func:`prepare` for one format, kept between builds: when the messages start with the very
    objects of the last call's (the history only grew), only the new tail's ids are renamed and its
    messages rewritten; the earlier ones come back as the same objects (their renders stay cached).
    The same answer as :func:`prepare`: a new id the provider accepts that an earlier rename took
    (the whole list would have renamed around it) makes the whole list decide again."""

    def __init__(self, fmt: str, *, enabled: bool = True) -> None:
        self.fmt = fmt
        self.enabled = enabled  # False: every call prepares the whole list (checks the grown one)
        self._clean: RenderMemo[Message, bool] = RenderMemo(by_position=enabled)
        self._last: _Grown | None = None

    def __call__(self, messages: Sequence[Message]) -> Prepared:
        rule = ID_RULES[self.fmt]
        if all(self._clean.map(messages, functools.partial(_clean, rule=rule))):
            self._last = None
            return Prepared(list(messages), {}, [])
        last = self._last
        if not (self.enabled and last is not None and same_prefix(last.messages, messages) and last.extend(messages)):
            last = self._last = _Grown.whole(messages, self.fmt)
        return last.prepared()


@dataclass(slots=True)
class _Grown:
    """What :func:`prepare` made of a list, kept so that a longer list starting with it is extended."""

    fmt: str
    messages: list[Message]
    out: list[Message]
    seen: set[str]  # every call id met, in ``ids`` order
    taken: set[str]  # ids kept as they are + the new ids given so far
    rename: dict[str, str]  # stored id -> sent id, in the order the ids were met
    image_notes: list[str]

    @classmethod
    def whole(cls, messages: Sequence[Message], fmt: str) -> _Grown:
        rule = ID_RULES[fmt]
        seen: set[str] = set()
        ids = _new_ids(messages, seen)
        keep = {i for i in ids if _id_ok(i, rule)}
        taken = set(keep)
        rename: dict[str, str] = {}
        _rename(ids, keep, rule, taken, rename)
        notes: list[str] = []
        out = _rewrite(messages, 0, rename, fmt, notes)
        return cls(fmt, list(messages), out, seen, taken, rename, notes)

    def extend(self, messages: Sequence[Message]) -> bool:
        """Take in ``messages[len(self.messages):]``; False (nothing changed) when the whole list must decide."""
        rule = ID_RULES[self.fmt]
        tail = messages[len(self.messages) :]
        ids = _new_ids(tail, set(), self.seen)
        keep = {i for i in ids if _id_ok(i, rule)}
        if not keep.isdisjoint(self.taken):  # an earlier rename took an id the provider accepts
            return False
        self.seen.update(ids)
        self.taken |= keep
        _rename(ids, keep, rule, self.taken, self.rename)
        self.out.extend(_rewrite(tail, len(self.messages), self.rename, self.fmt, self.image_notes))
        self.messages.extend(tail)  # the list starts with the very objects kept (the caller checked)
        return True

    def prepared(self) -> Prepared:
        notes = [f"call id {old!r} sent as {new!r}" for old, new in self.rename.items()] + self.image_notes
        return Prepared(list(self.out), {new: old for old, new in self.rename.items()}, notes)


def _new_ids(messages: Sequence[Message], seen: set[str], before: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The call ids of ``messages`` in neither ``seen`` nor ``before``, in order of appearance (added
    to ``seen``; ``before`` is only read)."""
    ids: list[str] = []
    for m in messages:
        for p in m.parts:
            cid = p.id if isinstance(p, ToolCallPart) else p.call_id if isinstance(p, ToolResultPart) else None
            if cid is not None and cid not in seen and cid not in before:
                seen.add(cid)
                ids.append(cid)
    return ids


def _rename(ids: Sequence[str], keep: set[str], rule: IdRule, taken: set[str], rename: dict[str, str]) -> None:
    for i in ids:
        if i not in keep:
            rename[i] = _new_id(i, rule, taken)
            taken.add(rename[i])


def _rewrite(messages: Sequence[Message], first: int, rename: dict[str, str], fmt: str, notes: list[str]) -> list[Message]:
    """``messages`` (the first one at position ``first``) with ``rename`` applied and images fixed."""
    out: list[Message] = []
    for mi, m in enumerate(messages, first):
        parts: list[Part] = []
        changed = False
        for p in m.parts:
            q: Part = p
            if isinstance(p, ToolCallPart) and p.id in rename:
                q = replace(p, id=rename[p.id])
            elif isinstance(p, ToolResultPart):
                content = tuple(_fix_image(c, fmt, notes, f"message {mi}") if isinstance(c, ImagePart) else c for c in p.content)
                q = replace(p, call_id=rename.get(p.call_id, p.call_id), content=content) if (p.call_id in rename or content != p.content) else p
            elif isinstance(p, ImagePart):
                q = _fix_image(p, fmt, notes, f"message {mi}")
            changed = changed or q is not p
            parts.append(q)
        out.append(replace(m, parts=tuple(parts)) if changed else m)
    return out


def unmap_ids(message: Message, id_map: dict[str, str]) -> Message:
    """``message`` with call ids that were sent renamed (``id_map``: sent → stored) mapped back."""
    if not id_map:
        return message
    parts: list[Part] = []
    changed = False
    for p in message.parts:
        q: Part = p
        if isinstance(p, ToolCallPart) and p.id in id_map:
            q = replace(p, id=id_map[p.id])
        elif isinstance(p, ToolResultPart) and p.call_id in id_map:
            q = replace(p, call_id=id_map[p.call_id])
        changed = changed or q is not p
        parts.append(q)
    return replace(message, parts=tuple(parts)) if changed else message
