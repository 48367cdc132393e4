"""The ``retrieve`` tool as a provider-neutral :class:`ToolSpec`, rendered for each provider,
and the one call an agent loop makes when the model calls it."""

from __future__ import annotations

from typing import Any

from ..errors import ContextWindowError
from ..formats.tooldefs import to_anthropic_tools, to_gemini_tools, to_openai_tools, to_responses_tools
from ..jsonbound import loads as bounded_loads
from ..messages import ToolResultPart
from ..tools import ToolSpec
from .images import retrieve_content
from .model import RETRIEVE_TOOL_NAME, OffloadSink

RETRIEVE_TOOL = ToolSpec(
    name=RETRIEVE_TOOL_NAME,
    description=(
        "Read back part of a tool output that was clipped to save context. Use the ref printed in "
        "the clip marker. Returns numbered lines from `offset` (0-based) for up to `limit` lines, or "
        "only the lines matching the regular expression `grep`. Output is bounded; it says how to "
        "ask for the next lines (a line too long for one call continues at a `column`)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "ref": {"type": "string", "description": "The ref from the clip marker, e.g. ofl_0123456789abcdef."},
            "offset": {"type": "integer", "minimum": 0, "description": "First line to return, 0-based (default 0)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return (default 200)."},
            "grep": {"type": "string", "description": "Optional regular expression; only matching lines are returned."},
            "column": {
                "type": "integer",
                "minimum": 0,
                "description": "Character position in the line at `offset` to start from, to continue a line that was cut (default 0).",
            },
        },
        "required": ["ref"],
    },
)


def retrieve_tool(provider: str) -> dict[str, Any]:
    """The retrieve tool definition for ``provider``: openai, openai_responses, anthropic or gemini."""
    render = {
        "openai": to_openai_tools,
        "openai_responses": to_responses_tools,
        "anthropic": to_anthropic_tools,
        "gemini": to_gemini_tools,
    }.get(provider)
    if render is None:
        from ..errors import ConfigError

        raise ConfigError(f"unknown provider format {provider!r} (expected openai, openai_responses, anthropic or gemini)")
    return render([RETRIEVE_TOOL])[0]


def run_retrieve_call(
    sink: OffloadSink, call_id: str, arguments: str | dict[str, Any], *, budget_tokens: int = 4000
) -> ToolResultPart:
    """Execute a model's ``retrieve`` call. Never raises for bad arguments or refs: the error goes
    back to the model as an ``is_error`` result it can read and correct."""
    try:
        args = bounded_loads(arguments, what="retrieve arguments") if isinstance(arguments, str) else dict(arguments)
        if not isinstance(args, dict):
            raise TypeError("arguments must be a JSON object")
        content = retrieve_content(
            sink,
            args.get("ref"),  # type: ignore[arg-type]  # checked by retrieve
            offset=args.get("offset", 0) or 0,
            limit=args.get("limit"),
            grep=args.get("grep"),
            budget_tokens=budget_tokens,
            column=args.get("column", 0) or 0,
        )
        return ToolResultPart(call_id=call_id, content=content, name=RETRIEVE_TOOL_NAME)
    except (ContextWindowError, ValueError, TypeError) as exc:
        from ..messages import TextPart

        msg = f"retrieve failed: {type(exc).__name__}: {exc}"
        return ToolResultPart(call_id=call_id, content=(TextPart(msg),), is_error=True, name=RETRIEVE_TOOL_NAME)
