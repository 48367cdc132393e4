"""Cache-aware clearing of old tool results: a per-call step, taken only when it pays. Pure.

A provider's prompt cache bills a call's stable prefix at the cache-read price and everything after
the first changed byte at the write price (or the input price where writes are not charged). So
clearing old tool results has a price and a return:

- price: every token from the first cleared message to the end is written again instead of read:
  ``(write - read) x (suffix after the first change - what is new since the last call anyway)``;
- return: each cleared token is no longer read on this call and the next ones:
  ``read x cleared x horizon`` (``horizon``: how many calls a token would still be read).

:func:`clear_for_cache` chooses where to start (the oldest clearable result, or a later one, so the
rewritten suffix stays short), clears every candidate from there on, and returns None unless the
return beats the price and at least ``clear_at_least`` tokens go at once (like Anthropic's context
editing ``clear_at_least``: a small clear is not worth breaking the cache for). The newest results,
errors, small results and ``retrieve``/``read_skill`` results stay, as in :mod:`.mask`; the call
always stays with its result (only the content becomes a placeholder with a ``retrieve`` ref).
With ``clear_inputs`` (on by default) the long inputs of old calls are candidates too, in the same
step and by the same arithmetic (:mod:`.inputs`: a file's content sent to ``Write``, a heredoc sent
to a shell; the call keeps its id, name, path and short values): on sessions whose tool results are
small and whose calls carry the work, they are most of what the history re-reads.

A clear rewrites everything after its first cleared item whatever it clears there, so once one is
made it also takes the old results and inputs after that item that are no candidates only for their
size (``ride_along``, :func:`riders`): each then costs no cache write and leaves a stub smaller than
itself. The size floor decides where a clear may start and whether it pays, not what it takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ..models import ModelSpec
from .candidates import GrowingCandidates
from .clearing import ClearHistory, ClearRule, horizon_start, suffix_sums
from .inputs import cleared_inputs, input_candidates
from .mask import MaskConfig, mask_candidates, masked_message, tool_names
from .view import Count, ViewItem, total


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """Prices as weights of the input price, and the fitted knobs of clearing and of compaction (docs/replay.md)."""

    read_weight: float = 0.1  # cache read / input (Anthropic)
    write_weight: float = 1.25  # cache write / input; 1.0 where the provider charges no writes
    horizon_calls: float = 12.0  # calls a cleared token would still have been read (fitted; the "horizon" rule)
    # WHEN a clear comes (compaction/clearing.py): "horizon" clears as soon as the reads it saves over
    # horizon_calls beat its rewrite; or a ClearRule function (benchmarks/clear_rules.py has two,
    # tried against it and not adopted: docs/replay.md)
    clear_rule: str | ClearRule = "horizon"
    clear_at_least: int = 2_000  # the fewest tokens one clear removes (fitted)
    keep_last: int = 3  # newest results never cleared
    min_result_tokens: int = 200
    clear_inputs: bool = True  # old calls' long arguments are cleared too (compaction/inputs.py)
    # a clear also takes the old results and inputs after its first cleared item that are too small
    # to be candidates (their rewrite is paid by the clear anyway: :func:`riders`)
    ride_along: bool = True
    # when and how deep a compaction pass goes (compaction/economics.py; fitted, docs/replay.md)
    deep_target: float = 0.5  # a pass aims at this share of the history budget (0.2 before the fold kind; refit docs/replay.md)
    min_trigger: float = 0.3  # no pass for cost alone below this share of the history budget
    max_trigger: float = 1.0  # nor later than this share (or the budget's own trigger, if later); 0.9 until the refit of docs/replay.md
    # what a pass's summary call costs (compaction/economics.py), as weights of the input price: the
    # summary request rides the conversation's cached prefix (folding/cached.py), so what it folds is
    # read at the read price (None: read_weight; 1.0 prices a flat transcript no cache holds), and it
    # writes up to summary_tokens of output
    summary_input_weight: float | None = None
    summary_output_weight: float = 5.0  # output / input price (Anthropic); set from the model's prices
    summary_tokens: int | None = None  # a summary's size; None: the compaction's summary budget (its cap)
    # the fold kind's summary size before the first summary is measured (after it: the last one's
    # size; never above the summary budget); None: the summary budget (fitted, docs/replay.md)
    first_summary_tokens: int | None = 1_500

    def __post_init__(self) -> None:
        if self.clear_rule != "horizon" and (isinstance(self.clear_rule, str) or not callable(self.clear_rule)):
            from ..errors import ConfigError

            raise ConfigError(
                f"CacheConfig(clear_rule={self.clear_rule!r}): expected 'horizon' or a ClearRule function "
                "(compaction/clearing.py; the rules tried against it, eoq and balance, are in benchmarks/clear_rules.py)"
            )

    @classmethod
    def for_model(cls, spec: ModelSpec | None, base: CacheConfig | None = None) -> CacheConfig:
        """``base`` with the read/write weights of ``spec``'s prices (unchanged when unpriced)."""
        from dataclasses import replace

        cfg = base or cls()
        if spec is None or not spec.input_price:
            return cfg
        read = spec.cache_read_price / spec.input_price if spec.cache_read_price is not None else cfg.read_weight
        write = spec.cache_write_price / spec.input_price if spec.cache_write_price else 1.0
        out = spec.output_price / spec.input_price if spec.output_price else cfg.summary_output_weight
        return replace(cfg, read_weight=read, write_weight=write, summary_output_weight=out)


