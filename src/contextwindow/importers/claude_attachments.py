"""What a Claude Code ``attachment`` record put into the prompt. Pure.

Recent Claude Code versions (2.1.x) write what the client attaches to the conversation as records of
``type: "attachment"`` with an ``attachment`` object whose ``type`` names the kind: a nested ``CLAUDE.md``
loaded on the first read in its directory (``nested_memory``: ``content.path``, ``content.content``), an
``@``-mentioned file or directory, memories, the skills listing, hook output, a queued user message, todo
and task reminders, and more. The client sends each to the model as a meta user message wrapped in a
``<system-reminder>`` (anthropics/claude-code#68607 describes it for ``nested_memory``: "Contents of
<path>:" and the file), merged by the API with the user message around it — so it is billed, and older
versions, which logged none of it, leave exactly these steps unexplained (docs/tokens.md).

:func:`attachment_text` gives the text of the kinds whose content the record holds. Kinds whose text
the client writes from its own fixed wording (a date change, the output style, plan-mode notices, token
and budget notices…) or whose shape is not known here return None: the importer counts them as dropped,
by kind, so the report says what the estimate leaves out.
"""

from __future__ import annotations

from typing import Any

#: Meta marker of a user message made from attachment records (not the user's words, not a turn start).
ATTACHMENT_MARKER = "client_attachment"


def _str(x: Any) -> str | None:
    return x if isinstance(x, str) and x else None


def _texts(x: Any) -> str | None:
    """A string, or the strings / ``text`` blocks of a list, joined."""
    if isinstance(x, str):
        return x or None
    if isinstance(x, list):
        out = [b if isinstance(b, str) else b.get("text") for b in x if isinstance(b, (str, dict))]
        joined = "\n".join(t for t in out if isinstance(t, str) and t)
        return joined or None
    return None


def _items(x: Any) -> str | None:
    """Todo / task items (``content`` and ``status`` each) as numbered lines."""
    if not isinstance(x, list):
        return None
    lines = [f"{i}. [{t.get('status', '')}] {t.get('content') or t.get('subject') or ''}" for i, t in enumerate(x, 1) if isinstance(t, dict)]
    return "\n".join(lines) or None


def _body(att: dict[str, Any]) -> str | None:
    kind = att.get("type")
    content = att.get("content")
    if kind == "nested_memory":
        inner = content if isinstance(content, dict) else {}
        text = _str(inner.get("content")) or _str(content)
        path = _str(inner.get("path")) or _str(att.get("path")) or "CLAUDE.md"
        return f"Contents of {path}:\n\n{text}" if text else None
    if kind == "relevant_memories":
        mems = att.get("memories")
        parts = [
            f"{_str(m.get('header')) or _str(m.get('path')) or 'memory'}\n\n{m['content']}"
            for m in (mems if isinstance(mems, list) else [])
            if isinstance(m, dict) and _str(m.get("content"))
        ]
        return "\n\n".join(parts) or None
    if kind == "file":
        file = content.get("file") if isinstance(content, dict) else None
        text = _str(file.get("content")) if isinstance(file, dict) else None
        return f"Contents of {_str(att.get('filename')) or 'file'}:\n\n{text}" if text else None
    if kind == "directory":
        text = _str(content)
        return f"Listing of {_str(att.get('path')) or 'directory'}:\n\n{text}" if text else None
    if kind == "edited_text_file":
        snippet = _str(att.get("snippet"))
        return f"{_str(att.get('filename')) or 'A file'} was modified:\n{snippet}" if snippet else None
    if kind in ("todo_reminder", "task_reminder"):
        return _items(content)
    if kind == "queued_command":
        return _texts(att.get("prompt"))
    if kind == "plan_file_reference":
        return _str(att.get("planContent"))
    if kind in ("skill_listing", "selected_lines_in_ide", "critical_system_reminder", "hook_success", "hook_additional_context", "ultramemory"):
        return _texts(content)
    return None


def attachment_text(record: dict[str, Any]) -> tuple[str, str | None]:
    """``(kind, text)`` of an ``attachment`` record: the text sent to the model, wrapped as the client
    wraps it, or None when the record does not hold it (see the module docstring)."""
    att = record.get("attachment")
    if not isinstance(att, dict):
        return "?", None
    kind = att.get("type") if isinstance(att.get("type"), str) else "?"
    body = _body(att)
    return str(kind), (f"<system-reminder>\n{body}\n</system-reminder>" if body else None)
