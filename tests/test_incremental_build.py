"""A build reuses what the previous build made (renders, serialized units, cleared results, text
counts) only where it is exactly what it would make again: every payload built incrementally
equals the one made from scratch. Work is compared by value, never timed (speed lives in
benchmarks/bench_replay.py)."""

from __future__ import annotations

import random
import threading

from contextwindow import Session
from contextwindow.compaction.cache import CacheConfig, clear_for_cache
from contextwindow.compaction.view import ViewItem
from contextwindow.formats import anthropic, cache_marks, get_format, openai_chat
from contextwindow.formats.memo import RenderMemo
from contextwindow.formats.prepare import GrowingPrepare, prepare
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, assistant, user
from contextwindow.prefix import payload_units
from contextwindow.session import SessionConfig
from contextwindow.store.memory import MemoryStore
from contextwindow.tokens import Estimator, counter_for
from contextwindow.tokens.counting import TEXT_MEMO_MIN_CHARS
from contextwindow.tokens.memo import TextMemo


def call(i: int) -> Message:
    return Message("assistant", (TextPart(f"step {i}"), ToolCallPart(f"call_{i}", "read_file", f'{{"path": "m{i}.py"}}')))


def result(i: int, rng: random.Random) -> Message:
    body = "\n".join(f"{i}:{k}: " + " ".join(rng.choice(("alpha", "beta", "x = 1", "def f():", "# note")) for _ in range(8)) for k in range(rng.randint(5, 120)))
    return Message("tool", (ToolResultPart(f"call_{i}", (TextPart(body),)),))


def test_every_incremental_payload_equals_the_one_rendered_from_scratch() -> None:
    rng = random.Random(13)
    s = Session(MemoryStore(deterministic=True), model="gpt-4o", window=12_000, max_output=1_000, system="You help.")
    s.add(user("Refactor the parser. Never touch the public API."))
    prev_units: list[str] | None = None
    compacted = 0
    for i in range(40):
        s.add(call(i), result(i, rng))
        b = s.build()
        compacted += b.compaction is not None and b.compaction.changed
        fresh = openai_chat.to_payload(prepare(b.messages, "openai").messages, system="You help.", model="gpt-4o")
        assert b.payload == fresh
        units = payload_units(fresh)
        assert units == payload_units(b.payload)
        if prev_units is not None:  # the share the Session reported is the one of fresh units
            same = 0
            for x, y in zip(prev_units, units, strict=False):
                if x != y:
                    break
                same += len(y)
            assert abs(b.prefix_share - same / sum(map(len, units))) < 1e-12
        prev_units = units
        s.record(assistant(f"done {i}") if i % 7 == 6 else call(1000 + i), None)
        if i % 7 != 6:
            s.add(result(1000 + i, rng))
    assert compacted > 0  # the history outgrew the window: compaction changed the view on the way


def test_other_formats_render_the_same_with_the_session_as_from_scratch() -> None:
    rng = random.Random(5)
    for fmt in ("anthropic", "openai_responses", "gemini"):
        s = Session(MemoryStore(), model="gpt-4o", window=50_000, max_output=1_000, format=fmt)
        s.add(user("go"))
        for i in range(6):
            s.add(call(i), result(i, rng))
            b = s.build()
            if fmt == "anthropic":  # with the prompt-cache breakpoints the Session places (formats/cache_marks.py)
                at: list[tuple[int, int]] = []
                plain = anthropic.to_payload(prepare(b.messages, fmt).messages, model="gpt-4o", positions=at)
                assert b.payload == cache_marks.place(plain, "5m", model="gpt-4o", anchors=[at[i] for i in b.cache_anchors])
                continue
            assert b.payload == get_format(fmt).to_payload(prepare(b.messages, fmt).messages, model="gpt-4o")


def test_the_render_memo_reuses_only_the_same_objects_and_keeps_one_round() -> None:
    memo: RenderMemo[Message, str] = RenderMemo()
    made: list[str] = []

    def render(m: Message) -> str:
        made.append(m.text)
        return m.text.upper()

    a, b = user("a"), user("b")
    assert memo.map([a, b], render) == ["A", "B"]
    equal_not_same = user("a")
    assert memo.map([a, equal_not_same], render) == ["A", "A"]
    assert made == ["a", "b", "a"]  # `a` reused; an equal but other object rendered again
    assert memo.map([a, b, user("c")], render) == ["A", "B", "C"]  # `b` was not in the last round: made again
    assert made == ["a", "b", "a", "b", "c"]
    memo.map([], render)  # a round that rendered nothing: the older renders are gone
    memo.map([a], render)
    assert made == ["a", "b", "a", "b", "c", "a"]


