"""What several proxy test modules share, kept out of the test modules themselves (importing a
test module from another one ties them together): the upstream's scripted tool calls."""

from __future__ import annotations

from typing import Any

from contextwindow.llm.localserver import Reply, ToolCallSpec

TOOLS = [{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}]


def script(req: Any) -> Reply:
    """A tool call per request, 50 input tokens a message the request holds, 7 output tokens."""
    n = len(req.body["messages"])
    return Reply(tool_calls=(ToolCallSpec("grep", {"pattern": "retry", "n": n}, id=f"call_{n}"),), input_tokens=50 * n, output_tokens=7)
