"""A small, strict parser for the ``key: value`` subset of YAML front matter.

No YAML dependency: skills and scope files only need flat string fields. Accepted::

    ---
    name: pdf-tools
    description: "Fill and merge PDF forms"     # quoted ("..." or '...') or plain
    summary: >                                  # folded (joined by spaces) or | literal
      several lines
    allowed-tools: [Read, Grep]                 # flow values are kept as raw text
    metadata:                                   # nested blocks are tolerated, kept as None
      version: 2
    ---
    body...

Anything else (TOML, JSON, a line that is not ``key: value``, an unclosed block, a repeated
key) is malformed: :class:`FrontMatterError` names the line and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InputError

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_BLOCK = re.compile(r"^([>|])([+-]?)[ \t]*(#.*)?$")
_DQ_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "}


class FrontMatterError(InputError):
    """Front matter that is not the simple ``key: value`` subset."""


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """Parsed fields (``None`` for a nested block we do not interpret) and the body after it."""

    fields: dict[str, str | None] = field(default_factory=dict)
    body: str = ""
    present: bool = False


def split(text: str) -> tuple[list[str] | None, str]:
    """Split ``text`` into front-matter lines (``None`` when there is none) and the body."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, text
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return [ln.rstrip("\r") for ln in lines[1:i]], "\n".join(lines[i + 1 :])
    raise FrontMatterError("front matter is not closed (no '---' line after the opening '---')")


def parse(text: str) -> FrontMatter:
    """Parse the front matter at the start of ``text`` (if any) and return fields + body."""
    head, body = split(text)
    if head is None:
        return FrontMatter({}, text, present=False)
    return FrontMatter(_parse_lines(head), body.lstrip("\n"), present=True)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _parse_lines(lines: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if _indent(line):
            raise FrontMatterError(f"front matter line {i + 2} is indented but follows no block: {stripped[:60]!r}")
        m = _KEY.match(line)
        if not m:
            raise FrontMatterError(f"front matter line {i + 2} is not 'key: value': {stripped[:60]!r}")
        key, raw = m.group(1), (m.group(2) or "").strip()
        if key in out:
            raise FrontMatterError(f"front matter key {key!r} appears twice")
        # gather the indented lines that belong to this key
        j = i + 1
        block: list[str] = []
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > 0):
            block.append(lines[j])
            j += 1
        while block and not block[-1].strip():
            block.pop()
        bm = _BLOCK.match(raw)
        if bm:
            out[key] = _block_scalar(block, folded=bm.group(1) == ">", chomp=bm.group(2))
        elif raw == "":
            out[key] = None  # a nested mapping or list: tolerated, not interpreted
        else:
            if block:
                raise FrontMatterError(
                    f"front matter value of {key!r} continues on indented lines (only '>' or '|' blocks are supported)"
                )
            out[key] = _scalar(raw, key)
        i = j
    return out


def _block_scalar(block: list[str], *, folded: bool, chomp: str) -> str:
    if not block:
        return ""
    width = min(_indent(ln) for ln in block if ln.strip())
    lines = [ln[width:] if ln.strip() else "" for ln in block]
    if not folded:
        text = "\n".join(lines)
    else:
        paras: list[str] = []
        cur: list[str] = []
        for ln in lines:
            if ln:
                cur.append(ln.strip())
            else:
                paras.append(" ".join(cur))
                cur = []
        paras.append(" ".join(cur))
        text = "\n".join(paras)
    return text if chomp == "-" else text + "\n" if chomp == "+" else text.rstrip("\n") + "\n"


def _scalar(raw: str, key: str) -> str:
    if raw.startswith('"'):
        out: list[str] = []
        k = 1
        while k < len(raw):
            c = raw[k]
            if c == "\\":
                nxt = raw[k + 1 : k + 2]
                if nxt not in _DQ_ESCAPES:
                    raise FrontMatterError(f"unsupported escape '\\{nxt}' in the value of {key!r}")
                out.append(_DQ_ESCAPES[nxt])
                k += 2
                continue
            if c == '"':
                _trailing(raw[k + 1 :], key)
                return "".join(out)
            out.append(c)
            k += 1
        raise FrontMatterError(f"unterminated double-quoted value of {key!r}")
    if raw.startswith("'"):
        out = []
        k = 1
        while k < len(raw):
            c = raw[k]
            if c == "'":
                if raw[k + 1 : k + 2] == "'":
                    out.append("'")
                    k += 2
                    continue
                _trailing(raw[k + 1 :], key)
                return "".join(out)
            out.append(c)
            k += 1
        raise FrontMatterError(f"unterminated single-quoted value of {key!r}")
    # plain scalar: a " #" starts a comment
    cut = raw.find(" #")
    value = (raw[:cut] if cut >= 0 else raw).strip()
    if value[:1] in ("[", "{") and not _balanced(value):
        raise FrontMatterError(f"the flow value of {key!r} is not closed: {value[:40]!r}")
    return value


def _balanced(value: str) -> bool:
    """A flow sequence/mapping (``[a, b]``, ``{k: v}``) closes its brackets in order and ends there."""
    pairs = {"]": "[", "}": "{"}
    stack: list[str] = []
    quote = ""
    for i, c in enumerate(value):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            stack.append(c)
        elif c in "]}":
            if not stack or stack.pop() != pairs[c]:
                return False
            if not stack:
                return i == len(value) - 1
    return False


def _trailing(rest: str, key: str) -> None:
    rest = rest.strip()
    if rest and not rest.startswith("#"):
        raise FrontMatterError(f"text after the closing quote of {key!r}: {rest[:40]!r}")
