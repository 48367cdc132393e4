"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) → an ImportedSession.

Each line is ``{timestamp, type, payload}``. How it maps onto the message model:

- ``session_meta`` → ``meta`` (id, cwd, cli_version, originator, …). Its ``base_instructions`` (the
  system prompt every call was sent) becomes the first message, a ``system`` message with
  ``meta={"cw": "instructions"}``, so payload estimates compare with the reported input tokens.
- ``turn_context`` → the current model (``CallRecord.model``) and ``meta["turn_contexts"]``.
- ``response_item``: ``message`` (role ``developer`` → ``system`` with
  ``extra={"openai_responses": {"role": "developer"}}``), ``reasoning`` (summary text +
  ``encrypted_content`` kept byte-exact in a ``ReasoningPart(provider="openai_responses")``),
  ``function_call``/``custom_tool_call`` → tool calls, their ``*_output`` → ``tool`` messages (an old
  CLI's JSON-wrapped shell result, ``{"output": "...", "metadata": {...}}``, becomes the output text
  the model read, its metadata kept in ``extra``).
  Consecutive output items (reasoning, assistant text, calls) are one model call → one assistant message.
- ``web_search_call`` is a server-side tool the rollout does not record results for: it becomes a
  ``web_search`` tool call (arguments = its ``action``) answered by a synthetic result
  ``[web search results are not recorded in the rollout]`` (``meta={"cw": "synthetic_result"}``, plus
  ``"unlogged_tokens"``: the estimate of the results the provider billed, tokens/unlogged.py);
  the items the same response produced after it form a second assistant message of the same call.
- ``event_msg/token_count`` (``info`` may be null) attaches its ``last_token_usage`` to the call just
  before it: ``input_tokens`` is the whole prompt, ``cached_input_tokens`` the cache read. Its
  ``output_tokens`` (reasoning included) is also stamped on the call's reply message as
  ``meta["output_tokens"]``: what re-sending the reply costs, encrypted reasoning and all.
- ``compacted`` → an :class:`ImportedCheckpoint` whose summary is the compaction message (the
  ``replacement_history`` items are kept, converted, in the summary's ``meta``).
- Other ``event_msg`` types duplicate response items for the UI; they are counted in
  ``meta["event_types"]``. Older rollouts (bare response items, a first line with ``instructions``) work too.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

from ..messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    dump_arguments,
    messages_to_json,
)
from ..tokens.retention import with_output_count
from ..tokens.unlogged import WEB_SEARCH_RESULT_TOKENS, stand_in
from .model import CallRecord, ImportedCheckpoint, ImportedSession, RawInput, Skipped, as_int, iter_records
from .repair import finish_session

FORMAT = "codex"
PROVIDER = "openai_responses"
WEB_SEARCH_RESULT = "[web search results are not recorded in the rollout]"
_OUTPUT_TYPES = frozenset({"reasoning", "function_call", "custom_tool_call", "web_search_call", "local_shell_call"})


def _content_parts(content: Any) -> list[TextPart | ImagePart]:
    if isinstance(content, str):
        return [TextPart(content)]
    out: list[TextPart | ImagePart] = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        t = b.get("type")
        if t in ("input_text", "output_text", "text") and isinstance(b.get("text"), str):
            out.append(TextPart(b["text"]))
        elif t == "input_image":
            url = b.get("image_url")
            if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
                head, data = url.split(";base64,", 1)
                out.append(ImagePart(source="base64", data=data, media_type=head[5:] or None, detail=b.get("detail")))
            elif isinstance(url, str):
                out.append(ImagePart(source="url", data=url, detail=b.get("detail")))
            elif isinstance(b.get("file_id"), str):
                out.append(ImagePart(source="file", data=b["file_id"], detail=b.get("detail")))
        else:
            out.append(TextPart(json.dumps(b, ensure_ascii=False), extra={"codex": {"block_type": t}}))
    return out


def _unescaped(output: str) -> TextPart | None:
    """Old Codex CLIs logged a shell command's result as a JSON text ``{"output": "...", "metadata":
    {...}}`` with the output JSON-escaped, while the model read (and was billed for) the output itself
    (measured in issue 10 on old-CLI rollouts; no such rollout is in the fixtures). That text, with the
    exit code and duration kept in ``extra["codex"]["metadata"]``; None for anything else. A custom
    tool's JSON result (apply_patch, CLI 0.125 in the fixtures) is billed as the JSON and is not
    unwrapped."""
    if not output.startswith('{"output":'):
        return None
    try:
        obj = json.loads(output)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("output"), str) or not set(obj) <= {"output", "metadata"}:
        return None
    extra: dict[str, Any] = {"escaped_output": True}
    if isinstance(obj.get("metadata"), dict):
        extra["metadata"] = obj["metadata"]
    return TextPart(obj["output"], extra={"codex": extra})


