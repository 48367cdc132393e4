"""The grown :func:`prepare` (formats/prepare.py ``GrowingPrepare``): a list that only grew has its
new tail's call ids renamed and images fixed, the earlier messages kept as the same objects — the
same messages, id map and notes as preparing the whole list, for every format, on seeded
histories with ids each provider rejects (too long, characters outside Anthropic's alphabet,
empty), ids equal to another id's rename, images without or with an unknown media type, and
lists that were cut or rewritten between calls."""

from __future__ import annotations

import base64
import random

import pytest

from contextwindow.formats.prepare import ID_RULES, GrowingPrepare, Prepared, prepare
from contextwindow.messages import ImagePart, Message, TextPart, ToolCallPart, ToolResultPart

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()


def _ids(rng: random.Random) -> list[str]:
    pool = [f"call_{i}" for i in range(6)]
    pool += ["x" * 50 + str(i) for i in range(3)]  # over OpenAI Chat's 40 characters
    pool += [f"fn:{i}" for i in range(3)] + [f"fn_{i}" for i in range(2)]  # outside Anthropic's alphabet, and what it becomes
    pool += ["toolu_" + "a" * 70]  # over every provider's 64
    rng.shuffle(pool)
    return pool


def _history(rng: random.Random, n: int) -> list[Message]:
    ids = _ids(rng)
    out: list[Message] = [Message("user", (TextPart("start"),))]
    open_calls: list[str] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35 or not open_calls:
            cid = rng.choice(ids)
            open_calls.append(cid)
            out.append(Message("assistant", (TextPart("go"), ToolCallPart(cid, "run", '{"a": 1}'))))
        elif r < 0.75:
            cid = open_calls.pop(rng.randrange(len(open_calls)))
            content: tuple[TextPart | ImagePart, ...] = (TextPart("ok"),)
            if rng.random() < 0.2:
                content += (ImagePart("base64", PNG, media_type=rng.choice([None, "image/PNG", "image/png", "image/tiff"])),)
            out.append(Message("tool", (ToolResultPart(cid, content),)))
        elif r < 0.85:
            out.append(Message("user", (TextPart("look"), ImagePart("base64", PNG, media_type=rng.choice([None, "image/bmp"])))))
        else:
            out.append(Message("user", (TextPart("more"),)))
    return out


def _same(a: Prepared, b: Prepared) -> None:
    assert a.messages == b.messages
    assert a.id_map == b.id_map
    assert a.notes == b.notes


@pytest.mark.parametrize("fmt", sorted(ID_RULES))
@pytest.mark.parametrize("seed", range(12))
def test_grown_prepare_equals_the_whole(fmt: str, seed: int) -> None:
    rng = random.Random(seed)
    history = _history(rng, 60)
    grown = GrowingPrepare(fmt)
    whole_path = GrowingPrepare(fmt, enabled=False)
    head: list[Message] = []  # what a cut put first (a fold summary and the rows it kept)
    start = k = 1
    prev_shown: list[Message] = []
    prev_got: Prepared | None = None
    kept = 0  # rewritten messages of the last call given back as the same objects on a list that only grew
    while k < len(history):
        k = min(len(history), k + rng.randint(1, 4))
        if rng.random() < 0.1:  # cut or rewritten between calls: not an extension of the last list
            head, start = [Message("user", (TextPart(f"summary {k}"),)), *history[max(1, k - 10) : k]], k
        shown = [*head, *history[start:k]] if head else history[:k]
        got = grown(shown)
        _same(got, prepare(shown, fmt))
        _same(got, whole_path(shown))
        if prev_got is not None and shown[: len(prev_shown)] == prev_shown and all(a is b for a, b in zip(shown, prev_shown, strict=False)):
            kept += sum(1 for i, m in enumerate(prev_got.messages) if m is not prev_shown[i] and got.messages[i] is m)
        prev_shown, prev_got = shown, got
    rewritten = any(m is not o for m, o in zip(got.messages, shown, strict=True))
    assert kept > 0 or not rewritten, "the grown path never kept a rewritten message: it always decided the whole list"


def test_a_new_id_an_earlier_rename_took_makes_the_whole_list_decide() -> None:
    """The rename of an id OpenAI Chat rejects is an id it accepts; when that very id comes later
    as a real call id, the whole list renames around it (the grown path must not keep its rename)."""
    long_id = "y" * 60
    first = [Message("assistant", (ToolCallPart(long_id, "run"),)), Message("tool", (ToolResultPart(long_id, (TextPart("ok"),)),))]
    taken = prepare(first, "openai").messages[0].tool_calls[0].id
    assert taken != long_id
    later = [*first, Message("assistant", (ToolCallPart(taken, "run"),)), Message("tool", (ToolResultPart(taken, (TextPart("ok"),)),))]
    grown = GrowingPrepare("openai")
    grown(first)
    got = grown(later)
    _same(got, prepare(later, "openai"))
    sent = [c.id for m in got.messages for c in m.tool_calls]
    assert len(set(sent)) == 2, "two calls sent under one id"


def test_grown_prepare_keeps_the_earlier_messages_as_the_same_objects() -> None:
    long_id = "z" * 55
    msgs = [Message("assistant", (ToolCallPart(long_id, "run"),)), Message("tool", (ToolResultPart(long_id, (TextPart("ok"),)),))]
    grown = GrowingPrepare("openai")
    a = grown(msgs)
    b = grown([*msgs, Message("user", (TextPart("next"),))])
    assert a.messages[0] is b.messages[0] and a.messages[1] is b.messages[1]
    assert b.messages[0].tool_calls[0].id != long_id and b.id_map[b.messages[0].tool_calls[0].id] == long_id
