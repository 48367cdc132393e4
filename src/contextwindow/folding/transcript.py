"""Render messages as ONE flat transcript (``USER: … / ASSISTANT: … / TOOL(name): …``).

A summarizer reads the conversation as a document inside one user message, never replayed as
chat turns (a model asked to summarize chat turns tends to continue them instead).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} chars omitted ...]\n{text[-half:]}"


def render_message(m: Message, names: dict[str, str], limit: int | None = None) -> str:
    lines: list[str] = []
    label = m.role.upper()
    for p in m.parts:
        if isinstance(p, TextPart) and p.text.strip():
            lines.append(f"{label}: {_clip(p.text, limit)}")
        elif isinstance(p, ToolCallPart):
            names[p.id] = p.name
            lines.append(f"ASSISTANT → {p.name}({_clip(p.arguments, limit)})")
        elif isinstance(p, ToolResultPart):
            name = p.name or names.get(p.call_id, "tool")
            flag = " ERROR" if p.is_error else ""
            lines.append(f"TOOL({name}){flag}: {_clip(p.text, limit)}")
        elif isinstance(p, ImagePart):
            size = f" {p.width}x{p.height}" if p.width and p.height else ""
            lines.append(f"{label}: [image{size} {p.media_type or ''}]".rstrip())
        elif isinstance(p, ReasoningPart):
            continue
    return "\n".join(lines)


def render_flat(messages: Sequence[Message], limit_per_part: int | None = None) -> str:
    names: dict[str, str] = {}
    return "\n\n".join(t for t in (render_message(m, names, limit_per_part) for m in messages) if t)