def clear_for_cache(
    items: Sequence[ViewItem],
    count: Count,
    new_tail: int,
    config: CacheConfig,
    memo: dict[str, Any] | None = None,
    candidates: GrowingCandidates | None = None,
    history: ClearHistory | None = None,
) -> tuple[list[ViewItem], dict[str, object]] | None:
    """Clear old tool results (and old calls' long inputs) when it pays (module docstring), else None.

    ``new_tail``: tokens at the end of ``items`` the provider has not cached yet (added since the
    last call); they are written whatever this step does. ``memo`` (kept by the caller between
    calls) holds the cleared form of each candidate already made, so a call that clears nothing
    does not rebuild and recount them all. ``candidates`` (kept by the caller between calls) finds
    the same candidates for the new items only when the view grew (compaction/candidates.py)."""
    mc = MaskConfig(keep_last=config.keep_last, min_result_tokens=config.min_result_tokens)
    if candidates is not None:
        cands, inputs = candidates.find(items, mc, config.min_result_tokens)
        if config.clear_inputs:
            cands = sorted(cands + inputs)
    else:
        cands = mask_candidates(items, mc)
        if config.clear_inputs:
            cands = sorted(cands + input_candidates(items, mc, config.min_result_tokens))
    if not cands or sum(items[i].tokens for i in cands) < config.clear_at_least:
        return None  # (a clear saves at most its candidates' tokens)
    names = candidates.names if candidates is not None else tool_names(items)
    if memo is not None and len(memo) > 2 * len(items) + 64:
        memo.clear()
    masked = {i: _cleared(items[i], names, count, memo) for i in cands}
    gains = [max(0, items[i].tokens - masked[i].tokens) for i in cands]
    # suffix[j]: tokens from candidate j to the end after clearing candidates j.. (the rewrite)
    after = list(accumulate(reversed([it.tokens for it in items]), initial=0))[::-1]
    rewrite_price = max(0.0, config.write_weight - config.read_weight)
    rewrites = [max(0, after[i] - c - new_tail) for i, c in zip(cands, suffix_sums(gains), strict=True)]  # a clear from each
    read, least = config.read_weight, config.clear_at_least
    rule = config.clear_rule
    if isinstance(rule, str):  # "horizon" (__post_init__ allows no other name)
        best = horizon_start(gains, rewrites, read=read, rewrite=rewrite_price, horizon=config.horizon_calls, at_least=least)
    else:
        history = history or ClearHistory(sum(1 for it in items if it.message.role == "assistant"))
        tail = max(0, after[cands[-1] + 1] - new_tail)  # rewritten by every clear (clearing.py)
        best = rule(items, cands, gains, rewrites, tail, history, read=read, rewrite=rewrite_price, at_least=least, keep_last=config.keep_last)
    if best is None:
        return None
    _, start, saved = best
    chosen = cands[start:]
    for i in riders(items, chosen[0], set(chosen), config, candidates) if config.ride_along else ():
        rider = _cleared(items[i], names, count, memo)
        if rider.tokens < items[i].tokens:
            masked[i] = rider
            saved += items[i].tokens - rider.tokens
            chosen.append(i)
    out = list(items)
    keys = []
    for i in sorted(chosen):
        if masked[i].tokens < items[i].tokens:
            out[i] = masked[i]
            keys.append(out[i].key)
    return out, {"method": "cache_clear", "targets": keys, "saved": saved, "tokens_after": total(out), "net_return": round(best[0])}


def riders(items: Sequence[ViewItem], first: int, chosen: set[int], config: CacheConfig, candidates: GrowingCandidates | None = None) -> list[int]:
    """The old results and old calls' inputs after ``first`` (a clear's first cleared item) that are
    no candidates only for their size (under ``min_result_tokens``, or inputs that shrink by less):
    the clear rewrites everything after ``first`` anyway, so clearing them costs no cache write and
    takes their excess over the stub out of every later call. The newest ``keep_last`` results and
    the calls they answer, errors and excluded tools stay, as for any candidate. Walks the view
    (only when a clear is made), unless ``candidates`` has just read it (``GrowingCandidates.find``
    of these ``items``): then from what it learned."""
    if first + 1 >= len(items):
        return []
    if candidates is not None:
        masks, inputs = candidates.riders(config.keep_last)
        found = masks + inputs if config.clear_inputs else masks
    else:
        mc = MaskConfig(keep_last=config.keep_last, min_result_tokens=0)
        found = mask_candidates(items, mc)
        if config.clear_inputs:
            found += input_candidates(items, mc, 1)
    return sorted(i for i in found if i > first and i not in chosen)


def _cleared(item: ViewItem, names: dict[str, str], count: Count, memo: dict[str, Any] | None) -> ViewItem:
    """``item`` with its result masked; from ``memo`` when the same message objects, count and
    tools' names were masked before (the marker is made of exactly those)."""
    make = masked_message if item.message.role == "tool" else lambda it, _names, c: cleared_inputs(it, c)
    if memo is None:
        return item.with_message(make(item, names, count), count)
    tools = tuple(r.name or names.get(r.call_id) for r in item.message.tool_results)
    hit = memo.get(item.key)
    if hit is not None and hit[0] is item.message and hit[1] is item.original and hit[2] == (item.tokens, tools):
        cleared: ViewItem = hit[3]
        return cleared
    cleared = item.with_message(make(item, names, count), count)
    memo[item.key] = (item.message, item.original, (item.tokens, tools), cleared)
    return cleared
