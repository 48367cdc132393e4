"""The per-conversation locks of the proxy's event loop: one conversation's requests (and the
records of their answers) never run side by side.

A request takes the lock of its conversation's *lock key*
(:meth:`~.conversations.Conversations.lock_key`): the identity key of the request that created
the conversation, a fork's parent's, or the conversation's id. The key is looked up before the
request waits and again once it holds the lock: a request that waited under an identity that
meanwhile became another conversation's (or its alias) moves to that conversation's lock.

The table holds an entry only while someone holds, waits for or is about to take a key (a
reference count: a request's handler, an answer's record), so it stays as small as the work in
flight; :meth:`Locks.in_use` is what :class:`~.conversations.Conversations` asks before it forgets
a conversation's lock key (its table of them is bounded too).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from .lane import Lane

if TYPE_CHECKING:
    from .conversations import Conversations

log = logging.getLogger("contextwindow.proxy")


class Locks:
    """Lock key → (lock, references); all on the event loop's thread."""

    def __init__(self, conversations: Conversations, lane: Lane) -> None:
        self._conversations = conversations
        self._lane = lane
        self._table: dict[str, tuple[asyncio.Lock, int]] = {}
        self._wanted: dict[str, asyncio.Event] = {}  # keys whose holder would stop waiting once a request waits for them

    def __len__(self) -> int:
        """Entries: one per lock key a request or an answer's record holds, waits for or will take."""
        return len(self._table)

    def in_use(self, key: str) -> bool:
        return key in self._table

    async def acquire(self, identity_key: str) -> tuple[str, asyncio.Lock]:
        """Take the lock of a request's conversation (module docstring). Returns the key (its
        reference held: dropped by :meth:`drop`) and the acquired lock."""
        key = self._conversations.lock_key(identity_key)
        while True:
            lock = self.take(key)
            try:
                if lock.locked():
                    log.debug("conversation %s: waits for the request or answer record before it", key[:24])
                    wanted = self._wanted.pop(key, None)
                    if wanted is not None:
                        wanted.set()
                    with self._lane.waiting_for(key):  # the record may wait in the lane (proxy/lane.py): it runs now
                        await lock.acquire()
                else:
                    await lock.acquire()
            except BaseException:
                self.drop(key)
                raise
            try:
                now = self._conversations.lock_key(identity_key)
            except BaseException:
                lock.release()
                self.drop(key)
                raise
            if now == key:
                return key, lock
            lock.release()
            self.drop(key)
            log.debug("conversation %s: its conversation is %s's now; takes that lock", key[:24], now[:24])
            key = now

    async def wanted(self, key: str) -> None:
        """Return once a request waits for ``key``'s lock (its holder, an answer's record waiting
        for the lean front's word, stops waiting then: proxy/record.py)."""
        event = self._wanted.setdefault(key, asyncio.Event())
        try:
            await event.wait()
        finally:
            if self._wanted.get(key) is event:
                del self._wanted[key]

    def take(self, key: str) -> asyncio.Lock:
        """The lock of ``key``, one more reference to it held (not acquired)."""
        lock, n = self._table.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._table[key] = (lock, n + 1)
        return lock

    def drop(self, key: str) -> None:
        """One reference to ``key``'s lock given back; the entry goes with the last."""
        lock, n = self._table[key]
        if n <= 1:
            del self._table[key]
        else:
            self._table[key] = (lock, n - 1)
