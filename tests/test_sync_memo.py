"""The view's memo of provisional rows as the client sent them (``SyncState.as_sent``, session_sync.py)
stays incremental past its bound: a client whose every request merges a block into its last message
(the next request trims it) leaves one cut row per request; with hundreds of them, a sync recounts
only what it added and the one row whose client fingerprint aged out, and every other cut row keeps
the very message object the view used before (caches keyed by object stay warm). Counted at a token counter of our own (the Session's counter protocol),
not timed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from contextwindow import Session
from contextwindow.messages import Message, TextPart
from contextwindow.session import SessionConfig
from contextwindow.session_sync import KEPT
from contextwindow.store import open_store
from contextwindow.sync import KIND_KEY, REPLY
from contextwindow.tokens import counter_for


class CountingCounter:
    """The default counter, counting the messages it is asked to count."""

    def __init__(self) -> None:
        self.inner = counter_for(None)
        self.messages = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def count_message(self, m: Message) -> int:
        self.messages += 1
        return self.inner.count_message(m)


def _cut(m: Message) -> bool:
    """A user message the client trimmed (its block dropped)."""
    return m.role == "user" and len(m.parts) == 1 and m.text.startswith("question")


def test_past_the_kept_rows_a_sync_recounts_only_what_it_added_and_keeps_every_message_object() -> None:
    counter = CountingCounter()
    s = Session(open_store("memory://"), None, window=10_000_000, counter=counter,  # type: ignore[arg-type]
                config=SessionConfig(clip_budget_tokens=None, cache=None))
    history: list[Message] = []
    requests = KEPT + 64
    per_request: list[int] = []
    before: dict[str, Message] = {}
    for i in range(requests):
        ask = Message("user", (TextPart(f"question {i}"), TextPart(f"# Runtime {i}")))  # the client drops the block next time
        got = s.sync([*history, ask])
        assert got.diverged_at is None and got.trimmed == (1 if i else 0)
        s.add(replace(Message("assistant", (TextPart(f"answer {i}"),)), meta={KIND_KEY: REPLY}))
        history += [Message("user", (TextPart(f"question {i}"),)), Message("assistant", (TextPart(f"answer {i}"),))]
        n = counter.messages
        items = s.view()
        per_request.append(counter.messages - n)
        now = {it.key: it.message for it in items}
        if i >= KEPT:  # hundreds of cut rows: each is the same object as in the last view, but the one whose
            # client fingerprint just aged out of the newest KEPT (it is sent under its own fingerprint now)
            changed = [k for k, m in before.items() if k in now and _cut(m) and now[k] is not m]
            assert len(changed) <= 1, (i, len(changed))
        before = now
    assert sum(1 for m in before.values() if _cut(m)) >= KEPT + 60  # cut to what the client kept
    late = per_request[KEPT:]
    assert max(late) <= 3, late  # the new rows and one aged-out row (it was every cut row past the bound: 60+ per request here)


def test_the_memo_forgets_the_cut_rows_a_fold_took_out_of_the_view() -> None:
    """A cut row's memo lives as long as its cut while the view uses it; once a fold leaves it out of the
    view, its memo goes (bounded: at most KEPT beyond what the view holds)."""
    s = Session(open_store("memory://"), None, window=10_000_000, config=SessionConfig(clip_budget_tokens=None, cache=None))
    history: list[Message] = []
    for i in range(KEPT + 64):
        s.sync([*history, Message("user", (TextPart(f"question {i}"), TextPart(f"# Runtime {i}")))])
        s.add(replace(Message("assistant", (TextPart(f"answer {i}"),)), meta={KIND_KEY: REPLY}))
        history += [Message("user", (TextPart(f"question {i}"),)), Message("assistant", (TextPart(f"answer {i}"),))]
    assert len(s.view()) > KEPT and len(s._sync.as_sent) > KEPT  # every cut row memoized while in view
    s.fold()
    view = s.view()
    assert len(view) < 64 and len(s._sync.as_sent) <= len(view) + KEPT
