"""``clip``: the one entry point that clips a tool result at the moment it is appended."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..errors import ConfigError, ContextWindowError
from ..messages import ImagePart, TextPart, ToolResultPart
from .diff import clip_diff
from .html import clip_html
from .jsonclip import JSONClipError, clip_json
from .logs import clip_log, log_score
from .marker import RETRIEVE_HEADER, defuse, render_marker
from .measure import Count, count_lines, decode, default_count, measure_tokens, printable, safe_count, safe_count_joined
from .model import KINDS, RETRIEVE_TOOL_NAME, ClipConfig, ClipReport, ClipResult, OffloadSink
from .search import clip_search
from .select import Body, Scans
from .sniff import sniff
from .text import clip_chars, clip_numbered, clip_preview, clip_text

Clipper = Callable[[str, int, Count], Body]
CLIPPERS: dict[str, Clipper] = {
    "search": clip_search,
    "log": clip_log,
    "json": clip_json,
    "diff": clip_diff,
    "html": clip_html,
    "read": clip_numbered,
    "source": clip_text,
    "text": clip_text,
}
#: Clippers that scan the whole text first and take ``scans`` (reused by a clip's re-runs at other budgets).
SCANNING = frozenset({"search", "log", "read", "source", "text"})
#: A clipped text uses at least this share of its budget when the body could take more.
FILL = 0.93
#: Smallest body budget: below it a clip keeps this much and the marker goes over the budget.
MIN_BODY_TOKENS = 24


def _kept_whole(tokens: int, text: str, tool_name: str | None, budget_tokens: int, hard_cap_tokens: int) -> bool:
    # a named tool is trusted by its name only (any tool could print the header); without a name
    # (the CLI, a bare string) the header says it
    is_retrieve = tool_name == RETRIEVE_TOOL_NAME if tool_name else text.startswith(RETRIEVE_HEADER)
    return tokens <= budget_tokens or (is_retrieve and tokens <= hard_cap_tokens)


def keeps(result: ToolResultPart, budget_tokens: int = 4000, *, tool_name: str | None = None, hard_cap_tokens: int = 40000,
          count: Count | None = None) -> bool:
    """True when :func:`clip` would give ``result`` back unchanged (under budget, or a retrieve
    result within the hard cap): the same test, without clipping anything."""
    text = decode(result.text).text
    return _kept_whole(measure_tokens(count or default_count(), text)[0], text, tool_name or result.name, budget_tokens, hard_cap_tokens)


def clip(
    result: ToolResultPart | str | bytes,
    budget_tokens: int = 4000,
    *,
    kind: str = "auto",
    tool_name: str | None = None,
    sink: OffloadSink | None = None,
    hard_cap_tokens: int = 40000,
    count: Count | None = None,
) -> ClipResult:
    """Clip one tool result to ``budget_tokens``.

    Under budget it comes back unchanged (``report.clipped`` is False). Over budget a clipper
    chosen by content (``kind="auto"``; the tool name is only a hint) keeps what matters, the
    original goes to ``sink`` (when given) and ONE marker at the end says what was dropped and
    how to get it back. The clippers stream over the text with bounded memory, so structure is
    kept at any size (``hard_cap_tokens`` no longer demotes big outputs to a preview: it only
    bounds how large a ``retrieve`` result may be and still pass unclipped).
    Results of the ``retrieve`` tool (by tool name, or by their header) are never re-clipped.
    ``count`` is the model's own counter (``tokens.counter_for(model).count_text``): the budget,
    marker included, is met in that model's tokens.
    Bad content (binary, invalid UTF-8, giant lines, broken or deep JSON) never raises.
    """
    if not isinstance(budget_tokens, int) or budget_tokens < 1:
        raise ConfigError(f"budget_tokens must be a positive number of tokens, got {budget_tokens!r}")
    if not isinstance(hard_cap_tokens, int) or hard_cap_tokens < 1:
        raise ConfigError(f"hard_cap_tokens must be a positive number of tokens, got {hard_cap_tokens!r}")
    if kind not in KINDS:
        raise ConfigError(f"unknown clip kind {kind!r} (expected one of {', '.join(KINDS)})")
    counter = count or default_count()
    part: ToolResultPart | None = None
    if isinstance(result, ToolResultPart):
        part = result
        decoded = decode(result.text)
        tool_name = tool_name or result.name
    elif isinstance(result, (str, bytes, bytearray, memoryview)):
        decoded = decode(result)
    else:
        raise ConfigError(f"clip() takes a ToolResultPart, str or bytes, got {type(result).__name__}")
    text = decoded.text
    tokens_before, estimated = measure_tokens(counter, text)
    lines_before = count_lines(text)
    notes = list(decoded.notes)

    is_retrieve = tool_name == RETRIEVE_TOOL_NAME if tool_name else text.startswith(RETRIEVE_HEADER)
    if _kept_whole(tokens_before, text, tool_name, budget_tokens, hard_cap_tokens):
        if is_retrieve and tokens_before > budget_tokens:
            notes.append("retrieve output is bounded by retrieve itself; not clipped again")
        report = ClipReport(
            kind="none", tokens_before=tokens_before, tokens_after=tokens_before, lines_before=lines_before,
            lines_after=lines_before, sniffed="retrieve" if is_retrieve else "unclipped", estimated=estimated,
            notes=tuple(notes),
        )
        return ClipResult(text=text, report=report, part=part)

    sniffed = "binary" if decoded.binary else (sniff(text, tool_name) if kind == "auto" else kind)
    probe = render_marker(kind=sniffed, dropped_tokens=tokens_before, dropped_lines=lines_before,
                          tokens_before=tokens_before, lines_before=lines_before, ref="ofl_0123456789abcdef",
                          estimated=estimated, detail="x" * 60)
    body_budget = max(MIN_BODY_TOKENS, budget_tokens - safe_count(counter, probe) - 2)
    scans: Scans = {}  # the clippers' scans of this text: the re-runs below at other budgets reuse them
    used, body = _run(text, sniffed, body_budget, counter, decoded.binary, notes, scans)

    ref: str | None = None
    store_error: str | None = None
    if sink is not None:
        meta = {"cw": "clip_original", "kind": used, "tool_name": tool_name, "tokens": tokens_before,
                "lines": lines_before, "estimated": estimated, "notes": notes}
        if part is not None:
            meta["call_id"] = part.call_id
        try:
            ref = sink.put_offload(text, meta)
        except (ContextWindowError, OSError, ValueError) as exc:
            store_error = f"{type(exc).__name__}: {exc}"[:200]
            notes.append(f"original not stored: {store_error}")

    def finish(body: Body, used: str) -> tuple[str, int, int, int]:
        body_tokens = body.tokens if body.tokens >= 0 else safe_count(counter, body.text)
        kept = body.kept_lines if body.kept_lines >= 0 else min(lines_before, count_lines(body.text))
        dropped_lines = max(0, lines_before - kept)
        dropped_tokens = max(0, tokens_before - body_tokens)
        for detail in (body.detail, ""):  # at a tiny budget the detail goes before the budget does
            marker = render_marker(kind=used, dropped_tokens=dropped_tokens, dropped_lines=dropped_lines,
                                   tokens_before=tokens_before, lines_before=lines_before, ref=ref,
                                   estimated=estimated, store_error=store_error, detail=detail)
            out = f"{body.text}\n{marker}" if body.text else marker
            # the body was counted while it was fitted: a count that adds pieces up reads the marker only
            n = safe_count_joined(counter, out, (body.text, "\n" + marker)) if body.text else safe_count(counter, out)
            if n <= budget_tokens or body_budget > MIN_BODY_TOKENS:
                break
        return out, n, dropped_tokens, dropped_lines

    out, tokens_after, dropped_tokens, dropped_lines = finish(body, used)
    for attempt in range(3):
        over = tokens_after - budget_tokens
        if over <= 0 or body_budget <= MIN_BODY_TOKENS:
            break
        # The joint count came out a little over (e.g. the real ref costs more tokens than the
        # probe's): clip again with the difference taken off the body as it came out, since a
        # body is often a few tokens under its budget and the same budget minus a little gives
        # the same body.
        body_tokens = body.tokens if body.tokens >= 0 else safe_count(counter, body.text)
        body_budget = max(MIN_BODY_TOKENS, min(body_budget, body_tokens) - over - 2 * (attempt + 1))
        used, body = _run(text, sniffed, body_budget, counter, decoded.binary, [], scans)
        out, tokens_after, dropped_tokens, dropped_lines = finish(body, used)
    room = budget_tokens - tokens_after
    if 0 < tokens_after < budget_tokens * FILL and room > 4:
        # The marker came out shorter than its probe: give the room back to the body, once.
        used2, body2 = _run(text, sniffed, body_budget + room - 3, counter, decoded.binary, [], scans)
        out2, after2, dt2, dl2 = finish(body2, used2)
        if tokens_after < after2 <= budget_tokens:
            used, body, out, tokens_after, dropped_tokens, dropped_lines = used2, body2, out2, after2, dt2, dl2
    report = ClipReport(
        kind=used, tokens_before=tokens_before, tokens_after=tokens_after,
        lines_before=lines_before, lines_after=count_lines(out), ref=ref, dropped_tokens=dropped_tokens,
        dropped_lines=dropped_lines, clipped=True, sniffed=sniffed, estimated=estimated,
        notes=tuple(notes + list(body.notes)),
    )
    new_part = _replace_text(part, out) if part is not None else None
    return ClipResult(text=out, report=report, part=new_part)


def clip_with(
    result: ToolResultPart | str | bytes,
    config: ClipConfig,
    *,
    tool_name: str | None = None,
    kind: str = "auto",
    sink: OffloadSink | None = None,
    count: Count | None = None,
) -> ClipResult:
    """:func:`clip` with the budget of ``config`` for this tool (``per_tool``, else the default)."""
    name = tool_name or (result.name if isinstance(result, ToolResultPart) else None)
    return clip(result, config.budget_for(name), kind=kind, tool_name=name, sink=sink,
                hard_cap_tokens=config.hard_cap, count=count)


def _run(text: str, kind: str, budget: int, count: Count, binary: bool, notes: list[str], scans: Scans | None = None) -> tuple[str, Body]:
    """Run the clipper for ``kind``; any failure falls back to head+tail (never raises).
    ``scans``: what the clippers scanned of this same text on an earlier run (:func:`.select.scanned`)."""
    if binary:
        body = clip_preview(text, budget, count)
        body = Body(defuse(printable(body.text)), body.kept_lines, body.notes)
        return "text", _fit(body, budget, count)
    clean = defuse(text)
    try:
        return kind, _fit(_call(kind, clean, budget, count, scans), budget, count)
    except JSONClipError as exc:
        notes.append(str(exc))
    except (RecursionError, MemoryError, ValueError, IndexError) as exc:
        notes.append(f"{kind} clipper failed ({type(exc).__name__}); fell back to head+tail")
    fallback = "log" if log_score(clean[:16384].split("\n")[:200]) >= 0.01 else "text"
    try:
        return fallback, _fit(_call(fallback, clean, budget, count, scans), budget, count)
    except (RecursionError, MemoryError, ValueError, IndexError):
        return "text", _fit(clip_chars(clean, budget, count), budget, count)


def _call(kind: str, text: str, budget: int, count: Count, scans: Scans | None) -> Body:
    if scans is not None and kind in SCANNING:
        return CLIPPERS[kind](text, budget, count, scans=scans)  # type: ignore[call-arg]
    return CLIPPERS[kind](text, budget, count)


def _fit(body: Body, budget: int, count: Count) -> Body:
    """The safety net: a body over budget is cut by characters. Records the body's tokens."""
    used = safe_count(count, body.text)
    if used <= budget:
        return dataclasses.replace(body, tokens=used)
    cut = clip_chars(body.text, budget, count)
    return Body(cut.text, min(body.kept_lines, cut.kept_lines), body.notes, detail=body.detail)


def _replace_text(part: ToolResultPart, text: str) -> ToolResultPart:
    """The part with its text parts replaced by one clipped text part (images stay in place)."""
    content: list[TextPart | ImagePart] = []
    placed = False
    for c in part.content:
        if isinstance(c, TextPart):
            if not placed:
                content.append(dataclasses.replace(c, text=text))
                placed = True
        else:
            content.append(c)
    if not placed:
        content.insert(0, TextPart(text))
    return dataclasses.replace(part, content=tuple(content))
