"""What a summarizer is asked and what it answers, and the fold message built from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..messages import Message, TextPart
from ..usage import Usage

FOLD_HEADER = "This conversation continues from an earlier part that was folded into this summary to fit the context window."


@dataclass(frozen=True, slots=True)
class CachedPrefix:
    """The conversation's last prompt as it was sent (system, tools, messages: what the provider's
    prompt cache holds), plus the messages stored since. A model summarizer sends it again
    unchanged and appends its instruction as a last user turn, so the provider reads the prompt
    from its cache instead of a new flat transcript. ``provider`` names the structural rules
    (``turns.validate``) the messages obey; ``tokens`` estimates the whole prompt; ``sent`` is how
    many leading messages were in the last payload (the rest were stored after it)."""

    messages: tuple[Message, ...]
    system: str | None = None
    tools: tuple[Any, ...] | None = None
    provider: str = "openai"
    tokens: int = 0
    sent: int = 0


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """``messages`` are originals (never already-truncated previews). ``prior_summary`` is the
    summary in play, so folds are cumulative. ``constraints`` are carried verbatim whatever the
    summarizer writes."""

    messages: Sequence[Message]
    prior_summary: str | None = None
    instructions: str | None = None
    constraints: Sequence[str] = ()
    budget_tokens: int = 4_000
    superseded: Sequence[str] = ()
    #: the whole memory ledger (``folding.ledger.Entry``, superseded entries included): how the
    #: summary is scrubbed of values a later message replaced
    ledger: Sequence[Any] = ()
    #: the conversation's prompt as last sent, when the caller has one: a model summarizer sends it
    #: again with its instruction appended (cache reads) instead of a flat transcript (folding/cached.py)
    prefix: CachedPrefix | None = None


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    text: str
    method: Literal["llm", "extractive"]
    ok: bool = True
    calls: int = 0
    usages: tuple[Usage, ...] = ()
    error: str | None = None
    extra: dict[str, object] = field(default_factory=dict)
    #: what the model wrote, when the text holds more that the harness put in (folding/anchor.py);
    #: None: all of ``text`` but the memory block of ``request.constraints``
    written: str | None = None


class Summarizer(Protocol):
    name: str

    def summarize(self, request: SummaryRequest) -> SummaryOutcome: ...


def constraints_block(constraints: Sequence[str]) -> str:
    """The memory block (the ledger's own heading, so a later fold reads the entries back)."""
    if not constraints:
        return ""
    from .ledger import HEADING

    lines = "\n".join(f"- {c}" for c in constraints)
    return f"{HEADING}\n{lines}"


def scrub_stale(text: str, constraints: Sequence[str], superseded: Sequence[str] = (), ledger: Sequence[Any] = ()) -> str:
    """``text`` without the superseded statements and the values a later message replaced. With no
    ``ledger`` but ``superseded`` texts (a request built by compaction/steps.py or summarize.py),
    the entries are parsed back from the texts: superseded ones first, then those in force, so each
    stale entry learns the value that replaced it and is scrubbed value by value."""
    from . import ledger as ledger_mod
    from .constraints import scrub

    if not ledger and superseded:
        rebuilt: list[Any] = []
        for t in [*superseded, *constraints]:
            e = ledger_mod.parse(t)
            if e is not None:
                rebuilt = ledger_mod.add(rebuilt, e)
        ledger = rebuilt
    text = scrub(text, superseded)
    return ledger_mod.scrub(text, ledger) if ledger else text


def ensure_constraints(text: str, constraints: Sequence[str], superseded: Sequence[str] = (), ledger: Sequence[Any] = (), *, rebuild: bool = False) -> str:
    """Drop superseded statements and values, then make the summary's memory block complete:
    every constraint verbatim in ONE block (a model's own "Constraints" section is replaced by
    it; a rule quoted elsewhere in the text does not count), so the next fold reads the whole
    ledger back (invariant 6). ``rebuild``: the block is rebuilt at the end even when the text's
    own blocks already hold every constraint (so the text ends with it)."""
    import re

    text = scrub_stale(text, constraints, superseded, ledger)
    if not constraints:
        return text
    blocks = re.compile(r"^#{1,3} (?:Memory: the user's|Constraints & preferences)[^\n]*\n.*?(?=^#{1,3} |\Z)", re.MULTILINE | re.DOTALL)
    inside = "\n".join(m.group(0) for m in blocks.finditer(text))
    if not rebuild and all(c in inside for c in constraints):
        return text
    # The memory block is rebuilt from the ledger; a model's own "Constraints & preferences" section
    # keeps what the ledger does not hold (a preference it did not parse: the summarizer is told to
    # write only those there), so replacing the section loses nothing the user said.
    held = set(constraints)
    own = [
        line
        for m in blocks.finditer(text)
        if not m.group(0).lstrip("#").lstrip().startswith("Memory: the user's")
        for line in m.group(0).splitlines()[1:]
        if line.strip() and line.strip().removeprefix("- ").strip() not in held
    ]
    rest = blocks.sub("", text).rstrip()
    if own:
        rest = (rest + "\n\n" if rest else "") + "## Constraints & preferences\n" + "\n".join(own)
    return (rest + "\n\n" if rest else "") + constraints_block(constraints)


def fold_message(summary: str, *, method: str, extra_sections: Sequence[str] = ()) -> Message:
    """The user-role message that carries a fold's summary into the view."""
    body = "".join(fold_pieces(summary, [(s,) for s in extra_sections]))
    return Message(role="user", parts=(TextPart(body),), meta={"cw": "fold_summary", "method": method})


def fold_pieces(summary: str, extra_sections: Sequence[Sequence[str]] = ()) -> list[str]:
    """The body of :func:`fold_message` as the pieces it joins (``"".join`` gives it), each extra
    section given as its own pieces: a counter that adds up pieces (tokens/joined.py) counts the
    body from the brief and the sections it counted before."""
    out = [FOLD_HEADER, "\n\n", summary.strip()]
    for section in extra_sections:
        if "".join(section):
            out += ["\n\n", *section]
    return out


def summary_text(message: Message) -> str:
    """The summary inside a fold message (header stripped) — the prior summary of the next fold."""
    text = message.text
    return text[len(FOLD_HEADER) :].lstrip() if text.startswith(FOLD_HEADER) else text
