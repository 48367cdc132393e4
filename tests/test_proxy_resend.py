"""A request that re-sends its conversation's previous request byte for byte, plus new messages,
is read for its new messages only (proxy/resend.py). What it reads must be exactly what reading
the whole body gives (fingerprints, the body's numbers, the provider-rules verdict), and anything
that is not such an extension (an edit in the middle, a splice inside a message or a string,
changed tools) must be read whole."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

pytest.importorskip("orjson")

from contextwindow.formats.rules import check
from contextwindow.proxy import Conversations
from contextwindow.proxy.conversations import Parsed, Request
from contextwindow.proxy.history import normalize, parse_request
from contextwindow.proxy.protocols import BY_PATH
from contextwindow.proxy.resend import Sent, common_prefix, splice
from contextwindow.store import open_store

CHAT, MESSAGES = BY_PATH["/v1/chat/completions"], BY_PATH["/v1/messages"]

#: how clients write their bodies: the stdlib's default, compact, indented, non-ASCII kept
STYLES: list[dict[str, Any]] = [{}, {"separators": (",", ":")}, {"indent": 2}, {"ensure_ascii": False, "separators": (",", ":")}]


def encode(body: dict[str, Any], style: dict[str, Any]) -> bytes:
    return json.dumps(body, **style).encode()


def read(convs: Conversations, proto: Any, raw: bytes, headers: dict[str, str] | None = None) -> Parsed:
    body, exact = parse_request(raw)
    return convs.parse(Request(proto, body, raw, headers or {}, exact))


def whole(proto: Any, raw: bytes) -> list[str]:
    """The fingerprints reading the whole body with the stdlib gives."""
    return normalize(json.loads(raw), proto.name)[1]


def chat_turns(rng: random.Random, client: int, turns: int) -> list[list[dict[str, Any]]]:
    """The histories of one agent's requests: a tool call and its result per turn, sometimes text."""
    h: list[dict[str, Any]] = [{"role": "system", "content": "You are careful. ü"}, {"role": "user", "content": f"task {client}"}]
    out = [list(h)]
    for t in range(turns):
        if rng.random() < 0.2:
            h += [{"role": "assistant", "content": f"step {t} 😀"}, {"role": "user", "content": f"go on {t}"}]
        else:
            h += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{client}_{t}", "type": "function",
                   "function": {"name": "grep", "arguments": json.dumps({"n": t, "big": 10 ** rng.randint(1, 17)})}}]},
                  {"role": "tool", "tool_call_id": f"c{client}_{t}", "content": "".join(f"src/m{t}.py:{i}: retry()\n" for i in range(rng.randint(1, 30)))}]
        out.append(list(h))
    return out


def test_extensions_are_read_for_their_new_messages_only_and_give_what_a_whole_read_gives() -> None:
    rng = random.Random(1515)
    convs = Conversations(open_store("memory://"))
    for client in range(8):
        style = STYLES[client % len(STYLES)]
        last = 0
        for n, h in enumerate(chat_turns(rng, client, 12)):
            body = {"messages": h, "model": "gpt-4o-mini", "tools": [{"type": "function", "function": {"name": "grep"}}]}
            if client % 2:
                body = {"model": "gpt-4o-mini", "max_tokens": 99, "messages": h}  # the history last in the body
            raw = encode(body, style)
            p = read(convs, CHAT, raw)
            assert p.fingerprints == whole(CHAT, raw), (client, n)
            assert p.reused == (last if n >= 1 else 0), (client, n, style)  # every later request extends the one before
            assert convs._valid(p) == (not check("openai", json.loads(raw)))  # the rules verdict of the whole body
            last = len(h)
    assert convs.reread[0] == 8 * 12


def test_a_long_integer_in_the_new_messages_or_before_them_is_read_as_the_stdlib_reads_it() -> None:
    convs = Conversations(open_store("memory://"))
    h: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    read(convs, CHAT, encode({"model": "m", "messages": h}, {}))
    h = [*h, {"role": "assistant", "content": "x", "n": 123456789012345678901234567890}]  # past 64 bits: orjson reads a float
    raw = encode({"model": "m", "messages": h}, {})
    p = read(convs, CHAT, raw)
    assert p.request.body == json.loads(raw) and isinstance(p.request.body["messages"][1]["n"], int)
    assert p.fingerprints == whole(CHAT, raw)
    h = [*h, {"role": "user", "content": "more"}]  # the long integer now in the re-sent part
    raw = encode({"model": "m", "messages": h}, {})
    p = read(convs, CHAT, raw)
    assert p.request.body["messages"][1]["n"] == 123456789012345678901234567890 and p.fingerprints == whole(CHAT, raw)


