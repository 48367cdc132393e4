"""Issue 17, item 1: every build ends in the provider-rules validator. Each example from the issue
(a payload the provider rejects, built without an error) is a regression test here, for every
format it applies to, checked by formats.rules.check AND by the independent checker the fuzz
benchmark uses (benchmarks/provider_checker.py, written apart from the repairing code)."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from contextwindow.errors import ConfigError, InvalidPayloadError
from contextwindow.formats import rules
from contextwindow.formats.prepare import prepare, sniff_image_type, unmap_ids
from contextwindow.messages import ImagePart, Message, TextPart, ToolCallPart, ToolResultPart
from contextwindow.session import Session
from contextwindow.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import provider_checker

FORMATS = ("openai", "openai_responses", "anthropic", "gemini")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + b"\x00" * 40).decode()


def build(fmt: str, *msgs: Message, system: str = "") -> dict:
    s = Session(open_store("memory:"), window=200_000, format=fmt, system=system)
    s.add(*msgs)
    payload = s.build().payload
    assert rules.check(fmt, payload) == []
    assert provider_checker.problems(fmt, payload) == []
    return payload


def call(cid: str, name: str = "read") -> Message:
    return Message("assistant", (ToolCallPart(cid, name, '{"path": "a"}'),))


def calls(*cids: str) -> Message:
    return Message("assistant", tuple(ToolCallPart(c, "read", "{}") for c in cids))


def result(cid: str, *content: TextPart | ImagePart) -> Message:
    return Message("tool", (ToolResultPart(cid, content or (TextPart("ok"),)),))


@pytest.mark.parametrize("fmt", FORMATS)
def test_parallel_results_with_images_keep_results_adjacent(fmt: str) -> None:
    img = ImagePart("base64", PNG, "image/png")
    p = build(fmt, Message("user", (TextPart("look"),)), calls("a", "b"), result("a", TextPart("shot a"), img), result("b", TextPart("shot b"), img))
    if fmt == "openai":
        roles = [m["role"] for m in p["messages"]]
        assert roles == ["user", "assistant", "tool", "tool", "user", "user"]  # images after ALL the results


@pytest.mark.parametrize("fmt", FORMATS)
def test_ids_that_collapse_under_the_charset_stay_distinct_and_paired(fmt: str) -> None:
    p = build(fmt, Message("user", (TextPart("go"),)), calls("fn:0", "fn_0"), result("fn:0", TextPart("zero")), result("fn_0", TextPart("under")))
    if fmt == "anthropic":
        ids = [b["id"] for b in p["messages"][1]["content"]]
        assert len(set(ids)) == 2 and "fn_0" in ids
        answers = {b["tool_use_id"]: b["content"] for b in p["messages"][2]["content"]}
        assert answers["fn_0"] == "under"  # the valid id kept, its own result with it
        assert answers[next(i for i in ids if i != "fn_0")] == "zero"


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_and_long_ids_are_replaced_consistently(fmt: str) -> None:
    long = "call_" + "x" * 80
    p = build(fmt, Message("user", (TextPart("go"),)), calls("", long), result("", TextPart("e")), result(long, TextPart("l")))
    assert '""' not in str(p).replace("'", '"').replace('"text": ""', "")


def test_ids_map_back_on_the_way_in() -> None:
    prep = prepare([calls("fn:0"), result("fn:0")], "anthropic")
    sent = prep.messages[0].tool_calls[0].id
    assert sent != "fn:0" and prep.id_map == {sent: "fn:0"}
    assert prep.messages[1].tool_results[0].call_id == sent
    back = unmap_ids(result(sent), prep.id_map)
    assert back.tool_results[0].call_id == "fn:0"
    # and a Session stores the original id when a result comes back under the sent one
    s = Session(open_store("memory:"), window=200_000, format="anthropic")
    s.add(Message("user", (TextPart("go"),)), calls("fn:0"))
    b = s.build()
    sent = next(iter(b.id_map))
    stored = s.add(result(sent))[0]
    assert stored.message.tool_results[0].call_id == "fn:0"


@pytest.mark.parametrize("fmt", FORMATS)
def test_whitespace_only_blocks_beside_tool_use(fmt: str) -> None:
    m = Message("assistant", (TextPart("\n\n"), ToolCallPart("toolu_1", "bash", "{}"), TextPart("  ")))
    p = build(fmt, Message("user", (TextPart("go"),)), m, result("toolu_1"), Message("user", (TextPart(" "),)), Message("assistant", (TextPart("done \n"),)))
    if fmt == "anthropic":
        assert all(b.get("text", "x").strip() for msg in p["messages"] for b in (msg["content"] if isinstance(msg["content"], list) else []))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("data,expect", [(PNG, "image/png"), (JPEG, "image/jpeg")])
def test_base64_image_without_media_type_is_sniffed(fmt: str, data: str, expect: str) -> None:
    p = build(fmt, Message("user", (TextPart("see"), ImagePart("base64", data))))
    assert expect in str(p)


@pytest.mark.parametrize("fmt", FORMATS)
def test_image_of_unknown_type_becomes_a_note(fmt: str) -> None:
    p = build(fmt, Message("user", (TextPart("see"), ImagePart("base64", base64.b64encode(b"BM" + b"\0" * 30).decode()))))
    assert "image omitted" in str(p)


def test_sniff_image_type() -> None:
    webp = base64.b64encode(b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 20).decode()
    gif = base64.b64encode(b"GIF89a" + b"\0" * 20).decode()
    assert [sniff_image_type(x) for x in (PNG, JPEG, webp, gif, "!!!", "")] == ["image/png", "image/jpeg", "image/webp", "image/gif", None, None]


@pytest.mark.parametrize("fmt", FORMATS)
def test_only_an_orphan_result_and_an_empty_user_message_is_a_typed_error(fmt: str) -> None:
    s = Session(open_store("memory:"), window=200_000, format=fmt)
    s.add(result("gone"), Message("user", (TextPart(""),)))
    with pytest.raises(InvalidPayloadError) as exc:
        s.build()
    assert exc.value.rule == "empty_payload" and "add a user message" in str(exc.value)
    s.add(Message("user", (TextPart("hello"),)))  # recovering needs no new Session
    assert provider_checker.problems(fmt, s.build().payload) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_two_results_for_one_call(fmt: str) -> None:
    build(fmt, Message("user", (TextPart("go"),)), call("t1"), result("t1", TextPart("first")), result("t1", TextPart("second")))


@pytest.mark.parametrize("fmt", FORMATS)
def test_results_in_a_user_message_and_system_mid_history(fmt: str) -> None:
    carried = Message("user", (ToolResultPart("t1", (TextPart("from a user-role message"),)), TextPart("and a remark")))
    p = build(fmt, Message("system", (TextPart("be brief"),)), Message("user", (TextPart("go"),)), call("t1"), carried, Message("system", (TextPart("mid"),)))
    assert "from a user-role message" in str(p)


def test_enforce_names_message_and_rule_for_what_it_cannot_repair() -> None:
    bad = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "f", "input": {}}]}]}
    with pytest.raises(InvalidPayloadError) as exc:
        rules.enforce("anthropic", bad)
    assert exc.value.rule == "unanswered_call" and exc.value.index == 1
    with pytest.raises(ConfigError):
        rules.check("nope", {})


def test_chat_check_catches_a_user_message_between_results() -> None:
    p = {"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}, {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "x"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG}}]},
        {"role": "tool", "tool_call_id": "b", "content": "y"},
    ]}
    assert any(v.rule == "unanswered_call" for v in rules.check("openai", p))
    assert provider_checker.problems("openai", p)
    fixed, fixes = rules.enforce("openai", p)
    assert [m["role"] for m in fixed["messages"]] == ["user", "assistant", "tool", "tool", "user"] and fixes
