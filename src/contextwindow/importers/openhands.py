"""OpenHands event streams (a JSON list of events) and evaluation output (JSONL, one instance per
line, ``history`` = its events) → ImportedSessions (one per instance).

How events map onto the message model:

- ``system`` action → the system message; ``message`` actions → user / assistant text.
- An action with ``tool_call_metadata`` is a tool call of the model response named there
  (``model_response.id``): all actions of one response become ONE assistant message (its text is the
  response's ``content``; each call's arguments are the exact JSON text the model produced, from
  ``model_response.choices[0].message.tool_calls``) and ONE :class:`CallRecord` with the response's
  ``usage`` (``prompt_tokens`` is the whole prompt; cache read/write from the usage details).
- An observation answers the action named by ``cause`` (or the tool call in its own metadata): a
  ``tool`` message. ``recall`` observations (workspace context, microagent knowledge) become user text,
  as OpenHands renders them for the model; an ``error`` observation without a call is user text too.
- Older logs (actions without ``tool_call_metadata``, no ``cause``) get one synthetic call id per
  action (``oh_<n>``), answered by the next observation.
- The final ``finish`` call gets a synthetic result (``meta={"cw": "synthetic_result"}``), counted in
  ``meta["synthetic_finish_results"]``: OpenHands never records one, and a history needs every call answered.
- Bookkeeping events (agent state changes, ``null`` observations, ``recall`` actions) carry no
  conversation: counted in ``meta["ignored_events"]``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..messages import ImagePart, Message, Part, TextPart, ToolCallPart, ToolResultPart, dump_arguments
from .model import CallRecord, ImportedSession, RawInput, Skipped, as_int, sub
from .repair import finish_session

FORMAT = "openhands"
FINISH_RESULT = "[finish: the run ended here; OpenHands records no observation for it]"
_IGNORED_ACTIONS = frozenset({"recall", "change_agent_state", "null", "pause", "resume", "stop"})
_IGNORED_OBSERVATIONS = frozenset({"null", "agent_state_changed", "user_rejected", "success"})
_EVENT_FIELDS = frozenset(
    {"id", "timestamp", "source", "message", "action", "observation", "cause", "tool_call_metadata", "llm_metrics", "timeout", "args", "extras"}
)


def _args(e: dict[str, Any]) -> dict[str, Any]:
    """An action's arguments: ``args`` in current logs, top-level fields in older ones."""
    if isinstance(e.get("args"), dict):
        return e["args"]
    return {k: v for k, v in e.items() if k not in _EVENT_FIELDS}


@dataclass(slots=True)
class _State:
    messages: list[Message] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)
    by_event: dict[Any, str] = field(default_factory=dict)  # action event id → call id
    open_calls: list[str] = field(default_factory=list)  # synthetic calls awaiting an observation
    names: dict[str, str] = field(default_factory=dict)
    last_response: str | None = None
    last_assistant: int | None = None
    synthetic: int = 0
    finish_answered: int = 0
    models: Counter[str] = field(default_factory=Counter)


def _list(v: Any) -> list[Any]:
    """``v`` when it is a list, else empty (a malformed optional field is no items, not a TypeError)."""
    return v if isinstance(v, list) else []


def _key(v: Any) -> int | str | None:
    """An event id usable as a dict key (ids are ints or strings; anything else is no id)."""
    return v if isinstance(v, (int, str)) and not isinstance(v, bool) else None


def _choice_messages(mr: dict[str, Any]) -> list[dict[str, Any]]:
    return [sub(ch, "message") for ch in _list(mr.get("choices"))]


def _response_call_args(mr: dict[str, Any], call_id: str) -> str | None:
    for msg in _choice_messages(mr):
        for tc in _list(msg.get("tool_calls")):
            if isinstance(tc, dict) and tc.get("id") == call_id:
                fn = sub(tc, "function")
                args = fn.get("arguments")
                return args if isinstance(args, str) else dump_arguments(args)
    return None


def _response_text(mr: dict[str, Any]) -> str:
    for msg in _choice_messages(mr):
        c = msg.get("content")
        if isinstance(c, str):
            return c
        if isinstance(c, list):
            return "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _record_call(st: _State, index: int, mr: dict[str, Any]) -> None:
    u = sub(mr, "usage")
    details = sub(u, "prompt_tokens_details")
    cache_read = as_int(u.get("cache_read_input_tokens"))
    if cache_read is None:
        cache_read = as_int(details.get("cached_tokens"))
    model = mr.get("model") if isinstance(mr.get("model"), str) else None
    if model:
        st.models[model] += 1
    st.calls.append(
        CallRecord(
            index=index,
            reply_end=index + 1,
            reported_input_tokens=as_int(u.get("prompt_tokens")),
            output_tokens=as_int(u.get("completion_tokens")),
            cache_read_tokens=cache_read,
            cache_write_tokens=as_int(u.get("cache_creation_input_tokens")),
            model=model,
            response_id=mr.get("id") if isinstance(mr.get("id"), str) else None,
        )
    )