def test_a_middle_message_edited_byte_wise_is_read_whole_and_forks_the_conversation() -> None:
    store = open_store("memory://")
    convs = Conversations(store)
    hs = chat_turns(random.Random(3), 0, 6)
    for h in hs[:6]:
        p = read(convs, CHAT, encode({"model": "gpt-4o-mini", "messages": h}, {}))
        convs.prepare(p)
    edited = json.loads(json.dumps(hs[6]))
    tool = next(m for m in edited[3:] if m["role"] == "tool")
    tool["content"] = tool["content"].replace("retry", "retrx", 1)  # one byte, the same length
    raw = encode({"model": "gpt-4o-mini", "messages": edited}, {})
    p = read(convs, CHAT, raw)
    assert p.reused == 0 and p.fingerprints == whole(CHAT, raw)
    done = convs.prepare(p)
    assert done.restarted
    newer, older = store.list_conversations()
    assert newer.parent_id == older.id


def test_splices_inside_a_message_a_string_or_another_list_are_not_taken_for_new_messages() -> None:
    convs = Conversations(open_store("memory://"))
    base = [{"role": "user", "content": "start"}, {"role": "assistant", "content": [{"type": "text", "text": "a}]"}]}]
    cases = [
        # a part added to the last message's content list: "}" then "]" around it, but no new message
        [base[0], {"role": "assistant", "content": [{"type": "text", "text": "a}]"}, {"type": "text", "text": "b"}]}],
        # text inserted inside a string, between "}" and "]"
        [base[0], {"role": "assistant", "content": [{"type": "text", "text": "a},{\"role\":\"user\",\"content\":\"x\"}]"}]}],
    ]
    for i, h in enumerate(cases):
        read(convs, CHAT, encode({"model": "m", "messages": base}, {"separators": (",", ":")}), {"x-ctxw-conversation": f"s{i}"})
        raw = encode({"model": "m", "messages": h}, {"separators": (",", ":")})
        p = read(convs, CHAT, raw, {"x-ctxw-conversation": f"s{i}"})
        # (written compactly: the first message, whole in the shared bytes, is the previous one's; never the second)
        assert p.reused == 1 and p.prev is None and p.fingerprints == whole(CHAT, raw), i
    # and what splice() itself sees for the first: the bytes fit, the parsed body does not
    old = encode({"model": "m", "messages": base}, {"separators": (",", ":")})
    new = encode({"model": "m", "messages": cases[0]}, {"separators": (",", ":")})
    assert splice(Sent(old, 2, (), True), new) is not None


def test_changed_tools_are_read_whole_and_are_the_ones_the_session_counts() -> None:
    store = open_store("memory://")
    convs = Conversations(store)
    tool = {"type": "function", "function": {"name": "grep", "description": "search", "parameters": {"type": "object"}}}
    other = {"type": "function", "function": {"name": "edit", "description": "edit a file " * 40, "parameters": {"type": "object"}}}
    h: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i, (tools, first) in enumerate([([tool], True), ([tool], False), ([tool, other], False), ([tool, other], True), ([tool, other], True)]):
        h = [*h, {"role": "assistant", "content": f"ok {i}"}, {"role": "user", "content": f"more {i}"}] if i else h
        body = {"tools": tools, "model": "gpt-4o-mini", "messages": h} if first else {"model": "gpt-4o-mini", "messages": h, "tools": tools}
        raw = encode(body, {})
        p = read(convs, CHAT, raw)
        assert p.fingerprints == whole(CHAT, raw)
        # the tools moved or changed around the history in requests 2-4: no byte splice; the 5th extends the 4th
        assert (p.reused > 0) == (i == 4), i
        done = convs.prepare(p)
        s = convs._live[done.conversation_id]
        assert [t.name for t in s.tools] == [t["function"]["name"] for t in tools]  # the 5th: the 4th's, taken over
    assert s.budget().tools > s.counter.count_tools(s.tools[:1])


