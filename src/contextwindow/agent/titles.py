"""A conversation's title: asked of the model after the first exchange, the first line as fallback."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..curation import first_line_title
from ..errors import ContextWindowError
from ..messages import Message, TextPart
from ..usage import Usage

TITLE_PROMPT = (
    "Write a title of at most six words for the conversation below. Answer with the title only: "
    "no quotes, no punctuation at the end."
)


def title_for(model: Any, first_user: str, first_answer: str) -> tuple[str, Usage | None, str]:
    """(title, usage of the title call or None, source: "model" or "first line")."""
    text = f"User: {first_user[:2000]}\n\nAssistant: {first_answer[:1000]}"
    try:
        done = model.complete([Message("user", (TextPart(text),))], system=TITLE_PROMPT, max_tokens=32)
    except ContextWindowError:
        return first_line_title(first_user) or "(untitled)", None, "first line"
    title = first_line_title(done.text.strip().strip('"').strip("'"))
    usage = replace(done.usage, role="title")
    if not title:
        return first_line_title(first_user) or "(untitled)", usage, "first line"
    return title, usage, "model"
