"""The runtime block: per-call facts the model should see, kept out of the cacheable prefix.

It changes on every call (iteration counter, the tools called this turn), so it is a
non-sticky, non-cacheable section: :func:`~contextwindow.admission.sections.assemble_system`
places it after every cacheable section and the prefix stays byte-identical.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ..errors import ConfigError
from .sections import Section

RUNTIME_SECTION = "runtime"
BATCHING_INSTRUCTION = (
    "This task applies the same work to every item of a list. Work in batches: handle several items per "
    "step (issue independent tool calls together), keep a checklist of the items done and the items left, "
    "and do not stop until every item is done or you say which are left and why. \"Read all\" (or \"each\", "
    "\"every\") means all of them, not a sample."
)
_EVERY_ITEM = re.compile(
    r"\b(for (each|every|all)( of)?|each (of|one of) (the|these|those)|every (one|single) of|all of the \w+ (in|under|listed))\b"
    r"|\b\d{2,} (files|items|pages|tests|issues|rows|records|urls|links|documents|images|entries|functions|endpoints)\b",
    re.IGNORECASE,
)
# "every test", "each endpoint"; "all 40 files", "all the logs", "all .py files" (the noun is checked below)
_EVERY_NOUN = re.compile(r"\b(every|each) (single )?([a-z][\w-]{2,})\b", re.IGNORECASE)
_ALL_NOUNS = re.compile(r"\ball( of)?( the| these| those| my| your| our)?( \d+)?( [\w.*/-]+)? ([a-z][\w-]+s)\b", re.IGNORECASE)
_NOT_ITEMS = frozenset({"other", "time", "day", "week", "month", "year", "now", "once", "way", "is", "was", "has", "does", "this", "yes", "plus", "thanks", "its", "his", "as"})
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)
MANY_LISTED = 5  # a task that lists this many bullet or numbered items asks for many items


def wants_batching(task: str) -> bool:
    """A cheap guess: does ``task`` ask to do something for many items (every item of a set, a
    count of ten or more, or a list of five or more bullet/numbered lines)?"""
    if _EVERY_ITEM.search(task) or len(_LIST_LINE.findall(task)) >= MANY_LISTED:
        return True
    if any(m.group(3).lower() not in _NOT_ITEMS for m in _EVERY_NOUN.finditer(task)):
        return True
    return any(m.group(5).lower() not in _NOT_ITEMS and (m.group(4) or "").strip().lower() not in _NOT_ITEMS for m in _ALL_NOUNS.finditer(task))


def runtime_section(
    iteration: int,
    tools_called: Sequence[str] = (),
    *,
    max_iterations: int | None = None,
    batching: bool = False,
    items_done: int | None = None,
    items_total: int | None = None,
) -> Section:
    """The runtime block for the ``iteration``-th model call of the current turn (1-based)."""
    if iteration < 1:
        raise ConfigError(f"runtime block: iteration counts from 1, got {iteration}")
    if max_iterations is not None and max_iterations < 1:
        raise ConfigError(f"runtime block: max_iterations must be at least 1, got {max_iterations}")
    lines = ["# Runtime"]
    it = f"Iteration {iteration}" + (f" of at most {max_iterations}" if max_iterations else "") + " in this turn."
    if max_iterations and iteration >= max_iterations:
        it += " This is the last iteration: finish now and report what is done and what is left."
    lines.append(it)
    if tools_called:
        counts = Counter(tools_called)
        listed = ", ".join(f"{n} ×{counts[n]}" if counts[n] > 1 else n for n in dict.fromkeys(tools_called))
        lines.append(f"Tools called this turn ({len(tools_called)}): {listed}.")
    else:
        lines.append("No tools called yet this turn.")
    if batching:
        lines.append(BATCHING_INSTRUCTION)
        if items_total is not None:
            lines.append(f"Progress: {items_done or 0} of {items_total} items done.")
    return Section(RUNTIME_SECTION, "\n".join(lines), "memory", priority=0, sticky=False, cacheable=False)
