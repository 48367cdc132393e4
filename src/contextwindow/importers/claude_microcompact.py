"""Claude Code 2.0.x's microcompact, simulated from what its log holds (the client wrote nothing when it ran).

Before every request, Claude Code 2.0.x cleared old tool results from what it sent — their content became
``[Old tool result content cleared]`` — while its JSONL log kept them whole. The rule, as public analyses of
the 2.0.x client describe it (docs/tokens.md names them), has no constant of ours:

- the results of the built-in Read, Bash, Grep, Glob, WebSearch, WebFetch, Edit and Write tools are
  compactable; each is sized the client's way, ``ceil(len / 4)`` per text (a JavaScript length: UTF-16
  units), 2,000 per image; results cleared once stay cleared;
- the newest 3 compactable results are kept; from the oldest on, results are cleared while the compactable
  results still sent hold more than 40,000 of those tokens;
- it fires only when that saves at least 20,000 and the context is above the warning threshold: the last
  response's usage (input + cache write + cache read + output) at least the auto-compact threshold (the
  window less ``min(max output, 32,000)`` less 13,000) less 20,000 — 135,000 on a 200k window.

Applied to Claude Code 2.0.x logs only: the 1.0.x client used other thresholds, and 2.1.x replaced the rule
(a time-based path and a server-side one, the latter logged as ``microcompact_boundary``). A log that holds
a ``microcompact_boundary`` is taken at its word instead. Each simulated clearing is an
:class:`~.model.ImportedClearing` with ``simulated=True``, reported as a repair (``ctxw inspect`` names it).
``DISABLE_MICROCOMPACT`` in the user's environment is not in the log: such a session's bill shows no fall
where this predicts one, and the step is then named as one the log does not explain.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from ..messages import ImagePart, TextPart, ToolCallPart, ToolResultPart
from ..models import find_model
from .model import ImportedClearing, ImportedSession, Skipped

COMPACTABLE_TOOLS = frozenset({"Read", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write"})
KEEP_RECENT = 3
TARGET_TOKENS = 40_000
MIN_SAVINGS = 20_000
IMAGE_TOKENS = 2_000
OUTPUT_RESERVE = 32_000  # Claude Code's default CLAUDE_CODE_MAX_OUTPUT_TOKENS
AUTOCOMPACT_BUFFER = 13_000
WARNING_BUFFER = 20_000
#: The Claude Code versions the rule is simulated for: [from, to).
VERSIONS = ((2, 0, 0), (2, 1, 0))
#: How a simulated clearing is counted in the import report (a repair: what was sent, not what was logged).
SIMULATED_KIND = "clearing of old tool results by Claude Code's microcompact (simulated)"
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def applies(version: object) -> bool:
    """Whether a log written by this Claude Code ``version`` ran the simulated rule."""
    m = _VERSION.match(version) if isinstance(version, str) else None
    if m is None:
        return False
    v = (int(m[1]), int(m[2]), int(m[3]))
    return VERSIONS[0] <= v < VERSIONS[1]


def warning_threshold(window: int, max_output: int | None) -> int:
    """Where Claude Code 2.0.x's warning (and so its microcompact) starts, for a window and model."""
    reserve = min(max_output or OUTPUT_RESERVE, OUTPUT_RESERVE)
    return window - reserve - AUTOCOMPACT_BUFFER - WARNING_BUFFER


def result_tokens(part: ToolResultPart) -> int:
    """A tool result's size as the client counts it (not a tokenizer: its own rough count)."""
    n = 0
    for c in part.content:
        if isinstance(c, TextPart):
            n += math.ceil(len(c.text.encode("utf-16-le")) / 8)
        elif isinstance(c, ImagePart):
            n += IMAGE_TOKENS
    return n


def simulate(session: ImportedSession, window: int) -> list[ImportedClearing]:
    """The clearings the rule makes over ``session``'s calls, in order (pure; the window is the session's).
    Only a call a 2.0.x client made clears (its own record's version; the session's where the call has
    none): a session resumed under another version follows each version's rule, this one only for 2.0.x."""
    version = session.meta.get("version")
    msgs = session.messages
    starts = sorted(cp.upto for cp in session.checkpoints)
    out: list[ImportedClearing] = []
    cleared: set[str] = set()
    ids: list[str] = []  # compactable calls still sent in full, oldest first
    sizes: dict[str, int] = {}
    pending: set[str] = set()  # compactable calls whose result has not come yet
    last_usage: int | None = None
    thresholds: dict[str | None, int] = {}
    pos = 0
    for call in session.calls:
        for upto in starts:
            if pos < upto <= call.index:  # a logged compaction: the conversation restarts from its summary
                pos, ids, sizes, pending, last_usage = upto, [], {}, set(), None
        for m in msgs[pos : call.index]:
            for p in m.parts:
                if isinstance(p, ToolCallPart) and p.name in COMPACTABLE_TOOLS and p.id not in cleared:
                    ids.append(p.id)
                    pending.add(p.id)
                elif isinstance(p, ToolResultPart) and p.call_id in pending:
                    pending.discard(p.call_id)
                    sizes[p.call_id] = result_tokens(p)
        pos = call.index
        total = sum(sizes.values())
        if last_usage is not None and total > TARGET_TOKENS and applies(call.client_version or version):
            if call.model not in thresholds:
                spec = find_model(call.model)
                thresholds[call.model] = warning_threshold(window, spec.max_output if spec is not None else None)
            if last_usage >= thresholds[call.model]:
                keep = set(ids[-KEEP_RECENT:])
                chosen: list[str] = []
                saved = 0
                for x in ids:
                    if x not in keep and total - saved > TARGET_TOKENS:
                        chosen.append(x)
                        saved += sizes.get(x, 0)
                if saved >= MIN_SAVINGS:
                    out.append(ImportedClearing(at=call.index, call_ids=tuple(chosen), tokens_saved=saved, simulated=True))
                    cleared.update(chosen)
                    ids = [x for x in ids if x not in cleared]
                    sizes = {x: n for x, n in sizes.items() if x not in cleared}
        if call.reported_input_tokens is not None:
            last_usage = call.reported_input_tokens + (call.output_tokens or 0)
    return out


def with_simulated_microcompact(session: ImportedSession) -> ImportedSession:
    """``session`` with the clearings a Claude Code 2.0.x client made and did not log, each one counted as
    a repair. Where the log records clearings of its own (a later client), it is taken at its word from the
    first of them on: only the 2.0.x calls before it are simulated (unchanged when there are none)."""
    version = session.meta.get("version")
    logged = session.clearings
    first = min((c.at for c in logged), default=None)
    calls = session.calls if first is None else [c for c in session.calls if c.index < first]
    if not any(applies(c.client_version or version) for c in calls):
        return session
    from .window import session_window

    found = simulate(replace(session, calls=calls) if first is not None else session, session_window(session)[0])
    if not found:
        return session
    number = {c.index: n + 1 for n, c in enumerate(session.calls)}
    notes = [
        Skipped(
            None,
            f"repaired: {len(cl.call_ids)} old tool results cleared by Claude Code's microcompact at call {number[cl.at]}"
            f" (message {cl.at}; simulated, ~{cl.tokens_saved:,} tokens by the client's count; the log keeps them whole)",
            kind=SIMULATED_KIND,
        )
        for cl in found
    ]
    return replace(session, clearings=sorted([*logged, *found], key=lambda c: c.at), skipped=[*session.skipped, *notes])
