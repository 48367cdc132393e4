"""The agent: a small, real coding agent on :class:`~contextwindow.session.Session`.

- :mod:`.loop`   Agent (the loop: call → tools → results, until an answer), RunResult, priced
- :mod:`.tools`  Toolbox: read_file, grep, list_dir, bash, edit_file, write_file, read_skill, retrieve
- :mod:`.files`  the file tools, confined to the working directory (symlinks resolved, never followed out)
- :mod:`.shell`  the bash tool (own process group, killed at the timeout)
- :mod:`.setup`  options → model, store, Session, Agent (what ``ctxw run`` / ``ctxw chat`` use)
"""

from __future__ import annotations

from .files import ToolError, confine
from .loop import Agent, RunResult, Step, priced
from .setup import AgentOptions, open_agent
from .tools import BUILTIN_SPECS, Toolbox, describe_call

__all__ = [
    "BUILTIN_SPECS",
    "Agent",
    "AgentOptions",
    "RunResult",
    "Step",
    "ToolError",
    "Toolbox",
    "confine",
    "describe_call",
    "open_agent",
    "priced",
]
