"""Where ``retrieve`` reads: offloaded originals, and the store's own messages.

Clipped tool outputs live in the store's offload table (``ofl_…`` refs). Compaction markers point
at stored messages instead (``msg-<seq>`` or ``msg-<message id>``; across a fork's lineage, fork_refs.py): the store is append-only, so the original is
always there. :class:`ConversationSink` serves both, limited to one conversation.
"""

from __future__ import annotations

from typing import Any

from .compaction.markers import MESSAGE_REF_PREFIX, SPAN_REF_PREFIX
from .errors import AmbiguousRefError, NotFoundError
from .folding.transcript import render_flat
from .fork_refs import by_id, by_seq, lineage
from .store.base import ConversationStore, Offload


class ConversationSink:
    def __init__(self, store: ConversationStore, conversation_id: str) -> None:
        self.store = store
        self.conversation_id = conversation_id

    def put_offload(self, content: str, meta: dict[str, Any] | None = None) -> str:
        return self.store.put_offload(content, meta)

    def get_offload(self, ref: str) -> Offload:
        if isinstance(ref, str) and ref.startswith(SPAN_REF_PREFIX):
            return self._span(ref)
        if isinstance(ref, str) and ref.startswith(MESSAGE_REF_PREFIX):
            return self._message(ref, ref[len(MESSAGE_REF_PREFIX) :])
        return self.store.get_offload(ref)

    def _message(self, ref: str, key: str) -> Offload:
        """``msg-<seq>`` (compaction/markers.ref_for; an id is never all ASCII digits) or
        ``msg-<id>``, read against the conversation's fork lineage (fork_refs.py)."""
        chain = lineage(self.store, self.conversation_id)
        if key.isascii() and key.isdigit():  # not '²' or '٣': str.isdigit() takes those, int() does not
            seq = int(key)
            found = by_seq(self.store, chain, seq)
            if any(sm.message != found[0].message for sm in found[1:]):
                where = ", ".join(f"{sm.conversation_id} row {sm.seq} ({sm.message.role})" for sm in found)
                raise AmbiguousRefError(
                    f"message ref {ref!r} is ambiguous in conversation {self.conversation_id}: it is a fork, and sequence "
                    f"number {seq} holds different messages in it and its sources ({where}); read one with msg-<message id>"
                )
            sm = found[0] if found else None
            what = "sequence number"
        else:
            sm, what = by_id(self.store, chain, key), "id"
        if sm is None:
            raise NotFoundError(f"unknown message ref {ref!r}: no message with that {what} in conversation {self.conversation_id}")
        m = sm.message
        text = m.text if m.role == "tool" else render_flat([m])
        return Offload(ref=ref, content=text, meta={"message_id": sm.id, "seq": sm.seq, "role": m.role, "conversation_id": sm.conversation_id})

    def _span(self, ref: str) -> Offload:
        parts = ref[len(SPAN_REF_PREFIX) :].split("-")
        if len(parts) != 2:
            raise NotFoundError(f"malformed span ref {ref!r}: expected span-<first message id>-<last message id>")
        first, last = parts
        stored = self.store.list(self.conversation_id)
        ids = [sm.id for sm in stored]
        if first not in ids or last not in ids or ids.index(first) > ids.index(last):
            raise NotFoundError(f"unknown span ref {ref!r}: no such range of messages in conversation {self.conversation_id}")
        chosen = stored[ids.index(first) : ids.index(last) + 1]
        text = render_flat([sm.message for sm in chosen])
        return Offload(ref=ref, content=text, meta={"first_seq": chosen[0].seq, "last_seq": chosen[-1].seq, "messages": len(chosen)})
