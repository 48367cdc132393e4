"""Random histories for the build fuzz (tests/test_fuzz_build.py, benchmarks/bench_fuzz.py).

One hypothesis strategy that draws what real agent logs hold and what breaks payloads: parallel
calls, reused and odd ids (``fn:0``/``fn_0``, empty, 80 characters, non-ASCII), orphan and
duplicate results, results carried in user-role messages (Anthropic's layout), images with and
without media types (also inside results), reasoning with signatures from two providers, huge and
empty outputs, whitespace-only text blocks, system messages mid-history, deeply nested arguments.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from contextwindow.errors import ContextWindowError
from contextwindow.messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart

FORMATS = ("openai", "openai_responses", "anthropic", "gemini")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(range(40))).decode()
ODD_IDS = ["fn:0", "fn_0", "", "call_" + "x" * 80, "ид-1", "a b", "toolu_01", "call~2", "c.1"]
WORDS = ["alpha", "beta", "src/app.py", "error:", "Traceback", "ok", "42", "{", "}", "\n", "  "]


def _text(draw: Any, big: bool = False) -> str:
    kind = draw(st.sampled_from(["empty", "blank", "short", "short", "long"] + (["huge"] if big else [])))
    if kind == "empty":
        return ""
    if kind == "blank":
        return draw(st.sampled_from(["\n\n", " ", "\t \n"]))
    n = {"short": draw(st.integers(1, 20)), "long": draw(st.integers(100, 1500)), "huge": draw(st.integers(3000, 12000))}[kind]
    return " ".join(draw(st.sampled_from(WORDS)) for _ in range(min(n, 40))) * max(1, n // 40)


def _image(draw: Any) -> ImagePart:
    kind = draw(st.sampled_from(["png", "jpeg", "png_untyped", "jpeg_untyped", "url", "bmp"]))
    if kind == "url":
        return ImagePart("url", "https://example.invalid/a.png")
    if kind == "bmp":
        return ImagePart("base64", base64.b64encode(b"BM" + bytes(40)).decode())
    data = PNG if kind.startswith("png") else JPEG
    return ImagePart("base64", data, None if kind.endswith("untyped") else f"image/{kind.split('_')[0]}")


def _args(draw: Any) -> str:
    kind = draw(st.sampled_from(["obj", "obj", "empty", "bad", "deep"]))
    if kind == "obj":
        return json.dumps({"path": draw(st.sampled_from(WORDS)), "n": draw(st.integers(0, 9))})
    if kind == "empty":
        return ""
    if kind == "bad":
        return "{not json"
    depth = draw(st.integers(50, 1500))
    return "[" * depth + "]" * depth


@st.composite
def histories(draw: Any) -> list[Message]:
    msgs: list[Message] = []
    n = 0
    if draw(st.booleans()):
        msgs.append(Message("system", (TextPart("You are a careful agent. " * draw(st.integers(1, 30))),)))
    for t in range(draw(st.integers(1, 5))):
        first = [TextPart(f"task {t}: " + _text(draw))]
        if draw(st.integers(0, 5)) == 0:
            first.append(_image(draw))
        if draw(st.integers(0, 7)) == 0:
            first.append(TextPart("\n\n"))
        msgs.append(Message("user", tuple(first)))
        for _ in range(draw(st.integers(0, 4))):
            k = draw(st.integers(1, 3))  # parallel calls
            ids = []
            for _j in range(k):
                n += 1
                ids.append(draw(st.sampled_from(ODD_IDS)) if draw(st.integers(0, 4)) == 0 else f"c{n}")
            parts: list[Any] = []
            if draw(st.integers(0, 3)) == 0:
                prov = draw(st.sampled_from(["anthropic", "openai_responses", "gemini"]))
                parts.append(ReasoningPart(text=_text(draw), signature="sig" + str(n) if prov != "openai_responses" else None, provider=prov,
                                           encrypted="enc" if prov == "openai_responses" else None))
            if draw(st.booleans()):
                parts.append(TextPart(draw(st.sampled_from(["\n\n", "Let me look.", "", " "]))))
            parts += [ToolCallPart(cid, draw(st.sampled_from(["read", "bash", "grep"])), _args(draw)) for cid in ids]
            msgs.append(Message("assistant", tuple(parts)))
            layout = draw(st.sampled_from(["tool_each", "tool_each", "tool_one", "user_role"]))
            results = []
            for cid in ids:
                fate = draw(st.sampled_from(["ok", "ok", "ok", "ok", "missing", "twice", "orphan"]))
                if fate == "missing":
                    continue
                content: list[Any] = [TextPart(_text(draw, big=True))]
                if draw(st.integers(0, 4)) == 0:
                    content.append(_image(draw))
                r = ToolResultPart(cid if fate != "orphan" else f"gone{n}", tuple(content), is_error=draw(st.integers(0, 6)) == 0)
                results.append(r)
                if fate == "twice":
                    results.append(ToolResultPart(cid, (TextPart("again"),)))
            if not results:
                continue
            if layout == "tool_each":
                msgs.extend(Message("tool", (r,)) for r in results)
            elif layout == "tool_one":
                msgs.append(Message("tool", tuple(results)))
            else:
                msgs.append(Message("user", (*results, TextPart(draw(st.sampled_from(["", "\n\n", "here you go"]))))))
        if draw(st.integers(0, 6)) == 0:
            msgs.append(Message("system", (TextPart("mid-history note"),)))
        if draw(st.booleans()):
            msgs.append(Message("assistant", (TextPart(_text(draw) + draw(st.sampled_from(["", "\n", " "]))),)))
    if draw(st.integers(0, 8)) == 0:
        msgs.append(Message("user", (TextPart(""),)))
    return msgs


@dataclass
class Outcome:
    kind: str  # ok | typed | invalid | untyped | over_budget | lost
    detail: str = ""


def run_one(fmt: str, history: list[Message], window: int, checker: Any, store: Any | None = None) -> Outcome:
    """Build ``history`` at ``window`` for ``fmt``; judge the payload with ``checker`` (an
    independent provider-rules checker) and the build's own numbers."""
    from contextwindow.session import Session
    from contextwindow.store import open_store

    store = store or open_store("memory:")
    try:
        s = Session(store, window=window, max_output=min(4096, window // 4), format=fmt, system="Be brief.")
        s.add(*history)
        b = s.build()
    except ContextWindowError as exc:
        outcome = Outcome("typed", type(exc).__name__)
    except Exception as exc:
        return Outcome("untyped", f"{type(exc).__name__}: {exc}"[:300])
    else:
        errs = checker(fmt, b.payload)
        sent = sum(s.counter.count_message(m) for m in b.messages if m.meta.get("cw") != "runtime")
        if errs:
            outcome = Outcome("invalid", "; ".join(errs[:3]))
        elif sent > b.budget.history_budget:
            outcome = Outcome("over_budget", f"{sent} > {b.budget.history_budget}")
        else:
            outcome = Outcome("ok")
    stored = len(store.list(s.id)) if "s" in locals() else len(history)
    if stored != len(history):
        return Outcome("lost", f"{stored} of {len(history)} messages stored")
    return outcome