def test_anthropic_system_and_moving_breakpoints() -> None:
    convs = Conversations(open_store("memory://"))
    h: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "start"}]}]
    for i in range(6):
        h = [*h, {"role": "assistant", "content": [{"type": "text", "text": f"ok {i}"}]}, {"role": "user", "content": [{"type": "text", "text": f"q {i}"}]}]
        marked = json.loads(json.dumps(h))
        if i % 2:  # the newest message marked, as Claude Code does: the previous one's bytes change
            marked[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        raw = encode({"model": "claude-sonnet-4-6", "max_tokens": 50, "system": [{"type": "text", "text": "sys"}], "messages": marked}, {})
        p = read(convs, MESSAGES, raw)
        assert p.fingerprints == whole(MESSAGES, raw), i
        assert p.reused == (len(h) - 2 if i % 2 else 0)  # unmarked before a marked request: it extends; the mark gone: not
        if i % 2:
            assert list(p.marks) == [p.fingerprints[-1]]


def test_common_prefix() -> None:
    rng = random.Random(9)
    for _ in range(200):
        a = bytes(rng.randrange(3) for _ in range(rng.randrange(0, 9000)))
        b = a[: rng.randrange(0, len(a) + 1)] + bytes(rng.randrange(3) for _ in range(rng.randrange(0, 50)))
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        assert common_prefix(a, b) == n


@pytest.mark.parametrize("compact", [True, False])
def test_a_client_that_edits_its_last_messages_keeps_the_ones_before_when_it_writes_as_orjson_does(compact: bool) -> None:
    """Moved cache breakpoints (Claude Code marks its newest messages) and a per-call last block
    change the previous request's last bytes: a compact client (httpx, JSON.stringify) still has
    the messages before them taken over; another one is read whole."""
    style = {"ensure_ascii": False, "separators": (",", ":")} if compact else {}
    convs = Conversations(open_store("memory://"))
    h: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "start ü"}]}]
    prev_len = 0
    for i in range(8):
        h = [*h, {"role": "assistant", "content": [{"type": "text", "text": f"ok {i}"}]},
             {"role": "user", "content": [{"type": "text", "text": f"q {i}"}]}]
        marked = json.loads(json.dumps(h))
        marked[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}  # the newest message marked, every time
        if i % 3 == 2:
            marked[-1]["content"].append({"type": "text", "text": f"<system-reminder>{i}</system-reminder>"})
        raw = encode({"model": "claude-sonnet-4-6", "max_tokens": 50, "system": [{"type": "text", "text": "sys"}], "messages": marked}, style)
        p = read(convs, MESSAGES, raw)
        assert p.fingerprints == whole(MESSAGES, raw), i
        assert list(p.marks) == [p.fingerprints[-1]]
        # the previous request's last message lost its mark: the ones before it are taken over
        assert p.reused == ((prev_len - 1) if compact and i else 0), i
        prev_len = len(h)
    openai_compact = Conversations(open_store("memory://"))
    h = [{"role": "user", "content": "task"}]
    for i in range(6):  # a changing per-call block at the end of each request (ctxw run's runtime block)
        h = [*h, {"role": "assistant", "content": f"step {i}"}, {"role": "user", "content": f"go {i}"}]
        raw = encode({"model": "gpt-4o-mini", "messages": [*h, {"role": "user", "content": f"# Runtime {i}"}]}, style)
        p = read(openai_compact, CHAT, raw)
        assert p.fingerprints == whole(CHAT, raw)
        assert p.reused == (len(h) - 2 if compact and i else 0), i


def test_a_compact_client_whose_first_message_lost_its_mark_is_located_again() -> None:
    convs = Conversations(open_store("memory://"))
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    mark = {"type": "ephemeral"}
    first = {"role": "user", "content": [{"type": "text", "text": "Find it."}]}
    h: list[dict[str, Any]] = [{**first, "content": [{**first["content"][0], "cache_control": mark}]}]
    got = []
    for i in range(4):
        raw = encode({"max_tokens": 50, "messages": h, "model": "claude-sonnet-4-6"}, compact)
        p = read(convs, MESSAGES, raw)
        assert p.fingerprints == whole(MESSAGES, raw)
        got.append(p.reused)
        h = [first, *[{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in h[1:]],
             {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "grep", "input": {"n": i}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"out {i}", "cache_control": mark}]}]
    assert got == [0, 0, 2, 4]  # the 2nd changed the 1st message (its mark gone); from the 3rd on, all but the last are kept


def test_a_nested_messages_key_leaves_the_history_unlocated() -> None:
    convs = Conversations(open_store("memory://"))
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    h: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    meta = {"messages": [{"role": "user", "content": "start"}]}  # a copy of the history under another key, first
    read(convs, CHAT, encode({"metadata": meta, "model": "m", "messages": h}, compact))
    h2 = [{"role": "user", "content": "start"}, {"role": "assistant", "content": "x"}, {"role": "user", "content": "edited"}]
    raw = encode({"metadata": meta, "model": "m", "messages": h2}, compact)
    p = read(convs, CHAT, raw)
    assert p.fingerprints == whole(CHAT, raw)


