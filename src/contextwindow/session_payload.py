"""A build's last steps: its messages held to the provider's rules (invariant 2), then rendered.

:func:`valid` repairs what the provider would refuse (a tool call without its result, a history
that does not start with a user turn) or raises :class:`InvalidPayloadError`; :class:`Renderer`
turns the messages into the provider's payload, reusing what the previous build rendered for the
same message objects, and keeps what the next steps need of it: the call ids renamed for the
provider (a reply's ids are mapped back when it is added) and where each message ends in an
Anthropic body (where cache breakpoints go). :func:`degraded` is the last resort when a payload
still does not fit after compaction and repair: the degradation ladder, for that call only.
:class:`Session` calls them from ``build``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import turns
from .admission import runtime_section, wants_batching
from .compaction import ViewItem, markers, total
from .compaction.degrade import degrade
from .compaction.view import is_synthetic, split_pinned
from .errors import InvalidPayloadError
from .folding.constraints import Constraint
from .formats import anthropic as anthropic_format
from .formats import get_format, openai_chat
from .formats.memo import RenderMemo
from .formats.prepare import GrowingPrepare
from .formats.rules import enforce
from .incremental import GrowingPayloadCheck
from .messages import Message, TextPart
from .tools import ToolSpec

HEAD = Message("user", (TextPart("[The conversation continues from earlier context.]"),), meta={"cw": "note"})
Emit = Callable[..., Any]  # the Session's events.emit(name, **data)


def runtime_message(messages: Sequence[Message]) -> Message:
    """The per-call runtime block (admission/): the current turn's iteration, the tools it called and
    whether the request asks for batching; placed after everything cacheable (the end of the view)."""
    start = max((i for i, m in enumerate(messages) if m.role == "user" and not m.is_tool_result and not m.meta.get("cw")), default=0)
    turn = messages[start:]
    iteration = 1 + sum(1 for m in turn if m.role == "assistant")
    called = [c.name for m in turn for c in m.tool_calls]
    asked = turn[0].text if turn and turn[0].role == "user" else ""
    section = runtime_section(iteration, called, batching=wants_batching(asked))
    return Message("user", (TextPart(section.text),), meta={"cw": "runtime"})


def provider_rules(fmt: str) -> str:
    """The rules (turns.validate's provider) a payload format is held to."""
    return {"openai_responses": "openai_responses", "anthropic": "anthropic", "gemini": "gemini"}.get(fmt, "openai")


def repair_cost(messages: list[Message], rules: str, count: Callable[[Message], int]) -> int:
    """Tokens the provider repair of :func:`valid` would add to ``messages`` (0 when valid)."""
    if not messages or not turns.validate(messages, provider=rules):
        return 0
    fixed, _ = turns.repair(messages)
    head = count(HEAD) if any(p.code == "first_not_user" for p in turns.validate(fixed, provider=rules)) else 0
    return max(0, sum(map(count, fixed)) - sum(map(count, messages))) + head


def valid(messages: list[Message], rules: str, emit: Emit, conversation_id: str, problems: list[Any] | None = None) -> list[Message]:
    """Invariant 2: the payload obeys the provider's rules, or the caller gets a typed error.
    ``problems``: what ``turns.validate`` already said about these same messages."""
    if problems is None:
        problems = turns.validate(messages, provider=rules)
    if not problems:
        return messages
    messages, rep = turns.repair(messages)
    if any(p.code == "first_not_user" for p in turns.validate(messages, provider=rules)):
        # e.g. an imported history that starts with the assistant: Anthropic and Gemini need a user turn first
        first = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
        messages = [*messages[:first], HEAD, *messages[first:]]
    emit("payload.repaired", problems=[str(p) for p in problems], report=str(rep))
    left = turns.validate(messages, provider=rules)
    if left:
        raise InvalidPayloadError(
            f"the {rules} payload of conversation {conversation_id} breaks the provider's rules even after repair: "
            + "; ".join(str(p) for p in left[:5])
        )
    return messages


def degraded(
    items: list[ViewItem],
    runtime: Message | None,
    rules: str,
    history_budget: int,
    *,
    count: Callable[[Message], int],
    scrub: Callable[[list[ViewItem]], list[ViewItem]],
    ledger: Callable[[], list[Constraint]],
    emit: Emit,
    conversation_id: str,
) -> list[Message]:
    """This call's messages brought within ``history_budget`` by the degradation ladder
    (compaction/degrade.py: old tool output, old assistant prose, summary detail, older user
    text, then the ledger condensed and its least binding entries left out with one line and a
    retrieve ref), then held to the provider's rules. For this call only: nothing is stored or
    made sticky. Raises CompactionError only when the newest user message and that line cannot
    fit. ``scrub``: the Session's stale-value scrub of view items; ``ledger``: its ledger, read."""
    pinned, rest = split_pinned(items)
    head = [it.message for it in pinned]
    keys = [it.key for it in rest if not is_synthetic(it) and not it.key.startswith(("fold:", "nudge:"))]
    ref = markers.span_ref(keys[0], keys[-1]) if keys else markers.span_ref("0", "0")

    def tokens(ms: Sequence[Message]) -> int:
        return sum(count(m) for m in ms)

    room = history_budget - tokens(head)
    before = total(items)
    for _ in range(3):  # the provider repair may add a little: the ladder is asked again for less
        body, rungs = degrade([it.message for it in scrub(rest)], budget=max(0, room), count=tokens, ledger=ledger(), ref=ref)
        messages = valid([*head, *body, *([runtime] if runtime is not None else [])], rules, emit, conversation_id)
        over = sum(count(m) for m in messages if m is not runtime) - history_budget
        if over <= 0:
            break
        room -= over
    emit("compaction.degraded", rungs=list(dict.fromkeys(rungs)), tokens_before=before, tokens_after=tokens(body) + tokens(head), ref=ref)
    return messages


class Renderer:
    """Renders a build's messages for a provider (see the module docstring)."""

    def __init__(self, *, incremental: bool = True) -> None:
        self.incremental = incremental
        self.sent_ids: dict[str, str] = {}  # call ids renamed for the provider in the last build: sent -> stored
        self.sent_positions: list[tuple[int, int]] | None = None  # where each message ends in the last Anthropic body (None: repaired, or another format)
        # the previous build's renders, reused for the same message objects
        self._render_memo: RenderMemo[Message, list[dict[str, Any]]] = RenderMemo(by_position=incremental)
        self._prepares: dict[str, GrowingPrepare] = {}  # per format: ids and images made acceptable, extended as the list grows
        self._payload_check = GrowingPayloadCheck(enabled=incremental)  # the Chat payload's rules, of the new tail only

    def payload(
        self, name: str, messages: list[Message], *, system: str, tools: list[ToolSpec], model: str | None, emit: Emit, conversation_id: str
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """Render ``messages`` for ``name`` and hold the result to the provider's rules (invariant 2):
        ids and media types made acceptable, then :func:`formats.rules.enforce` as the last step."""
        prep_for = self._prepares.get(name)
        if prep_for is None:
            prep_for = self._prepares[name] = GrowingPrepare(name, enabled=self.incremental)
        prep = prep_for(messages)
        positions: list[tuple[int, int]] | None = None
        if name == "openai":  # renders message by message: the previous build's renders are reused
            payload = openai_chat.to_payload(prep.messages, system=system or None, tools=tools or None, model=model, memo=self._render_memo)
        elif name == "anthropic":
            positions = []
            payload = anthropic_format.to_payload(prep.messages, system=system or None, tools=tools or None, model=model, positions=positions)
        else:
            payload = get_format(name).to_payload(prep.messages, system=system or None, tools=tools or None, model=model)
        try:  # (a Chat payload that only grew and passes is not checked whole again)
            payload, fixes = (payload, []) if name == "openai" and not self._payload_check.check(payload) else enforce(name, payload)
        except InvalidPayloadError as exc:
            hint = (
                "there is nothing to send: add a user message (Session.add) and build again"
                if exc.rule == "empty_payload"
                else "the stored messages are intact; fold (Session.fold) or fork the conversation to go on, and report this as a bug"
            )
            raise InvalidPayloadError(f"conversation {conversation_id}: {exc}. To recover: {hint}", index=exc.index, rule=exc.rule) from exc
        if fixes or prep.notes:
            emit("payload.repaired", problems=prep.notes + [str(f) for f in fixes], report=f"{len(fixes) + len(prep.notes)} change(s) for {name}")
        self.sent_ids = prep.id_map
        self.sent_positions = None if fixes else positions  # a repaired body's messages may have moved
        return payload, prep.id_map
