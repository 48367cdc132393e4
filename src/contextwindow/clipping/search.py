"""Search results (grep -n, ripgrep with or without headings, grep -c, file lists): every file
is kept with its first matches, and omitted matches are counted exactly per file."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from .measure import Count, safe_count
from .select import Body, plain_gap, select_lines

FLAT_RE = re.compile(r"^(?P<path>[^\s:][^:\n]{0,400}?):(?P<ln>\d+)(?P<sep>[:-])")
COUNT_RE = re.compile(r"^(?P<path>[^\s:][^:\n]{0,400}?):(?P<cnt>\d+)\s*$")
CONTEXT_RE = re.compile(r"^(?P<path>[^\s][^\n]{0,400}?)-(?P<ln>\d+)-")
NUMLINE_RE = re.compile(r"^(?P<ln>\d+)(?P<sep>[:-])")
PATHISH_RE = re.compile(r"^(?:[A-Za-z]:)?[\w.~@+\-/\\][^\t:*?\"<>|]*$")


def looks_like_path(text: str) -> bool:
    if not text or len(text) > 400 or text[0].isspace() or text.count(" ") > 2:
        return False
    if not PATHISH_RE.match(text):
        return False
    if "/" in text or "\\" in text:
        return True
    dot = text.rfind(".")
    return 0 < dot < len(text) - 1 and text[dot + 1 :].isalnum() and len(text) - dot <= 9


@dataclass(slots=True)
class _File:
    path: str
    matches: int = 0
    lines: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Parsed:
    """Per line: the file it belongs to (or None) and its rank key."""

    files: dict[str, _File]
    owner: list[str | None]
    is_match: list[bool]
    keys: list[tuple[float, ...]]
    search_lines: int
    weight: list[int]  # matches a line stands for (N for a grep -c "path:N" line, else 1)


def parse(lines: list[str]) -> Parsed:
    files: dict[str, _File] = {}
    owner: list[str | None] = [None] * len(lines)
    is_match = [False] * len(lines)
    kinds: list[str] = ["other"] * len(lines)
    counts: list[int] = [0] * len(lines)
    weight = [1] * len(lines)
    heading: str | None = None

    def add(i: int, path: str, kind: str, n: int = 1) -> None:
        f = files.get(path)
        if f is None:
            f = files[path] = _File(path)
        owner[i] = path
        kinds[i] = kind
        f.lines.append(i)
        if kind == "match":
            is_match[i] = True
            counts[i] = f.matches
            weight[i] = n
            f.matches += n
        elif kind == "context":
            counts[i] = max(0, f.matches - 1)

    for i, line in enumerate(lines):
        if heading is not None and (m := NUMLINE_RE.match(line)):
            add(i, heading, "match" if m.group("sep") == ":" else "context")
            continue
        if (m := FLAT_RE.match(line)) and looks_like_path(m.group("path")):
            heading = None
            add(i, m.group("path"), "match" if m.group("sep") == ":" else "context")
            continue
        if (m := COUNT_RE.match(line)) and looks_like_path(m.group("path")):
            add(i, m.group("path"), "match", int(m.group("cnt")))
            continue
        if (m := CONTEXT_RE.match(line)) and m.group("path") in files:
            add(i, m.group("path"), "context")
            continue
        stripped = line.rstrip()
        if looks_like_path(stripped):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if NUMLINE_RE.match(nxt):
                heading = stripped
                add(i, stripped, "heading")
            else:
                heading = None
                add(i, stripped, "match")
            continue
        if not stripped:
            heading = None
    n = len(lines)
    first_file_line = next((i for i, o in enumerate(owner) if o is not None), n)
    keys: list[tuple[float, ...]] = []
    for i in range(n):
        kind = kinds[i]
        if kind == "heading":
            keys.append((1, -1, i))
        elif kind == "match":
            keys.append((1, counts[i], i))
        elif kind == "context":
            keys.append((1, counts[i] + 0.5, i))
        elif (i < first_file_line and i < 12) or i >= n - 3:
            keys.append((0, i))
        elif lines[i].strip() in ("", "--"):
            keys.append((4, i))
        else:
            keys.append((3, i))
    return Parsed(files, owner, is_match, keys, sum(1 for o in owner if o is not None), weight)


def search_score(lines: list[str]) -> float:
    """Share of the non-blank lines that read as search output (for the sniffer)."""
    sample = [ln for ln in lines if ln.strip() and ln.strip() != "--"]
    if len(sample) < 2:
        return 0.0
    return parse(sample).search_lines / len(sample)


RELATIVE_HEADER = "[paths below are relative to "


def compact_path_list(lines: list[str]) -> list[str]:
    """A list of paths (find/ls/glob output) with their long common directory written once."""
    paths = [i for i, ln in enumerate(lines) if looks_like_path(ln.strip())]
    others = sum(1 for ln in lines if ln.strip()) - len(paths)
    if len(paths) < 20 or others > 5:
        return lines
    prefix = os.path.commonprefix([lines[i].strip() for i in paths])  # noqa: RUF071 - cut at the last "/" below
    prefix = prefix[: prefix.rfind("/") + 1]
    if len(prefix) < 12:
        return lines
    out = list(lines)
    for i in paths:
        out[i] = out[i].strip()[len(prefix) :]
    return [f"{RELATIVE_HEADER}{prefix}]", *out]


TREE_HEADER = "[paths below as a tree: "
_TREE_HELP = (
    'a line ending in "/" is a folder and the lines indented one space more under it are inside it; '
    '"a, b" on one line are entries of the same folder; {a,b}/f stands for a/f and b/f]'
)


def _tree(paths: list[str]) -> list[str] | None:
    """``paths`` as an indented tree: one line per folder (single-child chains joined with "/"),
    the plain entries of a folder on one line. None when the paths do not suit it."""
    root: dict[str, Any] = {}
    for path in paths:
        if "\\" in path or ", " in path or "//" in path.rstrip("/"):
            return None
        node = root
        for part in path.rstrip("/").split("/"):
            node = node.setdefault(part, {})
    out: list[str] = []

    def walk(node: dict[str, Any], pad: str) -> None:
        leaves = [k for k, v in node.items() if not v]
        if leaves:
            out.append(pad + ", ".join(leaves))
        chains: list[tuple[str, Any]] = []
        for name, child in node.items():
            if not child:
                continue
            label = name
            while len(child) == 1:
                (k, v), = child.items()
                label += "/" + k
                child = v
                if not v:
                    break
            chains.append((label, child))
        # Folders holding one same-named entry each (pkg/package.json, ...) share a line: {a,b}/f.
        tails: dict[str, list[str]] = {}
        for label, child in chains:
            head, sep, tail = label.partition("/")
            if not child and sep and not any(ch in head for ch in ",{}"):
                tails.setdefault(tail, []).append(head)
        done: set[str] = set()
        for label, child in chains:
            head, _, tail = label.partition("/")
            group = tails.get(tail) if not child else None
            if group is not None and len(group) >= 3 and head in group:
                if tail not in done:
                    done.add(tail)
                    out.append(f"{pad}{{{','.join(group)}}}/{tail}")
            elif child:
                out.append(f"{pad}{label}/")
                walk(child, pad + " ")
            else:
                out.append(pad + label)

    walk(root, "")
    return out


def expand_tree(lines: list[str]) -> list[str]:
    """The paths a tree written by the search clipper stands for (folders included)."""
    out: list[str] = []
    stack: list[str] = []
    for line in lines:
        depth = len(line) - len(line.lstrip(" "))
        del stack[depth:]
        entry = line.strip()
        base = "".join(stack)
        if entry.endswith("/"):
            out.append(base + entry.rstrip("/"))
            stack.append(entry if entry != "/" else "/")
        else:
            for e in entry.split(", "):
                if e.startswith("{") and "}/" in e:
                    names, _, tail = e[1:].partition("}/")
                    out.extend(f"{base}{n}/{tail}" for n in names.split(","))
                else:
                    out.append(base + e)
    return out


def _as_tree(lines: list[str], budget: int, count: Count) -> Body | None:
    """A path list (find/ls/glob output) written as a tree, when that keeps every path within
    the budget; else None (the line selection takes over)."""
    idx: list[int] = []
    others: list[str] = []
    for i, ln in enumerate(lines):
        if looks_like_path(ln.strip()):
            idx.append(i)
        elif ln.strip():
            others.append(ln)
            if len(others) > 5:  # not a path list (grep output and the like): stop looking
                return None
    if len(idx) < 20:
        return None
    tree = _tree([lines[i].strip() for i in idx])
    if tree is None:
        return None
    footer = f"[search: {len(idx):,} paths in the full output, all listed above]"
    text = "\n".join([f"{TREE_HEADER}{_TREE_HELP}", *tree, *others, footer])
    used = safe_count(count, text)
    if used > budget:
        return None
    return Body(text, len(idx) + len(others), (f"{len(idx):,} paths written as a tree",), used)


def clip_search(text: str, budget: int, count: Count) -> Body:
    raw = text.split("\n")
    tree = _as_tree(raw, budget, count)
    if tree is not None:
        return tree
    lines = compact_path_list(raw)
    p = parse(lines)
    order = sorted(range(len(lines)), key=lambda i: p.keys[i])
    # A gap names its omitted files (with exact counts) up to about a third of the budget: a
    # file's name is worth more than a second file's first match.
    list_chars = max(240, budget * 4 // 3)  # a third of the budget in tokens, at about 4 characters a token

    def gap(start: int, end: int) -> str | None:
        omitted: dict[str, int] = {}
        others = 0
        for i in range(start, end):
            path = p.owner[i]
            if path is None:
                if lines[i].strip() not in ("", "--"):
                    others += 1
            elif p.is_match[i]:
                omitted[path] = omitted.get(path, 0) + p.weight[i]
        if not omitted:
            return plain_gap(start, end) if others else None
        parts = []
        size = 0
        for path, k in omitted.items():  # name every omitted file while the list stays small
            parts.append(f"{path} ({k:,} of {p.files[path].matches:,})")
            size += len(parts[-1]) + 2
            if size > list_chars and len(parts) >= 3:
                break
        more = len(omitted) - len(parts)
        total = sum(omitted.values())
        tail = f", and {more:,} more files" if more > 0 else ""
        if len(omitted) == 1:
            path, k = next(iter(omitted.items()))
            total_here = p.files[path].matches
            if start > 0 and p.owner[start - 1] == path:  # the file's name is on the line above
                return f"… [+{k:,} more in this file, {total_here:,} in total]"
            return f"… [{k:,} more match{'es' if k != 1 else ''} in {path} ({total_here:,} in total)]"
        return f"… [{total:,} more matches in {len(omitted):,} files: {', '.join(parts)}{tail}]"

    total_matches = sum(f.matches for f in p.files.values())
    footer = f"[search: {len(p.files):,} files, {total_matches:,} matches in the full output]"
    return select_lines(lines, order, budget, count, gap, footer=footer, max_line_chars=240)
