"""Content a provider billed that the log does not hold, estimated by rule.

Some logs record that something entered the prompt without recording the thing itself. The importer that
sees such an event marks the message standing for it with ``meta["unlogged_tokens"]`` (an estimate of the
missing content, by the rule below); every counter adds that number to the message's count
(:meth:`~contextwindow.tokens.counting.MessageCounter.count_message`), so an imported session's estimate
follows what the provider was sent rather than what the log kept.

Rules:

- **Codex server-side web search.** A ``web_search_call`` item records the query; the results the
  provider put into the prompt are not in the rollout. Each search adds :data:`WEB_SEARCH_RESULT_TOKENS`
  to the synthetic result that stands for them. The number was fitted on the one Codex rollout in the
  fixtures that carries usage (a FIT file; three searches whose unexplained growth was 4,070, 6,069 and
  2,160 tokens: their mean). No held-out Codex rollout exists here; leaving one search out and fitting on
  the other two misses the left-out one by 45, 2,954 and 2,910 tokens
  (``python benchmarks/bench_tokens_growth.py`` prints this).

Content a client cleared from what it sends is the other way round: where the log records it (Claude
Code's ``microcompact_boundary``), the importer turns it into an ``ImportedClearing`` and the provider view
sends the cleared results as the marker the client sent; for Claude Code 2.0.x, which logged none, the
importer simulates its client's documented rule (``importers/claude_microcompact.py``). What no rule covers is said instead of guessed
(docs/tokens.md): content a client cleared or rewrote without logging it (the reported prompt falls while
the log keeps every message) is not estimated; a session re-anchors on the next reported usage.
"""

from __future__ import annotations

from ..messages import ImagePart, Message, TextPart, ToolResultPart

#: Meta key of a message standing for content the log does not hold: the estimated tokens of that content.
UNLOGGED_META = "unlogged_tokens"
#: Meta key holding the signature of the stand-in's own parts the estimate was made for (:func:`stand_in`):
#: a compaction that masks or truncates the stand-in voids the estimate, as it does a reply's output count.
UNLOGGED_FOR = "unlogged_for"
#: Tokens one Codex server-side web search adds to the prompt (its results), fitted on FIT (see above).
WEB_SEARCH_RESULT_TOKENS = 4_100


def _signature(message: Message) -> str:
    out = []
    for p in message.parts:
        if isinstance(p, ToolResultPart):
            out.append("r" + ".".join(str(len(c.text)) if isinstance(c, TextPart) else "i" for c in p.content))
        elif isinstance(p, TextPart):
            out.append(f"t{len(p.text)}")
        elif isinstance(p, ImagePart):
            out.append("i")
        else:
            out.append(str(getattr(p, "kind", "?"))[:1])
    return ",".join(out)


def stand_in(message: Message, tokens: int) -> dict[str, object]:
    """The meta entries that make ``message`` (as it is now) stand for ``tokens`` of unlogged content."""
    return {UNLOGGED_META: tokens, UNLOGGED_FOR: _signature(message)}


def unlogged_tokens(message: Message) -> int:
    """The estimate of unlogged content ``message`` stands for: 0 when it stands for none, or when its parts
    are no longer those the estimate was made for (a compaction masked or cut it)."""
    meta = message.meta
    if not meta or UNLOGGED_META not in meta:
        return 0
    v = meta.get(UNLOGGED_META)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        return 0
    if meta.get(UNLOGGED_FOR) != _signature(message):
        return 0
    return v