def _output_text(output: Any, *, command: bool = False) -> list[TextPart | ImagePart]:
    """A function_call_output's ``output``: a string, a list of content items, or an object. A
    ``command`` result (function_call_output) in an old CLI's JSON wrapper is unwrapped; a custom tool's
    (apply_patch) JSON is what the model read and stays as it is."""
    if isinstance(output, str):
        return [(_unescaped(output) if command else None) or TextPart(output)]
    if isinstance(output, list):
        return _content_parts(output)
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return [TextPart(output["content"])]
    return [TextPart(json.dumps(output, ensure_ascii=False))]


def _reasoning(p: dict[str, Any]) -> ReasoningPart:
    raw_summary = p.get("summary")
    summary: list[Any] = raw_summary if isinstance(raw_summary, list) else []
    text = "\n\n".join(s.get("text", "") for s in summary if isinstance(s, dict) and isinstance(s.get("text"), str))
    extra: dict[str, Any] = {}
    if summary:
        extra["summary"] = summary
    if p.get("content"):
        extra["content"] = p["content"]
    if p.get("id"):
        extra["id"] = p["id"]
    enc = p.get("encrypted_content")
    return ReasoningPart(
        text=text,
        encrypted=enc if isinstance(enc, str) else None,
        provider=PROVIDER,
        extra={PROVIDER: extra} if extra else {},
    )


_USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def _key(v: Any) -> object:
    """A hashable, order-independent key of a small usage object (json.dumps when a value is nested)."""
    if isinstance(v, dict):
        try:
            return tuple(sorted(v.items()))
        except TypeError:
            return json.dumps(v, sort_keys=True)
    return v


def _token_usage(p: dict[str, Any], meta: dict[str, Any], prev_total: dict[str, Any] | None) -> tuple[dict[str, Any] | None, object]:
    """The usage of one call from a ``token_count`` event, and a key that tells repeats apart.

    ``info.last_token_usage`` when present; else the difference of ``info.total_token_usage`` from the
    previous total; older CLIs put the usage fields on the payload itself. ``(None, None)`` when the
    event carries no usage (``info: null``)."""
    info = p.get("info")
    if isinstance(info, dict):
        if isinstance(info.get("model_context_window"), int):
            meta["model_context_window"] = info["model_context_window"]
        last = info.get("last_token_usage")
        total = info.get("total_token_usage")
        key = (_key(total), _key(last))
        if isinstance(last, dict):
            return last, key
        if isinstance(total, dict):
            if prev_total is None:
                return total, key
            diff = {k: (as_int(total.get(k)) or 0) - (as_int(prev_total.get(k)) or 0) for k in _USAGE_KEYS if k in total}
            return diff, key
        return None, key
    if any(k in p for k in ("input_tokens", "output_tokens")):
        return {k: p[k] for k in _USAGE_KEYS if k in p}, tuple(_key(p.get(k)) for k in _USAGE_KEYS)
    return None, None


def _item_messages(items: list[dict[str, Any]]) -> list[Message]:
    """Convert a list of response items (a ``replacement_history``) without calls/usage bookkeeping."""
    b = _Builder()
    for it in items:
        if isinstance(it, dict):
            b.item(it, None)
    b.flush()
    return b.messages