def test_the_official_sdks_through_the_proxy_have_their_re_sent_histories_taken_over() -> None:
    """The OpenAI SDK's agent loop (splices) and the Anthropic SDK moving its cache breakpoint to
    the newest message every call (the bytes before it kept), through the proxy to a local
    upstream: every request still goes upstream unchanged, and each client stays one conversation."""
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")
    pytest.importorskip("aiohttp")
    from contextwindow.llm.localserver import LocalProviderServer, Reply, ToolCallSpec
    from contextwindow.proxy.server import BackgroundProxy, ProxyConfig

    def handler(req: Any) -> Reply:
        n = len(req.body["messages"])
        return Reply(tool_calls=(ToolCallSpec("grep", {"n": n}, id=f"call_{n}"),), input_tokens=40 * n, output_tokens=5)

    convs = Conversations(open_store("memory://"))
    with LocalProviderServer(handler) as up, BackgroundProxy(ProxyConfig(upstream=up.base_url, port=0), convs) as px:
        c = openai.OpenAI(base_url=f"{px.url}/v1", api_key="sk-test", max_retries=0)
        h: list[dict[str, Any]] = [{"role": "user", "content": "Find the retry logic."}]
        for i in range(5):
            m = c.chat.completions.create(model="gpt-4o-mini", messages=h).choices[0].message
            h += [m.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": m.tool_calls[0].id, "content": f"src/http.py:{i}: retry()"}]
        px.wait_idle()
        assert convs.reread == [4, 1]
        a = anthropic.Anthropic(base_url=px.url, api_key="sk-ant-test", max_retries=0)
        mark = {"type": "ephemeral"}
        h = [{"role": "user", "content": [{"type": "text", "text": "Find it.", "cache_control": mark}]}]
        for i in range(5):
            r = a.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=h)
            h = [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in h]
            h += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": r.content[-1].id, "content": f"out {i}", "cache_control": mark}]}]
        px.wait_idle()
        assert convs.reread == [4 + 3, 1 + 2]  # its 1st request, and the 2nd (the 1st message lost its mark): read whole
        assert px.server.stats["changed"] == 0 and px.server.stats["fast"] == 8  # nothing rewritten; all but each 1st forwarded before storing
    store_convs = convs.store.list_conversations()
    assert len(store_convs) == 2  # one conversation per client: nothing read from the bytes forked anything


def test_a_second_messages_key_after_the_shared_bytes_is_read_whole() -> None:
    """A body that shares the previous body's first messages byte for byte but names ``messages``
    again after them (a JSON reader keeps the last one) holds another history: its fingerprints
    are the whole read's, none taken over from the previous request."""
    convs = Conversations(open_store("memory://"))
    first = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "task 1"},
             {"role": "assistant", "content": "looking"}, {"role": "user", "content": "go on"}]
    style = {"separators": (",", ":")}
    read(convs, CHAT, encode({"model": "gpt-4o-mini", "messages": first}, style))
    other = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "task 1"},
             {"role": "assistant", "content": "something else"}, {"role": "user", "content": "and more"}]
    shared = encode({"model": "gpt-4o-mini", "messages": first[:3]}, style)[:-2]  # up to the end of the 3rd message
    raw = shared + b',{"role":"user","content":"go on"}],"messages":' + json.dumps(other, **style).encode() + b"}"
    assert json.loads(raw)["messages"] == other
    p = read(convs, CHAT, raw)
    assert p.fingerprints == whole(CHAT, raw)


def test_a_system_prompt_that_comes_or_goes_after_the_messages_takes_over_no_fingerprint() -> None:
    """With the conversation named by a header (so the system prompt is not part of its identity),
    a body whose system prompt, written after the messages, appears or disappears shares the
    previous body's first messages byte for byte but not the fingerprints' positions (found in review)."""
    style = {"separators": (",", ":")}
    msgs = [{"role": "user", "content": "task"}, {"role": "assistant", "content": "looking"}, {"role": "user", "content": "go on"},
            {"role": "assistant", "content": "done"}, {"role": "user", "content": "thanks"}]
    headers = {"x-ctxw-conversation": "sys-comes-and-goes"}
    for first, second in ((True, False), (False, True)):
        convs = Conversations(open_store("memory://"))
        for n, with_system in ((3, first), (5, second)):
            body: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": msgs[:n]}
            if with_system:
                body["system"] = "You are careful."
            raw = encode(body, style)
            p = read(convs, MESSAGES, raw, headers)
            assert p.fingerprints == whole(MESSAGES, raw), (first, second, n)


def test_the_conversation_found_is_the_one_a_whole_read_finds_when_tool_results_open_the_history() -> None:
    """An Anthropic user turn of tool results alone is not the user's message once converted: the
    fast read looks as far as identity.py does for the head that names the conversation (found in review)."""
    from contextwindow.proxy.identity import identify

    body = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t0", "content": "ok"}]},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "Now fix the parser."},
    ]}
    raw = encode(body, {"separators": (",", ":")})
    p = read(Conversations(open_store("memory://")), MESSAGES, raw)
    history, fps, _ = normalize(json.loads(raw), "anthropic")
    assert p.identity.key == identify({}, json.loads(raw), history, fps, "anthropic").key
