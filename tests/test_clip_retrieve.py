"""retrieve: slices and grep bounded by the budget, forged refs refused, originals durable in a
real SQLite store; image elision and restore; the retrieve tool in each provider format."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

from contextwindow.clipping import (
    RETRIEVE_TOOL,
    MemoryOffload,
    clip,
    elide_seen_images,
    image_size,
    restore_images,
    retrieve,
    retrieve_content,
    retrieve_tool,
    run_retrieve_call,
)
from contextwindow.errors import ConfigError, InputError, NotFoundError
from contextwindow.messages import ImagePart, Message, TextPart, ToolResultPart, user
from contextwindow.store import open_store
from contextwindow.tokens import counter_for

COUNT = counter_for(None).count_text
ORIGINAL = "\n".join(f"{i:05d} " + ("WARN disk low" if i % 97 == 0 else "steady state ok") for i in range(20000))


@pytest.fixture
def stored() -> tuple[MemoryOffload, str]:
    sink = MemoryOffload()
    r = clip(ORIGINAL, 500, sink=sink)
    assert r.report.ref
    return sink, r.report.ref


def test_slice_by_offset_and_limit(stored: tuple[MemoryOffload, str]) -> None:
    sink, ref = stored
    out = retrieve(sink, ref, offset=100, limit=3)
    lines = out.split("\n")
    assert lines[0].startswith("[contextwindow retrieve") and "lines 101–103 of 20,000" in lines[0]
    assert lines[1:4] == ["   101\t00100 steady state ok", "   102\t00101 steady state ok", "   103\t00102 steady state ok"]
    assert f'retrieve(ref="{ref}", offset=103, limit=3)' in lines[-1]
    end = retrieve(sink, ref, offset=19998)
    assert "[end of the original]" in end and "19999 steady" in end
    assert "no lines at offset" in retrieve(sink, ref, offset=50000)


def test_retrieve_is_bounded_and_says_how_to_continue(stored: tuple[MemoryOffload, str]) -> None:
    sink, ref = stored
    out = retrieve(sink, ref, limit=100000, budget_tokens=300)
    assert COUNT(out) <= 300
    assert "budget reached" in out and "offset=" in out.split("\n")[-1]


def test_grep_with_line_numbers_and_counts(stored: tuple[MemoryOffload, str]) -> None:
    sink, ref = stored
    out = retrieve(sink, ref, grep=r"WARN", limit=5)
    lines = out.split("\n")
    assert "5 of 207 lines matching 'WARN'" in lines[0]
    assert lines[1] == "1:00000 WARN disk low" and lines[2] == "98:00097 WARN disk low"
    assert 'offset=485, limit=5, grep="WARN"' in lines[-1]
    nxt = retrieve(sink, ref, offset=485, grep="WARN", limit=5)
    assert nxt.split("\n")[1] == "486:00485 WARN disk low"
    assert "no line" in retrieve(sink, ref, grep="NEVER_THERE")
    with pytest.raises(InputError):
        retrieve(sink, ref, grep="(unclosed")


def test_giant_line_is_windowed_around_the_match() -> None:
    sink = MemoryOffload()
    text = "a" * 3_000_000 + "NEEDLE" + "b" * 3_000_000
    ref = sink.put_offload(text)
    out = retrieve(sink, ref, grep="NEEDLE", budget_tokens=500)
    assert "NEEDLE" in out and COUNT(out) <= 500
    plain = retrieve(sink, ref, budget_tokens=500)
    assert COUNT(plain) <= 500 and "chars of this line" in plain


@pytest.mark.parametrize("ref", ["../../etc/passwd", "/etc/passwd", "ofl_../../x", "", "a" * 500, "ofl_0000000000000000"])
def test_forged_and_unknown_refs(stored: tuple[MemoryOffload, str], ref: str) -> None:
    sink, _ = stored
    with pytest.raises(NotFoundError):
        retrieve(sink, ref)


def test_bad_arguments(stored: tuple[MemoryOffload, str]) -> None:
    sink, ref = stored
    for kwargs in ({"offset": -1}, {"limit": 0}, {"budget_tokens": 0}):
        with pytest.raises(InputError):
            retrieve(sink, ref, **kwargs)  # type: ignore[arg-type]


def test_sqlite_store_is_durable_across_reopen(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'clip.db'}"
    store = open_store(url)
    r = clip(ORIGINAL, 400, sink=store)
    ref = r.report.ref
    assert ref and ref in r.text
    store.close()
    again = open_store(url)
    try:
        assert again.get_offload(ref).content == ORIGINAL
        assert "00007 steady state ok" in retrieve(again, ref, offset=7, limit=1)
        with pytest.raises(NotFoundError):
            retrieve(again, "../../etc/passwd")
        with pytest.raises(NotFoundError):
            retrieve(again, "ofl_ffffffffffffffff")
    finally:
        again.close()


def test_binary_original_round_trips_through_sqlite(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'b.db'}")
    try:
        data = bytes(range(256)) * 400
        r = clip(data, 200, sink=store)
        assert r.report.ref
        assert store.get_offload(r.report.ref).content == data.decode("utf-8", "replace")
    finally:
        store.close()


def _png(w: int, h: int) -> str:
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * w for _ in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(data).decode()


def test_image_size_sniffing() -> None:
    assert image_size(_png(37, 21)) == (37, 21)
    gif = base64.b64encode(b"GIF89a" + struct.pack("<HH", 640, 480) + b"\x00" * 20).decode()
    assert image_size(gif) == (640, 480)
    jpeg = b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9 + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 300, 200) + b"\x00" * 20
    assert image_size(base64.b64encode(jpeg).decode()) == (200, 300)
    assert image_size("not base64 at all!!") is None


def test_seen_images_are_elided_then_restored() -> None:
    sink = MemoryOffload()
    seen: dict[str, str] = {}
    img = ImagePart(source="base64", data=_png(64, 48), media_type="image/png")
    history = [
        Message(role="user", parts=(TextPart("look"), img)),
        Message(role="tool", parts=(ToolResultPart(call_id="c", content=(TextPart("shot"), img)),)),
        user("and now?"),
    ]
    first = elide_seen_images(history[:1], seen, sink)
    assert first == history[:1] and len(seen) == 1 and len(sink) == 1  # first sight: kept, offloaded once
    second = elide_seen_images(history, seen, sink)
    assert len(sink) == 1
    marker = second[0].parts[1]
    assert isinstance(marker, TextPart) and marker.text.startswith("[image omitted from context: 64x48 png, ref ofl_")
    tool_part = second[1].parts[0]
    assert isinstance(tool_part, ToolResultPart) and isinstance(tool_part.content[1], TextPart)
    assert restore_images(second, sink) == history
    ref = next(iter(seen.values()))
    content = retrieve_content(sink, ref)
    assert content[1] == img
    assert "64x48" in retrieve(sink, ref)


def test_retrieve_tool_in_provider_formats() -> None:
    openai = retrieve_tool("openai")
    assert openai["type"] == "function" and openai["function"]["name"] == "retrieve"
    assert openai["function"]["parameters"]["required"] == ["ref"]
    anthropic = retrieve_tool("anthropic")
    assert anthropic["name"] == "retrieve" and "ref" in anthropic["input_schema"]["properties"]
    gemini = retrieve_tool("gemini")
    assert gemini["functionDeclarations"][0]["name"] == "retrieve"
    assert retrieve_tool("openai_responses")["name"] == "retrieve"
    assert RETRIEVE_TOOL.parameters["properties"]["grep"]["type"] == "string"
    with pytest.raises(ConfigError):
        retrieve_tool("cohere")


def test_run_retrieve_call_never_raises(stored: tuple[MemoryOffload, str]) -> None:
    sink, ref = stored
    ok = run_retrieve_call(sink, "call_1", json.dumps({"ref": ref, "offset": 5, "limit": 2}))
    assert not ok.is_error and ok.name == "retrieve" and "00005 steady state ok" in ok.text
    for bad in ('{"ref": "../../etc/passwd"}', "not json", '["list"]', json.dumps({"ref": ref, "offset": -3}), "{}"):
        res = run_retrieve_call(sink, "call_2", bad)
        assert res.is_error and res.text.startswith("retrieve failed:"), bad