class _Builder:
    """Turns response items into messages; groups each call's output items into assistant messages."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: list[CallRecord] = []
        self.pending: list[Part] = []
        self.call_start: int | None = None  # index of the first assistant message of the open call
        self.model: str | None = None
        self.skipped: list[Skipped] = []
        self.names: dict[str, str] = {}
        self.last_web_search_id: str | None = None
        self.web_searches = 0
        self.closed_by_count = False  # the last call was closed by a token_count and no input came since
        self.reopened: CallRecord | None = None
        self.late_items = 0
        self.early_usage: dict[str, Any] | None = None  # a token_count that came before its response's items
        self.early_used = 0
        self.early_lost = 0

    # A call's reply may span several messages (a web search splits it); close it as one record.
    def _open_call(self) -> None:
        if self.call_start is None:
            self.call_start = len(self.messages)

    def flush(self) -> None:
        if self.pending:
            self._open_call()
            self.messages.append(Message(role="assistant", parts=tuple(self.pending)))
            self.pending = []

    def _reopen_if_late(self) -> None:
        """Output items after the token_count that closed a call, with no input between, belong to that
        call's response (some CLIs write the usage before the response's last items)."""
        if self.call_start is None and not self.pending and self.closed_by_count and self.calls and self.reopened is None:
            self.reopened = self.calls.pop()
            self.call_start = self.reopened.index

    def close_call(self, usage: dict[str, Any] | None) -> bool:
        self.flush()
        if self.reopened is not None:
            old, self.reopened = self.reopened, None
            if usage is None:  # the late items end that response: one call, its own usage kept
                self.calls.append(replace(old, reply_end=len(self.messages)))
                self.late_items += 1
                self.call_start = None
                self.closed_by_count = False
                return True
            self.calls.append(old)  # a new usage: the late items are a response of their own
            self.call_start = old.reply_end if old.reply_end < len(self.messages) else None
        if self.call_start is not None and self.early_usage is not None:
            if usage is None:
                usage, self.early_used = self.early_usage, self.early_used + 1
            else:
                self.early_lost += 1
            self.early_usage = None
        if self.call_start is None:
            return False
        self.closed_by_count = usage is not None
        u = usage or {}
        inp = as_int(u.get("input_tokens"))
        self.calls.append(
            CallRecord(
                index=self.call_start,
                reply_end=len(self.messages),
                reported_input_tokens=inp,
                output_tokens=as_int(u.get("output_tokens")),
                cache_read_tokens=as_int(u.get("cached_input_tokens")),
                cache_write_tokens=None,
                model=self.model,
            )
        )
        self.call_start = None
        return True

    def input_boundary(self) -> None:
        """An input item (user message, tool output) ends the open call if no token_count did."""
        if self.pending or self.call_start is not None:
            self.close_call(None)
        self.closed_by_count = False

    def item(self, p: dict[str, Any], line: int | None) -> None:
        t = p.get("type")
        if t in _OUTPUT_TYPES or (t == "message" and p.get("role") == "assistant"):
            self._reopen_if_late()
        if t == "message":
            role = p.get("role")
            parts = _content_parts(p.get("content"))
            if role == "assistant":
                self.pending.extend(parts)
                return
            self.input_boundary()
            if role == "developer":
                self.messages.append(Message(role="system", parts=tuple(parts), extra={PROVIDER: {"role": "developer"}}))
            elif role in ("system", "user"):
                self.messages.append(Message(role=role, parts=tuple(parts)))
            else:
                self.skipped.append(Skipped(line, f"message with unknown role {role!r}"))
        elif t == "reasoning":
            self.pending.append(_reasoning(p))
        elif t in ("function_call", "custom_tool_call", "local_shell_call"):
            cid = str(p.get("call_id") or p.get("id") or "")
            name = str(p.get("name") or ("local_shell" if t == "local_shell_call" else ""))
            if t == "function_call":
                args = p.get("arguments") if isinstance(p.get("arguments"), str) else dump_arguments(p.get("arguments", {}))
            elif t == "custom_tool_call":
                args = p.get("input") if isinstance(p.get("input"), str) else dump_arguments(p.get("input"))
            else:
                args = dump_arguments(p.get("action", {}))
            extra = {PROVIDER: {"custom": True}} if t == "custom_tool_call" else {PROVIDER: {"type": t}} if t != "function_call" else {}
            self.names[cid] = name
            self.pending.append(ToolCallPart(id=cid, name=name, arguments=str(args), extra=extra))
        elif t in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            self.flush()
            self.input_boundary()
            cid = str(p.get("call_id", ""))
            extra = {PROVIDER: {"custom": True}} if t == "custom_tool_call_output" else {PROVIDER: {"type": t}} if t != "function_call_output" else {}
            content = tuple(_output_text(p.get("output", ""), command=t != "custom_tool_call_output"))
            part = ToolResultPart(call_id=cid, content=content, name=self.names.get(cid), extra=extra)
            self.messages.append(Message(role="tool", parts=(part,)))
        elif t == "web_search_call":
            self.web_searches += 1
            cid = str(p.get("id") or self.last_web_search_id or f"web_search_{line or self.web_searches}")
            self.last_web_search_id = None
            self.pending.append(
                ToolCallPart(
                    id=cid,
                    name="web_search",
                    arguments=dump_arguments(p.get("action", {})),
                    extra={PROVIDER: {"type": "web_search_call", "status": p.get("status")}},
                )
            )
            self.flush()
            result = Message(
                role="tool",
                parts=(ToolResultPart(call_id=cid, content=(TextPart(WEB_SEARCH_RESULT),), name="web_search"),),
                meta={"cw": "synthetic_result"},
            )
            self.messages.append(replace(result, meta={**result.meta, **stand_in(result, WEB_SEARCH_RESULT_TOKENS)}))
        else:
            self.skipped.append(Skipped(line, f"unknown Codex response item type {t!r}"))


def _stamp_output(messages: list[Message], calls: list[CallRecord]) -> list[Message]:
    """Each call's reply carries the provider's output count (``meta["output_tokens"]``, reasoning
    included): what re-sending that reply costs, encrypted reasoning and all (tokens/retention.py).
    A reply split over several messages (a server-side web search between its items) has its count
    divided between them in proportion to the characters each holds (:func:`_reply_chars`: encrypted
    reasoning by its ciphertext, text, call names and arguments), so the reply as a whole still costs
    the billed count."""
    out = list(messages)
    for c in calls:
        if c.output_tokens is None:
            continue
        replies = [i for i in range(c.index, min(c.reply_end, len(out))) if out[i].role == "assistant"]
        if len(replies) == 1:
            out[replies[0]] = with_output_count(out[replies[0]], c.output_tokens)
        elif replies:
            sizes = [_reply_chars(out[i]) for i in replies]
            total = sum(sizes)
            if total <= 0:
                continue
            left = c.output_tokens
            for n, (i, size) in enumerate(zip(replies, sizes, strict=True)):
                share = left if n == len(replies) - 1 else round(c.output_tokens * size / total)
                left -= share
                out[i] = with_output_count(out[i], share)
    return out


def _reply_chars(message: Message) -> int:
    n = 0
    for p in message.parts:
        if isinstance(p, ReasoningPart):
            n += len(p.encrypted or "") if p.encrypted else len(p.text)
        elif isinstance(p, TextPart):
            n += len(p.text)
        elif isinstance(p, ToolCallPart):
            n += len(p.name) + len(p.arguments)
    return n


def import_raw(raw: RawInput) -> list[ImportedSession]:
    b = _Builder()
    b.skipped = raw.skipped  # shared: reported even when nothing imports
    meta: dict[str, Any] = {}
    events: Counter[str] = Counter()
    models: list[str] = []
    turn_contexts = 0
    token_counts = 0
    unattached = 0
    checkpoints: list[ImportedCheckpoint] = []
    instructions: str | None = None
    prev_key: object = None
    prev_total: dict[str, Any] | None = None
    records = list(iter_records(raw))
    # Some rollouts (Codex Desktop) keep what the user typed only as ``event_msg/user_message``.
    users_from_events = not any(
        isinstance(r, dict)
        and isinstance(r.get("payload"), dict)
        and r["payload"].get("type") == "message"
        and r["payload"].get("role") == "user"
        for _, r in records
    )
    for line, rec in records:
        if not isinstance(rec, dict):
            b.skipped.append(Skipped(line, f"not a JSON object (got {type(rec).__name__})"))
            continue
        t = rec.get("type")
        p = rec.get("payload")
        if "payload" not in rec:
            if t is None and "instructions" in rec:  # older rollouts: the first line is the session header
                meta.update({k: v for k, v in rec.items() if k not in ("instructions",)})
                if isinstance(rec.get("instructions"), str) and rec["instructions"]:
                    instructions = rec["instructions"]
                continue
            if t is None:
                if rec.get("record_type") == "state":
                    events["state"] += 1
                    continue
                b.skipped.append(Skipped(line, "record without a type"))
                continue
            b.item(rec, line)  # older rollouts: bare response items
            continue
        if not isinstance(p, dict):
            b.skipped.append(Skipped(line, f"{t} record without an object payload"))
            continue
        if t == "response_item":
            b.item(p, line)
        elif t == "event_msg":
            et = str(p.get("type"))
            if et == "token_count":
                last, key = _token_usage(p, meta, prev_total)
                if last is None:
                    events["token_count (info null)" if key is None else "token_count (no usage)"] += 1
                    continue
                if key == prev_key:
                    events["token_count (repeat)"] += 1
                    continue
                prev_key = key
                if isinstance(p.get("info"), dict) and isinstance(p["info"].get("total_token_usage"), dict):
                    prev_total = p["info"]["total_token_usage"]
                token_counts += 1
                if not b.close_call(last):
                    # No open call: attach to the last call that has no usage yet, else it repeats one.
                    if b.calls and b.calls[-1].reported_input_tokens is None and b.early_usage is None:
                        c = b.calls[-1]
                        b.calls[-1] = replace(
                            c,
                            reported_input_tokens=as_int(last.get("input_tokens")),
                            output_tokens=as_int(last.get("output_tokens")),
                            cache_read_tokens=as_int(last.get("cached_input_tokens")),
                        )
                    else:  # the response it measures has not been written yet: keep it for the next call
                        if b.early_usage is not None:
                            unattached += 1
                        b.early_usage = last
            else:
                events[et] += 1
                if et == "user_message" and users_from_events and isinstance(p.get("message"), str):
                    b.input_boundary()
                    b.messages.append(Message(role="user", parts=(TextPart(p["message"]),), meta={"from": "event_msg"}))
                if et == "web_search_end" and isinstance(p.get("call_id"), str):
                    b.last_web_search_id = p["call_id"]
        elif t == "session_meta":
            meta.update({k: v for k, v in p.items() if k not in ("base_instructions", "instructions", "git")})
            if isinstance(p.get("git"), dict):
                meta["git"] = p["git"]
            bi = p.get("base_instructions")
            text = bi.get("text") if isinstance(bi, dict) else bi if isinstance(bi, str) else p.get("instructions")
            if isinstance(text, str) and text:
                instructions = text
        elif t == "turn_context":
            turn_contexts += 1
            if isinstance(p.get("model"), str):
                b.model = p["model"]
                if p["model"] not in models:
                    models.append(p["model"])
        elif t == "compacted":
            b.input_boundary()
            history = p.get("replacement_history")
            replaced = _item_messages(history) if isinstance(history, list) else []
            message = p.get("message") if isinstance(p.get("message"), str) else ""
            text = message or "\n\n".join(m.text for m in replaced if m.text)
            summary = Message(
                role="user",
                parts=(TextPart(text),),
                meta={"cw": "fold_summary", "replacement_history": messages_to_json(replaced)} if replaced else {"cw": "fold_summary"},
            )
            checkpoints.append(ImportedCheckpoint(upto=len(b.messages), summary=summary, trigger="auto"))
        else:
            b.skipped.append(Skipped(line, f"unknown Codex record type {t!r}"))
    b.input_boundary()
    unattached += b.early_lost + (1 if b.early_usage is not None else 0)
    if b.early_used:
        b.skipped.append(
            Skipped(None, f"repaired: {b.early_used} token_count(s) came before their response's items; attached to that response", kind="usage before its response")
        )
    messages = _stamp_output(b.messages, b.calls)
    calls = b.calls
    if instructions is not None and messages:
        messages = [Message(role="system", parts=(TextPart(instructions),), extra={PROVIDER: {"instructions": True}}, meta={"cw": "instructions"}), *messages]
        calls = [replace(c, index=c.index + 1, reply_end=c.reply_end + 1) for c in calls]
        checkpoints = [replace(cp, upto=cp.upto + 1) for cp in checkpoints]
    if b.late_items:
        b.skipped.append(
            Skipped(None, f"repaired: {b.late_items} response(s) had items after their token_count; kept with that usage", kind="usage before its response's last items")
        )
    if unattached:
        meta["dropped"] = {"token_count with no call to attach to": unattached}
    meta["event_types"] = dict(events)
    meta["token_count_events"] = token_counts
    if unattached:
        meta["token_count_unattached"] = unattached
    meta["turn_contexts"] = turn_contexts
    if models:
        meta["models"] = models
    if b.web_searches:
        meta["web_search_calls"] = b.web_searches
    if not messages:
        return []
    return [
        finish_session(
            format=FORMAT,
            source=raw.source,
            messages=messages,
            calls=calls,
            checkpoints=checkpoints,
            skipped=b.skipped,
            model=models[-1] if models else None,
            title=None,
            meta=meta,
        )
    ]
