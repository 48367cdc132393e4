"""Adapters that give agent frameworks contextwindow's context management, each an optional extra.

==============================  ==========================================  ===================
module                          what                                        extra
==============================  ==========================================  ===================
:mod:`.langchain`               ``ContextWindowMiddleware`` for ``create_agent``   ``[langchain]``
:mod:`.openai_agents`           ``ContextWindowSession`` (SDK ``Session``)  ``[openai-agents]``
:mod:`.pydantic_ai`             ``ContextWindowCapability``                 ``[pydantic-ai]``
==============================  ==========================================  ===================

Each is thin over :class:`~contextwindow.session.Session` (the one assembler): the framework's
messages are mirrored into the append-only store (clipped at the door, user rules into the
constraint ledger), and every model call gets ``Session.build()``'s view — compacted, folded,
provider-valid and within the budget — converted back to the framework's message objects.

Importing this package imports no framework; each module imports its own framework and says
which extra to install when it is missing.
"""

from __future__ import annotations

__all__: list[str] = []