def _tool_action(st: _State, e: dict[str, Any], n: int) -> None:
    action = str(e.get("action"))
    args = _args(e)
    tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else None
    if tcm is not None:
        mr = sub(tcm, "model_response")
        cid = str(tcm.get("tool_call_id") or f"oh_{e.get('id', n)}")
        name = str(tcm.get("function_name") or action)
        arguments = _response_call_args(mr, cid)
        rid = mr.get("id") if isinstance(mr.get("id"), str) else None
    else:
        st.synthetic += 1
        cid = f"oh_{e.get('id', n)}"
        name = action
        arguments = None
        rid = None
        mr = {}
    if arguments is None:
        arguments = dump_arguments({k: v for k, v in args.items() if k not in ("thought", "is_confirmed", "action_risk")})
    call = ToolCallPart(id=cid, name=name, arguments=arguments)
    st.names[cid] = name
    if _key(e.get("id")) is not None:
        st.by_event[e["id"]] = cid
    if tcm is None:
        st.open_calls.append(cid)
    if rid is not None and rid == st.last_response and st.last_assistant is not None:
        prev = st.messages[st.last_assistant]
        st.messages[st.last_assistant] = replace(prev, parts=(*prev.parts, call))
        return
    text = _response_text(mr) if mr else ""
    if not text:
        thought = args.get("thought")
        text = thought if isinstance(thought, str) else ""
    parts: list[Part] = [TextPart(text)] if text else []
    parts.append(call)
    st.last_assistant = len(st.messages)
    st.last_response = rid
    st.messages.append(Message(role="assistant", parts=tuple(parts)))
    if tcm is not None:
        _record_call(st, st.last_assistant, mr)
    else:
        st.calls.append(CallRecord(index=st.last_assistant, reply_end=st.last_assistant + 1))


def _recall_text(e: dict[str, Any]) -> str:
    extras = sub(e, "extras")
    out = [str(e.get("content") or e.get("message") or "")]
    for key in ("repo_instructions", "additional_agent_instructions"):
        if isinstance(extras.get(key), str) and extras[key]:
            out.append(extras[key])
    for mk in _list(extras.get("microagent_knowledge")):
        if isinstance(mk, dict) and isinstance(mk.get("content"), str):
            out.append(f"<microagent name={mk.get('name')!r}>\n{mk['content']}\n</microagent>")
    return "\n\n".join(x for x in out if x)


def _observation(st: _State, e: dict[str, Any]) -> None:
    obs = str(e.get("observation"))
    if obs in _IGNORED_OBSERVATIONS:
        st.ignored[f"observation:{obs}"] += 1
        return
    content = e.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content is not None else ""
    if obs == "recall":
        st.messages.append(Message(role="user", parts=(TextPart(_recall_text(e)),), meta={"openhands": "recall"}))
        return
    tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else None
    cid = None
    if tcm is not None and tcm.get("tool_call_id"):
        cid = str(tcm["tool_call_id"])
    elif _key(e.get("cause")) in st.by_event:
        cid = st.by_event[e["cause"]]
    elif "cause" not in e and st.open_calls:
        cid = st.open_calls[0]
    if cid is None:
        # An observation the model saw without a call (e.g. an error parsing its last action).
        st.messages.append(Message(role="user", parts=(TextPart(text),), meta={"openhands": f"observation:{obs}"}))
        return
    if cid in st.open_calls:
        st.open_calls.remove(cid)
    part = ToolResultPart(call_id=cid, content=(TextPart(text),), is_error=obs == "error", name=st.names.get(cid))
    st.messages.append(Message(role="tool", parts=(part,)))


def _message_action(st: _State, e: dict[str, Any]) -> None:
    args = _args(e)
    text = args.get("content") if isinstance(args.get("content"), str) else e.get("message") or ""
    parts: list[Part] = [TextPart(str(text))] if text else []
    for url in _list(args.get("image_urls")):
        if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
            head, data = url.split(";base64,", 1)
            parts.append(ImagePart(source="base64", data=data, media_type=head[5:] or None))
        elif isinstance(url, str):
            parts.append(ImagePart(source="url", data=url))
    source = e.get("source")
    if source is None:  # older logs name no source: the first message is the task
        source = "agent" if any(m.role == "assistant" for m in st.messages) else "user"
    if source == "user":
        st.messages.append(Message(role="user", parts=tuple(parts)))
        return
    st.last_response = None
    st.last_assistant = len(st.messages)
    st.messages.append(Message(role="assistant", parts=tuple(parts)))
    tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else None
    mr = tcm.get("model_response") if tcm and isinstance(tcm.get("model_response"), dict) else None
    if mr is not None:
        _record_call(st, st.last_assistant, mr)
    else:
        st.calls.append(CallRecord(index=st.last_assistant, reply_end=st.last_assistant + 1))