def test_the_text_memo_answers_what_the_counter_answers_and_stays_bounded() -> None:
    for counter in (counter_for("gpt-4o"), Estimator("anthropic")):
        rng = random.Random(7)
        texts = ["".join(rng.choice("ab cd\n{}é日") for _ in range(rng.randint(0, 400))) for _ in range(300)]
        for t in texts + texts:
            assert counter.count_text_memo(t) == counter.count_text(t)
        assert all(len(t) >= TEXT_MEMO_MIN_CHARS for t in counter._texts)
        assert counter._texts.chars == sum(map(len, counter._texts))


def test_a_text_memo_forgets_its_oldest_texts_past_its_bound() -> None:
    memo: TextMemo[int] = TextMemo(threading.Lock(), min_chars=4, max_chars=40)
    assert memo.put("abc", 1) == 1 and len(memo) == 0  # under min_chars: answered, not kept
    assert memo.put("x" * 11, 2) == 2 and len(memo) == 0  # over a quarter of the bound: not kept
    for i in range(6):
        memo.put(f"text{i:06d}", i)  # 10 characters each
    assert list(memo) == [f"text{i:06d}" for i in (2, 3, 4, 5)]  # 40 characters at most, oldest gone first
    assert memo.chars == 40 and memo.get("text000000") is None and memo.get("text000005") == 5
    memo.clear()
    assert len(memo) == 0 and memo.chars == 0


def test_clearing_with_a_memo_decides_exactly_as_without() -> None:
    rng = random.Random(11)
    count = counter_for("claude-sonnet-4-5").count_message
    cfg = CacheConfig(clear_at_least=500)
    memo: dict[str, object] = {}
    items: list[ViewItem] = [ViewItem("u", user("go"), count(user("go")))]
    decided = 0
    for i in range(60):
        for m in (call(i), result(i, rng)):
            items.append(ViewItem(f"m{len(items)}", m, count(m)))
        tail = rng.randint(0, 3_000)
        plain = clear_for_cache(items, count, tail, cfg)
        memod = clear_for_cache(items, count, tail, cfg, memo=memo)
        assert plain == memod
        if plain is not None and rng.random() < 0.5:
            items = plain[0]  # sometimes keep the clear, as a Session does
            decided += 1
    assert decided > 0


def test_a_session_with_cache_clearing_builds_the_same_as_one_reopened_from_its_store() -> None:
    """The view a Session keeps reusing equals the view a new Session reads from the store."""
    rng = random.Random(3)
    store = MemoryStore(deterministic=True)
    cfg = SessionConfig(cache=CacheConfig(clear_at_least=300))
    s = Session(store, model="claude-sonnet-4-5", window=60_000, max_output=2_000, config=cfg)
    s.add(user("Keep going. Always run the tests."))
    for i in range(30):
        s.add(call(i), result(i, rng))
        b = s.build()
        again = Session(store, s.id, model="claude-sonnet-4-5", window=60_000, max_output=2_000, config=cfg)
        assert [it.message for it in again.view()] == b.messages


def test_prepare_with_its_memo_gives_what_it_gives_without() -> None:
    from contextwindow.messages import ImagePart

    rng = random.Random(21)
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    pool: list[Message] = [user("go")]
    for i in range(30):
        cid = rng.choice((f"call_{i}", f"toolu:{i}/x", "c" * rng.choice((10, 50, 70)) + str(i)))
        pool.append(Message("assistant", (ToolCallPart(cid, "bash", "{}"),)))
        content: tuple[TextPart | ImagePart, ...] = (TextPart("out"),)
        if rng.random() < 0.15:
            content += (ImagePart(source="base64", data=png, media_type=rng.choice(("image/png", "image/PNG", None))),)
        pool.append(Message("tool", (ToolResultPart(cid, content),)))
    for fmt in ("openai", "openai_responses", "anthropic", "gemini"):
        grown = GrowingPrepare(fmt)  # kept between calls, as a Session keeps it
        for n in range(1, len(pool) + 1, 3):
            msgs = pool[:n]
            assert grown(msgs) == prepare(msgs, fmt)
