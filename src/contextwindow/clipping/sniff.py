"""Pick a clipper by content: the first KBs of the text decide; the tool name is only a hint."""

from __future__ import annotations

from .diff import diff_score
from .html import html_score
from .logs import log_score
from .measure import SNIFF_CHARS
from .outline import DEF, outline
from .search import search_score
from .text import is_numbered

SEARCH_TOOLS = frozenset({"grep", "rg", "ripgrep", "search", "find", "glob", "search_files", "find_file", "search_dir", "grep_search"})
READ_TOOLS = frozenset({"read", "read_file", "view", "cat", "open", "str_replace_editor", "view_file"})
SHELL_TOOLS = frozenset({"bash", "shell", "exec", "exec_command", "run", "execute_bash", "execute_command", "terminal", "cmd", "local_shell"})


_JSON_VALUE_START = frozenset('"{[]-0123456789tfn')


def _hint(tool_name: str | None) -> str | None:
    if not tool_name:
        return None
    name = tool_name.lower().rsplit(".", 1)[-1].rsplit("__", 1)[-1]
    if name in SEARCH_TOOLS:
        return "search"
    if name in READ_TOOLS:
        return "read"
    if name in SHELL_TOOLS:
        return "log"
    return None


def sniff(text: str, tool_name: str | None = None) -> str:
    """One of search, log, json, diff, html, read, source, text — from at most SNIFF_CHARS of ``text``."""
    head = text[:SNIFF_CHARS]
    stripped = head.lstrip()
    if stripped[:1] in ("{", "[") and text[-4096:].rstrip()[-1:] in ("}", "]"):
        second = stripped[1:64].lstrip()[:1]
        if (stripped[0] == "{" and second in ('"', "}")) or (stripped[0] == "[" and second in _JSON_VALUE_START):
            return "json"
    lines = head.split("\n")
    if len(text) > len(head) and len(lines) > 1:
        lines = lines[:-1]  # the last line of a prefix may be cut
    sample = lines[:200]
    if diff_score(sample):
        return "diff"
    if html_score(head):
        return "html"
    hint = _hint(tool_name)
    score = search_score(sample)
    if score >= 0.6 or (hint == "search" and score >= 0.3):
        return "search"
    if is_numbered(sample):
        return "read"
    marks = outline(sample)
    defs = sum(1 for k in marks.values() if k == DEF)
    if (defs >= 2 or len(marks) - defs >= 5) and len(marks) >= 4 and len(marks) >= 0.02 * len(sample):
        return "source"
    # Log signals may sit anywhere: the whole sniffed head plus the last KBs (summaries live there).
    tail = text[-4096:].split("\n")[1:] if len(text) > len(head) else []
    if log_score(lines + tail) > 0 or hint == "log":
        return "log"
    if hint == "read":
        return "text"
    return "text"
