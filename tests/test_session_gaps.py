"""Library gaps the agent made visible: answered images become retrieve markers, the runtime
block asks for batches on many-item tasks, COMPRESSION_THRESHOLD is the trigger's alias, and
session limits bind out of the box, checked before a call is made."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from contextwindow import Session, SessionConfig
from contextwindow.admission import admit
from contextwindow.admission.runtime import BATCHING_INSTRUCTION, wants_batching
from contextwindow.budget import BudgetConfig, Limits
from contextwindow.errors import ConfigError, LimitExceeded
from contextwindow.llm import Completion, ScriptedModel
from contextwindow.messages import ImagePart, Message, TextPart, ToolCallPart
from contextwindow.store import open_store
from contextwindow.usage import Usage


def png(w: int, h: int) -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + b"\x7f" * (w * 3) for _ in range(h))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(data).decode()


def user(text: str, *extra: ImagePart) -> Message:
    return Message("user", (TextPart(text), *extra))


def test_answered_images_become_markers_once(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    s = Session(store, window=64_000, max_output=2_000)
    first, second = ImagePart("base64", png(40, 30), "image/png"), ImagePart("base64", png(20, 10), "image/png")
    model = ScriptedModel(["a grey square", "another", "ok"])
    s.add(user("what is this?", first))
    s.call(model)
    assert any(isinstance(p, ImagePart) for p in model.calls[0].messages[0].parts)  # not answered yet: sent
    s.add(user("and this?", second))
    s.call(model)
    sent = model.calls[1].messages
    assert not any(isinstance(p, ImagePart) for p in sent[0].parts)
    marker = next(p.text for p in sent[0].parts if isinstance(p, TextPart) and "ref" in p.text)
    assert "40x30" in marker and "retrieve" in marker
    assert any(isinstance(p, ImagePart) for p in sent[2].parts)  # the new image is still there
    s.add(user("thanks"))
    s.call(model)
    third = model.calls[2].messages
    assert third[0] == sent[0]  # the marker is the same bytes on the next call (the prefix stays cached)
    assert not any(isinstance(p, ImagePart) for m in third for p in m.parts)
    ref = marker.split("ref ")[1].split(";")[0]
    back = s.run_retrieve(ToolCallPart("r", "retrieve", f'{{"ref": "{ref}"}}'))
    assert any(isinstance(c, ImagePart) and c.data == first.data for c in back.parts[0].content)  # type: ignore[union-attr]
    assert [e.name for e in store.list_events(s.id)].count("images.elided") == 2
    assert any(isinstance(p, ImagePart) for p in store.list(s.id)[0].message.parts)  # the store keeps the original


def test_runtime_block_asks_for_batches(tmp_path: Path) -> None:
    adm = admit(tmp_path, None)
    model = ScriptedModel(["done", "done"])
    s = Session(open_store("memory:"), window=64_000, max_output=2_000, system=adm, runtime_block=True)
    s.add(user("Read all the files under src and summarize each one"))
    s.call(model)
    assert BATCHING_INSTRUCTION in model.calls[0].messages[-1].text
    s.add(user("now fix the typo in app.py"))
    s.call(model)
    assert BATCHING_INSTRUCTION not in model.calls[1].messages[-1].text


@pytest.mark.parametrize(
    ("task", "many"),
    [
        ("run all tests and fix the failures", True),
        ("add type hints to every function in utils.py", True),
        ("check these 40 urls for dead links", True),
        ("- a.py\n- b.py\n- c.py\n- d.py\n- e.py\nlint them", True),
        ("fix the off-by-one in parser.py", False),
        ("all good, ship it", False),
        ("call me when all is done", False),
        ("they depend on each other", False),
    ],
)
def test_wants_batching(task: str, many: bool) -> None:
    assert wants_batching(task) is many


def test_compression_threshold_alias() -> None:
    assert BudgetConfig.from_env({"COMPRESSION_THRESHOLD": "0.6"}).trigger == pytest.approx(0.6)
    assert BudgetConfig.from_env({"COMPRESSION_THRESHOLD": "60%"}).trigger == pytest.approx(0.6)
    assert BudgetConfig.from_env({"COMPRESSION_THRESHOLD": "0.6", "CONTEXTWINDOW_TRIGGER": "0.7"}).trigger == pytest.approx(0.7)
    with pytest.raises(ConfigError, match="COMPRESSION_THRESHOLD"):
        BudgetConfig.from_env({"COMPRESSION_THRESHOLD": "lots"})


def test_limits_defaults_env_and_off() -> None:
    d = Limits.from_env({})
    assert (d.max_turns, d.max_tokens, d.max_tool_calls, d.max_cost_usd, d.max_wall_s) == (200, 1_000_000, 200, 2.0, 1_800.0)
    assert SessionConfig().limits == d
    e = Limits.from_env({"CONTEXTWINDOW_MAX_TURNS": "off", "CONTEXTWINDOW_MAX_COST_USD": "$0.5", "CONTEXTWINDOW_MAX_TOKENS": "2_000_000"})
    assert e.max_turns is None and e.max_cost_usd == 0.5 and e.max_tokens == 2_000_000
    with pytest.raises(ConfigError, match="CONTEXTWINDOW_MAX_TOOL_CALLS"):
        Limits.from_env({"CONTEXTWINDOW_MAX_TOOL_CALLS": "many"})


def test_limits_refuse_before_the_call_is_paid() -> None:
    paid = Completion("pricey", Usage(input_tokens=100, output_tokens=10, cost_usd=1.5), message=Message("assistant", (TextPart("pricey"),)))
    model = ScriptedModel([paid, "never sent"])
    s = Session(open_store("memory:"), window=64_000, max_output=2_000, config=SessionConfig(limits=Limits(max_cost_usd=1.0)))
    s.add(user("one"))
    s.call(model)  # $0 spent so far: allowed; it costs $1.50
    s.add(user("two"))
    with pytest.raises(LimitExceeded, match="cost_usd"):
        s.call(model)
    assert len(model.calls) == 1  # refused before the call, not after paying for it
    assert [e.name for e in s.store.list_events(s.id)][-1] == "limit.exceeded"


def test_turn_and_tool_call_limits() -> None:
    s = Session(open_store("memory:"), window=64_000, max_output=2_000, config=SessionConfig(limits=Limits(max_turns=2, max_tool_calls=1)))
    model = ScriptedModel(["a", "b", "c"])
    s.add(user("1"))
    s.call(model)
    s.add(Message("assistant", (ToolCallPart("x", "t", "{}"), ToolCallPart("y", "t", "{}"))))
    with pytest.raises(LimitExceeded, match="tool_calls"):
        s.build()
    assert len(model.calls) == 1


def test_restart_clock_starts_the_wall_limit_again() -> None:
    """An interactive front end restarts the clock when the person sends a request, so a chat
    that sat idle past the wall limit is not refused on its next request. The Session reads time
    from the clock it is given (a hand-moved one here: no sleeping, nothing depends on load)."""
    now = [100.0]
    s = Session(open_store("memory:"), model="gpt-4o-mini", config=SessionConfig(limits=Limits(max_wall_s=60.0)), clock=lambda: now[0])
    s.add(Message("user", (TextPart("hi"),)))
    now[0] += 59.0
    s.check_limits()  # under the limit
    now[0] += 2.0  # idle past it
    with pytest.raises(LimitExceeded, match="wall"):
        s.check_limits()
    s.restart_clock()
    s.check_limits()  # a new request: the clock counts from now
    now[0] += 61.0
    with pytest.raises(LimitExceeded, match="wall"):
        s.check_limits()