def _events(events: list[Any], st: _State) -> None:
    flat: list[Any] = []
    for ev in events:
        # Very old logs keep [action, observation] pairs.
        flat.extend(ev if isinstance(ev, list) else [ev])
    for n, e in enumerate(flat):
        if not isinstance(e, dict):
            st.skipped.append(Skipped(None, f"event {n}: not an object"))
            continue
        if "action" in e:
            action = str(e.get("action"))
            if action in _IGNORED_ACTIONS:
                st.ignored[f"action:{action}"] += 1
            elif action == "system":
                args = _args(e)
                text = args.get("content") if isinstance(args.get("content"), str) else str(e.get("message", ""))
                st.messages.append(Message(role="system", parts=(TextPart(str(text)),)))
            elif action == "message":
                _message_action(st, e)
            elif action == "finish" and e.get("tool_call_metadata") is None:
                args = _args(e)
                text = args.get("final_thought") or args.get("thought") or e.get("message") or ""
                st.last_response = None
                st.last_assistant = len(st.messages)
                st.messages.append(Message(role="assistant", parts=(TextPart(str(text)),), meta={"openhands": "finish"}))
                st.calls.append(CallRecord(index=st.last_assistant, reply_end=st.last_assistant + 1))
            else:
                _tool_action(st, e, n)
        elif "observation" in e:
            _observation(st, e)
        else:
            st.skipped.append(Skipped(None, f"event {e.get('id', n)}: neither an action nor an observation"))
    _answer_final_finish(st)


def _answer_final_finish(st: _State) -> None:
    """``finish`` ends the run, so OpenHands records no observation for it: answer it explicitly."""
    if not st.messages or st.messages[-1].role != "assistant":
        return
    for call in st.messages[-1].tool_calls:
        if call.name == "finish":
            st.messages.append(
                Message(
                    role="tool",
                    parts=(ToolResultPart(call_id=call.id, content=(TextPart(FINISH_RESULT),), name="finish"),),
                    meta={"cw": "synthetic_result"},
                )
            )
            st.finish_answered += 1


def _session(events: list[Any], raw: RawInput, skipped: list[Skipped], extra: dict[str, Any], title: str | None) -> ImportedSession | None:
    st = _State(skipped=skipped)
    _events(events, st)
    if not st.messages:
        return None
    meta: dict[str, Any] = {**extra, "events": len(events), "ignored_events": dict(st.ignored)}
    if st.synthetic:
        meta["synthetic_call_ids"] = st.synthetic
    if st.finish_answered:
        meta["synthetic_finish_results"] = st.finish_answered
    model = st.models.most_common(1)[0][0] if st.models else None
    return finish_session(
        format=FORMAT,
        source=raw.source,
        messages=st.messages,
        calls=st.calls,
        checkpoints=[],
        skipped=st.skipped,
        model=model,
        title=title,
        meta=meta,
    )


def _instance_meta(inst: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if inst.get("instance_id") is not None:
        out["instance_id"] = inst["instance_id"]
    metrics = inst.get("metrics")
    if isinstance(metrics, dict):
        out["metrics"] = {k: metrics[k] for k in ("accumulated_cost", "accumulated_token_usage") if k in metrics}
        if isinstance(metrics.get("token_usages"), list):
            out["metrics"]["token_usages"] = len(metrics["token_usages"])
    md = inst.get("metadata")
    if isinstance(md, dict):
        llm = sub(md, "llm_config")
        if isinstance(llm.get("model"), str):
            out["llm_model"] = llm["model"]
        for k in ("agent_class", "max_iterations"):
            if k in md:
                out[k] = md[k]
    return out


def import_raw(raw: RawInput) -> list[ImportedSession]:
    sessions: list[ImportedSession] = []
    if raw.is_document and isinstance(raw.document, list):
        s = _session(raw.document, raw, raw.skipped, {}, None)
        return [s] if s else []
    instances: list[tuple[int | None, Any]] = [(None, raw.document)] if raw.is_document else list(raw.records)
    # Lines the reader skipped are reported once, with the first session.
    pending_skips = raw.skipped
    for line, inst in instances:
        if not isinstance(inst, dict) or not isinstance(inst.get("history"), list):
            pending_skips.append(Skipped(line, "not an OpenHands instance (no 'history' list)"))
            continue
        title = str(inst["instance_id"]) if inst.get("instance_id") is not None else None
        extra = _instance_meta(inst)
        if line is not None:
            extra["line"] = line
        s = _session(inst["history"], raw, pending_skips, extra, title)
        if s is None:
            pending_skips = [*pending_skips, Skipped(line, "instance with no importable events")]
            continue
        sessions.append(s)
        pending_skips = []
    if pending_skips and sessions:
        last = sessions[-1]
        sessions[-1] = replace(last, skipped=[*last.skipped, *pending_skips])
    return sessions
