"""What a user message pastes rather than says: code, configuration files, tracebacks (pure).

The ledger reads the person's own words. A pasted test with ``max_retries = 3``, a compose file with
``mem_limit: 512m`` or a traceback that prints ``log_level: debug`` states nothing the user decided, yet
read line by line each looks like a setting ("X: V", "X = V") whose snake-case key names the same words
as prose ("the max retries"), so a value in a paste retired the one the user had set (review finding 1).

:func:`without_pasted` blanks those lines (the line count stays, so nothing else moves):

* every line inside a fence (```` ``` ```` or ``~~~`` opening its line, an unclosed one to the end of the message;
  a line with an even number of fences — an inline span — opens none);
* in a block of lines with no blank line between them that holds real code — a traceback's head, frame or exception
  line, a statement keyword (``def``, ``import``, ``assert`` …), a call, a shell prompt, a line ending with ``;`` or
  an open bracket WITH a token of code in it (``=``, ``f(``, ``a.b``, ``snake_case``, quotes), or a mapping nested
  under a mapping — every code line, every mapping key (a key with no value over an indented config/code line), every
  indented config line and every config line at the margin.

A block with no real code is the user's: a settings list, indented or not, of any length ("Settings for the sync
job:\n  max_retries: 7"), prose ending with ``;`` or ``:(``, a label over indented lines of words ("constraints:\n
never push to main") — review of the readings, findings 3–5.

What stays is the user's own settings list: its ``key: value`` lines, at the margin or indented, alone in the
message or under a lead sentence ("Updated:\\nbuild_host: kite-ci9.lan"), and every line of prose,
list items included (nested ones too: their marker says they are items, not code).
"""

from __future__ import annotations

import re

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
    r"|\$ (?:sudo )?[\w./-]+(?: -{1,2}\w|\s*\||\s*$)"  # a shell prompt: "$ env | grep opt_", "$ make -j4"
    r"|.*\w\([^()]*\)(?:\s*->\s*[^:]+)?:$)",  # a signature ending "):"
)
# a line that ends a statement with ';', opens a bracket at its end or closes one at its start is code only with a
# token of code in it ("max_retries = 3;", "if (ok) {", "});"): prose ends with ';' or ':(' too ("The max retries is
# 7;", "the build broke again :(") — review of the readings, finding 4
_ENDS_LIKE_CODE = re.compile(r"^(?:.*(?:;|[{\[(])|[}\])].*)$")
_CODE_TOKEN = re.compile(
    r"[=<>]|\w\(|[A-Za-z_]\.[A-Za-z_]|\w_\w|::|->|[\"`]|\)\s*\{|^[\s{}\[\]();,]*$"
    r"|^(?:if|for|while|switch|catch)\s*\(|^(?:}\s*)?(?:else|try|do|finally)\s*\{$"
)
_CODE_LINE, _MAPPING, _PASTED = "code", "mapping", "pasted"


def _code_shaped(stripped: str) -> bool:
    return bool(_CODE.match(stripped)) or bool(_ENDS_LIKE_CODE.match(stripped) and _CODE_TOKEN.search(stripped))


def _code_lines(block: list[str]) -> list[str]:
    """For each line of a block (lines with no blank between them): what it is — ``"code"`` (shaped like code: a
    traceback's lines, a statement, a call), ``"mapping"`` (a config key with no value over an indented config or code
    line), ``"pasted"`` (an indented config line, or an indented line with a token of code going on from code: pasted
    only when the block holds real code) or ``""`` (prose). An indented line of plain words is prose ("constraints:\n
    never push on Fridays", an item's text under a list item)."""
    out: list[str] = []
    for i, line in enumerate(block):
        stripped = line.strip()
        indented = line[:1] in (" ", "\t")
        after = block[i + 1] if i + 1 < len(block) else ""
        config = _CONFIG.match(stripped)
        prev = bool(out) and out[-1] != ""
        label = ""
        if _ITEM.match(line):
            label = _PASTED if prev and indented else ""  # "  - name: web" under a mapping key is the paste's own list
        elif _code_shaped(stripped):
            label = _CODE_LINE
        elif config and not config.group("v").strip():
            # "services:" opens a mapping only over an indented config or code line (not over a line of words)
            nxt = after.strip()
            opens = after[:1] in (" ", "\t") and not _ITEM.match(after) and bool(_CONFIG.match(nxt) or _code_shaped(nxt))
            label = _MAPPING if opens else ""
        elif indented and (config is not None or (prev and _CODE_TOKEN.search(stripped))):
            label = _PASTED
        out.append(label)
    return out


def _real_code(block: list[str], labels: list[str]) -> bool:
    """Does the block hold code for certain: a code line, or a mapping nested under another (an indented key)?"""
    return any(lab == _CODE_LINE or (lab == _MAPPING and line[:1] in (" ", "\t")) for line, lab in zip(block, labels, strict=True))


def _fences(line: str) -> int:
    return len(re.findall(r"```|~~~", line))


_INDENTED_ARROW = re.compile(r"^(?:\t| {2,}).*(?:→|->|=>)")


def without_pasted(text: str) -> str:
    """``text`` with the lines it pastes (code, configuration, tracebacks) blanked, line count kept."""
    if "\n" not in text and not _FENCE.match(text):
        return text  # one line: a sentence or a setting the user typed (the common case, read as it is)
    lines = text.split("\n")
    keep = [True] * len(lines)
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line) and _fences(line) % 2:  # "```x``` is the key": an inline span toggles nothing
            fenced = not fenced
            rest = re.sub(r"^\s*(?:```|~~~)[`~]*", "", line).lstrip(" .,;")
            if not fenced and rest:
                lines[i] = rest  # "```. oh and the X is V": what follows a closing fence on its line is prose again
            else:
                keep[i] = False
        elif fenced or _INDENTED_ARROW.match(line):
            keep[i] = False  # (an indented "replicas: 3 -> 5" under "Output of kubectl:" is what a tool printed: review rledger, 4)
    start = 0
    while start < len(lines):
        if not keep[start] or not lines[start].strip():
            start += 1
            continue
        end = start
        while end < len(lines) and keep[end] and lines[end].strip():
            end += 1
        labels = _code_lines(lines[start:end])
        if _real_code(lines[start:end], labels):
            # the block pastes code: its code, its mappings, its indented config and its config lines at the margin
            for i, label in zip(range(start, end), labels, strict=True):
                if label or _CONFIG.match(lines[i]):
                    keep[i] = False
        start = end
    if all(keep):
        return text
    return "\n".join(line if k else "" for line, k in zip(lines, keep, strict=True))
