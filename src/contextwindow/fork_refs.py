"""Short message refs (``msg-<seq>``) across forks.

A fork numbers its rows afresh in plan order (store ``fork``): its row 3 may be the source's row 7,
or a fold summary. A ``msg-<seq>`` written in the source (a stub, the model's own text, a tool
call's arguments, a fold summary quoting a stub) is copied into the fork as it is, and then
names a different row there. So a sequence number is read against the fork's whole lineage (the
fork, its source, that source's source, ...): it resolves only when every conversation of the
lineage that has a row with that number holds the same message there (the ref names that
message whoever wrote it); otherwise it is ambiguous and ``retrieve`` says so (an
:class:`~contextwindow.errors.AmbiguousRefError` naming the candidates) instead of reading the
wrong row. On the writing side a fork's session writes the short form only for rows where that
holds for good: rows copied by the fork whose number means the same message in every ancestor;
its other rows get the ``msg-<id>`` form (ids are unique across the store, so they resolve
through the lineage too).
"""

from __future__ import annotations

from .errors import NotFoundError
from .store.base import ConversationStore, StoredMessage

FORKED_FROM = "forked_from"  # the fork's metadata key naming its source (store/*.fork)


def lineage(store: ConversationStore, conversation_id: str) -> list[str]:
    """``conversation_id``, then its source if it is a fork, then that one's source, ... (a
    cycle, which a store never makes, ends the walk; a source that is gone ends it too)."""
    out = [conversation_id]
    md = store.get_conversation(conversation_id).metadata
    while isinstance(md.get(FORKED_FROM), str) and md[FORKED_FROM] not in out:
        out.append(md[FORKED_FROM])
        try:
            md = store.get_conversation(out[-1]).metadata
        except NotFoundError:  # a deleted source: the lineage we can read ends here
            out.pop()
            break
    return out


def short_ref_seqs(store: ConversationStore, conversation_id: str) -> frozenset[int] | None:
    """The sequence numbers a session of ``conversation_id`` may write as ``msg-<seq>``: None
    means all of them (not a fork); for a fork, the rows it copied whose number holds the same
    message in every ancestor that has that number (rows added later get the id form: an
    ancestor may still grow a row with their number)."""
    chain = lineage(store, conversation_id)
    if len(chain) == 1:
        return None
    selection = store.get_conversation(conversation_id).metadata.get("selection") or {}
    copied = len(selection.get("seqs", ())) + len(selection.get("folds", ()))
    own = {sm.seq: sm.message for sm in store.list(conversation_id) if sm.seq <= copied}
    ok = set(own)
    for cid in chain[1:]:
        for sm in store.list(cid):
            if sm.seq in ok and sm.message != own[sm.seq]:
                ok.discard(sm.seq)
    return frozenset(ok)


def by_seq(store: ConversationStore, chain: list[str], seq: int) -> list[StoredMessage]:
    """Each lineage conversation's row numbered ``seq`` (those that have one), nearest first."""
    out = []
    for cid in chain:
        out += [sm for sm in store.list(cid) if sm.seq == seq]
    return out


def by_id(store: ConversationStore, chain: list[str], message_id: str) -> StoredMessage | None:
    """The row with ``message_id`` in the nearest lineage conversation that has it."""
    for cid in chain:
        for sm in store.list(cid):
            if sm.id == message_id:
                return sm
    return None
