"""What a user message pastes rather than says: code, configuration files, tracebacks (pure).

The ledger reads the person's own words. A pasted test with ``max_retries = 3``, a compose file with
``mem_limit: 512m`` or a traceback that prints ``log_level: debug`` states nothing the user decided, yet
read line by line each looks like a setting ("X: V", "X = V") whose snake-case key names the same words
as prose ("the max retries"), so a value in a paste retired the one the user had set (review finding 1).

:func:`without_pasted` blanks those lines (the line count stays, so nothing else moves):

* every line inside a fence (```` ``` ```` or ``~~~``, an unclosed one to the end of the message);
* in a block of lines with no blank line between them, every code line and every config line when the
  block holds any code: a code line is shaped like code — a traceback's head, frame or exception line,
  a statement keyword (``def``, ``import``, ``assert`` …), a call, a line that opens or closes a bracket
  or ends with ``;`` —, or is a config key with no value over indented lines (``services:`` opens a
  mapping), or is indented and a config line or going on from a code line (an indented line of prose
  under a list item is the item's text, not code);
* the config lines of a block that holds more of them than a person lists by hand (over
  :data:`MAX_SETTINGS`).

What stays is the user's own settings list: a few ``key: value`` lines at the margin, alone in the
message or under a lead sentence ("Updated:\\nbuild_host: kite-ci9.lan"), and every line of prose,
list items included (nested ones too: their marker says they are items, not code).
"""

from __future__ import annotations

import re

#: more config lines than this in one block is a pasted file, not a list a person typed
MAX_SETTINGS = 8

_FENCE = re.compile(r"^\s*(?:```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+\S")
# a key as config files spell it: lower case ("image", "max_retries", "log.level") or an upper-case name with an
# underscore ("LOG_LEVEL"); a capitalised label ("Note:", "Updated:") is prose
_CONFIG = re.compile(r"^(?P<k>[a-z_][\w.-]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\s*(?::|=|:=)(?:\s+|$)(?P<v>.*)$")
_CODE = re.compile(
    r"^(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|[A-Z]\w*(?:Error|Exception|Warning|Exit)\b(?:: |$)"
    # a statement keyword in the shape code gives it (prose starting "If", "let me", "return it" is not matched)
    r"|def \w+\(|class \w+\s*[(:]|import [\w.]+(?:\s+as\s+\w+)?$|from [\w.]+ import \w|assert [\w.]+(?:\(|\s*(?:==|!=|<=|>=|<|>|is not|is None))|raise [A-Z]\w*(?:\(|$)|return\s*$"
    r"|(?:const|let|var) \w+\s*=|function\s*\w*\(|#include\b|package [\w.]+;?$"
    r"|(?:SELECT|INSERT INTO|DELETE FROM|CREATE TABLE) |UPDATE \w+ SET "
    r"|[\w.]+\([^()]*\)\s*;?$"  # a call alone on its line
    r"|.*[{\[(]$|[}\])]"  # opens a bracket at its end, or closes one at its start
    r"|.*;$|.*\w\([^()]*\)(?:\s*->\s*[^:]+)?:$)",  # ends a statement with ';', a signature ending "):"
)


def _code_lines(block: list[str]) -> list[bool]:
    """For each line of a block (lines with no blank between them): is it code? Read top to bottom, an indented
    line is code when it is shaped like code or a config line, or goes on from a code line; an indented line of prose
    under a list item ("1. Reproduce the bug first.\\n   If the issue includes code, run it.") is the item's text."""
    out: list[bool] = []
    for i, line in enumerate(block):
        stripped = line.strip()
        indented = line[:1] in (" ", "\t")
        after = block[i + 1] if i + 1 < len(block) else ""
        config = _CONFIG.match(stripped)
        prev = bool(out) and out[-1]
        if _ITEM.match(line):
            code = prev and indented  # "  - name: web" under a mapping key is the paste's own list
        elif _CODE.match(stripped):
            code = True
        elif config and not config.group("v").strip():
            code = after[:1] in (" ", "\t") and not _ITEM.match(after)  # "services:" over indented lines opens a mapping
        else:
            code = indented and (config is not None or prev)
        out.append(code)
    return out


def without_pasted(text: str) -> str:
    """``text`` with the lines it pastes (code, configuration, tracebacks) blanked, line count kept."""
    if "\n" not in text and not _FENCE.match(text):
        return text  # one line: a sentence or a setting the user typed (the common case, read as it is)
    lines = text.split("\n")
    keep = [True] * len(lines)
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            rest = re.sub(r"^\s*(?:```|~~~)[`~]*", "", line).lstrip(" .,;")
            if not fenced and rest:
                lines[i] = rest  # "```. oh and the X is V": what follows a closing fence on its line is prose again
            else:
                keep[i] = False
        elif fenced:
            keep[i] = False
    start = 0
    while start < len(lines):
        if not keep[start] or not lines[start].strip():
            start += 1
            continue
        end = start
        while end < len(lines) and keep[end] and lines[end].strip():
            end += 1
        block = range(start, end)
        code = [i for i, is_code in zip(block, _code_lines(lines[start:end]), strict=True) if is_code]
        config = [i for i in block if not lines[i][:1].isspace() and _CONFIG.match(lines[i]) and i not in code]
        if code or len(config) > MAX_SETTINGS:
            for i in (*code, *config):
                keep[i] = False
        start = end
    if all(keep):
        return text
    return "\n".join(line if k else "" for line, k in zip(lines, keep, strict=True))
